#!/usr/bin/env bash
# Parity of mlgo's plugin with stock opt-19's own interactive ML inliner:
# for each real module and each policy, both compilers are served by
# `mlgo serve`; the recorded streams (header, every observation's 38 feature
# values, the advice) must be byte-identical, and so must the output IR.
#
#   parity.sh PLUGIN WORKDIR FILE.c|FILE.cpp [-I...]...
set -euo pipefail
plugin=$1; work=$2; shift 2
mkdir -p "$work"
for src in "$@"; do
  [[ "$src" == -* ]] && continue
  name=$(basename "$src")
  incs=(); for a in "$@"; do [[ "$a" == -I* ]] && incs+=("$a"); done
  bc="$work/$name.bc"
  clang -Oz -Xclang -disable-llvm-passes -emit-llvm -c -w "${incs[@]}" "$src" -o "$bc"
  for policy in always never alternate; do
    mlgo serve --policy "$policy" --log "$work/$name.$policy.stock.log" -- \
      opt -passes='default<Oz>' -enable-ml-inliner=release \
      -inliner-interactive-channel-base={channel} "$bc" -o "$work/$name.$policy.stock.bc" 2>/dev/null
    mlgo serve --policy "$policy" --log "$work/$name.$policy.mlgo.log" -- \
      opt -load-pass-plugin="$plugin" -mlgo-extra-features=false -passes='default<Oz>' \
      -mlgo-interactive-channel-base={channel} "$bc" -o "$work/$name.$policy.mlgo.bc" 2>/dev/null
    n=$(mlgo log stats "$work/$name.$policy.mlgo.log" | sed -n 's/^observations: //p')
    logs=differ; cmp -s "$work/$name.$policy.stock.log" "$work/$name.$policy.mlgo.log" && logs=identical
    ir=differ; cmp -s "$work/$name.$policy.stock.bc" "$work/$name.$policy.mlgo.bc" && ir=identical
    echo "$name $policy observations=$n log=$logs ir=$ir"
  done
done
