#!/usr/bin/env bash
# Builds Debian source packages end to end twice - stock clang-19 -Oz, and
# clang-19 -Oz with mlgo's plugin and its embedded model - with one
# `mlgo eval package` run, which prints for each: the .text of its linked
# binaries and libraries, the build's wall-clock time and peak compiler RSS
# (ratios, same run), and its test suite's results against both builds; then
# a summary table of all of them. Exits 1 if any package fails to build or
# any test fails (a possible miscompile); the other packages still run.
#
#   scripts/eval-packages.sh [BUILD_DIR] [PKG...]
#
# Default packages: those with the role eval in scripts/packages/list.tsv,
# in its order - zlib, bzip2, lua5.4 and ninja-build (in the training
# corpus; ninja-build is held out for validation), then xz-utils, tinyxml2,
# yaml-cpp, cmark, lzip, uchardet and cjson, which are not in the corpus at
# all (docs/eval.md).
# ./run.sh's main job runs three of them (tinyxml2, cjson, zlib); test.sh
# checks the test suites of all but zlib (whose is a lit test,
# test/Eval/zlib-test-suite.test).
#
# Programs can also be tuned (`mlgo tune --package`, docs/tune.md) with a
# small fixed budget each, and built a third time with their decisions
# files: their rows get a tuned column, and their test suites run against
# that build too. MLGO_TUNE_PACKAGES (space-separated; default tinyxml2,
# which the model has never seen; empty: none) and MLGO_TUNE_COMPILES (per
# package, default 150) choose them. Only packages being evaluated are
# tuned. bench/tune-never-seen.sh tunes all seven never-seen programs.
#
# Then, for speed, MLGO_SPEED_PACKAGES (default zlib; empty: none) are each
# tuned on their own -O2 build and test-suite profile (`mlgo tune
# --objective speed --package`, MLGO_SPEED_COMPILES compiles, default 60,
# from models/regalloc-evict-speed) and measured by `mlgo eval package
# --profile --decisions` against clang-19 -O2 -fprofile-use with the same
# profile: executed instructions of its benchmark under callgrind, the
# reward, paired wall-clock runs, and its tests against both builds. Only
# packages being evaluated are (./test.sh leaves zlib out).
#
# Then, as users who care about size link, MLGO_LTO_PACKAGES (default
# tinyxml2; empty: none) are built with stock -flto=thin, with the model
# in the compile steps and in lld's ThinLTO link, and with their size
# tune's decisions file when they have one (`mlgo eval package --lto
# thin`, docs/eval.md), the -Oz build without LTO beside, every test on
# every build.
#
# MLGO_STAGE_TIMES, when set, names a file that each stage (a size tune, the
# eval, a speed tune, a speed eval) appends a line to: its name, a tab, its
# wall-clock seconds (./run.sh prints them at the end).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}; shift || true
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  # shellcheck disable=SC2207 # package names are words
  pkgs=($("$root/scripts/package-recipes.sh" list eval)) || exit 1
fi
mlgo="$root/$build/bin/mlgo"
[[ -x "$mlgo" ]] || { echo "eval-packages: $mlgo not built; run scripts/build.sh" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
status=0
# shellcheck disable=SC2206 # package names are words
tune_pkgs=(${MLGO_TUNE_PACKAGES-tinyxml2})
# shellcheck disable=SC2206 # package names are words
speed_pkgs=(${MLGO_SPEED_PACKAGES-zlib})
speed_compiles=${MLGO_SPEED_COMPILES:-60}
speed_dir="$root/$build/speed"
tune_compiles=${MLGO_TUNE_COMPILES:-150}
tune_dir="$root/$build/tune"
decisions=()
stage_start=$SECONDS
# stage_done NAME: the stage that began at $stage_start ends now.
stage_done() {
  if [[ -n ${MLGO_STAGE_TIMES:-} ]]; then
    printf '%s\t%d\n' "$1" $((SECONDS - stage_start)) >>"$MLGO_STAGE_TIMES"
  fi
  stage_start=$SECONDS
}
# Work directories stay (a rerun resumes); decisions files of an earlier
# run for other packages must not be applied in this one.
rm -rf "$tune_dir/decisions"
for tune_pkg in "${tune_pkgs[@]}"; do
  [[ " ${pkgs[*]} " == *" $tune_pkg "* ]] || continue
  echo "=== $tune_pkg: mlgo tune --package $tune_pkg --max-compiles $tune_compiles"
  echo
  if "$mlgo" tune --package "$tune_pkg" --work-dir "$tune_dir/$tune_pkg" \
    -o "$tune_dir/decisions/$tune_pkg.decisions" \
    --max-compiles "$tune_compiles" --quiet; then
    cat "$tune_dir/$tune_pkg/report.md"
    decisions=(--decisions "$tune_dir/decisions")
  else
    status=1
  fi
  stage_done "size tune: $tune_pkg, $tune_compiles compiles"
  echo
done
echo "=== ${pkgs[*]}: clang-19 -Oz vs clang-19 -Oz + mlgo (embedded model)"
echo
"$mlgo" eval package "${pkgs[@]}" -j "$jobs" "${decisions[@]}" || status=1
model=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$root/models/inline-oz/model.json" | head -1)
echo
echo "model: embedded '$model' (models/inline-oz/model.json); logs and build trees in $build/eval/"
stage_done "eval: ${#pkgs[@]} packages, -Oz vs the model"

# shellcheck disable=SC2206 # package names are words
lto_pkgs=(${MLGO_LTO_PACKAGES-tinyxml2})
for lto_pkg in "${lto_pkgs[@]}"; do
  [[ " ${pkgs[*]} " == *" $lto_pkg "* ]] || continue
  echo
  echo "=== $lto_pkg as users who care about size link it: stock -flto=thin vs the model (and tuned) in the ThinLTO build"
  echo
  "$mlgo" eval package "$lto_pkg" --lto thin -j "$jobs" "${decisions[@]}" \
    --work-dir "$root/$build/eval-lto/$lto_pkg" || status=1
  stage_done "LTO eval: $lto_pkg, -flto=thin"
done

# Speed: a package tuned on its own profile (its tests) and measured
# against clang-19 -O2 -fprofile-use with the same profile on its
# benchmark, another input (docs/tune.md, "For speed").
evict_model="$root/models/regalloc-evict-speed/model.json"
for speed_pkg in "${speed_pkgs[@]}"; do
  [[ " ${pkgs[*]} " == *" $speed_pkg "* ]] || continue
  w="$speed_dir/$speed_pkg"
  echo
  echo "=== $speed_pkg for speed: mlgo tune --objective speed --package $speed_pkg --max-compiles $speed_compiles"
  echo
  if "$mlgo" tune --objective speed --package "$speed_pkg" --work-dir "$w" \
    -o "$w/$speed_pkg.decisions" --max-compiles "$speed_compiles" \
    --model "$evict_model" --quiet; then
    sed -n '/^Estimated/p' "$w/report.md"
    stage_done "speed tune: $speed_pkg, $speed_compiles compiles"
    echo
    echo "=== $speed_pkg: clang-19 -O2 -fprofile-use vs the same with $speed_pkg.decisions"
    echo
    "$mlgo" eval package "$speed_pkg" -j "$jobs" --profile "$w/profile.profdata" \
      --decisions "$w/$speed_pkg.decisions" --evict-model "$evict_model" \
      --work-dir "$w/eval" || status=1
    stage_done "speed eval: $speed_pkg, -O2 PGO vs tuned"
  else
    status=1
  fi
done
[[ $status == 0 ]] || echo "eval-packages: a package failed to build or a test failed (see above)" >&2
exit $status
