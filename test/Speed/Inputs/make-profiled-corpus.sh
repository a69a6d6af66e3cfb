#!/bin/sh
# Builds a three-package corpus into $1/corpus and the profiles of two of
# them into $1/<package>.profdata: "hot" (hot.c and main.c), "press"
# (test/Serve/Inputs/pressure.c, whose loop evicts, and pressure-main.c),
# each profiled by running the program it makes, and "plain"
# (test/Train/Inputs/beta/stats.c, no profile). Modules are compiled as a
# package build would, -O2 with the bitcode before optimization embedded,
# so the profiles apply to them.
set -e
out=$1
src=$(dirname "$0")
pressure=$src/../../Serve/Inputs/pressure.c
rm -rf "$out"
mkdir -p "$out/objs/hot" "$out/objs/press" "$out/objs/plain"
clang-19 -O2 -fprofile-generate "$src/hot.c" "$src/main.c" -o "$out/hot-inst"
mlgo profile run -o "$out/hot.profdata" -- "$out/hot-inst" >/dev/null
clang-19 -O2 -fprofile-generate "$pressure" "$src/pressure-main.c" -o "$out/press-inst"
mlgo profile run -o "$out/press.profdata" -- "$out/press-inst" >/dev/null
for f in hot main; do
  clang-19 -c -O2 -Xclang -fembed-bitcode=all "$src/$f.c" -o "$out/objs/hot/$f.o"
done
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$pressure" -o "$out/objs/press/pressure.o"
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$src/pressure-main.c" \
  -o "$out/objs/press/pressure-main.o"
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$src/../../Train/Inputs/beta/stats.c" \
  -o "$out/objs/plain/stats.o"
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null 2>&1
