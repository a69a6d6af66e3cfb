#!/usr/bin/env bash
# Today's move search against `mlgo tune --components` (docs/tune.md,
# "Components") on one corpus, with the same budget of compiles: for each,
# the linked .text against the model, the compiles it took and the wall
# clock, and the gain after each step (W/<search>/curve-guided.csv, one
# line per step: compiles, linked bytes, % against the model). One run, no
# repetitions: a curve of gain against compiles, which does not depend on
# the machine's load, and a wall clock, which does.
#
#   bench/tune-components.sh CORPUS WORK [MAX_COMPILES] [EXHAUSTIVE_SITES]
#   SEARCHES="moves statics" bench/tune-components.sh ...
#
# SEARCHES (default "moves components") picks the searches: moves (today's
# move search), components (--components), statics (--components
# --component-graph statics --function-level: components split at calls
# of external functions, their configurations compiled on slices),
# interleaved (the same with --interleave: components in rounds between
# the moves' steps, docs/tune.md "Interleaved components").
#
# CORPUS is a program's corpus (`mlgo corpus extract`); WORK receives
# WORK/moves and WORK/components (work directories, so a rerun resumes:
# give a fresh WORK for wall clocks) and the decisions files. MAX_COMPILES
# (default 400) is each search's budget, EXHAUSTIVE_SITES (default 6)
# --components' bound. mlgo is taken from PATH, or from build/tools/mlgo.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$1
work=$2
max=${3:-400}
sites=${4:-6}
mlgo=$(command -v mlgo || echo "$root/build/tools/mlgo/mlgo")
mkdir -p "$work"
for search in ${SEARCHES:-moves components}; do
  flags=()
  [[ $search == components ]] && flags=(--components --exhaustive-sites "$sites")
  [[ $search == statics ]] && flags=(--components --exhaustive-sites "$sites"
    --component-graph statics --function-level)
  [[ $search == interleaved ]] && flags=(--components --exhaustive-sites "$sites"
    --component-graph statics --function-level --interleave)
  start=$(date +%s)
  "$mlgo" tune --quiet --corpus "$corpus" --work-dir "$work/$search" \
    -o "$work/$search.decisions" --max-compiles "$max" "${flags[@]}"
  secs=$(($(date +%s) - start))
  echo "== $search ($max compiles${flags[*]:+, ${flags[*]}}): $secs s"
  grep '^meta measured' "$work/$search.decisions" | sed 's/^meta //'
  grep -E '^- (Search|Components):' "$work/$search/report.md"
  echo "curve (compiles, linked bytes, % vs the model):"
  tail -n +2 "$work/$search/curve-guided.csv" |
    awk -F, 'NR == 1 || $1 >= next_at { print "  " $0; next_at = $1 + 50 }
             END { print "  " $0 " (last)" }'
done
