#!/usr/bin/env bash
# Compiles on MPI ranks (docs/distributed.md): how throughput grows with
# the rank count on this machine, and the coordinator's ceiling.
#
#   bench/mpi-scaling.sh CORPUS [MAX_RANKS] [CEILING_CORPUS]
#
# 1. Compiles per second of `mlgo worker bench CORPUS --no-spawn` (every
#    module once, LLVM's heuristic through mlgo's advisor, no trajectory
#    replay) as one process with one forked worker, then under
#    `mpirun -np N` for N = 2..MAX_RANKS (default 4): rank 0 coordinates,
#    N-1 ranks compile. The one-process pool with N-1 workers is measured
#    alongside, so the MPI overhead is the ratio of the two.
# 2. The coordinator's ceiling: the same under MLGO_MPI_ECHO=1, where a
#    worker rank answers every job at once without compiling, over 20
#    decision thresholds of the shipped model (20 jobs per module: each
#    module's bitcode travels once per rank, the policy - the model's JSON -
#    with every job). MLGO_MPI_STATS=1 has rank 0 print its jobs, seconds
#    and bytes; jobs/s and MB/s are computed from them. Also with the
#    heuristic policy, whose jobs carry no model, on CEILING_CORPUS (default
#    CORPUS; one with many small modules gives more jobs).
#
# Ranks are not bound to cores (--bind-to none): Open MPI binds each rank to
# a core when there are at most two, and a coordinator that polls, bound
# next to its one worker on a shared machine, waits for that core's other
# tenants at every job (17 ms a job instead of 1 ms at load 16).
#
# Runs as root need Open MPI's consent (OMPI_ALLOW_RUN_AS_ROOT*); this
# script gives it. Timing is noisy on a shared machine: run it alone.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:?usage: bench/mpi-scaling.sh CORPUS [MAX_RANKS]}
max=${2:-4}
ceiling_corpus=${3:-$corpus}
mlgo=$here/build/bin/mlgo
model=$here/models/inline-oz/model.json
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --bind-to none)

rate() { sed -n 's/^in-process worker: *\([0-9.]*\) s *\([0-9.]*\) modules\/s$/\2/p'; }

echo "== compiles per second (heuristic policy, every module once) =="
printf '%-6s %-8s %-14s %-14s\n' ranks workers "mpi c/s" "local c/s"
one=$("$mlgo" worker bench "$corpus" --no-spawn --no-replay -j 1 | rate)
printf '%-6s %-8s %-14s %-14s\n' 1 1 - "$one"
for n in $(seq 2 "$max"); do
  w=$((n - 1))
  m=$("${mpirun[@]}" -np "$n" "$mlgo" worker bench "$corpus" --no-spawn \
        --no-replay | rate)
  l=$("$mlgo" worker bench "$corpus" --no-spawn --no-replay -j "$w" | rate)
  printf '%-6s %-8s %-14s %-14s\n' "$n" "$w" "$m" "$l"
done

thresholds=$(seq -s, -10 1 9)
ceiling() {
  local n=$1 label=$2 c=$3
  shift 3
  local stats
  stats=$(MLGO_MPI_ECHO=1 MLGO_MPI_STATS=1 "${mpirun[@]}" -x MLGO_MPI_ECHO \
            -np "$n" "$mlgo" worker bench "$c" --no-spawn --no-replay \
            "$@" 2>&1 >/dev/null | grep '^mlgo: mpi:')
  # mlgo: mpi: N ranks, J jobs in S s, M MB sent (B MB bitcode), R MB received
  # ... R MB received, rank 0 busy C s of CPU
  echo "$stats" | awk -v label="$label" '{
    jobs = $5; s = $8; mb = $10; bc = substr($13, 2); cpu = $22;
    printf "%-10s %s ranks %6d jobs %7.3f s %7.0f jobs/s %7.1f MB/s (%.1f MB, %.1f MB bitcode); rank 0: %.0f us CPU/job, ceiling %.0f jobs/s\n",
           label, $3, jobs, s, jobs / s, mb / s, mb, bc, cpu / jobs * 1e6, jobs / cpu }'
}
echo "== coordinator ceiling (MLGO_MPI_ECHO=1: workers answer at once) =="
for n in $(seq 2 "$max"); do
  ceiling "$n" heuristic "$ceiling_corpus" --policy heuristic
  ceiling "$n" model "$corpus" --policy "model=$model" \
    --thresholds="$thresholds"
done
