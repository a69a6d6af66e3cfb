#!/bin/sh
# interrupt.sh SIGNAL LOG PATTERN CMD...: runs CMD in the background, waits
# (up to 60 s) until LOG holds PATTERN, sends SIGNAL to CMD, waits for it
# and prints its exit status, as a user's Ctrl-C or kill would end it.
sig=$1 log=$2 pattern=$3
shift 3
"$@" >/dev/null 2>&1 &
pid=$!
i=0
until grep -q -- "$pattern" "$log" 2>/dev/null; do
  i=$((i + 1))
  if [ $i -ge 600 ]; then
    echo "interrupt.sh: '$pattern' never appeared in $log"
    kill -KILL $pid
    exit 1
  fi
  sleep 0.1
done
kill -"$sig" $pid
wait $pid
echo "status $?"
