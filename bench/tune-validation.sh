#!/usr/bin/env bash
# The tuning benchmark of docs/tune.md: `mlgo tune` on the shipped recipe's
# validation packages (models/inline-oz/recipe.json), each package its own
# program, guided and unguided with the same budget (two runs sharing the
# work directory's caches). Prints the
# tune report (linked .text per package: -Oz, model, tuned) and, from the
# two curves, how many compiles the guided search needs to reach 90% of
# the unguided search's final gain, as a fraction of the unguided search's
# compiles.
#
#   bench/tune-validation.sh CORPUS WORK [MAX_COMPILES]
#
# CORPUS is a corpus of scripts/corpus-debian.sh --all (or one holding at
# least the validation packages); WORK receives WORK/corpus (links to the
# validation packages), the work directory WORK/tune and the decisions
# files WORK/decisions/<package>.decisions. MAX_COMPILES (default 12000)
# is each order's budget. Rerunning resumes from WORK/tune.
#
#   bench/tune-validation.sh CORPUS WORK --minutes M
#
# is the timed target instead: the guided order alone, stopped after M
# minutes of search (`mlgo tune --budget M`), with the whole run's wall
# clock (baseline compiles included) printed at the end. Give it a WORK
# of its own: compiles already in WORK/tune would make it look faster.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "$1" && pwd)
work=$2
max=${3:-12000}
minutes=
if [[ $max == --minutes ]]; then
  minutes=${4:?--minutes needs a number}
fi
mlgo=${MLGO:-$root/build/bin/mlgo}
mkdir -p "$work/corpus"
work=$(cd "$work" && pwd)
mapfile -t pkgs < <(python3 -c '
import json, sys
print("\n".join(json.load(open(sys.argv[1]))["validation_packages"]))' \
  "$root/models/inline-oz/recipe.json")
"$root/scripts/corpus-subset.sh" "$corpus" "$work/corpus" "${pkgs[@]}"
start=$(date +%s)
if [[ -n $minutes ]]; then
  "$mlgo" tune --budget "$minutes" \
    --corpus "$work/corpus" --work-dir "$work/tune" -o "$work/decisions"
  echo "wall clock: $(( $(date +%s) - start )) s (search budget $minutes min)"
  exit 0
fi
for order in ranker trajectory; do
  "$mlgo" tune --order "$order" --max-compiles "$max" \
    --corpus "$work/corpus" --work-dir "$work/tune" -o "$work/decisions"
done
echo "wall clock: $(( $(date +%s) - start )) s for both orders"
# Compiles to 90% of the unguided search's final gain, against the compiles
# the unguided search took to reach that final gain.
awk -F, '
  FNR == 1 { next }
  FILENAME ~ /unguided/ { if (!ub) ub = $2; uc[++m] = $1; ug[m] = ub - $2; next }
  { if (!gb) gb = $2; gc[++n] = $1; gg[n] = gb - $2 }
  END {
    final = ug[m]
    for (i = 1; i <= m; ++i) if (ug[i] >= final) { ufinal = uc[i]; break }
    for (i = 1; i <= n; ++i) if (gg[i] >= 0.9 * final) { at = gc[i]; break }
    printf "unguided: %d bytes saved, reached after %d compiles\n", final, ufinal
    printf "guided: %d bytes saved in %d compiles\n", gg[n], gc[n]
    if (at && ufinal)
      printf "guided reaches 90%% of the unguided gain after %d compiles: %.1f%% of unguided'"'"'s\n", at, 100 * at / ufinal
    else
      print "guided never reaches 90% of the unguided gain"
  }' "$work/tune/curve-unguided.csv" "$work/tune/curve-guided.csv"
