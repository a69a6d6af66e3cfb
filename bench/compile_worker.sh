#!/bin/sh
# Compile-worker throughput: the in-process worker pool vs spawning
# `clang-19 -cc1` (+ plugin) per module, same modules, same parallelism, one
# run. With THRESHOLDS (comma-separated), the workload is the shipped model
# at each decision threshold (a selection step of training), where the
# worker also answers by trajectory replay and every answer is checked
# against the spawned clang's.
#   bench/compile_worker.sh CORPUS [N modules] [policy] [THRESHOLDS]
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:?usage: bench/compile_worker.sh CORPUS [N] [policy] [THRESHOLDS]}
if [ -n "$4" ]; then
  exec "$here/build/bin/mlgo" worker bench "$corpus" --sample "${2:-200}" \
    --policy "${3:-model=$here/models/inline-oz/model.json}" --thresholds="$4"
fi
"$here/build/bin/mlgo" worker bench "$corpus" --sample "${2:-200}" \
  --policy "${3:-heuristic}"
