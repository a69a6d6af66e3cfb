#!/usr/bin/env bash
# Builds mlgo and runs every test: the GoogleTest units (through CTest) and
# the lit tests, which run the real opt-19/llc-19/clang-19.
set -euo pipefail
cd "$(dirname "$0")"
# Each step's wall-clock time, printed at the end (the budget is 30
# minutes on a fresh 2-core machine).
start=$SECONDS
stage_start=$SECONDS
stage_times=()
stage() {
  local t=$((SECONDS - stage_start))
  stage_times+=("$(printf '  %-44s %4d:%02d' "$1" $((t / 60)) $((t % 60)))")
  stage_start=$SECONDS
}
scripts/setup.sh --sources
stage "setup (scripts/setup.sh --sources)"
scripts/build.sh
stage "build"
status=0
# The house style is a tool's, not a reviewer's: every C++ file formatted
# as .clang-format says, by clang-format-19 (~20 s).
scripts/check-format.sh || status=1
stage "check-format"
ctest --test-dir build --output-on-failure -j2 || status=1
stage "unit tests (ctest)"
ninja -C build check-lit || status=1
stage "lit tests"
# The Python package (python/tests, pytest with /usr/bin/python3, ~2 min):
# environments on real modules, logs, models, the PPO example on a tiny
# corpus.
scripts/check-python.sh build || status=1
stage "Python tests"
# The install (scripts/check-install.sh, ~2 min): into a fresh prefix,
# moved, README's walkthrough run from it with the build and source trees
# hidden; then the .deb, installed with apt-get, compiling as the build
# tree does, and removed.
scripts/check-install.sh build || status=1
stage "install checks"
# Every reader of outside input under libFuzzer (fuzz/, a second, clang-19
# build in build-fuzz/ with ASan and UBSan): each seed and each input that
# once crashed a reader, then 2 s of fuzzing per target (~20 s plus the
# build; docs/hardening.md).
bench/fuzz.sh --check 2 || status=1
stage "fuzz build and check"
# The crash sweep in small (docs/hardening.md): the three modules of
# test/Train's corpus in every plugin mode and under
# -llvm-verify-each (~15 s); bench/crash-sweep.sh alone sweeps the whole
# training corpus.
sweep=$(mktemp -d)
{ PATH=$PWD/build/bin:$PATH sh test/Train/Inputs/make-corpus.sh "$sweep" >/dev/null 2>&1 &&
  bench/crash-sweep.sh --corpus "$sweep/corpus" --verify-every 1; } || status=1
rm -rf "$sweep"
stage "crash sweep"
# The fault cases of docs/hardening.md (scripts/check-faults.sh, ~20 s):
# a host killed or stopped mid-session, SIGTERM and SIGINT of serve and
# profile runs, a file size limit; each ends with its error and leaves no
# process or temporary directory behind.
scripts/check-faults.sh build || status=1
stage "fault cases"
# The unit tests under AddressSanitizer and UBSan, leak checking on, in
# the fuzz build above (build-fuzz/: clang-19 -O1, every library already
# compiled with ASan, UBSan and coverage for the fuzz targets, so only the
# tests themselves are compiled here, at -O0; docs/hardening.md).
# The build's output is kept aside, its errors shown when it fails
# (a construct clang-19 rejects and GCC accepts fails only here).
fuzz_log=$(mktemp)
if ASAN_OPTIONS=detect_leaks=0 ninja -C build-fuzz mlgo-unittests >"$fuzz_log" 2>&1; then
  ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-fuzz --output-on-failure -j2 || status=1
else
  echo "test.sh: the unit tests did not build under ASan/UBSan (build-fuzz):" >&2
  grep -E -m 20 'error:|FAILED:' "$fuzz_log" >&2 || tail -n 40 "$fuzz_log" >&2
  status=1
fi
rm -f "$fuzz_log"
stage "unit tests under ASan/UBSan"
# The one-definition rule across every area: bin/mlgo and the plugin built
# with LTO at -O0, where GCC reports two different definitions of one
# type when it merges the translation units' types (~3 min).
scripts/check-odr.sh build-odr || status=1
stage "ODR check (LTO build)"
# Correctness on real programs beyond zlib (a lit test): the test suites of
# the default eval packages of scripts/packages/list.tsv - bzip2, lua5.4,
# ninja-build (C++), and xz-utils, tinyxml2 (C++), yaml-cpp (C++), cmark,
# lzip (C++), uchardet (C++) and cjson, which are not in the training
# corpus - against plugin-built binaries, and tinyxml2's also against a
# build with the decisions file `mlgo tune --package tinyxml2` writes first
# (~12 min).
scripts/eval-packages.sh build $(scripts/package-recipes.sh list eval | grep -vx zlib) ||
  status=1
stage "eval packages' test suites"
# The corpus script builds the same corpus (same fingerprint) whatever its
# --out: double-conversion built twice into two directories (~1 min).
scripts/check-corpus-reproducible.sh build double-conversion || status=1
stage "corpus reproducible"
echo
echo "=== test.sh stage times"
printf '%s\n' "${stage_times[@]}"
total=$((SECONDS - start))
printf '  %-44s %4d:%02d\n' "total" $((total / 60)) $((total % 60))
if [[ $status == 0 ]]; then
  echo "test.sh: every test passed"
else
  echo "test.sh: a test failed (see above)" >&2
fi
exit $status
