#!/usr/bin/env bash
# IR2Native's benchmarks (docs/ir2native.md, "Measured"), on a corpus whose
# packages include the recipe's held-out ones:
#
#  1. accuracy on functions of packages the model never saw: the dataset,
#     the recipe's model trained on it (and compared byte for byte with the
#     shipped one when the corpus is the recipe's), MdAPE etc. on the
#     held-out packages; then leave-one-package-out over the others;
#  2. sign agreement of predicted and measured .text change of single
#     inlining decisions (LLVM's heuristic, one decision inverted per
#     compile), on the held-out packages;
#  3. the plugin's extra compile time with the predictor on: opt-19 -Oz
#     with a training log, with and without -mlgo-size-score, on every
#     held-out module's bitcode, best of 5 runs each (the IR pipeline alone,
#     a stricter ratio than a whole compile's).
#
#   bench/ir2native.sh CORPUS WORK [--flips N]
#
# Prints everything it measures; the numbers in docs/ir2native.md come from
# one run of it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=common.sh
source "$here/bench/common.sh"
corpus=$1 work=$2
shift 2
flips=40
[[ ${1:-} == --flips ]] && flips=$2
mlgo=${MLGO:-$here/build/bin/mlgo}
plugin=$(bench_plugin)
recipe=$here/models/ir2native/recipe.json
mkdir -p "$work"
held=$(python3 -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["held_out_packages"]))' "$recipe")

echo "== 1. accuracy on the held-out packages ($held)"
"$mlgo" ir2native dataset --corpus "$corpus" -o "$work/data.tsv" 2>/dev/null
"$mlgo" ir2native train --recipe "$recipe" --data "$work/data.tsv" -o "$work/model.json"
if cmp -s "$work/model.json" "$here/models/ir2native/model.json"; then
  echo "the recipe re-creates models/ir2native/model.json byte for byte"
else
  echo "the recipe's model differs from models/ir2native/model.json (another corpus?)"
fi
"$mlgo" ir2native eval --model "$work/model.json" --data "$work/data.tsv" --recipe "$recipe"

echo "== leave one package out (the others trained on)"
for pkg in $(cut -f1 "$work/data.tsv" | tail -n +3 | cut -d/ -f1 | sort -u); do
  python3 - "$recipe" "$pkg" "$work/lopo.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["held_out_packages"] = [sys.argv[2]] + [p for p in r["held_out_packages"] if p != sys.argv[2]]
json.dump(r, open(sys.argv[3], "w"))
PY
  "$mlgo" ir2native train --recipe "$work/lopo.json" --data "$work/data.tsv" -o "$work/lopo-model.json" >/dev/null
  printf '%s: ' "$pkg"
  "$mlgo" ir2native eval --model "$work/lopo-model.json" --data "$work/data.tsv" --packages "$pkg" \
    | sed -n '1,2p' | tr '\n' ' '
  echo
done

echo "== 2. sign of single inlining decisions (at most $flips per module)"
"$mlgo" ir2native decisions --corpus "$corpus" --model "$here/models/ir2native/model.json" \
  --packages "$held" --max-per-module "$flips" 2>/dev/null > "$work/decisions.tsv"
tail -n 3 "$work/decisions.tsv"

echo "== 3. compile time: opt-19 -Oz with a training log, without and with -mlgo-size-score"
python3 - "$corpus" "$held" > "$work/modules.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/corpus_description.json"))
held = sys.argv[2].split(",")
for m in d["modules"]:
    if m.split("/")[0] in held:
        print(sys.argv[1] + "/" + m + ".bc")
PY
# One pass over the modules; prints milliseconds.
once() {
  local s e
  s=$(date +%s%N)
  while read -r bc; do
    opt-19 -load-pass-plugin="$plugin" -passes='default<Oz>' -mlgo-default-policy \
      -mlgo-training-log="$work/t.log" "$@" "$bc" -o /dev/null
  done < "$work/modules.txt"
  e=$(date +%s%N)
  echo $(( (e - s) / 1000000 ))
}
# Alternating, so that a load change on a shared machine hits both alike.
off=999999 on=999999
for _ in 1 2 3 4 5; do
  t=$(once); (( t < off )) && off=$t
  t=$(once -mlgo-size-score); (( t < on )) && on=$t
done
echo "without: $off ms, with: $on ms (best of 5, alternating)"
python3 -c "import sys; a,b=map(int,sys.argv[1:]); print('extra compile time: %+.1f%%' % (100.0*(b-a)/a))" "$off" "$on"
