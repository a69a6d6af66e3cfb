#!/usr/bin/env bash
# Two hosts on one machine: mlgo's worker ranks started by Open MPI through
# ssh, as on a cluster without Slurm (docs/distributed.md, "Two hosts over
# ssh").
#
#   bench/mpi-ssh-hosts.sh [WORK_DIR]
#
# The second host is 127.0.0.2. Open MPI treats a hostfile's node as this
# machine when its name is the host name, "localhost" or an address of one
# of its interfaces (127.0.0.1 and eth0's here: both merge into the node of
# the host name); 127.0.0.2 is none of these, although the loopback device
# answers it, so mpirun starts a daemon (orted) there through its rsh
# launcher, ssh, and the ranks mapped to it are that daemon's children.
#
# 1. Installs openssh-server if missing, and starts an sshd of its own in
#    WORK_DIR (default: a new temporary directory) listening on
#    127.0.0.2:${MLGO_SSH_PORT:-2222}, with a host key and a root key made
#    for the run; mpirun's ssh gets them by plm_rsh_agent "ssh -F CONFIG".
#    Nothing of root's ~/.ssh or the system's sshd is used or changed
#    (only /run/sshd, which sshd needs, is created if missing). The sshd
#    is stopped when the script exits.
# 2. Runs `mlgo eval corpus` (the test/Eval corpus) and `mlgo tune` (the
#    test/Tune corpus) as one process, then with the hostfile "HOST
#    slots=1 / 127.0.0.2 slots=2": rank 0 here, in the directory holding
#    the corpus, and ranks 1 and 2 on 127.0.0.2, in an empty directory.
#    Each worker rank says who started it (its parent orted, whose parent
#    is sshd) and where it runs. The outputs must be one process's bytes.
# 3. Kills (SIGKILL) the orted on 127.0.0.2 while its ranks compile (each
#    compile made 3 s long by a --clang that sleeps first): mpirun must end
#    the job naming the host, with a non-zero status and no output; the job
#    map (--display-map) names the ranks on that host. Then a rerun over
#    both hosts at 2 ranks gives one process's bytes.
#
# Prints what it runs and each outcome; exits non-zero if any check fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mlgo=$here/build/bin/mlgo
[[ -x $mlgo ]] || { echo "mpi-ssh-hosts: no $mlgo: build first" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "mpi-ssh-hosts: run as root" >&2; exit 2; }
if [[ ! -x /usr/sbin/sshd ]]; then
  echo "== installing openssh-server =="
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssh-server \
    >/dev/null
fi

work=${1:-$(mktemp -d /tmp/mlgo-ssh.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
chmod 700 "$work"
host=$(hostname)
remote=127.0.0.2
port=${MLGO_SSH_PORT:-2222}

pids=()
# shellcheck disable=SC2317 # run by the EXIT trap
stop() {
  local p
  # Ranks whose orted was killed may outlive it for a moment.
  if [[ -f $work/ranks.pids ]]; then
    while read -r p; do kill -9 "$p" 2>/dev/null || true; done \
      < "$work/ranks.pids"
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop EXIT
trap 'exit 130' INT TERM

echo "== sshd on $remote:$port ($work) =="
rm -f "$work/host_key" "$work/id" "$work/id.pub"
ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/id"
cp "$work/id.pub" "$work/authorized_keys"
mkdir -p /run/sshd
cat >"$work/sshd_config" <<EOF
Port $port
ListenAddress $remote
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $work/sshd.pid
EOF
cat >"$work/ssh_config" <<EOF
Host $remote
  Port $port
  IdentityFile $work/id
  IdentitiesOnly yes
  BatchMode yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
EOF
rm -f "$work/sshd.pid"
/usr/sbin/sshd -f "$work/sshd_config" -E "$work/sshd.log"
for _ in $(seq 50); do [[ -s $work/sshd.pid ]] && break; sleep 0.1; done
pids+=("$(cat "$work/sshd.pid")")
ssh -F "$work/ssh_config" "$remote" true

status=0
exec 3>&1
show() { # CMD...: prints a command line on the terminal, then runs it
  echo "\$ $*" >&3
  "$@"
}
check() { # WHAT FILE1 FILE2: the two files must be the same bytes
  if cmp -s "$2" "$3"; then
    echo "$1: same bytes as one process ($(wc -c < "$2") bytes)"
  else
    echo "$1: DIFFERS from one process"; status=1
  fi
}
expect() { # FILE TEXT: FILE must contain TEXT
  if grep -qF -- "$2" "$1"; then echo "  says \"$2\""; else
    echo "  does NOT say \"$2\""; status=1
  fi
}

# A worker rank's command: says who started it and where it runs, keeps
# its pid and its orted's, then becomes mlgo.
cat >"$work/worker" <<EOF
#!/bin/sh
gp=\$(awk '{print \$4}' /proc/\$PPID/stat)
echo "rank \$OMPI_COMM_WORLD_RANK: started by \$(cat /proc/\$PPID/comm)" \
  "(pid \$PPID), started by \$(cat /proc/\$gp/comm); in \$PWD" >&2
echo \$\$ >> "$work/ranks.pids"
echo \$PPID > "$work/orted.pid"
exec "\$@"
EOF
chmod +x "$work/worker"
# A clang that takes 3 s more per compile, for the kill.
cat >"$work/slow-clang" <<'EOF'
#!/bin/sh
sleep 3
exec clang-19 "$@"
EOF
chmod +x "$work/slow-clang"

printf '%s slots=1\n%s slots=2\n' "$host" "$remote" > "$work/hosts"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(timeout 600 mpirun --hostfile "$work/hosts" --bind-to none
  --mca plm_rsh_agent "ssh -F $work/ssh_config" -x MLGO_MPI_STATS=1)
# mpirun's MPMD form: rank 0 in RANK0_DIR, ranks 1-2 in $work/elsewhere.
two_hosts() { # N RANK0_DIR MLGO_ARGS...: N ranks over both hosts
  local n=$1 dir=$2
  shift 2
  "${mpirun[@]}" -np 1 --wdir "$dir" "$mlgo" "$@" \
    : -np $((n - 1)) --wdir "$work/elsewhere" "$work/worker" "$mlgo" "$@"
}

echo "== the corpora and one process =="
rm -rf "$work/eval" "$work/tune" "$work/elsewhere" "$work/ranks.pids"
mkdir -p "$work/elsewhere" "$work/tune"
PATH=$(dirname "$mlgo"):$PATH
export PATH
"$here/test/Eval/Inputs/make-corpus.sh" "$here/test/Eval/Inputs/src" \
  "$work/eval" >/dev/null
cp "$here/test/Eval/Inputs/never-model.json" "$work/eval/never.json"
cp -r "$here/test/Tune/Inputs/src" "$work/tune/src"
sh "$here/test/Tune/Inputs/make-corpus.sh" "$work/tune/src" \
  "$work/tune/build" >/dev/null 2>&1
cp "$here/test/Inline/Inputs/never-model.json" "$work/tune/never.json"
eval_args=(eval corpus corpus --per-module --format csv --model never.json)
tune_args=(tune --quiet --model never.json --corpus build/corpus)
(cd "$work/eval" && "$mlgo" "${eval_args[@]}" > one.csv 2>/dev/null)
(cd "$work/tune" && "$mlgo" "${tune_args[@]}" --work-dir one -o one.txt)
cat "$work/eval/one.csv"

echo "== eval corpus, ranks 1-2 on $remote through ssh =="
cd "$work/eval"
rc=0
show two_hosts 3 "$work/eval" "${eval_args[@]}" > three.csv 2> three.err ||
  rc=$?
echo "mpirun: exit status $rc"
grep -E '^(rank|mlgo)' three.err
check "eval corpus, 3 ranks over 2 hosts" one.csv three.csv
expect three.err "rank 1: started by orted"
expect three.err "started by sshd; in $work/elsewhere"
if ls "$work/elsewhere/corpus" "$work/elsewhere/never.json" 2>/dev/null; then
  echo "  the workers' directory holds the corpus"; status=1
fi

echo "== tune, ranks 1-2 on $remote through ssh =="
cd "$work/tune"
rc=0
show two_hosts 3 "$work/tune" "${tune_args[@]}" --work-dir three \
  -o three.txt 2> three.err || rc=$?
echo "mpirun: exit status $rc"
grep -E '^mlgo' three.err
check "tune decisions, 3 ranks over 2 hosts" one.txt three.txt
check "tune report" one/report.md three/report.md
check "tune tries log" one/tries-guided.tsv three/tries-guided.tsv

echo "== orted on $remote killed while its ranks compile =="
cd "$work/eval"
rm -f "$work/orted.pid"
rc=0
two_hosts 3 "$work/eval" "${eval_args[@]}" --clang "$work/slow-clang" \
  > killed.csv 2> killed.err < /dev/null &
job=$!
for _ in $(seq 300); do [[ -s $work/orted.pid ]] && break; sleep 0.1; done
sleep 2
orted=$(cat "$work/orted.pid")
echo "\$ kill -9 $orted   # $(tr '\0' ' ' < "/proc/$orted/cmdline" | cut -c1-60)..."
kill -9 "$orted"
wait "$job" || rc=$?
echo "mpirun: exit status $rc (expected: not 0)"
[[ $rc != 0 ]] || status=1
grep -v '^compiling:' killed.err
expect killed.err "ORTE has lost communication with a remote daemon."
expect killed.err "on node $remote"
[[ ! -s killed.csv ]] || { echo "  wrote output"; status=1; }
echo "The job map of such a run (--display-map), naming the ranks on $remote:"
"${mpirun[@]}" --display-map -np 3 true > map.txt 2>&1 || true
grep -m 5 -E 'Data for node|Process rank' map.txt

echo "== the rerun, 2 ranks over 2 hosts =="
rc=0
show two_hosts 2 "$work/eval" "${eval_args[@]}" > rerun.csv 2> rerun.err ||
  rc=$?
grep -E '^(rank|mlgo)' rerun.err
check "eval corpus, 2 ranks over 2 hosts" one.csv rerun.csv

if [[ $status == 0 ]]; then echo "mpi-ssh-hosts: all as expected"; else
  echo "mpi-ssh-hosts: FAILED"; fi
exit "$status"
