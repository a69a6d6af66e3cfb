#!/usr/bin/env bash
# Benchmarks `mlgo tune --objective speed` (issue #49) on real programs
# built from their Debian sources by the recipes of
# bench/speed-programs.sh: each program is profiled on its workload A, its
# -O2 build becomes a corpus, the search tunes it, and the tuned program
# (W/objects/*.o linked) is measured against clang-19 -O2 -fprofile-use
# with the same profile (the search's LLVM objects, W/objects-llvm/*.o,
# the same compiles stock clang makes) on workload B: executed
# instructions under callgrind (every process of the program, from main),
# the output checked, and paired wall-clock runs.
#
#   bench/speed-tune.sh [--programs bzip2,minigzip,...] [--max-compiles N]
#                       [--work DIR] [--evict-model M.json]
#
# Programs: bzip2, minigzip, lzip, xz, zstd, brotli, lua (default: all).
# Prints one TSV line per program: the search's estimated change, the
# measured change of executed instructions (base -> tuned), the median
# wall-clock ratio of 5 paired runs (tuned / -O2), the search's compiles
# and minutes, the number of inlining + eviction entries, and the modules
# the workload check reverted. The tune checks its modules on workload A
# under callgrind (--workload) and reverts those measured worse, so that
# workload B stays unseen. Deterministic but for the wall clock.
# --evict-model tunes from that eviction model's allocation instead of the
# embedded model's (mlgo tune --objective speed --model; the tune's objects are
# compiled with it, so the tuned program needs nothing more).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/speed-programs.sh
source "$here/bench/speed-programs.sh"
mlgo=${MLGO:-$here/build/bin/mlgo}
programs=$speed_all_programs
max=60
work=${TMPDIR:-/tmp}/mlgo-speed-tune
evict=()
while [[ $# -gt 0 ]]; do
  case $1 in
  --programs) programs=$2; shift 2 ;;
  --max-compiles) max=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --evict-model) evict=(--model "$(realpath "$2")"); shift 2 ;;
  *) echo "usage: $0 [--programs a,b] [--max-compiles N] [--work DIR] [--evict-model M]" >&2; exit 2 ;;
  esac
done

printf 'program\testimated\tmeasured_instructions\twall_ratio\tcompiles\tminutes\tentries\treverted\n'
for p in ${programs//,/ }; do
  [[ -n ${speed_files[$p]:-} ]] || { echo "unknown program $p" >&2; exit 2; }
  w=$work/$p
  speed_profile "$p" "$w" "$mlgo"
  if [[ ! -s $w/corpus/corpus_description.json ]]; then
    rm -rf "$w/objs" "$w/corpus"
    speed_compile "$p" "$w/src" "$w/objs" -Xclang -fembed-bitcode=all
    "$mlgo" corpus extract --objects "$w/objs" --output "$w/corpus" >/dev/null 2>&1
  fi
  link=$(speed_link "$p")
  start=$(date +%s)
  "$mlgo" tune --objective speed --profile "$w/p.profdata" --corpus "$w/corpus" \
    --work-dir "$w/tune" -o "$w/$p.decisions" --max-compiles "$max" --quiet \
    "${evict[@]}" \
    --link "$link \$MLGO_OBJECTS/*.o -o \$MLGO_PROGRAM" \
    --workload "bash $here/bench/speed-programs.sh run $p \$MLGO_PROGRAM A $w"
  minutes=$(awk "BEGIN{printf \"%.1f\", ($(date +%s) - $start) / 60}")
  $link "$w"/tune/objects-llvm/*.o -o "$w/$p.llvm"
  $link "$w"/tune/objects/*.o -o "$w/$p.tuned"
  base=$(speed_instructions "$p" "$w/$p.llvm" B "$w")
  tuned=$(speed_instructions "$p" "$w/$p.tuned" B "$w")
  wall=$(speed_wall "$p" "$w/$p.llvm" "$w/$p.tuned" "$w" 5)
  estimated=$(sed -n 's/^meta estimated .*(\(.*\))$/\1/p' "$w/$p.decisions")
  compiles=$(sed -n 's/^meta compiles //p' "$w/$p.decisions")
  entries="$(grep -c '^inline\|^no-inline' "$w/$p.decisions" || true)+$(grep -c '^evict ' "$w/$p.decisions" || true)"
  reverted=$(grep -c 'reverted: measured worse' "$w/tune/report.md" || true)
  measured=$(awk "BEGIN{printf \"%+.2f%%\", 100 * ($tuned - $base) / $base}")
  printf '%s\t%s\t%s (%s -> %s)\t%.4f\t%s\t%s\t%s\t%s\n' "$p" "$estimated" "$measured" \
    "$base" "$tuned" "$wall" "$compiles" "$minutes" "$entries" "$reverted"
done
