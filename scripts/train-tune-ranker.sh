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
# and tuned with `mlgo tune --per-package --guide logit --compare`: both
# the model's least-certain-first order and trajectory order, each with
# the recipe's compile budget, so that the tries cover moves of every
# rank. `mlgo tune fit-ranker` fits the ranker to both tries logs and
# writes WORK/ranker.json, which the script compares with the shipped one.
# Rerunning resumes from WORK/tune.
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
"$mlgo" tune --per-package --guide logit --compare \
  --max-compiles "$(get max_compiles)" --seed "$(get seed)" \
  --corpus "$work/corpus" --work-dir "$work/tune" -o "$work/decisions"
"$mlgo" tune fit-ranker --clip-bytes "$(get clip_bytes)" \
  "$work/tune/tries-guided.tsv" "$work/tune/tries-unguided.tsv" \
  -o "$work/ranker.json"
if cmp -s "$work/ranker.json" "$root/models/tune-ranker/ranker.json"; then
  echo "train-tune-ranker: $work/ranker.json is the shipped ranker, byte for byte"
else
  echo "train-tune-ranker: $work/ranker.json differs from the shipped ranker"
  diff "$root/models/tune-ranker/ranker.json" "$work/ranker.json" | head -20 || true
fi
