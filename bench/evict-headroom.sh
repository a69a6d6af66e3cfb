#!/usr/bin/env bash
# How much LLVM's static register-allocation score can move by changing
# single eviction decisions: the headroom a learned eviction policy has
# around the shipped model (docs/regalloc.md, "Headroom").
#
# For every module (optimized IR, e.g. `mlgo regalloc train`'s WORK/ir/*.bc)
# it scores stock llc-19 (LLVM's advisor) and the shipped model, counts the
# model's decisions (its training log), then inverts single decisions of
# the model's trajectory (the plugin's -mlgo-evict-flips: an eviction
# becomes "evict nothing", "evict nothing" the first allowed register), up
# to FLIPS per module spread evenly over the trajectory, and scores each.
# Last, all the inversions that helped, together.
#
#   bench/evict-headroom.sh FLIPS MODULE.bc...
#
# One line per module: decisions, LLVM's and the model's scores, the
# inversions tried, how many lowered the score, the best one and the sum of
# those that helped (percent of the model's score), and the score with all
# of them at once. The last line totals the modules. With DETAIL=FILE, every
# inversion is appended to FILE: module, decision, score.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/common.sh"
flips=${1:?usage: evict-headroom.sh FLIPS MODULE.bc...}
shift
plugin=$(bench_plugin)
mlgo=${MLGO:-$root/build/bin/mlgo}
jobs=${JOBS:-2}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

score() { # module [llc args...] -> the module's total score
  local m=$1; shift
  "$mlgo" regalloc score --jobs 1 --timeout 600 "${@/#/--llc-arg=}" "$m" |
    sed -n 's/^TOTAL (1 file, .*): score //p'
}
export -f score
export mlgo plugin

printf '%-44s %7s %12s %12s %6s %5s %8s %8s %8s\n' module decisions llvm model tried helped best% sum% together%
: > "$tmp/totals"
for m in "$@"; do
  name=$(basename "$m" .bc)
  llvm=$(score "$m")
  model=$(score "$m" -load="$plugin" -mlgo-evict)
  rm -f "$tmp/log"
  llc-19 -O2 -load="$plugin" -mlgo-evict -mlgo-evict-training-log="$tmp/log" "$m" -o /dev/null
  d=0
  [[ -f $tmp/log ]] && d=$("$mlgo" log stats "$tmp/log" | sed -n 's/^observations: //p')
  n=$(( d < flips ? d : flips ))
  : > "$tmp/tries"
  for ((i = 0; i < n; ++i)); do echo $(( i * d / n )) >> "$tmp/tries"; done
  # One line per inversion: decision, score.
  xargs -P "$jobs" -I{} bash -c 'echo {} $(score "$0" -load="$plugin" -mlgo-evict -mlgo-evict-flips={})' "$m" \
    < "$tmp/tries" | sort -n > "$tmp/scores"
  [[ -z ${DETAIL:-} ]] || sed "s|^|$name |" "$tmp/scores" >> "$DETAIL"
  helped=$(awk -v b="$model" '$2 < b { printf "%s%s", s, $1; s = "," }' "$tmp/scores")
  together=$model
  [[ -z $helped ]] || together=$(score "$m" -load="$plugin" -mlgo-evict -mlgo-evict-flips="$helped")
  awk -v name="$name" -v d="$d" -v l="$llvm" -v b="$model" -v t="$together" '
    { ++n; if ($2 < b) { ++h; sum += b - $2; if (b - $2 > best) best = b - $2 } }
    END {
      p = b > 0 ? 100 / b : 0
      printf "%-44s %7d %12.1f %12.1f %6d %5d %8.3f %8.3f %8.3f\n", substr(name, 1, 44), d, l, b, n, h, -best * p, -sum * p, (t - b) * p
      printf "%s %s %s %s\n", l, b, sum, b - t >> "'"$tmp/totals"'"
    }' "$tmp/scores"
done
awk '{ l += $1; b += $2; s += $3; t += $4 }
  END { printf "total: LLVM %.1f, model %.1f (%+.3f%%); single inversions that helped, summed: %.3f%% of the model; all at once: %.3f%%\n",
        l, b, (b / l - 1) * 100, -s / b * 100, -t / b * 100 }' "$tmp/totals"
