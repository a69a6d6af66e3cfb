#!/usr/bin/env bash
# A corpus of some packages of another, without copying it:
#
#   scripts/corpus-subset.sh CORPUS OUT PACKAGE...
#
# links each CORPUS/PACKAGE into OUT and writes OUT/corpus_description.json
# with those packages' modules, in CORPUS's order, and OUT/packages.tsv with
# those packages' rows of CORPUS's (so `mlgo tune` tunes OUT package by
# package, as it does CORPUS). An error names a package CORPUS does not have. bench/tune-validation.sh and
# scripts/train-tune-ranker.sh tune such subsets.
set -euo pipefail
corpus=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
for p in "$@"; do
  [[ -d $corpus/$p ]] || { echo "corpus-subset: $corpus has no package $p" >&2; exit 1; }
  ln -sfn "$corpus/$p" "$out/$p"
done
python3 - "$corpus/corpus_description.json" "$out/corpus_description.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keep = set(sys.argv[3:])
mods = [m for m in d["modules"] if m.split("/")[0] in keep]
json.dump({"has_thinlto": False, "modules": mods}, open(sys.argv[2], "w"), indent=1)
PY
{
  printf 'package\tversion\tbuild-system\tbuild-seconds\tstatus\tdetails\n'
  if [[ -f $corpus/packages.tsv ]]; then
    awk -F'\t' 'NR == FNR { keep[$1] = 1; next } FNR > 1 && ($1 in keep)' \
      <(printf '%s\n' "$@") "$corpus/packages.tsv"
  fi
} > "$out/packages.tsv.tmp" && mv "$out/packages.tsv.tmp" "$out/packages.tsv"
