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
# ./run.sh's main job runs the default; test.sh checks the test suites of
# all but zlib (whose is a lit test, test/Eval/zlib-test-suite.test).
#
# One program is also tuned (`mlgo tune --package`, docs/tune.md) with a
# small fixed budget, and built a third time with its decisions file: its
# rows get a tuned column, and its test suite runs against that build too.
# MLGO_TUNE_PACKAGE (default tinyxml2, which the model has never seen;
# empty: none) and MLGO_TUNE_COMPILES (default 150) choose them.
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
tune_pkg=${MLGO_TUNE_PACKAGE-tinyxml2}
tune_compiles=${MLGO_TUNE_COMPILES:-150}
decisions=()
if [[ -n $tune_pkg && " ${pkgs[*]} " == *" $tune_pkg "* ]]; then
  tune_dir="$root/$build/tune"
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
  echo
fi
echo "=== ${pkgs[*]}: clang-19 -Oz vs clang-19 -Oz + mlgo (embedded model)"
echo
"$mlgo" eval package "${pkgs[@]}" -j "$jobs" "${decisions[@]}" || status=1
model=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$root/models/inline-oz/model.json" | head -1)
echo
echo "model: embedded '$model' (models/inline-oz/model.json); logs and build trees in $build/eval/"
[[ $status == 0 ]] || echo "eval-packages: a package failed to build or a test failed (see above)" >&2
exit $status
