#!/bin/sh
# Builds a two-package corpus into $1/corpus and the profile of one package
# into $1/hot.profdata: "hot" (hot.c and main.c, profiled by running the
# program they make) and "plain" (test/Train/Inputs/beta/stats.c, no
# profile). Modules are compiled as a package build would, -O2 with the
# bitcode before optimization embedded, so the profile applies to them.
set -e
out=$1
src=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/objs/hot" "$out/objs/plain"
clang-19 -O2 -fprofile-generate "$src/hot.c" "$src/main.c" -o "$out/inst"
mlgo profile run -o "$out/hot.profdata" -- "$out/inst" >/dev/null
for f in hot main; do
  clang-19 -c -O2 -Xclang -fembed-bitcode=all "$src/$f.c" -o "$out/objs/hot/$f.o"
done
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$src/../../Train/Inputs/beta/stats.c" \
  -o "$out/objs/plain/stats.o"
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null 2>&1
