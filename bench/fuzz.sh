#!/usr/bin/env bash
# Builds mlgo's libFuzzer targets (fuzz/; a clang-19 configuration with
# -DMLGO_FUZZ=ON: ASan, UBSan and coverage in every library) and runs them.
#
#   bench/fuzz.sh TARGET SECONDS     fuzz one target for SECONDS, starting
#                                    from its seeds (fuzz/corpus/TARGET) and
#                                    its dictionary (fuzz/TARGET.dict); new
#                                    inputs go to BUILD/fuzz/work/TARGET,
#                                    crashes to BUILD/fuzz/crashes/TARGET/
#   bench/fuzz.sh --check [SECONDS]  every target: each seed and each crash
#                                    reproducer (fuzz/regressions/TARGET/)
#                                    once, then SECONDS (default 2) of
#                                    fuzzing from the seeds; fails on any
#                                    crash (./test.sh runs this)
#   bench/fuzz.sh --build [TARGET...]
#                                    configure BUILD and build the ninja
#                                    TARGETs (default mlgo-fuzz), nothing
#                                    run (./test.sh builds mlgo-fuzz and
#                                    mlgo-unittests so, in the background)
#   bench/fuzz.sh --list             the targets
#
# BUILD is $MLGO_FUZZ_BUILD or build-fuzz. The last lines libFuzzer prints
# (executions, coverage "cov:", corpus size) are what docs/hardening.md
# records. A crash leaves its input in BUILD/fuzz/crashes/TARGET/; fix the
# reader, then copy the input to fuzz/regressions/TARGET/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MLGO_FUZZ_BUILD:-$root/build-fuzz}
targets=(log log-stream tensor-spec model corpus-description compile-command
         recipe serve-host worker-frames compile-cache checkpoint decisions
         site-cache eviction-log mir-repair)

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 1 ]] || usage
if [[ $1 == --list ]]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi

configure() {
  [[ -f $build/build.ninja ]] && return
  command -v clang++-19 >/dev/null ||
    { echo "fuzz: clang++-19 not found (scripts/setup.sh installs it)" >&2; exit 1; }
  local launcher=()
  command -v ccache >/dev/null &&
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # -O0 with line tables: readable stack traces, asserts on, and the
  # cheapest build: under ASan, UBSan and coverage instrumentation a
  # library compiles in 0.57-0.63 of its CPU time at -O1 (Tuner.cpp 18.1 ->
  # 11.4 s, ExecutionCost.cpp 40.4 -> 23.1 s), and this build is most of
  # what ./test.sh spends on the unit tests and the fuzz check.
  CC=clang-19 CXX=clang++-19 cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -gline-tables-only" \
    -DMLGO_FUZZ=ON -DMLGO_BUILD_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
}

# The model code generator runs during the build, instrumented: its
# deliberate end-of-process leaks are not findings.
build_targets() {
  configure
  ASAN_OPTIONS=detect_leaks=0 ninja -C "$build" -j "$(nproc)" "$@" >/dev/null
}

if [[ $1 == --build ]]; then
  shift
  [[ $# -gt 0 ]] || set -- mlgo-fuzz
  configure
  # ninja's output is the caller's: a failing compile's errors are in it.
  ASAN_OPTIONS=detect_leaks=0 ninja -C "$build" -j "$(nproc)" "$@"
  exit
fi

# libFuzzer flags every run shares: a hang is an input taking 10 s; 2 GiB
# of RSS or one allocation of more than 512 MiB is a finding.
common=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1)

dict_flag() {
  [[ -f $root/fuzz/$1.dict ]] && echo "-dict=$root/fuzz/$1.dict"
  return 0
}

if [[ $1 == --check ]]; then
  seconds=${2:-2}
  build_targets mlgo-fuzz
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  status=0
  for t in "${targets[@]}"; do
    exe=$build/fuzz/fuzz-$t
    inputs=("$root/fuzz/corpus/$t")
    [[ -d $root/fuzz/regressions/$t ]] && inputs+=("$root/fuzz/regressions/$t")
    mkdir -p "$scratch/$t"
    # -runs=0: only the given inputs, each once (the first directory is
    # where libFuzzer would write, so it is a scratch one).
    if ! "$exe" "${common[@]}" -runs=0 "$scratch/$t" "${inputs[@]}" \
        >"$scratch/$t.replay.log" 2>&1; then
      echo "fuzz: $t fails on its seeds or regressions:" >&2
      tail -40 "$scratch/$t.replay.log" >&2
      status=1
      continue
    fi
    if ! "$exe" "${common[@]}" -seed=1 -max_total_time="$seconds" \
        $(dict_flag "$t") -artifact_prefix="$scratch/$t-" \
        "$scratch/$t" "$root/fuzz/corpus/$t" >"$scratch/$t.fuzz.log" 2>&1; then
      echo "fuzz: $t crashed within $seconds s of fuzzing:" >&2
      tail -40 "$scratch/$t.fuzz.log" >&2
      ls "$scratch"/"$t"-* >&2 2>/dev/null || true
      status=1
      continue
    fi
    replayed=$(find "${inputs[@]}" -type f | wc -l)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' \
      "$scratch/$t.fuzz.log" | grep -o '[0-9]*$')
    echo "fuzz: $t ok: $replayed inputs replayed, $runs runs of fuzzing"
  done
  exit $status
fi

[[ $# -eq 2 ]] || usage
target=$1 seconds=$2
[[ " ${targets[*]} " == *" $target "* ]] ||
  { echo "fuzz: no target '$target' (bench/fuzz.sh --list)" >&2; exit 2; }
build_targets "fuzz-$target"
work=$build/fuzz/work/$target
crashes=$build/fuzz/crashes/$target
mkdir -p "$work" "$crashes"
exec "$build/fuzz/fuzz-$target" "${common[@]}" -max_total_time="$seconds" \
  $(dict_flag "$target") -artifact_prefix="$crashes/" \
  "$work" "$root/fuzz/corpus/$target"
