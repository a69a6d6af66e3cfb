#!/usr/bin/env bash
# Function-level compiles against whole-module ones (docs/tune.md,
# "Function-level compiles"): for each corpus and each split, `mlgo tune
# slices` compiles every module whole and slice by slice under the same
# fixed decisions (the shipped model's), in this process, one compile at a
# time, and prints per module the module's .text, the sum of its slices'
# and the wall clocks of both ways; then one line per corpus and split:
# the two sums and the compile-time ratios (all slices against the
# modules, and the mean slice against the mean module: what one move
# costs if it recompiles one slice instead of its module). One run; wall
# clocks move with the machine's load, sizes do not.
#
#   bench/tune-slices.sh OUT CORPUS...      (e.g. bzip2 and zlib corpora)
#
# OUT receives <corpus name>-<split>.txt. mlgo is taken from PATH, or from
# build/bin.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
mlgo=$(command -v mlgo || echo "$root/build/bin/mlgo")
mkdir -p "$out"
for corpus in "$@"; do
  name=$(basename "$corpus")
  for split in components statics functions; do
    "$mlgo" tune slices --corpus "$corpus" --split "$split" --per-slice \
      >"$out/$name-$split.txt"
    awk -v name="$name" -v kind="$split" '
      # Modules with code (a module of data only has no slices).
      /^[^ ]+: [0-9]+ slices \(/ { if ($2 > 0) mods++ }
      /^total:/ {
        # total: .text modules M, slices S (D, P%); compile modules A s,
        # N slices B s (mean C s)
        gsub(/[,;()]/, "")
        printf "%-8s %-10s .text modules %s, slices %s (%s, %s); compile " \
          "modules %s s, %s slices %s s (%.2fx); mean module (with code) %.3f s, " \
          "mean slice %s s (%.2fx)\n", name, kind, $4, $6, $7, $8, $11,
          $13, $15, $15 / $11, $11 / mods, $18, $18 / ($11 / mods) }' \
      "$out/$name-$split.txt"
  done
done
