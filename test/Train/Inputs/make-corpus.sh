#!/bin/sh
# Builds the two-package test corpus (alpha: 2 modules, beta: 1) into $1.
set -e
out=$1
src=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/objs/alpha" "$out/objs/beta"
for f in alpha/table alpha/text beta/stats; do
  clang-19 -c -Oz -Xclang -fembed-bitcode=all "$src/$f.c" -o "$out/objs/$f.o"
done
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null
