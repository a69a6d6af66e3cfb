#!/bin/sh
# Builds the inlining speed tests' program in $1: Inputs/speed-inline.c,
# copied to $1/src and compiled there by its relative name (so the module
# key is the file name). Writes $1/p.profdata (the program profiled on its
# own run) and $1/corpus (its -O2 build with the bitcode before
# optimization embedded).
set -e
out=$1
inputs=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/src" "$out/objs"
cp "$inputs/speed-inline.c" "$out/src"
cd "$out/src"
clang-19 -O2 -fprofile-generate speed-inline.c -o ../inst
mlgo profile run -o ../p.profdata -- ../inst >/dev/null
clang-19 -c -O2 -Xclang -fembed-bitcode=all speed-inline.c -o ../objs/speed-inline.o
mlgo corpus extract --objects ../objs --output ../corpus >/dev/null 2>&1
