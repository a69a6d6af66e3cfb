#!/usr/bin/env bash
# The package steps of `mlgo eval package` (lib/Eval/PackageEval.cpp), which
# runs this script and does the measuring, timing and reporting itself.
# The steps are shell because building a Debian source package is shell
# work; everything that must be exact (sizes, times, RSS, test verdicts) is
# C++. How each package is built and tested is its recipe,
# scripts/packages/PKG.sh, the one scripts/corpus-debian.sh builds the
# training corpus with (scripts/package-recipes.sh runs both).
#
#   eval-package.sh packages                     the packages it can evaluate
#                                                (roles eval, eval-optional of
#                                                scripts/packages/list.tsv)
#   eval-package.sh fetch PKG CACHE [--for-profile]
#                                                unpacked Debian source dir
#                                                (--for-profile: `mlgo profile
#                                                package`, which also takes a
#                                                training package whose recipe
#                                                has a profile_workload)
#   eval-package.sh build PKG SRC OUT JOBS [PLUGIN [MODEL [DECISIONS]]]
#       copies SRC to OUT/src (unpacks it there without the recipe's
#       drop_patches) and builds it there with clang-19 -Oz (plus the plugin,
#       -mlgo-model=MODEL when MODEL is given and not empty, and
#       -mlgo-decisions=DECISIONS when given), then what its tests need. The
#       compilers are wrappers in OUT/bin that append "-Oz" (so a Makefile's
#       own -O2 cannot override it) and the plugin flags, and record each
#       run's peak RSS (KiB, GNU time's %M) in OUT/rss.log.
#   eval-package.sh corpus-build PKG SRC OUT JOBS
#       the same build with stock clang-19 -Oz and -Xclang
#       -fembed-bitcode=all, for `mlgo tune --package` to extract a corpus
#       from (its objects carry their bitcode and cc1 command)
#   eval-package.sh tests PKG                    the package's test names
#   eval-package.sh test PKG OUT NAME            runs one test in OUT/src;
#       exit status 0 means it passed
#   eval-package.sh profile-workload PKG OUT     the recipe's profile
#       workload in OUT/src (default: every test), for `mlgo profile package`
#   eval-package.sh profile-run PKG OUT CMD      CMD (`mlgo profile package
#       --run`) in OUT/src's build tree, with MLGO_BUILD_DIR set to it
#   eval-package.sh bench PKG SRC OUT SCRATCH    the recipe's benchmark in
#       OUT/src, on SCRATCH/input (made from SRC's sources once), its
#       outputs in SCRATCH
#   eval-package.sh speed-objects PKG            the recipe's speed_objects
#       (`mlgo tune --objective speed --package`), or nothing
#   eval-package.sh lto-objects PKG              the recipe's lto_objects
#       (`mlgo tune --package --lto`), or nothing
#   eval-package.sh lto-link PKG                 the recipe's lto_link, or
#       nothing
#   eval-package.sh bench-programs PKG           the files the benchmark
#       runs the code of, relative to OUT/src, one a line
# `build` reads MLGO_EVAL_SPEED_FLAGS (package-recipes.sh,
# recipes_eval_setup): the profile flags of the package's own compiles.
set -euo pipefail
# shellcheck disable=SC2034 # read by package-recipes.sh
recipes_prog=eval-package
# shellcheck source-path=SCRIPTDIR source=package-recipes.sh
source "$(dirname "$0")/package-recipes.sh"

known() {
  recipes_has "$1" 'eval|eval-optional' ||
    die "no recipe for package '$1' (known: $(recipes_list 'eval|eval-optional' | tr '\n' ' ' | sed 's/ $//'))"
}

# profiled PKG: the steps `mlgo profile package` runs (fetch --for-profile,
# build, profile-workload) also serve a training package that is not
# evaluated but whose recipe has a profile workload (the speed corpus
# profiles those); `mlgo eval package` fetches first, without the flag, and
# so stops at once for such a package.
profiled() {
  if recipes_has "$1" 'eval|eval-optional'; then return; fi
  if recipes_has "$1" && [[ -f $recipes_dir/$1.sh ]] &&
    grep -q '^profile_workload()' "$recipes_dir/$1.sh"; then
    return
  fi
  die "no recipe for package '$1' (known: $(recipes_list 'eval|eval-optional' | tr '\n' ' ' | sed 's/ $//'); training packages whose recipe has a profile_workload)"
}

cmd=${1:-}
shift || true
case $cmd in
packages)
  recipes_list 'eval|eval-optional'
  ;;
fetch)
  if [[ ${3:-} == --for-profile ]]; then profiled "$1"; else known "$1"; fi
  exec "$repo/scripts/fetch-source.sh" "$1" "$2"
  ;;
build | corpus-build)
  pkg=$1 src=$2 out=$3
  profiled "$pkg"
  rm -rf "$out"
  mkdir -p "$out/bin"
  : >"$out/rss.log"
  extra=(-Wno-unused-command-line-argument)
  [[ $cmd != corpus-build ]] || extra+=(-Xclang -fembed-bitcode=all)
  if [[ $cmd == build && -n ${5:-} ]]; then
    extra+=("-fplugin=$5" "-fpass-plugin=$5")
    [[ -z ${6:-} ]] || extra+=(-Xclang -mllvm -Xclang "-mlgo-model=$6")
    [[ -z ${7:-} ]] || extra+=(-Xclang -mllvm -Xclang "-mlgo-decisions=$7")
  fi
  recipes_eval_setup "$out" "$4" "${extra[@]}"
  if [[ $cmd == corpus-build || " ${MLGO_EVAL_EXTRA_FLAGS:-} " == *" -flto"* ]]; then
    # Objects with .llvmbc (and an LTO build's bitcode objects) need LLVM's
    # ar, nm and ranlib (see the corpus
    # flavour in package-recipes.sh).
    for tool in ar nm ranlib; do
      ln -sf "/usr/bin/llvm-$tool-19" "$out/bin/$tool"
      # CMake looks for llvm-ar beside a Clang: LLVM 19's, not an older
      # /usr/bin/llvm-ar that cannot read LLVM 19 bitcode.
      [[ $cmd == corpus-build ]] || ln -sf "/usr/bin/llvm-$tool-19" "$out/bin/llvm-$tool"
    done
    export PATH="$out/bin:$PATH"
  fi
  drops=$(recipe_get "$pkg" drop_patches)
  if [[ -n $drops ]]; then
    dsc=$(ls "$(dirname "$src")"/*.dsc | head -1)
    unpack_without_patches "$dsc" "$out/src" "$drops" ||
      die "$pkg: unpacking $dsc without $drops failed"
  else
    cp -a "$src" "$out/src"
  fi
  # The first build system the source has (or the recipe's); eval does not
  # fall back to another, which would build something else.
  sub=$(recipe_get "$pkg" subdir)
  status=99
  for sys in $(recipe_systems "$pkg"); do
    set +e
    recipe_build "$pkg" "$sys" "$out/src/$sub" "$out/src/mlgo-build"
    status=$?
    set -e
    [[ $status == 99 ]] || break
  done
  [[ $status != 99 ]] || die "$pkg: no build system found in $out/src/$sub (tried $(recipe_systems "$pkg"))"
  [[ $status == 0 ]] || exit "$status"
  recipe_load "$pkg"
  build_dir=$out/src/mlgo-build
  if declare -F build_tests >/dev/null; then
    cd "$out/src/$sub"
    run_step build_tests
  fi
  ;;
tests)
  known "$1"
  recipe_load "$1"
  declare -F list_tests >/dev/null || die "$1: its recipe has no list_tests"
  run_step list_tests
  ;;
test)
  pkg=$1 out=$2
  known "$pkg"
  recipe_load "$pkg"
  declare -F run_test >/dev/null || die "$pkg: its recipe has no run_test"
  cd "$out/src/$(recipe_get "$pkg" subdir)"
  run_step run_test "$3"
  ;;
profile-workload)
  pkg=$1 out=$2
  profiled "$pkg"
  recipe_load "$pkg"
  cd "$out/src/$(recipe_get "$pkg" subdir)"
  if declare -F profile_workload >/dev/null; then
    run_step profile_workload
  else
    declare -F list_tests >/dev/null && declare -F run_test >/dev/null ||
      die "$pkg: its recipe has neither a profile_workload nor tests"
    for t in $(run_step list_tests); do
      echo "profile workload: $pkg: test $t"
      run_step run_test "$t" || die "$pkg: test '$t' failed in the profile workload"
    done
  fi
  ;;
speed-objects)
  profiled "$1"
  recipe_get "$1" speed_objects
  ;;
lto-objects | lto-link)
  known "$1"
  value=$(recipe_get "$1" "${cmd/-/_}")
  # Lines continued with a backslash are one line.
  value=${value//$'\\\n'/}
  [[ $value != *$'\n'* ]] || die "$1: the recipe's ${cmd/-/_} is more than one line (scripts/packages/$1.sh)"
  echo "$value"
  ;;
profile-run)
  pkg=$1 out=$2 cmd=$3
  profiled "$pkg"
  recipe_load "$pkg"
  cd "$out/src/$(recipe_get "$pkg" subdir)"
  MLGO_BUILD_DIR=$PWD bash -c "$cmd" ||
    die "$pkg: the profile workload '$cmd' failed"
  ;;
bench)
  pkg=$1 src=$2 out=$3 scratch=$4
  known "$pkg"
  recipe_load "$pkg"
  declare -F bench_workload >/dev/null ||
    die "$pkg: its recipe has no bench_workload (scripts/packages/$pkg.sh)"
  mkdir -p "$scratch"
  bench_make_input "$src" "$scratch/input"
  bench_input=$scratch/input
  cd "$out/src/$(recipe_get "$pkg" subdir)"
  run_step bench_workload "$scratch"
  ;;
bench-programs)
  known "$1"
  recipe_load "$1"
  ((${#bench_programs[@]})) ||
    die "$1: its recipe names no bench_programs (scripts/packages/$1.sh)"
  sub=$(recipe_get "$1" subdir)
  for f in "${bench_programs[@]}"; do
    if [[ $sub == . ]]; then echo "$f"; else echo "$sub/$f"; fi
  done
  ;;
*)
  die "usage: eval-package.sh packages|fetch|build|tests|test|profile-workload|bench|bench-programs ..."
  ;;
esac
