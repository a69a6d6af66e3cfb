#!/usr/bin/env bash
# Measures mlgo's eviction model where users build fast code (issue #48,
# item 5) on the real programs of bench/speed-programs.sh: each program is
# profiled on its workload A and built twice from its sources with the
# same profile, by stock `clang-19 -O2 -fprofile-use` ("-O2") and by the
# same with the plugin's embedded eviction model, LLVM's inliner deciding
# (`-fplugin=P -fpass-plugin=P -mllvm -mlgo-use-llvm-advisor -mllvm
# -mlgo-evict`, "evict"); both are measured on workload B: executed
# instructions under callgrind (every process of the program, from main),
# the output checked, and paired wall-clock runs.
#
#   bench/speed-evict.sh [--programs bzip2,minigzip,...] [--rounds N]
#                        [--work DIR] [--evict-model M.json]
#
# Programs: bzip2, minigzip, lzip, xz, zstd, brotli, lua (default: all).
# Prints one TSV line per program: executed instructions of both builds
# and their change, and the median of N (default 5) paired wall-clock
# ratios (evict / -O2). The work directory may be bench/speed-tune.sh's:
# a program's source copy and profile are made once and shared.
# Deterministic but for the wall clock.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/speed-programs.sh
source "$here/bench/speed-programs.sh"
# shellcheck source=bench/common.sh
source "$here/bench/common.sh"
plugin=$(bench_plugin)
mlgo=${MLGO:-$here/build/bin/mlgo}
programs=$speed_all_programs
rounds=5
model=
work=${TMPDIR:-/tmp}/mlgo-speed-tune
while [[ $# -gt 0 ]]; do
  case $1 in
  --programs) programs=$2; shift 2 ;;
  --rounds) rounds=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --evict-model) model=$(realpath "$2"); shift 2 ;;
  *) echo "usage: $0 [--programs a,b] [--rounds N] [--work DIR] [--evict-model M]" >&2; exit 2 ;;
  esac
done
evict=(-fplugin="$plugin" -fpass-plugin="$plugin" -mllvm -mlgo-use-llvm-advisor
       -mllvm -mlgo-evict)
[[ -z $model ]] || evict+=(-mllvm "-mlgo-evict-model=$model")

printf 'program\tinstructions_O2\tinstructions_evict\tchange\twall_ratio\n'
for p in ${programs//,/ }; do
  [[ -n ${speed_files[$p]:-} ]] || { echo "unknown program $p" >&2; exit 2; }
  w=$work/$p
  speed_profile "$p" "$w" "$mlgo"
  link=$(speed_link "$p")
  rm -rf "$w/evict-base" "$w/evict-model"
  speed_compile "$p" "$w/src" "$w/evict-base" -fprofile-use="$w/p.profdata"
  speed_compile "$p" "$w/src" "$w/evict-model" -fprofile-use="$w/p.profdata" "${evict[@]}"
  $link "$w"/evict-base/*.o -o "$w/$p.O2"
  $link "$w"/evict-model/*.o -o "$w/$p.evict"
  # Runs in a directory of their own: bench/speed-tune.sh may be measuring
  # in the program's.
  r=$w/evict-run
  mkdir -p "$r"
  cp "$w/inputB" "$r/inputB"
  base=$(speed_instructions "$p" "$w/$p.O2" B "$r")
  model_n=$(speed_instructions "$p" "$w/$p.evict" B "$r")
  wall=$(speed_wall "$p" "$w/$p.O2" "$w/$p.evict" "$r" "$rounds")
  printf '%s\t%s\t%s\t%s\t%.4f\n' "$p" "$base" "$model_n" \
    "$(awk "BEGIN{printf \"%+.2f%%\", 100 * ($model_n - $base) / $base}")" "$wall"
done
