#!/bin/sh
# Builds the speed tests' program in $1: test/Serve/Inputs/pressure.c (a
# loop whose live values outnumber x86-64's registers: evictions) and
# test/Speed/Inputs/pressure-main.c, copied to $1/src and compiled there
# by relative names (so the module keys are the file names). Writes
# $1/p.profdata (the program profiled on its own run) and $1/corpus (its
# -O2 build with the bitcode before optimization embedded).
set -e
out=$1
tests=$(dirname "$0")/../..
rm -rf "$out"
mkdir -p "$out/src" "$out/objs"
cp "$tests/Serve/Inputs/pressure.c" "$tests/Speed/Inputs/pressure-main.c" "$out/src"
cd "$out/src"
clang-19 -O2 -fprofile-generate pressure.c pressure-main.c -o ../inst
mlgo profile run -o ../p.profdata -- ../inst >/dev/null
clang-19 -c -O2 -Xclang -fembed-bitcode=all pressure.c -o ../objs/pressure.o
clang-19 -c -O2 -Xclang -fembed-bitcode=all pressure-main.c -o ../objs/pressure-main.o
mlgo corpus extract --objects ../objs --output ../corpus >/dev/null 2>&1
