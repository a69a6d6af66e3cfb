#!/bin/sh
# Builds the C++ test corpus (cxxa: 2 modules, cxxb: 2; all share the inline
# functions of cxx-shared.h) into $1.
set -e
out=$1
src=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/objs/cxxa" "$out/objs/cxxb"
for f in cxxa/a cxxa/b cxxb/c cxxb/d; do
  clang-19 -c -Oz -Xclang -fembed-bitcode=all "$src/$f.cpp" -o "$out/objs/$f.o"
done
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null
