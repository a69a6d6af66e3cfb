#!/usr/bin/env bash
# Package recipes for `mlgo eval package` (tools/mlgo/EvalCommands.cpp), which
# runs this script and does the measuring, timing and reporting itself. The
# recipes are shell because building a Debian source package is shell work;
# everything that must be exact (sizes, times, RSS, test verdicts) is C++.
#
#   eval-package.sh packages                     the packages with a recipe
#   eval-package.sh fetch PKG CACHE              unpacked Debian source dir
#   eval-package.sh build PKG SRC OUT JOBS [PLUGIN [MODEL]]
#       copies SRC to OUT/src and builds it there with clang-19 -Oz (plus the
#       plugin, and -mlgo-model=MODEL, when given). The compilers are wrappers
#       in OUT/bin that append "-Oz" (so a Makefile's own -O2 cannot override
#       it) and the plugin flags, and record each run's peak RSS (KiB, GNU
#       time's %M) in OUT/rss.log.
#   eval-package.sh tests PKG                    the package's test names
#   eval-package.sh test PKG OUT NAME            runs one test in OUT/src;
#       exit status 0 means it passed
#
# Tests are the package's own suite where it has one: zlib's `make
# teststatic/testshared/test64`, bzip2's `make test` steps (one test per
# sample file and direction). Debian's lua5.4 source carries no test suite
# (upstream's lua-5.4.4-tests is a separate tarball), so lua5.4 runs the
# scripts in test/Eval/Inputs/lua/, each a set of assertions over one part of
# the language and its libraries, with lua and with luac-compiled chunks.
# ninja-build (C++) runs its own unit-test binary, ninja_test, and builds a
# small project with the ninja it built (a first build, an incremental
# rebuild after touching one input, and a no-op run). lzip runs `make
# check`, uchardet one ctest per sample file (charset detection), cjson its
# cJSON_test and Unity test programs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "eval-package: $*" >&2; exit 2; }
packages=(zlib bzip2 lua5.4 ninja-build xz-utils gzip tinyxml2 yaml-cpp cmark
  lzip uchardet cjson)

known() {
  local p
  for p in "${packages[@]}"; do [[ $p == "$1" ]] && return 0; done
  die "no recipe for package '$1' (known: ${packages[*]})"
}

write_wrapper() { # NAME COMPILER OUT EXTRA...
  local name=$1 compiler=$2 out=$3; shift 3
  local extra="" a
  for a in "$@"; do extra+=" '$a'"; done
  cat >"$out/bin/$name" <<EOF
#!/bin/sh
exec /usr/bin/time -f %M -a -o '$out/rss.log' $compiler "\$@" -Oz$extra
EOF
  chmod +x "$out/bin/$name"
}

lua_makefile() { # a plain Makefile for lua's src/ (Debian's wants libtool)
  cat <<'EOF'
CFLAGS = -Wall -Wextra -DLUA_COMPAT_5_3 -DLUA_USE_LINUX
LIB_SRC = $(filter-out lua.c luac.c,$(wildcard *.c))
LIB_OBJ = $(LIB_SRC:.c=.o)
all: lua luac
liblua.a: $(LIB_OBJ)
	ar rcs $@ $(LIB_OBJ)
lua: lua.o liblua.a
	$(CC) -o $@ lua.o liblua.a -lm -ldl
luac: luac.o liblua.a
	$(CC) -o $@ luac.o liblua.a -lm -ldl
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
EOF
}

cmd=${1:-}; shift || true
case $cmd in
packages)
  printf '%s\n' "${packages[@]}"
  ;;
fetch)
  known "$1"
  exec "$root/scripts/fetch-source.sh" "$1" "$2"
  ;;
build)
  pkg=$1 src=$2 out=$3 jobs=$4 plugin=${5:-} model=${6:-}
  known "$pkg"
  rm -rf "$out"; mkdir -p "$out/bin"; : >"$out/rss.log"
  extra=(-Wno-unused-command-line-argument)
  if [[ -n $plugin ]]; then
    extra+=("-fplugin=$plugin" "-fpass-plugin=$plugin")
    [[ -z $model ]] || extra+=(-mllvm "-mlgo-model=$model")
  fi
  write_wrapper cc clang-19 "$out" "${extra[@]}"
  write_wrapper c++ clang++-19 "$out" "${extra[@]}"
  cp -a "$src" "$out/src"
  cd "$out/src"
  cc=$out/bin/cc
  case $pkg in
  zlib)
    CC=$cc CFLAGS="-Oz" ./configure
    make -j"$jobs" all all64
    ;;
  bzip2)
    # The shared library's objects are built with -fPIC under the same
    # names as the static ones, so build it first and clean in between.
    make -j"$jobs" -f Makefile-libbz2_so CC="$cc"
    rm -f ./*.o
    make -j"$jobs" CC="$cc" libbz2.a bzip2 bzip2recover
    ;;
  lua5.4)
    # debian/rules generates this header (luaconf.h includes it).
    echo "#define DEB_HOST_MULTIARCH \"$(gcc -dumpmachine 2>/dev/null ||
      clang-19 -dumpmachine)\"" >src/lua5.4-deb-multiarch.h
    lua_makefile >src/Makefile.mlgo
    make -j"$jobs" -C src -f Makefile.mlgo CC="$cc"
    ;;
  ninja-build)
    # Upstream's CMake build; re2c is not needed (the generated lexers are
    # in the source). Only the tool and its test binary, not the perftests.
    # MinSizeRel, not Release: ninja turns on LTO for Release, and then the
    # link step's own inliner (LLVM's, not mlgo's) re-optimizes everything.
    cmake -S . -B mlgo-build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=MinSizeRel \
      -DBUILD_TESTING=ON -DCMAKE_C_COMPILER="$cc" \
      -DCMAKE_CXX_COMPILER="$out/bin/c++"
    make -j"$jobs" -C mlgo-build ninja ninja_test
    ;;
  xz-utils | gzip)
    # Autotools with the tarball's own configure; the test programs are
    # built here so that a test run only runs them. MAKEINFO=true: gzip's
    # manual would need texinfo, and no artifact depends on it.
    CC=$cc CFLAGS="-Oz" ./configure --disable-nls >configure.log
    make -j"$jobs" MAKEINFO=true
    make -j"$jobs" -C tests check TESTS=
    ;;
  tinyxml2)
    # Upstream's plain Makefile: the static library and its test program.
    make -j"$jobs" CXX="$out/bin/c++" CXXFLAGS="-Oz" xmltest staticlib
    ;;
  yaml-cpp | cmark | uchardet | cjson)
    # Upstream's CMake build with its tests (yaml-cpp's link Debian's
    # googletest); MinSizeRel for -Os flags the wrappers turn into -Oz.
    # cjson's own warning flags include -Werror and -fstack-protector-strong:
    # off, so that the build is the compiler's -Oz and nothing else. (Each
    # project ignores the other projects' options.)
    cmake -S . -B mlgo-build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=MinSizeRel \
      -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$out/bin/c++" \
      -DYAML_CPP_BUILD_TESTS=ON -DYAML_CPP_BUILD_TOOLS=OFF \
      -DENABLE_CUSTOM_COMPILER_FLAGS=OFF >configure.log
    make -j"$jobs" -C mlgo-build
    ;;
  lzip)
    # Its own configure script (not autoconf's), which takes CXX and
    # CXXFLAGS as arguments.
    ./configure CXX="$out/bin/c++" CXXFLAGS="-Oz" >configure.log
    make -j"$jobs"
    ;;
  esac
  ;;
tests)
  known "$1"
  case $1 in
  zlib) printf '%s\n' teststatic testshared test64 ;;
  bzip2)
    for i in 1 2 3; do echo "sample$i-compress"; done
    for i in 1 2 3; do echo "sample$i-decompress"; done
    ;;
  lua5.4)
    for f in "$root"/test/Eval/Inputs/lua/*.lua; do
      b=$(basename "$f" .lua)
      echo "$b"; echo "$b-luac"
    done
    ;;
  ninja-build) printf '%s\n' ninja_test build-project ;;
  xz-utils | gzip)
    # The TESTS list of tests/Makefile.in, as automake wrote it, without
    # $(EXEEXT) (empty here) and conditional additions ($(am__append_N)).
    src=$("$root/scripts/fetch-source.sh" "$1")
    sed -n '/^TESTS = /,/[^\\]$/p' "$src/tests/Makefile.in" |
      sed 's/^TESTS = //; s/\\$//; s/\$(EXEEXT)//g' | tr -s ' \t' '\n' |
      grep -v -e '^$' -e '^\$('
    ;;
  tinyxml2) echo xmltest ;;
  yaml-cpp) echo yaml-cpp-tests ;;
  cmark)
    # The add_test names of test/CMakeLists.txt, but for the placeholder
    # it registers instead of the spec tests when python3 is missing.
    src=$("$root/scripts/fetch-source.sh" "$1")
    sed -n 's/^ *add_test(\(NAME \)\{0,1\}\([A-Za-z0-9_]*\).*/\2/p' \
      "$src/test/CMakeLists.txt" | grep -v '^skipping_spectests$' | sort -u
    ;;
  lzip) echo check ;;
  uchardet)
    # One test per sample file, test/<language>/<charset>.*, named
    # "<language>:<charset>" as test/CMakeLists.txt names them, without the
    # five it skips as known broken.
    src=$("$root/scripts/fetch-source.sh" "$1")
    for f in "$src"/test/[a-z][a-z]/*; do
      lang=$(basename "$(dirname "$f")") charset=$(basename "$f")
      echo "$lang:${charset%%.*}"
    done | grep -v -x -e ja:utf-16le -e ja:utf-16be -e es:iso-8859-15 \
      -e da:iso-8859-1 -e he:iso-8859-8 | sort
    ;;
  cjson)
    # cJSON_test (CMakeLists.txt) and the unity tests of tests/CMakeLists.txt.
    src=$("$root/scripts/fetch-source.sh" "$1")
    echo cJSON_test
    sed -n '/set(unity_tests/,/)/p' "$src/tests/CMakeLists.txt" |
      sed '1d;$d' | tr -d ' '
    ;;
  esac
  ;;
test)
  pkg=$1 out=$2 name=$3
  known "$pkg"
  cd "$out/src"
  case $pkg in
  zlib)
    [[ $name =~ ^(teststatic|testshared|test64)$ ]] || die "no zlib test '$name'"
    make "$name"
    ;;
  bzip2)
    # The commands of bzip2's `make test`: compress sampleN.ref at level N
    # and compare with sampleN.bz2; decompress sampleN.bz2 (sample3 with
    # -s, the small-memory decoder) and compare with sampleN.ref.
    [[ $name =~ ^sample([123])-(compress|decompress)$ ]] || die "no bzip2 test '$name'"
    i=${BASH_REMATCH[1]}
    if [[ ${BASH_REMATCH[2]} == compress ]]; then
      ./bzip2 "-$i" <"sample$i.ref" >"sample$i.rb2"
      cmp "sample$i.bz2" "sample$i.rb2"
    else
      flag=-d; [[ $i == 3 ]] && flag=-ds
      ./bzip2 $flag <"sample$i.bz2" >"sample$i.tst"
      cmp "sample$i.tst" "sample$i.ref"
    fi
    ;;
  lua5.4)
    base=${name%-luac}
    script=$root/test/Eval/Inputs/lua/$base.lua
    [[ -f $script ]] || die "no lua test '$name'"
    cd src
    if [[ $name == *-luac ]]; then
      ./luac -o "$base.luac" "$script"
      ./lua "$base.luac"
    else
      ./lua "$script"
    fi
    ;;
  ninja-build)
    case $name in
    ninja_test) ./mlgo-build/ninja_test ;;
    build-project)
      # Concatenates generated parts through a rule with a depfile; checks
      # the output, that touching one input rebuilds only what depends on
      # it, and that a third run has nothing to do.
      ninja=$PWD/mlgo-build/ninja
      p=$out/project; rm -rf "$p"; mkdir -p "$p"; cd "$p"
      printf 'a\n' >a.in; printf 'b\n' >b.in
      cat >build.ninja <<'NINJA'
rule gen
  command = tr a-z A-Z < $in > $out && echo "$out: $in" > $out.d
  depfile = $out.d
  deps = gcc
rule cat
  command = cat $in > $out
build a.out: gen a.in
build b.out: gen b.in
build all.txt: cat a.out b.out
default all.txt
NINJA
      "$ninja" >first.log
      [[ $(cat all.txt) == $'A\nB' ]] || die "ninja-build: wrong all.txt"
      grep -q '\[3/3\]' first.log || die "ninja-build: first build was not 3 steps"
      sleep 1; printf 'bb\n' >b.in
      "$ninja" >second.log
      [[ $(cat all.txt) == $'A\nBB' ]] || die "ninja-build: rebuild missed b.in"
      grep -q '\[2/2\]' second.log || die "ninja-build: rebuild was not 2 steps"
      "$ninja" | grep -q 'no work to do' || die "ninja-build: third run did work"
      ;;
    *) die "no ninja-build test '$name'" ;;
    esac
    ;;
  xz-utils | gzip)
    # One entry of automake's TESTS, run by its own harness; the test's
    # log is tests/NAME.log.
    [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || die "no $pkg test '$name'"
    make -C tests check TESTS="$name" || { cat "tests/$name.log" >&2; exit 1; }
    ;;
  tinyxml2)
    [[ $name == xmltest ]] || die "no tinyxml2 test '$name'"
    ./xmltest
    ;;
  yaml-cpp)
    [[ $name == yaml-cpp-tests ]] || die "no yaml-cpp test '$name'"
    ./mlgo-build/test/yaml-cpp-tests
    ;;
  cmark | uchardet | cjson)
    # One registered ctest (uchardet's are named "<language>:<charset>").
    [[ $name =~ ^[A-Za-z0-9_:-]+$ ]] || die "no $pkg test '$name'"
    cd mlgo-build
    ctest --output-on-failure --no-tests=error -R "^$name\$"
    ;;
  lzip)
    [[ $name == check ]] || die "no lzip test '$name'"
    make check
    ;;
  esac
  ;;
*)
  die "usage: eval-package.sh packages|fetch|build|tests|test ..."
  ;;
esac
