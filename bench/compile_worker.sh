#!/bin/sh
# Compile-worker throughput: the in-process worker pool vs spawning
# `clang-19 -cc1` (+ plugin) per module, same modules, same parallelism, one
# run. Usage: bench/compile_worker.sh CORPUS [N modules] [policy]
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:?usage: bench/compile_worker.sh CORPUS [N] [policy]}
"$here/build/bin/mlgo" worker bench "$corpus" --sample "${2:-200}" \
  --policy "${3:-heuristic}"
