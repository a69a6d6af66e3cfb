#!/usr/bin/env bash
# Builds Debian source packages end to end twice - stock clang-19 -Oz, and
# clang-19 -Oz with mlgo's plugin and its embedded model - with
# `mlgo eval package`, and prints for each: the .text of its linked binaries
# and libraries, the build's wall-clock time and peak compiler RSS (ratios,
# same run), and its test suite's results against both builds. Exits 1 if
# any package fails to build or any test fails (a possible miscompile).
#
#   scripts/eval-packages.sh [BUILD_DIR] [PKG...]  (default: build zlib bzip2 lua5.4 ninja-build)
#
# ./run.sh's main job, and test.sh's correctness check of bzip2, lua5.4 and
# ninja-build
# (zlib's is a lit test, test/Eval/zlib-test-suite.test).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}; shift || true
pkgs=("$@"); [[ ${#pkgs[@]} -gt 0 ]] || pkgs=(zlib bzip2 lua5.4 ninja-build)
mlgo="$root/$build/bin/mlgo"
[[ -x "$mlgo" ]] || { echo "eval-packages: $mlgo not built; run scripts/build.sh" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)
status=0
for pkg in "${pkgs[@]}"; do
  echo "=== $pkg: clang-19 -Oz vs clang-19 -Oz + mlgo (embedded model)"
  "$mlgo" eval package "$pkg" -j "$jobs" || { status=1; echo "eval-packages: $pkg FAILED" >&2; }
  echo
done
model=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$root/models/inline-oz/model.json" | head -1)
echo "model: embedded '$model' (models/inline-oz/model.json); logs and build trees in $build/eval/"
exit $status
