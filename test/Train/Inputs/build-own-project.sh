#!/bin/sh
# Builds test/Train/Inputs' alpha and beta sources into $2 the way a user's
# own build would be set up for training (docs/training.md, "Training on
# your own code"): clang-19 with embedded bitcode, one compilation database
# entry per object (clang's -MJ), objects under per-directory paths.
set -e
src=$1
out=$2
mkdir -p "$out/alpha" "$out/beta"
cd "$out"
for f in alpha/table alpha/text beta/stats; do
  clang-19 -Oz -Xclang -fembed-bitcode=all -c "$src/$f.c" -o "$f.o" -MJ "$f.json"
done
# -MJ writes one JSON object and a comma per compile.
{ echo '['; cat alpha/table.json alpha/text.json beta/stats.json | sed '$ s/,$//'; echo ']'; } \
  > compile_commands.json
