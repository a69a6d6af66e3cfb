# shellcheck shell=bash
# shellcheck disable=SC2034 # variables for the recipes and the drivers
# The runner of the package recipes, sourced by scripts/corpus-debian.sh
# (the training corpus) and scripts/eval-package.sh (the recipes behind
# `mlgo eval package`), so that a package builds the same way for both:
#
#   scripts/packages/list.tsv    every package, its language, its roles
#                                (corpus-train, corpus-validation, eval,
#                                eval-optional) and the reason it is there
#   scripts/packages/PKG.sh      PKG's recipe: only what differs from the
#                                defaults below (a package without one is
#                                built by detection)
#
# A recipe is a shell file sourced by the runner; everything in it is
# optional:
#
#   build_system=configure|cmake|make   use this one (default: the first of
#                             configure, cmake, make whose entry point exists;
#                             in the corpus, one that fails hands over to the
#                             next, and packages.tsv says so)
#   subdir=DIR                the build's entry point below the unpacked source
#   autoreconf=1              run `autoreconf -fi` before configuring
#   drop_patches=(P...)       unpack the Debian source without these patches
#                             of debian/patches/series (the others are applied)
#   configure_args=(...)      extra ./configure arguments
#   cmake_args=(...)          extra cmake -D arguments
#   make_args=(...)           make's arguments and targets (default: none for
#                             configure and cmake; "CC=$CC CXX=$CXX" for make)
#   build()                   replaces the build altogether (set build_system
#                             too: it names the build in packages.tsv)
#   build_tests()             builds what the tests need (eval only)
#   list_tests()              prints the test names, one a line (eval only)
#   run_test NAME             runs one test in the build tree (eval only)
#   profile_workload()        what `mlgo profile package` runs in the
#                             instrumented build tree (default: run_test of
#                             every list_tests entry)
#   bench_workload DIR        a benchmark on another input than the tests',
#                             run in a build tree (`mlgo eval package
#                             --profile`); $bench_input is ~1 MiB of the
#                             package's own sources (bench_make_input), DIR a
#                             scratch directory for its outputs. It runs the
#                             programs by absolute path ($PWD/...)
#   bench_programs=(F...)     the files (below the subdir) whose code the
#                             benchmark runs: programs and shared libraries,
#                             costed with the profile (`mlgo speed cost`)
#   speed_objects=ERE         the objects those files are linked from, as
#                             paths below the source (an extended regular
#                             expression matching whole paths), where the
#                             build compiles a source more than once or
#                             builds objects the benchmark does not run: the
#                             corpus of `mlgo tune --objective speed
#                             --package` (default: every object)
#   lto_link=CMD              the link of the shipped artifact under LTO,
#                             one line of shell run by `mlgo tune --package
#                             PKG --lto thin|full` (docs/tune.md "Under
#                             LTO"): it links the bitcode in $MLGO_OBJECTS
#                             (named as the corpus's modules, paths below
#                             the source with .o) into $MLGO_PROGRAM with
#                             $MLGO_LTO_FLAGS, as the package's own build
#                             links that artifact; $MLGO_SOURCE is the
#                             source tree the corpus was built in, for the
#                             link's other inputs (a version script). In
#                             single quotes: the tune expands it
#   lto_objects=ERE           the objects lto_link takes, as speed_objects
#                             names them: the corpus of that tune (default:
#                             every object)
#
# Functions run under `set -eo pipefail`; build, build_tests and run_test in
# the source directory (the subdir), list_tests before anything is built
# (package_source PKG gives it the unpacked source). They see the flavour's
# compilers and flags, which are all that differs between a corpus build
# and an eval build:
#
#                 corpus (corpus-debian.sh)        eval (mlgo eval package)
#   $CC, $CXX     clang-19/clang++-19 "$@" -Oz     clang-19/clang++-19 "$@"
#                 -Xclang -fembed-bitcode=all      -Oz [plugin flags], peak
#                                                  RSS to OUT/rss.log
#   $CFLAGS,      -Oz -Xclang -fembed-bitcode=all  -Oz
#   $CXXFLAGS     (exported, as is $LDFLAGS="")    (not exported)
#   $OPT_FLAGS    -Oz                              -Oz
#   $EMBED_FLAGS  -Xclang -fembed-bitcode=all      (empty)
#   source        unpacked in BUILD-ROOT/PKG/      copied to OUT/src
#   configure     --disable-static when offered    as shipped
#                 (static and shared objects of
#                 one source are one module twice)
#   cmake         None, BUILD_TESTING=OFF,         MinSizeRel, BUILD_TESTING=ON,
#                 BUILD_SHARED_LIBS=ON, llvm-ar,   in OUT/src/mlgo-build
#                 in BUILD-ROOT/PKG/build
#   run_make      make -j$jobs -k, under bear      make -j$jobs
#                 (compile_commands.json)
#   tests         not built                        build_tests, then run_test
#
# The wrappers append their flags after the package's own, so a Makefile's
# -O2 cannot override -Oz. $jobs, $flavour (corpus or eval), $build_dir
# (CMake's build directory) and $repo (this repository) are set too.

recipes_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
recipes_dir=$recipes_repo/scripts/packages
# The prefix of error messages; the sourcing script sets its own name.
recipes_prog=${recipes_prog:-package-recipes}
repo=$recipes_repo

die() {
  echo "$recipes_prog: $*" >&2
  exit 2
}

#===-- The list -----------------------------------------------------------===#

# recipes_list [ROLES [LANGUAGE]]: the packages of list.tsv, in its order,
# that have one of ROLES (an extended regular expression matched against
# each role, e.g. 'corpus-.*' or 'eval|eval-optional') and LANGUAGE (C or
# C++). A malformed line is an error naming the line.
recipes_list() {
  awk -F'\t' -v roles="${1:-.*}" -v lang="${2:-}" -v file="$recipes_dir/list.tsv" '
    /^#/ || /^[ \t]*$/ { next }
    $1 == "package" && $2 == "language" { next }
    NF != 4 || $1 !~ /^[a-z0-9][a-z0-9.+-]*$/ || ($2 != "C" && $2 != "C++") ||
        $3 !~ /^(corpus-train|corpus-validation|eval|eval-optional)(,(corpus-train|corpus-validation|eval|eval-optional))*$/ ||
        $4 == "" {
      printf "%s:%d: expected PACKAGE<tab>C|C++<tab>ROLE[,ROLE...]<tab>REASON, got: %s\n", file, NR, $0 > "/dev/stderr"
      bad = 1
      exit 2
    }
    seen[$1]++ { printf "%s:%d: %s is listed twice\n", file, NR, $1 > "/dev/stderr"; bad = 1; exit 2 }
    lang != "" && $2 != lang { next }
    {
      n = split($3, r, ",")
      for (i = 1; i <= n; i++)
        if (r[i] ~ ("^(" roles ")$")) { print $1; next }
    }
    END { exit bad ? 2 : 0 }
  ' "$recipes_dir/list.tsv"
}

# recipes_has PKG [ROLES]: whether list.tsv has PKG (with one of ROLES).
recipes_has() {
  local p
  for p in $(recipes_list "${2:-}"); do
    [[ $p == "$1" ]] && return 0
  done
  return 1
}

#===-- One recipe ---------------------------------------------------------===#

# recipe_load PKG: forgets the previous recipe and sources PKG's, if any.
recipe_load() {
  unset build_system subdir autoreconf drop_patches configure_args \
    cmake_args make_args bench_programs speed_objects lto_link lto_objects
  unset -f build build_tests list_tests run_test profile_workload \
    bench_workload
  pkg=$1 build_system="" subdir=. autoreconf=0
  drop_patches=() configure_args=() cmake_args=() bench_programs=()
  # Recipes name the flavour's variables in their arrays; outside a build
  # (listing tests) they are empty.
  : "${CC=}" "${CXX=}" "${CFLAGS=}" "${CXXFLAGS=}" "${OPT_FLAGS=}" \
    "${EMBED_FLAGS=}" "${jobs=1}" "${build_dir=}"
  if [[ -f $recipes_dir/$1.sh ]]; then
    # shellcheck source=/dev/null
    source "$recipes_dir/$1.sh" || die "$recipes_dir/$1.sh: cannot source it"
  fi
}

# recipe_get PKG VAR: VAR of PKG's recipe (an array joined by spaces).
recipe_get() (
  recipe_load "$1"
  local -n value=$2
  echo "${value[*]}"
)

# recipe_defines PKG FUNCTION: whether PKG's recipe defines FUNCTION.
recipe_defines() (
  recipe_load "$1"
  declare -F "$2" >/dev/null
)

# run_step FUNCTION ARGS...: runs a recipe function under set -eo pipefail
# (in a subshell, so that -e applies whatever the caller's context).
run_step() {
  local rc e=0
  [[ $- == *e* ]] && e=1
  set +e
  (
    set -eo pipefail
    "$@"
  )
  rc=$?
  ((e)) && set -e
  return $rc
}

#===-- Compilers ----------------------------------------------------------===#

# write_compiler_wrapper PATH COMPILER RSS_LOG FLAG...: a compiler that runs
# COMPILER "$@" FLAG... (the flags after the build's own), under GNU time
# appending the peak RSS (KiB) to RSS_LOG unless that is empty. The one
# place compiler wrappers are written, for the corpus and for eval.
# $wrapper_speed_flags (words without quotes), when set, are added too, but
# not to the build systems' probe programs (configure's conftest, CMake's
# try_compile under CMakeFiles/ and cmTC_*, a program on stdin): a profile
# knows the package's code, and a probe's main would be a mismatch.
write_compiler_wrapper() {
  local path=$1 compiler=$2 rss=$3 flags="" f
  shift 3
  for f in "$@"; do
    if [[ $f =~ ^[A-Za-z0-9_.,:=+/-]+$ ]]; then
      flags+=" $f"
    else
      flags+=" '${f//\'/\'\\\'\'}'"
    fi
  done
  {
    echo '#!/bin/sh'
    if [[ -n ${wrapper_speed_flags:-} ]]; then
      echo "speed='$wrapper_speed_flags'"
      echo 'for a in "$@"; do'
      echo '  case $a in'
      echo '  - | conftest* | */conftest* | *cmTC_*) speed= ;;'
      echo '  *CMakeFiles/*.c | *CMakeFiles/*.cc | *CMakeFiles/*.cpp | *CMakeFiles/*.cxx) speed= ;;'
      echo '  esac'
      echo 'done'
      flags+=' $speed'
    fi
    if [[ -n $rss ]]; then
      echo "exec /usr/bin/time -f %M -a -o '$rss' $compiler \"\$@\"$flags"
    else
      echo "exec $compiler \"\$@\"$flags"
    fi
  } >"$path" && chmod +x "$path"
}

# recipes_corpus_setup ROOT JOBS [OPT]: the corpus flavour, for every
# package of a run: the compilers ROOT/bin/clang-19-mlgo and
# clang++-19-mlgo, LLVM 19's ar, nm and ranlib first on PATH, and the
# exported build environment. OPT is the optimization level (default -Oz;
# the speed corpus is built at -O2).
recipes_corpus_setup() {
  local root=$1 tool
  flavour=corpus jobs=$2
  OPT_FLAGS=${3:--Oz}
  EMBED_FLAGS="-Xclang -fembed-bitcode=all"
  FLAGS="$OPT_FLAGS $EMBED_FLAGS"
  # shellcheck disable=SC2086 # the flags are words
  write_compiler_wrapper "$root/bin/clang-19-mlgo" clang-19 "" $FLAGS &&
    write_compiler_wrapper "$root/bin/clang++-19-mlgo" clang++-19 "" $FLAGS ||
    return 1
  # GNU ar and nm auto-load /usr/lib/bfd-plugins/LLVMgold-14.so, which
  # claims every object that carries .llvmbc, cannot read LLVM 19 bitcode,
  # and leaves the object with "no symbols": archives get an empty index
  # (static links fail with undefined references) and libtool's
  # symbol-export pipe breaks. LLVM 19's own tools read these objects, so
  # they come first on PATH.
  for tool in ar nm ranlib; do
    ln -sf "/usr/bin/llvm-$tool-19" "$root/bin/$tool" || return 1
  done
  export PATH="$root/bin:$PATH"
  CC="$root/bin/clang-19-mlgo"
  CXX="$root/bin/clang++-19-mlgo"
  export CC CXX CFLAGS="$FLAGS" CXXFLAGS="$FLAGS" LDFLAGS=""
  export DEB_BUILD_OPTIONS=nocheck
}

# recipes_eval_setup OUT JOBS FLAG...: the eval flavour, for one build into
# OUT: the compilers OUT/bin/cc and c++, appending -Oz and FLAG... and
# logging their peak RSS to OUT/rss.log. Nothing is exported: builds see
# the compilers only where a recipe passes them. From `mlgo eval package
# --evict`: MLGO_EVAL_OPT_LEVEL replaces -Oz (with -O2), and
# MLGO_EVAL_EVICT, when FLAG... load the plugin, turns on its eviction
# model with LLVM's own inliner deciding: "embedded", or a model file; and
# MLGO_EVAL_EVICT_MODEL, a model file for the plugin's eviction model
# only (the build with a decisions file for speed, tuned on that model). From
# `mlgo profile package` and `mlgo eval package --profile`:
# MLGO_EVAL_SPEED_FLAGS (-fprofile-generate, or -fprofile-use=P and the
# address map) for the package's own compiles and links (not for probes).
recipes_eval_setup() {
  local out=$1 opt=${MLGO_EVAL_OPT_LEVEL:--Oz}
  flavour=eval jobs=$2
  shift 2
  local flags=("$@")
  # MLGO_EVAL_EXTRA_FLAGS: words added to every compile and link (an LTO
  # build's -flto=thin -fuse-ld=lld ... and section flags; bench/lto-packages.sh).
  # shellcheck disable=SC2206 # words, split on purpose
  [[ -z ${MLGO_EVAL_EXTRA_FLAGS:-} ]] || flags+=($MLGO_EVAL_EXTRA_FLAGS)
  if [[ -n ${MLGO_EVAL_EVICT:-} && " ${flags[*]}" == *" -fpass-plugin="* ]]; then
    flags+=(-Xclang -mllvm -Xclang -mlgo-use-llvm-advisor
            -Xclang -mllvm -Xclang -mlgo-evict)
    [[ $MLGO_EVAL_EVICT == embedded ]] ||
      flags+=(-Xclang -mllvm -Xclang "-mlgo-evict-model=$MLGO_EVAL_EVICT")
  elif [[ -n ${MLGO_EVAL_EVICT_MODEL:-} && " ${flags[*]}" == *" -fpass-plugin="* ]]; then
    flags+=(-Xclang -mllvm -Xclang "-mlgo-evict-model=$MLGO_EVAL_EVICT_MODEL")
  fi
  set -- "${flags[@]}"
  OPT_FLAGS=$opt EMBED_FLAGS=""
  local wrapper_speed_flags=${MLGO_EVAL_SPEED_FLAGS:-}
  write_compiler_wrapper "$out/bin/cc" clang-19 "$out/rss.log" "$opt" "$@" &&
    write_compiler_wrapper "$out/bin/c++" clang++-19 "$out/rss.log" "$opt" "$@" ||
    return 1
  # A plugin, model or decisions file the compiler rejects fails here with
  # clang's own message, not in a configure probe ("C compiler cannot create
  # executables") whose reason only config.log has.
  local probe
  if ! probe=$(clang-19 -x c -c -o /dev/null - "$opt" "$@" 2>&1 <<<'int main(void) { return 0; }'); then
    echo "$recipes_prog: clang-19 $opt $* cannot compile an empty program:" >&2
    echo "$probe" >&2
    return 1
  fi
  export -n CC CXX CFLAGS CXXFLAGS 2>/dev/null
  CC=$out/bin/cc CXX=$out/bin/c++ CFLAGS=$opt CXXFLAGS=$opt
}

#===-- Building -----------------------------------------------------------===#

# run_make ARGS...: make with the flavour's options, in the current
# directory; in the corpus under bear, which adds the compile commands to
# $cc_json.
run_make() {
  if [[ $flavour == corpus ]]; then
    local append=()
    [[ -f $cc_json ]] && append=(--append)
    bear "${append[@]}" --output "$cc_json" -- make -j"$jobs" -k "$@"
  else
    make -j"$jobs" "$@"
  fi
}

#===-- Build systems ------------------------------------------------------===#

# The build systems, in the order they are tried, and the files that are
# their entry points (a source tree needs one). This is the one table of
# them: the build_with_* functions below, the corpus and eval drivers and
# `mlgo eval build` (lib/Eval/PackageEval.cpp, through `package-recipes.sh
# build-systems SRC`) all detect a build system with it.
recipes_build_systems=(configure cmake make)

# recipes_entry_points SYSTEM: SYSTEM's entry points; nothing for a name
# that is not a build system.
recipes_entry_points() {
  case $1 in
  configure) echo configure configure.ac configure.in ;;
  cmake) echo CMakeLists.txt ;;
  make) echo Makefile makefile GNUmakefile ;;
  esac
}

# recipes_has_entry_point SRC SYSTEM: whether SRC has one of SYSTEM's entry
# points (a regular file, or a symlink to one).
recipes_has_entry_point() {
  local f
  for f in $(recipes_entry_points "$2"); do
    [[ -f $1/$f ]] && return 0
  done
  return 1
}

# recipes_print_build_systems SRC: one line per build system, in the order
# they are tried: its name, "yes" or "no" (whether SRC has an entry point
# for it) and its entry points, tab-separated, e.g.
#   configure<TAB>no<TAB>configure configure.ac configure.in
recipes_print_build_systems() {
  local sys found
  for sys in "${recipes_build_systems[@]}"; do
    found=no
    recipes_has_entry_point "$1" "$sys" && found=yes
    printf '%s\t%s\t%s\n' "$sys" "$found" "$(recipes_entry_points "$sys")"
  done
}

# The three build systems. Each returns 99 when the package has no entry
# point for it, else the build's status; they run in $src and leave
# compile_commands.json in $cc_json (corpus).
build_with_configure() {
  recipes_has_entry_point "$src" configure || return 99
  # No executable configure: configure.ac (or .in) makes one.
  if ((autoreconf)) || [[ ! -x "$src/configure" ]]; then
    (cd "$src" && autoreconf -fi) || return 1
  fi
  local args=()
  if [[ $flavour == corpus ]] &&
    (cd "$src" && ./configure --help 2>/dev/null | grep -q -- --disable-static); then
    # Static and shared objects of one source are the same module twice.
    args=(--disable-static --disable-dependency-tracking)
  fi
  # CXX too: the eval flavour exports neither, and a C++ program would
  # otherwise be configured with the system's default C++ compiler.
  (cd "$src" && CC=$CC CFLAGS=$CFLAGS CXX=$CXX CXXFLAGS=$CXXFLAGS \
    ./configure "${args[@]}" "${configure_args[@]}") || return 1
  (cd "$src" && run_make "${make_args[@]}")
}

build_with_cmake() {
  recipes_has_entry_point "$src" cmake || return 99
  local flavour_args
  if [[ $flavour == corpus ]]; then
    flavour_args=(-DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=None
      -DBUILD_SHARED_LIBS=ON -DCMAKE_C_COMPILER="$CC"
      -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_AR=/usr/bin/llvm-ar-19
      -DCMAKE_RANLIB=/usr/bin/llvm-ranlib-19 -DCMAKE_NM=/usr/bin/llvm-nm-19
      -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS"
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  else
    # MinSizeRel: -Os, which the wrappers' -Oz overrides, and NDEBUG.
    flavour_args=(-DCMAKE_BUILD_TYPE=MinSizeRel -DBUILD_TESTING=ON
      -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX")
  fi
  rm -rf "$build_dir"
  cmake -S "$src" -B "$build_dir" -G "Unix Makefiles" "${flavour_args[@]}" \
    "${cmake_args[@]}" || return 1
  # CMake writes the compile commands itself: no bear.
  local k=()
  [[ $flavour == corpus ]] && k=(-k)
  make -C "$build_dir" -j"$jobs" "${k[@]}" "${make_args[@]}"
  local rc=$?
  if [[ $flavour == corpus ]]; then
    cp "$build_dir/compile_commands.json" "$cc_json"
  fi
  return $rc
}

build_with_make() {
  recipes_has_entry_point "$src" make || return 99
  # CFLAGS is not set on make's command line: that would override the
  # Makefile's own assignments, including target-specific `CFLAGS += -fPIC`
  # for shared objects (zstd, giflib); the compiler wrappers add the flags.
  declare -p make_args &>/dev/null || make_args=("CC=$CC" "CXX=$CXX")
  (cd "$src" && run_make "${make_args[@]}")
}

# recipe_build PKG SYSTEM SRC BUILD-DIR [CC-JSON]: builds PKG's source SRC
# with SYSTEM (or the recipe's build()), in a subshell; 99 if SRC has no
# entry point for SYSTEM. The flavour is set up already.
recipe_build() (
  recipe_load "$1"
  src=$3 build_dir=$4 cc_json=${5:-}
  # A corpus is the same bytes whenever it is built: time stamps a build
  # writes (redis's mkreleasehdr.sh, __DATE__ and __TIME__, which clang
  # takes from SOURCE_DATE_EPOCH) come from the package's changelog.
  if [[ $flavour == corpus ]]; then
    SOURCE_DATE_EPOCH=$(source_date_epoch "$src") || return 1
    export SOURCE_DATE_EPOCH
  fi
  if declare -F build >/dev/null; then
    cd "$src" && run_step build
    return
  fi
  "build_with_$2"
)

# source_date_epoch SRC: the time of the newest debian/changelog entry of
# the source tree SRC lies in (SRC or a directory above it), in seconds
# since the epoch.
source_date_epoch() {
  local dir=$1
  while [[ ! -f $dir/debian/changelog ]]; do
    [[ $dir == / || -z $dir ]] && {
      echo "package-recipes: no debian/changelog above '$1'" >&2
      return 1
    }
    dir=$(dirname "$dir")
  done
  dpkg-parsechangelog -l "$dir/debian/changelog" -STimestamp
}

# recipe_systems PKG: the build systems to try for PKG, in order.
recipe_systems() {
  local forced
  forced=$(recipe_get "$1" build_system)
  if [[ -n $forced ]]; then
    echo "$forced"
  else
    echo "${recipes_build_systems[@]}"
  fi
}

# unpack_without_patches DSC DIR DROPS: unpacks DSC into DIR (replaced)
# without the Debian patches named in DROPS (space-separated), applying
# the others in series order.
unpack_without_patches() {
  local dsc=$1 dir=$2 drop=" $3 " p
  rm -rf "$dir"
  (cd "$(dirname "$dsc")" && dpkg-source -q --skip-patches -x "$dsc" "$dir") ||
    return 1
  while read -r p; do
    [[ -z "$p" || "$p" == \#* || "$drop" == *" $p "* ]] && continue
    (cd "$dir" && patch -p1 -s <"debian/patches/$p") || return 1
  done <"$dir/debian/patches/series"
}

#===-- Helpers for recipes' tests ------------------------------------------===#

# The unpacked source of PKG in the default cache (build/src), for recipes
# that read their test names from it.
package_source() {
  "$recipes_repo/scripts/fetch-source.sh" "$1"
}

# The TESTS list of tests/Makefile.in in SRC, as automake wrote it, without
# $(EXEEXT) (empty here) and conditional additions ($(am__append_N)).
automake_tests() {
  sed -n '/^TESTS = /,/[^\\]$/p' "$1/tests/Makefile.in" |
    sed 's/^TESTS = //; s/\\$//; s/\$(EXEEXT)//g' | tr -s ' \t' '\n' |
    grep -v -e '^$' -e '^\$('
}

# One entry of automake's TESTS, run by its own harness; a failure prints
# the test's log (tests/NAME.log).
run_automake_test() {
  [[ $1 =~ ^[A-Za-z0-9_.-]+$ ]] || die "no $pkg test '$1'"
  make -C tests check TESTS="$1" || {
    cat "tests/$1.log" >&2
    exit 1
  }
}

# One registered ctest of the CMake build in mlgo-build.
run_ctest() {
  [[ $1 =~ ^[A-Za-z0-9_:-]+$ ]] || die "no $pkg test '$1'"
  cd mlgo-build
  ctest --output-on-failure --no-tests=error -R "^$1\$"
}

# bench_make_input SRC FILE: the benchmarks' input, unless FILE exists:
# exactly 1 MiB of text, the C and C++ sources and headers under SRC
# concatenated in path order (C locale), repeated as often as needed. The
# same bytes for every build of a package, and not its tests' data.
bench_make_input() {
  [[ -s $2 ]] && return 0
  local files
  files=$(cd "$1" && find . -type f \( -name '*.c' -o -name '*.h' -o \
    -name '*.cc' -o -name '*.cpp' \) | LC_ALL=C sort)
  [[ -n $files ]] || die "$1 has no C or C++ source for a benchmark input"
  : >"$2.tmp"
  while (($(stat -c %s "$2.tmp") < 1048576)); do
    # shellcheck disable=SC2086 # one path a line, no spaces in sources
    (cd "$1" && cat $files) >>"$2.tmp"
  done
  truncate -s 1048576 "$2.tmp" && mv "$2.tmp" "$2"
}

#===-- Checking the recipes -----------------------------------------------===#

# recipes_check: that list.tsv parses, that every recipe file is a listed
# package's, that every recipe loads and names a known build system (and
# one when it defines build()), and that every package eval can evaluate
# has its tests; prints a summary, or every problem and returns 1.
recipes_check() {
  local all p f bad=0 evaluable
  all=$(recipes_list) || return 2
  evaluable=$(recipes_list 'eval|eval-optional') || return 2
  for f in "$recipes_dir"/*.sh; do
    p=$(basename "$f" .sh)
    if ! grep -qxF -- "$p" <<<"$all"; then
      echo "$recipes_prog: $f: '$p' has no line in $recipes_dir/list.tsv" >&2
      bad=1
    fi
  done
  for p in $all; do
    (
      recipe_load "$p"
      f=$recipes_dir/$p.sh
      if [[ -n $build_system && -z $(recipes_entry_points "$build_system") ]]; then
        echo "$recipes_prog: $f: build_system '$build_system' is not configure, cmake or make" >&2
        exit 1
      fi
      if declare -F build >/dev/null && [[ -z $build_system ]]; then
        echo "$recipes_prog: $f: build() needs a build_system (its name in packages.tsv)" >&2
        exit 1
      fi
      if grep -qxF -- "$p" <<<"$evaluable" &&
        ! { declare -F list_tests && declare -F run_test; } >/dev/null; then
        echo "$recipes_prog: $p can be evaluated (list.tsv) but has no list_tests and run_test in $f" >&2
        exit 1
      fi
    ) || bad=1
  done
  ((bad == 0)) || return 1
  echo "$(wc -w <<<"$all") packages, $(find "$recipes_dir" -name '*.sh' | wc -l) recipes: ok"
}

# Run, not sourced: the list and the check, for people and tests, and the
# build systems of a source tree, for `mlgo eval build`.
#   package-recipes.sh list [ROLES [LANGUAGE]]
#   package-recipes.sh check
#   package-recipes.sh build-systems SRC
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -uo pipefail
  case ${1:-} in
  list) recipes_list "${2:-}" "${3:-}" ;;
  check) recipes_check ;;
  build-systems)
    [[ -d ${2:-} ]] || die "build-systems: '${2:-}' is not a directory"
    recipes_print_build_systems "$2"
    ;;
  *) die "usage: package-recipes.sh list [ROLES [LANGUAGE]] | check | build-systems SRC" ;;
  esac
fi
