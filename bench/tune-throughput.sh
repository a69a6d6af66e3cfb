#!/usr/bin/env bash
# A size tune's compiles per CPU-second, without and with the codegen memo
# (mlgo/Compile/CodegenMemo.h), in one run, on the same corpora and machine
# (issue #64 item 3):
#
#   bench/tune-throughput.sh [-n COMPILES] CORPUS...
#
# For each corpus (a directory `mlgo tune --corpus` takes; for an eval
# package, W/corpus of `mlgo tune --package P --work-dir W`), runs
#   mlgo tune --corpus CORPUS --max-compiles N --jobs 1
# in a fresh work directory twice: MLGO_CODEGEN_MEMO=0, then the default.
# CPU is user + system of mlgo and its worker (/usr/bin/time, children
# included), so a loaded machine slows both runs alike; compiles are the
# lines of W/compiles.tsv (baselines, search and check). Each pair must give
# the same decisions file and the same sizes (compiles.tsv without its seconds
# and checksum columns), else the script fails naming the corpus. Prints a
# markdown table.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mlgo=${MLGO:-$here/build/bin/mlgo}
n=250
if [ "${1:-}" = -n ]; then
  n=$2
  shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [-n COMPILES] CORPUS..." >&2; exit 2; }
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tune-throughput.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# run NAME CORPUS MEMO: one tune; prints "<cpu seconds> <compiles>".
run() {
  local w=$scratch/$1-$3
  MLGO_CODEGEN_MEMO=$3 /usr/bin/time -f "%U %S" -o "$w.time" \
    "$mlgo" tune --corpus "$2" --work-dir "$w" -o "$w.decisions" \
    --max-compiles "$n" --jobs 1 --quiet >/dev/null
  awk '{printf "%.2f", $1 + $2}' "$w.time"
  echo " $(wc -l <"$w/compiles.tsv")"
}

echo "| corpus | compiles | CPU s, memo off | CPU s, memo on | compiles/CPU-s off | on | speed-up |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for corpus in "$@"; do
  name=$(basename "$(dirname "$corpus")")-$(basename "$corpus")
  read -r off count_off < <(run "$name" "$corpus" 0)
  read -r on count_on < <(run "$name" "$corpus" 1)
  if ! cmp -s "$scratch/$name-0.decisions" "$scratch/$name-1.decisions"; then
    echo "$corpus: the decisions files differ with and without the memo" >&2
    exit 1
  fi
  for m in 0 1; do
    cut -f1-3,5 "$scratch/$name-$m/compiles.tsv" | sort >"$scratch/$name-$m.sizes"
  done
  if ! cmp -s "$scratch/$name-0.sizes" "$scratch/$name-1.sizes"; then
    echo "$corpus: compile sizes differ with and without the memo" >&2
    exit 1
  fi
  awk -v c="$name" -v k="$count_on" -v a="$off" -v b="$on" 'BEGIN {
    printf "| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2fx |\n",
      c, k, a, b, k / a, k / b, a / b }'
done
