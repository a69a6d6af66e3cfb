#!/usr/bin/env bash
# The build steps of `mlgo eval build` (lib/Eval/PackageEval.cpp), which
# runs this script and does the measuring, timing and reporting itself: a
# user's own source tree, built as `mlgo eval package` builds a Debian
# package (the same compiler wrappers and build systems, from
# package-recipes.sh), without a recipe.
#
#   eval-build.sh build SYSTEM SRC OUT JOBS PLUGIN MODEL DECISIONS
#                 [configure ARG | make ARG]...
#       builds the source tree SRC with SYSTEM (configure, cmake or make)
#       into OUT (replaced) with clang-19 -Oz, plus the plugin when PLUGIN
#       is not empty (-mlgo-model=MODEL and -mlgo-decisions=DECISIONS when
#       those are not empty). The compilers are wrappers in OUT/bin that
#       append the flags (so a Makefile's own -O2 cannot override -Oz) and
#       record each run's peak RSS in OUT/rss.log. CMake builds out of the
#       tree, in OUT/build (MinSizeRel, BUILD_TESTING=ON, as for packages);
#       configure and make build in a copy, OUT/src, which leaves out every
#       directory holding a .mlgo-eval-work file (mlgo eval build's work
#       directories, this one and earlier ones, when they lie inside SRC).
#       Each "configure ARG" goes to ./configure or cmake, each "make ARG"
#       to make.
#   eval-build.sh corpus-build SYSTEM SRC OUT JOBS [configure ARG | make ARG]...
#       the same build with stock clang-19 (-Oz, or MLGO_EVAL_OPT_LEVEL) and
#       -Xclang -fembed-bitcode=all, for `mlgo tune build` to extract a
#       corpus from: LLVM's ar, nm and ranlib come first on the PATH (GNU ar
#       writes no symbol table for such objects), and a CMake build writes
#       OUT/build/compile_commands.json
#   eval-build.sh test TREE SRC CMD
#       runs the shell command CMD in the build tree TREE with
#       MLGO_BUILD_DIR=TREE and MLGO_SOURCE_DIR=SRC; its exit status is the
#       test's
set -euo pipefail
# shellcheck disable=SC2034 # read by package-recipes.sh
recipes_prog=eval-build
# shellcheck source-path=SCRIPTDIR source=package-recipes.sh
source "$(dirname "$0")/package-recipes.sh"

cmd=${1:-}
shift || true
case $cmd in
build | corpus-build)
  if [[ $cmd == corpus-build ]]; then
    (($# >= 4)) || die "usage: eval-build.sh corpus-build SYSTEM SRC OUT JOBS [configure ARG | make ARG]..."
    sys=$1 src=$2 out=$3 jobs=$4 plugin="" model="" decisions=""
    shift 4
  else
    (($# >= 7)) || die "usage: eval-build.sh build SYSTEM SRC OUT JOBS PLUGIN MODEL DECISIONS [configure ARG | make ARG]..."
    sys=$1 src=$2 out=$3 jobs=$4 plugin=$5 model=$6 decisions=$7
    shift 7
  fi
  user_configure=() user_make=()
  while (($#)); do
    (($# >= 2)) || die "'$1' without its argument"
    case $1 in
    configure) user_configure+=("$2") ;;
    make) user_make+=("$2") ;;
    *) die "unknown argument kind '$1' (configure or make)" ;;
    esac
    shift 2
  done
  rm -rf "$out"
  mkdir -p "$out/bin"
  : >"$out/rss.log"
  extra=(-Wno-unused-command-line-argument)
  if [[ -n $plugin ]]; then
    extra+=("-fplugin=$plugin" "-fpass-plugin=$plugin")
    [[ -z $model ]] || extra+=(-Xclang -mllvm -Xclang "-mlgo-model=$model")
    [[ -z $decisions ]] || extra+=(-Xclang -mllvm -Xclang "-mlgo-decisions=$decisions")
  fi
  [[ $cmd != corpus-build ]] || extra+=(-Xclang -fembed-bitcode=all)
  recipes_eval_setup "$out" "$jobs" "${extra[@]}"
  if [[ $cmd == corpus-build || " ${MLGO_EVAL_EXTRA_FLAGS:-} " == *" -flto"* ]]; then
    # Objects with .llvmbc, and an LTO build's bitcode objects, need
    # LLVM's ar, nm and ranlib (eval-package.sh does the same).
    for tool in ar nm ranlib; do
      ln -sf "/usr/bin/llvm-$tool-19" "$out/bin/$tool"
      [[ $cmd == corpus-build ]] || ln -sf "/usr/bin/llvm-$tool-19" "$out/bin/llvm-$tool"
    done
    export PATH="$out/bin:$PATH"
  fi
  # What a recipe would set; there is none.
  autoreconf=0 configure_args=() cmake_args=()
  case $sys in
  cmake)
    build_dir=$out/build
    cmake_args=("${user_configure[@]}")
    [[ $cmd != corpus-build ]] || cmake_args+=(-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
    make_args=("${user_make[@]}")
    ;;
  configure | make)
    mkdir -p "$out/src"
    tar -C "$src" --exclude-tag-all=.mlgo-eval-work -cf - . |
      tar -C "$out/src" -xf -
    src=$out/src build_dir=$out/src
    configure_args=("${user_configure[@]}")
    if [[ $sys == make ]]; then
      ((${#user_configure[@]} == 0)) ||
        die "a plain Makefile build has no configure step for '${user_configure[0]}'"
      make_args=("CC=$CC" "CXX=$CXX" "${user_make[@]}")
    else
      make_args=("${user_make[@]}")
    fi
    ;;
  *) die "unknown build system '$sys' (configure, cmake or make)" ;;
  esac
  set +e
  "build_with_$sys"
  status=$?
  set -e
  [[ $status != 99 ]] || die "$src has no entry point for $sys"
  exit "$status"
  ;;
test)
  (($# == 3)) || die "usage: eval-build.sh test TREE SRC CMD"
  cd "$1"
  MLGO_BUILD_DIR=$1 MLGO_SOURCE_DIR=$2 exec sh -c "$3"
  ;;
*)
  die "usage: eval-build.sh build|corpus-build|test ..."
  ;;
esac
