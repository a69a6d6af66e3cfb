#!/usr/bin/env bash
# The main job (aiming at 12 minutes on a bare 2-core Debian 12 machine;
# the lab notes of 2026-12-02 estimate it): installs
# what it needs (scripts/setup.sh --main: not the test-only packages),
# builds the two things it runs (bin/mlgo and the plugin), then builds real
# programs from Debian's sources end to end (scripts/eval-packages.sh,
# `mlgo eval package`, docs/eval.md), each with stock clang-19 -Oz and with
# mlgo's plugin and its embedded model, and prints the .text size table of
# their binaries and libraries, the build-time and peak-RSS ratios and
# their test suites' results on every build:
#
#   tinyxml2     never seen in training (C++); first tuned for its own
#                code (`mlgo tune --package`, a size tune: where the bytes
#                are) and built a third time with its decisions file (a
#                `tuned` column); then built as size-conscious users link:
#                stock -flto=thin against the model and the decisions in
#                the ThinLTO build (`mlgo eval package --lto thin`)
#   cjson        never seen in training: a small C library, 19 tests
#   zlib         in the training corpus; then tuned for speed on its own
#                -O2 build and test-suite profile (`mlgo tune --objective
#                speed --package zlib`) and measured against clang-19 -O2
#                -fprofile-use on minigzip's benchmark (the speed table)
#
# They are the cheapest to build that show each kind of result. The other
# eight eval packages of scripts/packages/list.tsv are ./test.sh's
# (`scripts/eval-packages.sh build` alone runs all eleven; ninja-build is
# where the model itself shows most, -1.6%: docs/results.md). Sources are
# fetched while mlgo builds. At the end, each stage's time.
#
#   MLGO_RUN_PACKAGES    the packages (default: the three above)
#   MLGO_TUNE_COMPILES   the size tune's compiles (default 150)
#   MLGO_SPEED_COMPILES  the speed tune's compiles (default 60)
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck disable=SC2206 # package names are words
pkgs=(${MLGO_RUN_PACKAGES:-tinyxml2 cjson zlib})
times=$(mktemp)
start=$SECONDS
stage_start=$SECONDS
stage_done() {
  printf '%s\t%d\n' "$1" $((SECONDS - stage_start)) >>"$times"
  stage_start=$SECONDS
}
print_times() {
  local status=$?
  echo
  echo "=== stage times"
  awk -F'\t' '{ printf "  %-44s %4d:%02d\n", $1, $2 / 60, $2 % 60 }' "$times"
  local total=$((SECONDS - start))
  printf '  %-44s %4d:%02d\n' "total" $((total / 60)) $((total % 60))
  rm -f "$times"
  exit $status
}
trap print_times EXIT

scripts/setup.sh --main
stage_done "setup (scripts/setup.sh --main)"

# The sources download while mlgo builds (scripts/fetch-source.sh caches
# them in build/src, where `mlgo eval package` and `mlgo tune --package`
# look).
fetch_log=$(mktemp)
(for p in "${pkgs[@]}"; do scripts/fetch-source.sh "$p" >/dev/null || exit 1; done) \
  >"$fetch_log" 2>&1 &
fetch_pid=$!
scripts/build.sh mlgo mlgo-plugin
if ! wait "$fetch_pid"; then
  cat "$fetch_log" >&2
  rm -f "$fetch_log"
  exit 1
fi
rm -f "$fetch_log"
stage_done "build (mlgo, mlgo-plugin) + fetch sources"

export MLGO_STAGE_TIMES=$times
export MLGO_TUNE_PACKAGES=tinyxml2 MLGO_SPEED_PACKAGES=zlib
export MLGO_TUNE_COMPILES=${MLGO_TUNE_COMPILES:-150}
export MLGO_SPEED_COMPILES=${MLGO_SPEED_COMPILES:-60}
stage_start=$SECONDS
scripts/eval-packages.sh build "${pkgs[@]}"
