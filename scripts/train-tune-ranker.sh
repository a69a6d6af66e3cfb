#!/usr/bin/env bash
# Re-creates models/tune-ranker/ranker.json, the move ranker of mlgo tune's
# guided order (include/mlgo/Tune/MoveRanker.h), from its recipe
# (models/tune-ranker/recipe.json):
#
#   scripts/train-tune-ranker.sh CORPUS WORK
#
# CORPUS is a corpus of scripts/corpus-debian.sh --all; the recipe's
# packages - training packages, none of the inliner's validation packages
# nor of the never-seen evaluation programs - are linked into WORK/corpus
# and tuned twice with `mlgo tune` (package by package: the subset has a packages.tsv), in the
# model's least-certain-first order (--order logit) and in trajectory
# order (--order trajectory), each with the recipe's compile budget, so
# that the tries cover moves of every rank (the two runs share the work
# directory's caches, and write the tries logs the one run of the retired
# --compare wrote). `mlgo tune fit-ranker` fits the ranker to both tries logs and
# writes WORK/ranker.json, which the script compares with the shipped one.
# The recipe's seed is mlgo tune's fixed tie-break seed (TieBreakSeed in
# include/mlgo/Tune/Tuner.h). Rerunning resumes from WORK/tune.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "$1" && pwd)
mkdir -p "$2/corpus"
work=$(cd "$2" && pwd)
mlgo=${MLGO:-$root/build/bin/mlgo}
recipe=$root/models/tune-ranker/recipe.json
get() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print("\n".join(v) if isinstance(v, list) else v)' "$recipe" "$1"; }
mapfile -t pkgs < <(get packages)
"$root/scripts/corpus-subset.sh" "$corpus" "$work/corpus" "${pkgs[@]}"
for order in logit trajectory; do
  "$mlgo" tune --order "$order" \
    --max-compiles "$(get max_compiles)" \
    --corpus "$work/corpus" --work-dir "$work/tune" -o "$work/decisions"
done
"$mlgo" tune fit-ranker --clip-bytes "$(get clip_bytes)" \
  "$work/tune/tries-guided.tsv" "$work/tune/tries-unguided.tsv" \
  -o "$work/ranker.json"
if cmp -s "$work/ranker.json" "$root/models/tune-ranker/ranker.json"; then
  echo "train-tune-ranker: $work/ranker.json is the shipped ranker, byte for byte"
else
  echo "train-tune-ranker: $work/ranker.json differs from the shipped ranker"
  diff "$root/models/tune-ranker/ranker.json" "$work/ranker.json" | head -20 || true
fi
