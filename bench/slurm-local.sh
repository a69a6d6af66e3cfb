#!/usr/bin/env bash
# A real Slurm on this one machine, to run scripts/slurm-mlgo.sbatch as a
# cluster would (docs/distributed.md, "Slurm on one machine").
#
#   bench/slurm-local.sh [WORK_DIR]
#
# 1. Installs slurm-wlm and munge if missing (apt-get, non-interactive).
# 2. Writes a one-node cluster into WORK_DIR (default: a new temporary
#    directory): a munge key, a slurm.conf naming this host with its CPUs
#    (proctrack/linuxproc, no cgroups, no accounting, SlurmUser=root, tasks
#    may outnumber CPUs with --overcommit), and starts munged, slurmctld and
#    slurmd on it, each on its own socket, ports and spool, so that nothing
#    of the system's (/etc/slurm, /run/munge) is used or changed. The
#    daemons are stopped when the script exits, however it exits.
# 3. Builds the three-module corpus of test/Eval and runs `mlgo eval
#    corpus` on it as one process, then through Slurm, each run compared
#    byte for byte with the one process's CSV, and its rank statistics
#    (MLGO_MPI_STATS=1) showing that three ranks took part:
#    a. `sbatch -n 3 --overcommit --wait scripts/slurm-mlgo.sbatch eval
#       corpus ...`: the job script as shipped (srun --mpi=pmix);
#    b. `srun --mpi=pmix -n 3` directly;
#    c. `salloc -n 3 mpirun ...`: Open MPI's own launcher inside an
#       allocation (it reads the allocation from Slurm's environment; on
#       more nodes its slurm plm would start its daemons through srun);
#    d. `srun --mpi=pmi2`, which Debian's Open MPI cannot use: its message
#       is checked;
#    e. and f. the faults of docs/distributed.md under the job script: a
#       worker rank killed (srun names the task and the node) and a worker
#       rank stopped (mlgo names the rank, host and pid), then a rerun.
#
# Prints what it runs and each outcome; exits non-zero if any comparison
# fails. Needs root (the daemons run as root) and mlgo's build in build/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mlgo=$here/build/bin/mlgo
[[ -x $mlgo ]] || { echo "slurm-local: no $mlgo: build first" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "slurm-local: run as root" >&2; exit 2; }

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "== installing slurm-wlm and munge =="
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge \
    >/dev/null
fi

work=${1:-$(mktemp -d /tmp/mlgo-slurm.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
# munged wants its socket directory and every parent searchable by all.
chmod 755 "$work"
host=$(hostname -s)
cpus=$(nproc)
# Ports away from Slurm's defaults (6817, 6818), so that a system Slurm on
# this host, if any, is not disturbed.
ctld_port=${MLGO_SLURM_PORT:-16817}
slurmd_port=$((ctld_port + 1))

pids=()
# shellcheck disable=SC2317 # run by the EXIT trap
stop() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
}
trap stop EXIT
trap 'exit 130' INT TERM

echo "== one-node Slurm in $work (host $host, CPUs=$cpus) =="
# A WORK_DIR used before starts afresh: no jobs of an earlier cluster.
rm -rf "$work/state" "$work/spool" "$work/log"
mkdir -p "$work/munge" "$work/run" "$work/state" "$work/spool" "$work/log"
chmod 700 "$work/munge"
chmod 755 "$work/run"
mungekey --create --keyfile "$work/munge/munge.key" --force
munged --socket="$work/run/munge.socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" \
  --seed-file="$work/munge/seed"
pids+=("$(cat "$work/munge/munged.pid")")

cat >"$work/slurm.conf" <<EOF
ClusterName=mlgo-local
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/run/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  [[ -s $work/slurmctld.pid && -s $work/slurmd.pid ]] && break
  sleep 0.1
done
pids+=("$(cat "$work/slurmd.pid")" "$(cat "$work/slurmctld.pid")")
for _ in $(seq 100); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  sleep 0.2
done
sinfo
echo "srun --mpi=list:"
srun --mpi=list 2>&1 | sed 's/^/  /'

echo "== the corpus and one process =="
d=$work/mlgo
PATH=$(dirname "$mlgo"):$PATH
export PATH
"$here/test/Eval/Inputs/make-corpus.sh" "$here/test/Eval/Inputs/src" "$d"
cd "$d"
cp "$here/test/Eval/Inputs/never-model.json" never.json
args=(eval corpus corpus --per-module --format csv --model never.json)
"$mlgo" "${args[@]}" > one.csv
cat one.csv

status=0
exec 3>&1
show() { # CMD...: prints a command line on the terminal, then runs it
  echo "\$ $*" >&3
  "$@"
}
same() { # NAME: NAME.csv against one.csv, and NAME.err's rank statistics
  if cmp -s one.csv "$1.csv"; then
    echo "$1: same bytes as one process ($(wc -c < one.csv) bytes)"
  else
    echo "$1: DIFFERS from one process"; status=1
    diff one.csv "$1.csv" || true
  fi
  grep -h '^mlgo: mpi:' "$1.err" 2>/dev/null ||
    { echo "$1: no rank statistics"; status=1; }
}
expect() { # NAME TEXT: NAME.err must contain TEXT
  if grep -qF -- "$2" "$1.err"; then
    echo "$1: says \"$2\""
  else
    echo "$1: does NOT say \"$2\""; status=1
  fi
}
# Three tasks on two CPUs: --overcommit (-O), or Slurm asks for a second
# node and the job waits for ever (reason PartitionConfig).
export MLGO=$mlgo MLGO_MPI_STATS=1
job=$here/scripts/slurm-mlgo.sbatch

echo "== a. the job script: sbatch -n 3 --wait scripts/slurm-mlgo.sbatch =="
rc=0
show timeout 600 sbatch -n 3 --overcommit --wait -o sbatch.csv -e sbatch.err \
  "$job" "${args[@]}" || rc=$?
echo "sbatch: exit status $rc"
same sbatch

echo "== b. srun --mpi=pmix -n 3 (as the job script runs it) =="
rc=0
show timeout 600 srun --mpi=pmix -n 3 --overcommit --kill-on-bad-exit=1 \
  "$mlgo" "${args[@]}" > pmix.csv 2> pmix.err || rc=$?
echo "srun: exit status $rc"
same pmix

echo "== c. salloc -n 3 mpirun (Open MPI's launcher in an allocation) =="
rc=0
show env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout 600 salloc -n 3 --overcommit mpirun --bind-to none \
  "$mlgo" "${args[@]}" > salloc.csv 2> salloc.err || rc=$?
echo "salloc: exit status $rc"
same salloc

echo "== d. srun --mpi=pmi2: Debian's Open MPI cannot be launched so =="
# Open MPI 4.1 on Debian talks to a launcher through PMIx only (its pmix
# components are ext3x, isolated and flux; no s1/s2, which would need
# Slurm's libpmi at Open MPI's build time).
rc=0
show timeout 600 srun --mpi=pmi2 -n 3 --overcommit --kill-on-bad-exit=1 \
  "$mlgo" "${args[@]}" > pmi2.csv 2> pmi2.err || rc=$?
echo "srun: exit status $rc (expected: not 0)"
[[ $rc != 0 ]] || status=1
expect pmi2 "but OMPI was not built with SLURM's PMI support"

echo "== e. a worker rank killed under the job script =="
rc=0
show env MLGO_WORKER_FAULT=kill-rank:p1/a.o timeout 600 sbatch -n 3 \
  --overcommit --wait -o killed.csv -e killed.err "$job" "${args[@]}" ||
  rc=$?
echo "sbatch: exit status $rc (expected: not 0)"
[[ $rc != 0 ]] || status=1
grep -v '^compiling:' killed.err
expect killed "srun: error: $host: task "
expect killed ": Killed"
[[ ! -s killed.csv ]] || { echo "killed: wrote output"; status=1; }

echo "== f. a worker rank stopped under the job script =="
rc=0
show env MLGO_WORKER_FAULT=stop-rank:p1/a.o MLGO_MPI_SILENCE_SECONDS=3 \
  timeout 600 sbatch -n 3 --overcommit --wait -o stopped.csv \
  -e stopped.err "$job" "${args[@]}" || rc=$?
echo "sbatch: exit status $rc (expected: not 0)"
[[ $rc != 0 ]] || status=1
grep '^mlgo: error' stopped.err || true
expect stopped "has not answered for 3 s while compiling p1/a.o"
expect stopped " on host $host (pid "
[[ ! -s stopped.csv ]] || { echo "stopped: wrote output"; status=1; }

echo "== the rerun after the faults, 3 tasks: one process's bytes =="
rc=0
show timeout 600 sbatch -n 3 --overcommit --wait -o rerun.csv -e rerun.err \
  "$job" "${args[@]}" || rc=$?
same rerun

if [[ $status == 0 ]]; then echo "slurm-local: all as expected"; else
  echo "slurm-local: FAILED"; fi
exit "$status"
