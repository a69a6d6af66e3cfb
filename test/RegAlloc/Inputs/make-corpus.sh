#!/bin/sh
# Builds a two-package corpus into $1: "hot" (the register-pressure test
# program, which spills) for training and "cold" for validation.
set -e
out=$1
inputs=$(dirname "$0")/../../Serve/Inputs
rm -rf "$out"
mkdir -p "$out/objs/hot" "$out/objs/cold"
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$inputs/pressure.c" -o "$out/objs/hot/pressure.o"
clang-19 -c -O2 -Xclang -fembed-bitcode=all "$inputs/calls.c" -o "$out/objs/cold/calls.o"
mlgo corpus extract --objects "$out/objs" --output "$out/corpus" >/dev/null
