#!/usr/bin/env bash
# Where single inversions of the heuristic's refusals pay: reads a
# counterfactuals.csv that `mlgo train` wrote (docs/training.md) and prints,
# per bucket of callee linkage (internal or not), callee users (1, 2, 3, 4+)
# and the heuristic's cost estimate (<25, 25-49, 50-99, >=100), how many
# refusals were inverted, how many of those shrank .text, the bytes those
# saved, and the bytes all of them changed together. One Markdown table row
# per bucket, sorted; nothing else on stdout.
#
#   scripts/inversion-buckets.sh WORK-DIR/counterfactuals.csv
set -euo pipefail
csv="${1:?usage: inversion-buckets.sh COUNTERFACTUALS.CSV}"
if [[ ! -r "$csv" ]]; then
  echo "inversion-buckets: $csv: cannot read the file" >&2
  exit 1
fi
awk -F, -v file="$csv" '
  NR == 1 {
    for (i = 1; i <= NF; ++i) col[$i] = i
    m = split("inlining_default callee_is_local callee_users cost_estimate text_delta", need, " ")
    for (k = 1; k <= m; ++k)
      if (!(need[k] in col)) {
        printf "inversion-buckets: %s: no column '\''%s'\'' (not a counterfactuals.csv of mlgo train?)\n", file, need[k] > "/dev/stderr"
        bad = 1
        exit 1
      }
    next
  }
  $col["inlining_default"] == 0 {
    users = $col["callee_users"] + 0
    cost = $col["cost_estimate"] + 0
    key = sprintf("%s | %s | %s", $col["callee_is_local"] == 1 ? "internal" : "other",
                  users > 3 ? "4+" : users,
                  cost < 25 ? "<25" : cost < 50 ? "25-49" : cost < 100 ? "50-99" : ">=100")
    d = $col["text_delta"] + 0
    n[key]++
    total[key] += d
    if (d < 0) { shrank[key]++; saved[key] += d }
  }
  END {
    if (bad) exit 1
    for (key in n)
      printf "| %s | %d | %d (%.1f%%) | %+d | %+d |\n", key, n[key], shrank[key],
             100 * shrank[key] / n[key], saved[key], total[key]
  }
' "$csv" | LC_ALL=C sort
