#!/usr/bin/env bash
# How much of a module a single inversion changes: for rows of a
# counterfactuals.csv that `mlgo train` wrote (docs/training.md), compiles
# the module with LLVM's heuristic and with the row's decision inverted
# (the plugin's -mlgo-flip, through `mlgo corpus compile`), and compares the
# two objects' function symbols. Prints one line per row
#
#   MODULE DECISION TEXT_DELTA FUNCTIONS CHANGED
#
# (CHANGED: functions of the inverted object whose size differs from the
# heuristic's, or that it lacks), then the share of functions and of their
# bytes that kept their size. docs/training.md (Benchmark) uses it to bound
# what caching native function sizes could save.
#
#   scripts/inversion-functions.sh COUNTERFACTUALS.CSV CORPUS [ROWS [SEED]]
#
# ROWS (default: all) rows are sampled with awk's generator seeded by SEED
# (default 1), so a run is repeatable. The plugin is $MLGO_PLUGIN, else
# build/lib/mlgo/mlgo-plugin.so; mlgo is the one in bin/ beside its lib/.
set -euo pipefail
usage="usage: inversion-functions.sh COUNTERFACTUALS.CSV CORPUS [ROWS [SEED]]"
csv="${1:?$usage}"
corpus="${2:?$usage}"
rows="${3:-all}"
seed="${4:-1}"
root=$(cd "$(dirname "$0")/.." && pwd)
plugin="${MLGO_PLUGIN:-$root/build/lib/mlgo/mlgo-plugin.so}"
mlgo="$(dirname "$plugin")/../../bin/mlgo"
die() { echo "inversion-functions: $*" >&2; exit 1; }
[[ -r "$csv" ]] || die "$csv: cannot read the file"
[[ -d "$corpus" ]] || die "$corpus: not a directory"
[[ -f "$plugin" ]] || die "$plugin: no plugin (build it first, or set MLGO_PLUGIN)"
[[ "$rows" == all || "$rows" =~ ^[1-9][0-9]*$ ]] || die "ROWS must be a positive number or 'all', not '$rows'"
[[ "$(head -1 "$csv" | cut -d, -f1-3)" == module,decision,text_delta ]] ||
  die "$csv: does not start with module,decision,text_delta (not a counterfactuals.csv of mlgo train?)"

# The sample: every row, or ROWS rows drawn without replacement, in file order.
sample=$(awk -F, -v n="$rows" -v seed="$seed" '
  NR > 1 { row[++m] = $1 " " $2 " " $3 }
  END {
    if (n == "all" || n >= m) { for (i = 1; i <= m; ++i) print row[i]; exit }
    srand(seed)
    for (i = 1; i <= m; ++i) idx[i] = i
    for (i = 1; i <= n; ++i) {            # partial Fisher-Yates shuffle
      j = i + int(rand() * (m - i + 1)); t = idx[i]; idx[i] = idx[j]; idx[j] = t
      pick[idx[i]] = 1
    }
    for (i = 1; i <= m; ++i) if (i in pick) print row[i]
  }' "$csv")

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Function symbols defined in an object, as "NAME SIZE" (decimal bytes).
functions() { llvm-nm-19 -S --radix=d --defined-only "$1" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ { print $4, $2 }'; }
compile() { # module out [flip]
  local extra=(-load "$plugin" -fpass-plugin="$plugin" -mllvm -mlgo-default-policy)
  [[ $# -lt 3 ]] || extra+=(-mllvm -mlgo-flip="$3")
  "$mlgo" corpus compile "$corpus" "$1" -o "$2" "${extra[@]}" ||
    die "cannot compile $1 from $corpus"
}

while read -r module decision delta; do
  compile "$module" "$tmp/heuristic.o"
  compile "$module" "$tmp/inverted.o" "$decision"
  functions "$tmp/heuristic.o" > "$tmp/heuristic.txt"
  functions "$tmp/inverted.o" > "$tmp/inverted.txt"
  awk -v module="$module" -v decision="$decision" -v delta="$delta" '
    FNR == NR { size[$1] = $2; next }
    {
      bytes = $2 + 0; ++n; all += bytes
      if (size[$1] == $2) { ++same; kept += bytes } else ++changed
    }
    END { printf "%s %s %s %d %d\t%d %d %d %d\n", module, decision, delta, n, changed, same, n, kept, all }
  ' "$tmp/heuristic.txt" "$tmp/inverted.txt"
done <<< "$sample" | awk -F'\t' '
  { print $1; split($2, v, " "); same += v[1]; n += v[2]; kept += v[3]; all += v[4] }
  END {
    printf "functions keeping their size: %d of %d (%.1f%%); their bytes: %d of %d (%.1f%%)\n",
           same, n, n ? 100 * same / n : 0, kept, all, all ? 100 * kept / all : 0
  }'
