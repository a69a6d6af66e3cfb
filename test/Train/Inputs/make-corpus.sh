#!/bin/sh
# Builds the two-package test corpus (alpha: 2 modules, beta: 1) into $1.
# With "portable" as $2 the sources are compiled by their names relative to
# this directory with -ffile-compilation-dir=., so that the bitcode and the
# cc1 arguments, hence the corpus fingerprint that seeds a trainer's
# samples, do not depend on where the checkout is: for tests whose exact
# counts depend on a sample. (An absolute object path is not stored.)
set -e
out=$1
src=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/objs/alpha" "$out/objs/beta"
out=$(cd "$out" && pwd)
for f in alpha/table alpha/text beta/stats; do
  if [ "$2" = portable ]; then
    (cd "$src" && clang-19 -c -Oz -ffile-compilation-dir=. \
      -Xclang -fembed-bitcode=all "$f.c" -o "$out/objs/$f.o")
  else
    clang-19 -c -Oz -Xclang -fembed-bitcode=all "$src/$f.c" -o "$out/objs/$f.o"
  fi
done
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null
