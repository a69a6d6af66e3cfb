#!/bin/sh
# brute-force.sh SRC SITES MODEL WORK: compiles SRC at -Oz with the plugin
# and MODEL under every configuration of the call sites listed in SITES
# (one "caller callee ordinal" per line, each inlined or not, all fixed by
# a decisions file), and prints the model's .text ("model BYTES", the
# configuration that inlines none of them, which is the never-inline
# model's own), the smallest ("optimum DELTA bytes", against the model)
# and how many configurations reach it. The brute force that
# components-optimum.test holds `mlgo tune --components` to.
set -e
src=$1
sites=$2
model=$3
work=$4
mkdir -p "$work"
n=$(wc -l < "$sites")
total=$((1 << n))
m=0
while [ $m -lt $total ]; do
  f="$work/d$m.txt"
  {
    echo "mlgo-decisions 1"
    echo
    echo "module $(basename "$src")"
    i=0
    while read -r caller callee ordinal; do
      if [ $(((m >> i) & 1)) -eq 1 ]; then d=inline; else d=no-inline; fi
      echo "$d $caller $callee $ordinal"
      i=$((i + 1))
    done < "$sites"
  } > "$f"
  (cd "$(dirname "$src")" && mlgo-clang -Oz -c "$(basename "$src")" \
    -o "$work/o$m.o" -mllvm -mlgo-model="$model" \
    -mllvm -mlgo-decisions="$f")
  llvm-size-19 -A "$work/o$m.o" | awk -v m=$m '$1 == ".text" { print m, $2 }'
  m=$((m + 1))
done > "$work/sizes.txt"
awk '
  $1 == 0 { model = $2 }
  NR == 1 || $2 < best { best = $2; n = 0 }
  $2 == best { ++n }
  END {
    print "model " model
    print "optimum " best - model " bytes, reached by " n " of " NR
  }' "$work/sizes.txt"
