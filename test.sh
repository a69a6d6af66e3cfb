#!/usr/bin/env bash
# Builds mlgo and runs every test: the lit tests, which run the real
# opt-19/llc-19/clang-19, the Python package's, the install's, the fuzz
# targets' and the GoogleTest units (through CTest, under ASan and UBSan).
#
# The budget is 30 minutes on a fresh 2-core machine. Two builds serve only
# tests: the ASan/UBSan build of the fuzz targets and the unit tests
# (build-fuzz/, -O0), then GCC's ODR check (build-odr/). The unit tests are
# compiled once, in build-fuzz: build/ leaves them out
# (-DMLGO_UNITTESTS_IN_ALL=OFF). Every stage runs in the foreground, one
# after the other: on two cores a build at nice 19 beside the others made
# every stage slower (docs/lab/2026-12-04.md, "./test.sh cold with the
# background stages"; 47 minutes against 34).
#
# Every stage runs in a process group of its own; SIGINT (Ctrl-C) or
# SIGTERM of this script ends it and waits until it is gone. At the end, a
# table of each stage's wall-clock time and CPU time (user + sys of its
# processes).
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS
status=0
rows=()
# Each stage's `times` output.
work=$(mktemp -d)
pgid=""

# cpu_ms FILE: the CPU milliseconds (user + sys, a shell's own and its
# children's) that the output of `times` in FILE adds up to.
cpu_ms() {
  local total=0 tok frac
  for tok in $(cat "$1" 2>/dev/null); do
    [[ $tok =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] || continue
    frac=${BASH_REMATCH[3]}000
    total=$((total + (10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]}) * 1000 +
      10#${frac:0:3}))
  done
  echo $total
}

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# row NAME WALL_SECONDS CPU_MS: a line of the table, also printed now (a
# log cut short still has the stages that ended).
row() {
  rows+=("$(printf '  %-56s %7s %8s' "$1" "$(mmss "$2")" "$(mmss $(($3 / 1000)))")")
  cpu_total=$((${cpu_total:-0} + $3))
  echo "test.sh: $1: $(mmss "$2") wall, $(mmss $(($3 / 1000))) CPU"
}

# stop: SIGTERM to the running stage's process group, then wait until it
# is empty (ninja passes the signal to its compiles, which sit in groups of
# their own); SIGKILL after 20 s.
stop() {
  local i
  [[ -n $pgid ]] || return 0
  kill -TERM -- "-$pgid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 -- "-$pgid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pgid" 2>/dev/null || true
  wait 2>/dev/null || true
  pgid=""
}
on_signal() {
  trap - INT TERM
  echo >&2
  echo "test.sh: $1: stopping the running stage" >&2
  stop
  exit "$2"
}
cleanup() {
  stop
  rm -rf "$work"
}
trap 'on_signal SIGINT 130' INT
trap 'on_signal SIGTERM 143' TERM
trap cleanup EXIT

# stage NAME CMD...: runs CMD (a program or a function) in a subshell of
# its own process group (job control on for the fork), stdin from
# /dev/null, its output on ours; a failure fails the script, the next
# stages still run. $stage_rc is the stage's exit status.
n=0
stage() {
  local name=$1 began=$SECONDS id=s$((n += 1)) rc=0
  shift
  set -m
  (
    set +e
    "$@"
    rc=$?
    times >"$work/$id.cpu"
    exit $rc
  ) </dev/null &
  pgid=$!
  set +m
  wait "$pgid" || rc=$?
  pgid=""
  stage_rc=$rc
  ((rc == 0)) || status=1
  row "$name" $((SECONDS - began)) "$(cpu_ms "$work/$id.cpu")"
}

times >"$work/setup.before"
scripts/setup.sh --sources
times >"$work/setup.cpu"
row "setup (scripts/setup.sh --sources)" $((SECONDS - start)) \
  $(($(cpu_ms "$work/setup.cpu") - $(cpu_ms "$work/setup.before")))

stage "build (unit tests left to build-fuzz)" \
  env MLGO_UNITTESTS_IN_ALL=OFF scripts/build.sh
# The house style is a tool's, not a reviewer's: every C++ file formatted
# as .clang-format says, by clang-format-19.
stage "check-format" scripts/check-format.sh
stage "lit tests" ninja -C build check-lit
# The Python package (python/tests, pytest with /usr/bin/python3):
# environments on real modules, logs, models, the PPO example on a tiny
# corpus.
stage "Python tests" scripts/check-python.sh build
# The install (scripts/check-install.sh): into a fresh prefix, moved,
# README's walkthrough run from it with the build and source trees hidden;
# then the .deb, installed with apt-get, compiling as the build tree does,
# and removed.
stage "install checks" scripts/check-install.sh build
# The crash sweep in small (docs/hardening.md): the three modules of
# test/Train's corpus in every plugin mode and under -llvm-verify-each;
# bench/crash-sweep.sh alone sweeps the whole training corpus.
crash_sweep() {
  local sweep rc=0
  sweep=$(mktemp -d)
  { PATH=$PWD/build/bin:$PATH sh test/Train/Inputs/make-corpus.sh "$sweep" >/dev/null 2>&1 &&
    bench/crash-sweep.sh --corpus "$sweep/corpus" --verify-every 1; } || rc=1
  rm -rf "$sweep"
  return $rc
}
stage "crash sweep" crash_sweep
# The fault cases of docs/hardening.md (scripts/check-faults.sh): a host
# killed or stopped mid-session, SIGTERM and SIGINT of serve and profile
# runs, a file size limit; each ends with its error and leaves no process
# or temporary directory behind.
stage "fault cases" scripts/check-faults.sh build
# Correctness on real programs beyond zlib (a lit test): the test suites of
# the default eval packages of scripts/packages/list.tsv - bzip2, lua5.4,
# ninja-build (C++), and xz-utils, tinyxml2 (C++), yaml-cpp (C++), cmark,
# lzip (C++), uchardet (C++) and cjson, which are not in the training
# corpus - against plugin-built binaries, and tinyxml2's also against a
# build with the decisions file `mlgo tune --package tinyxml2` writes first.
eval_packages() {
  local pkgs
  pkgs=$(scripts/package-recipes.sh list eval | grep -vx zlib) || return 1
  # shellcheck disable=SC2086 # package names are words
  scripts/eval-packages.sh build $pkgs
}
stage "eval packages' test suites" eval_packages
# The corpus script builds the same corpus (same fingerprint) whatever its
# --out: double-conversion built twice into two directories.
stage "corpus reproducible" scripts/check-corpus-reproducible.sh build double-conversion

# The unit tests under AddressSanitizer and UBSan, leak checking on, and
# every reader of outside input under libFuzzer (fuzz/): a clang-19 build
# (build-fuzz/, -O0 with line tables; docs/hardening.md). The model code
# generator runs during the build, instrumented: its deliberate
# end-of-process leaks are not findings (bench/fuzz.sh --build). Then each
# fuzz target on its seeds and every input that once crashed a reader, 2 s
# of fuzzing each, and the unit tests (every one of them: build/ has none).
stage "fuzz targets, unit tests: ASan/UBSan build (build-fuzz)" \
  bench/fuzz.sh --build mlgo-fuzz mlgo-unittests
if ((stage_rc == 0)); then
  stage "fuzz check (build-fuzz)" bench/fuzz.sh --check 2
  stage "unit tests under ASan/UBSan (build-fuzz)" \
    env ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-fuzz --output-on-failure -j2
else
  echo "test.sh: the fuzz check and the unit tests did not run: build-fuzz did not build" >&2
fi
# The one-definition rule across every area: bin/mlgo and the plugin built
# with LTO at -O0, where GCC reports two different definitions of one type
# when it merges the translation units' types (scripts/check-odr.sh).
stage "ODR check (LTO build)" scripts/check-odr.sh build-odr

echo
echo "=== test.sh stages: wall clock, and CPU (user + sys) of each stage's processes"
printf '  %-56s %7s %8s\n' "stage" "wall" "CPU"
printf '%s\n' "${rows[@]}"
total=$((SECONDS - start))
printf '  %-56s %7s %8s\n' "total" \
  "$(mmss $total)" "$(mmss $((cpu_total / 1000)))"
if [[ $status == 0 ]]; then
  echo "test.sh: every test passed"
else
  echo "test.sh: a test failed (see above)" >&2
fi
exit $status
