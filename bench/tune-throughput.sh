#!/usr/bin/env bash
# A size tune's compiles per CPU-second without the worker's memos, with
# the codegen memo (mlgo/Compile/CodegenMemo.h), and with it and the
# pre-inline cache (mlgo/Compile/PreInlineCache.h), in one run, on the same
# corpora and machine (issue #64 item 3):
#
#   bench/tune-throughput.sh [-n COMPILES] CORPUS...
#
# For each corpus (a directory `mlgo tune --corpus` takes; for an eval
# package, W/corpus of `mlgo tune --package P --work-dir W`), runs
#   mlgo tune --corpus CORPUS --max-compiles N --jobs 1
# in a fresh work directory three times: "off" (MLGO_CODEGEN_MEMO=0
# MLGO_PRE_INLINE_CACHE=0), "memo" (MLGO_PRE_INLINE_CACHE=0), then "pre"
# (the default: both on). CPU is user + system of mlgo and its worker
# (/usr/bin/time, children included), so a loaded machine slows every run
# alike; compiles are the lines of W/compiles.tsv (baselines, search and
# check). Each run must give the "off" run's decisions file and sizes
# (compiles.tsv without its seconds and checksum columns), else the script
# fails naming the corpus. Prints a markdown table.
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

# run NAME CORPUS MODE: one tune; prints "<cpu seconds> <compiles>".
run() {
  local w=$scratch/$1-$3 memo=1 pre=1
  case $3 in
  off) memo=0 pre=0 ;;
  memo) pre=0 ;;
  esac
  MLGO_CODEGEN_MEMO=$memo MLGO_PRE_INLINE_CACHE=$pre \
    /usr/bin/time -f "%U %S" -o "$w.time" \
    "$mlgo" tune --corpus "$2" --work-dir "$w" -o "$w.decisions" \
    --max-compiles "$n" --jobs 1 --quiet >/dev/null
  cut -f1-3,5 "$w/compiles.tsv" | sort >"$w.sizes"
  awk '{printf "%.2f", $1 + $2}' "$w.time"
  echo " $(wc -l <"$w/compiles.tsv")"
}

echo "| corpus | compiles | CPU s off | memo | memo+pre | compiles/CPU-s off | memo | memo+pre | speed-up memo | memo+pre |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for corpus in "$@"; do
  name=$(basename "$(dirname "$corpus")")-$(basename "$corpus")
  read -r off count < <(run "$name" "$corpus" off)
  read -r memo _ < <(run "$name" "$corpus" memo)
  read -r pre _ < <(run "$name" "$corpus" pre)
  for m in memo pre; do
    if ! cmp -s "$scratch/$name-off.decisions" "$scratch/$name-$m.decisions"; then
      echo "$corpus: the decisions files differ between off and $m" >&2
      exit 1
    fi
    if ! cmp -s "$scratch/$name-off.sizes" "$scratch/$name-$m.sizes"; then
      echo "$corpus: compile sizes differ between off and $m" >&2
      exit 1
    fi
  done
  awk -v c="$name" -v k="$count" -v a="$off" -v b="$memo" -v p="$pre" 'BEGIN {
    printf "| %s | %d | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n",
      c, k, a, b, p, k / a, k / b, k / p, a / b, a / p }'
done
