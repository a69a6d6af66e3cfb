#!/bin/sh
# Usage: kill-during-workload.sh PIDFILE COMMAND...
# Runs COMMAND (an `mlgo tune --objective speed --workload ...` whose
# workload writes its shell's pid to PIDFILE, then hangs) in the
# background, waits until the workload has started, kills mlgo with
# SIGKILL, then waits until the workload's process is gone too: mlgo's
# keeper must end it (mlgo/Support/Process.h). Fails if the workload never
# starts or outlives mlgo by a minute (a bound on a wait, not a timing).
pidfile=$1
shift
"$@" &
mlgo=$!
i=0
while ! test -s "$pidfile"; do
  sleep 0.1
  i=$((i + 1))
  if test $i -ge 3000; then
    kill -9 $mlgo
    echo "the workload never started"
    exit 1
  fi
done
kill -9 $mlgo
wait $mlgo
echo "mlgo killed"
pid=$(cat "$pidfile")
# Gone, or a zombie that no one reaps (pid 1 of a container may not).
alive() {
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  case "$state" in Z*) return 1 ;; esac
  return 0
}
i=0
while alive "$pid"; do
  sleep 0.1
  i=$((i + 1))
  if test $i -ge 600; then
    echo "the workload (pid $pid) outlived mlgo"
    exit 1
  fi
done
echo "the workload ended with mlgo"
