#!/bin/sh
# Builds a one-module corpus into $2 from the C source $1 (an absolute
# path, as a CMake build passes it), as make-corpus.sh one directory up
# does for the tuning tests' two-file program.
set -e
src=$1
out=$2
rm -rf "$out"
mkdir -p "$out/objs"
clang-19 -c -Oz -Xclang -fembed-bitcode=all "$src" \
  -o "$out/objs/$(basename "$src" .c).o"
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null 2>&1
