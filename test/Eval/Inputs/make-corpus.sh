#!/bin/sh
# Builds a three-module corpus in $2 from the sources in $1: packages p1
# (a.c) and p2 (b.c, c.c), compiled with clang-19 -Oz and embedded bitcode.
set -e
src=$1 out=$2
rm -rf "$out"; mkdir -p "$out/o1" "$out/o2"
clang-19 -Oz -c -Xclang -fembed-bitcode=all "$src/a.c" -o "$out/o1/a.o"
clang-19 -Oz -c -Xclang -fembed-bitcode=all "$src/b.c" -o "$out/o2/b.o"
clang-19 -Oz -c -Xclang -fembed-bitcode=all "$src/c.c" -o "$out/o2/c.o"
mlgo corpus extract --objects "$out/o1" --output "$out/p1" >/dev/null
mlgo corpus extract --objects "$out/o2" --output "$out/p2" >/dev/null
cd "$out" && mlgo corpus combine p1 p2 -o corpus >/dev/null
