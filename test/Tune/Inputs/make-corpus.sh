#!/bin/sh
# Builds the tuning tests' corpus into $2 from the sources in $1 (absolute
# paths, as a CMake build passes them): src/shapes.c and src/main.c.
set -e
src=$1
out=$2
rm -rf "$out"
mkdir -p "$out/objs"
for f in shapes main; do
  clang-19 -c -Oz -Xclang -fembed-bitcode=all "$src/$f.c" -o "$out/objs/$f.o"
done
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null 2>&1
