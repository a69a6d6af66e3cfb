#!/usr/bin/env bash
# The quick fault cases of issue 70 (under two minutes), run against a
# build: each kills, stops or starves something mlgo controls at a moment
# where it used to hang, leave files behind or fail silently, and checks
# that it now ends with a clear message and nothing left over:
#
#   host-death  `mlgo serve` SIGKILLed while stock llc-19 waits for its
#               advice: llc must die with it (PR_SET_PDEATHSIG), and the
#               channel directory it could not remove (mlgo-serve-PID-*) is
#               collected by the next `mlgo serve`
#   term, int   `mlgo serve` and `mlgo profile run` ended by SIGTERM and
#               SIGINT mid-run: no compiler or workload left, no
#               mlgo-serve-PID-* or mlgo-profile-PID-* directory left, no
#               profile written
#   stop        the host stopped (SIGSTOP) while mlgo's plugin waits for its
#               advice: the compile fails at -mlgo-interactive-timeout with
#               an error naming the channel, never hangs
#   disk-full   a file size limit (ulimit -f) while `mlgo speed counts`
#               writes its counts file: "mlgo: error:" naming the file and
#               "File too large", and no file left; the same while `mlgo
#               tune` writes its outputs (no decisions file left, and a
#               rerun with room writes the file a run without the limit
#               writes)
#
#   scripts/check-faults.sh [BUILD_DIR]     (default: build)
#
# Prints one line per case; exits 1 if any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
export PATH=$build/bin:$PATH
plugin=$build/lib/mlgo/mlgo-plugin.so
t=$(mktemp -d)
# The cases' own scratch directories, so that another run's are not judged.
export TMPDIR=$t/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$t"' EXIT
failures=0
ok() { echo "  ok    $*"; }
bad() { echo "  FAIL  $*"; failures=$((failures + 1)); }
# gone PID [SECONDS]: whether PID ends within SECONDS (default 10).
gone() {
  local i
  for ((i = 0; i < ${2:-10} * 10; ++i)); do
    kill -0 "$1" 2>/dev/null || return 0
    [[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) == Z ]] && return 0
    sleep 0.1
  done
  return 1
}
# child_of PID NAME: the pid of PID's child called NAME (a regular
# expression; llc-19 runs as "llc"), waiting up to 10 s.
child_of() {
  local i c
  for ((i = 0; i < 100; ++i)); do
    c=$(pgrep -P "$1" -x "$2" | head -1)
    [[ -n $c ]] && { echo "$c"; return 0; }
    sleep 0.1
  done
  return 1
}
left() { find "$TMPDIR" -maxdepth 1 -name "$1" | wc -l; }

# Inputs: a module whose allocation asks many eviction questions.
cd "$t" || exit 2
clang-19 -O2 -S -emit-llvm "$root/test/Serve/Inputs/pressure.c" -o p.ll || exit 2
serve_llc() {
  mlgo serve --policy first-valid -- llc-19 -O2 -regalloc=greedy \
    -regalloc-enable-advisor=release \
    -regalloc-evict-interactive-channel-base={channel} p.ll -o /dev/null
}

echo "host-death"
# In a subshell that becomes mlgo (exec), so that $! is the host.
(exec mlgo serve --policy first-valid -- llc-19 -O2 -regalloc=greedy \
  -regalloc-enable-advisor=release \
  -regalloc-evict-interactive-channel-base={channel} p.ll -o /dev/null) \
  >/dev/null 2>&1 &
host=$!
if llc=$(child_of $host 'llc|llc-19'); then
  kill -STOP $host
  kill -KILL $host
  wait $host 2>/dev/null
  if gone "$llc"; then ok "llc-19 ended with its SIGKILLed host"
  else bad "llc-19 ($llc) outlived its SIGKILLed host"; kill -KILL "$llc"; fi
  n=$(left "mlgo-serve-$host-*")
  serve_llc >/dev/null 2>&1
  if [[ $n == 1 && $(left "mlgo-serve-$host-*") == 0 ]]; then
    ok "the next serve collected the dead host's channel directory"
  else bad "channel directories of the dead host: $n before the next serve, $(left "mlgo-serve-$host-*") after"; fi
else
  bad "serve started no llc-19"; kill -KILL $host
fi

for sig in TERM INT; do
  echo "$(tr 'A-Z' 'a-z' <<<$sig)"
  # setsid: a background job of a non-interactive shell ignores SIGINT.
  setsid bash -c 'exec mlgo serve --policy first-valid -- sh -c "exec sleep 60" {channel}' \
    >/dev/null 2>serve.err &
  host=$!
  if sleeper=$(child_of $host sleep); then
    kill -$sig $host
    wait $host 2>/dev/null
    if gone "$sleeper" 5 && [[ $(left "mlgo-serve-$host-*") == 0 ]]; then
      ok "serve, SIG$sig: its compiler and channel directory are gone"
    else bad "serve, SIG$sig: compiler $(gone "$sleeper" 0 && echo gone || echo alive), $(left "mlgo-serve-$host-*") directories left"; fi
  else
    bad "serve, SIG$sig: started nothing"; kill -KILL $host
  fi
  setsid bash -c 'exec mlgo profile run -o p.profdata -- sleep 60' >/dev/null 2>&1 &
  prof=$!
  if sleeper=$(child_of $prof 'env|sleep'); then
    sleep 0.3
    kill -$sig $prof
    wait $prof 2>/dev/null
    sleep 0.2
    if [[ $(left "mlgo-profile-$prof-*") == 0 && ! -e p.profdata ]]; then
      ok "profile run, SIG$sig: no raw profile directory, no profile"
    else bad "profile run, SIG$sig: $(left "mlgo-profile-$prof-*") directories left$([[ -e p.profdata ]] && echo ', a profile written')"; fi
    pkill -KILL -P "$sleeper" 2>/dev/null; kill -KILL "$sleeper" 2>/dev/null
  else
    bad "profile run, SIG$sig: started nothing"; kill -KILL $prof
  fi
done

echo "stop"
if [[ -f $plugin ]]; then
  # The host is stopped as soon as it has spawned the compiler: the
  # compile must fail at its timeout, naming the channel. The module asks
  # 800 questions (half a second of session), so that the host is stopped
  # mid-session, not after a compile that ended before it was seen.
  {
    for ((i = 0; i < 400; ++i)); do echo "int f$i(int x) { return x * $i + (x >> 3) ^ $i; }"; done
    echo "int g(int x) { int s = 0;"
    for ((i = 0; i < 400; ++i)); do echo "  s += f$i(x + s); s += f$((i * 7 % 400))(s);"; done
    echo "  return s; }"
  } >sites.c
  clang-19 -O2 -Xclang -disable-llvm-passes -S -emit-llvm sites.c -o sites.ll || exit 2
  mlgo serve --policy always -- opt-19 -load-pass-plugin="$plugin" \
    -passes='default<Oz>' -mlgo-interactive-channel-base={channel} \
    -mlgo-interactive-timeout=2 sites.ll -o /dev/null >/dev/null 2>stop.err &
  host=$!
  if cc=$(child_of $host 'opt|opt-19'); then
    kill -STOP $host
    if gone "$cc" 20 && grep -q "channel.*\(no advice for observation\|no host opened it\)" stop.err; then
      ok "a stopped host: the compile failed at its timeout, naming the channel"
    elif gone "$cc" 0; then
      bad "a stopped host: the compile ended: $(head -c 300 stop.err)"
    else
      bad "a stopped host: the compile still waits ($(ps -o stat=,wchan= -p "$cc"), $(head -c 300 stop.err))"
      kill -KILL "$cc" 2>/dev/null
    fi
    kill -KILL $host; wait $host 2>/dev/null
  else
    bad "serve started no opt-19"; kill -KILL $host
  fi
else
  bad "no plugin at $plugin"
fi

echo "disk-full"
clang-19 -O2 -fprofile-generate "$root/test/Speed/Inputs/dispatch.c" \
  "$root/test/Speed/Inputs/dispatch-main.c" -o inst &&
  mlgo profile run -o d.profdata -- ./inst >/dev/null &&
  clang-19 -O2 -fprofile-use=d.profdata -fbasic-block-address-map \
    -mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob \
    "$root/test/Speed/Inputs/dispatch.c" "$root/test/Speed/Inputs/dispatch-main.c" -o prog &&
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out ./prog >/dev/null 2>&1
if [[ -f cg.out ]]; then
  # stderr through a pipe, which the limit does not apply to.
  (ulimit -f 0; mlgo speed counts prog --callgrind cg.out -o counts.tsv 2>&1 >/dev/null) |
    cat >full.err
  rc=${PIPESTATUS[0]}
  if [[ $rc != 0 ]] && grep -q "^mlgo: error: .*counts.tsv.*File too large" full.err &&
    ! ls counts.tsv* >/dev/null 2>&1; then
    ok "speed counts at a file size limit: $(head -1 full.err)"
  else bad "speed counts at a file size limit: exit $rc, '$(head -c 300 full.err)'$(ls counts.tsv* 2>/dev/null | sed 's/^/, left /')"; fi
else
  bad "could not build the disk-full case's program"
fi

# The size tune of test/Tune, its compiles cached by a first run: under a
# limit of 1 KiB the rerun's first output that does not fit (its search
# curve, 2.3 KiB) is the error, named; no decisions file is left, and a
# rerun with room writes the file the first run wrote.
mkdir -p tune && cp "$root/test/Tune/Inputs/src/"*.c tune/
tune() {
  mlgo tune --quiet --model "$root/test/Inline/Inputs/never-model.json" \
    --corpus "$t/tune-build/corpus" --work-dir "$t/tw" "$@"
}
if sh "$root/test/Tune/Inputs/make-corpus.sh" "$t/tune" "$t/tune-build" >/dev/null 2>&1 &&
  tune -o ref.txt >/dev/null 2>&1; then
  (ulimit -f 1; tune -o d.txt 2>&1 >/dev/null) | cat >tune.err
  rc=${PIPESTATUS[0]}
  if [[ $rc != 0 ]] && grep -q "^mlgo: error: cannot write '$t/tw/[a-z.-]*': File too large" tune.err &&
    ! ls d.txt* >/dev/null 2>&1 && tune -o d.txt >/dev/null 2>&1 && cmp -s ref.txt d.txt; then
    ok "tune's outputs at a file size limit: $(head -1 tune.err)"
  else bad "tune's outputs at a file size limit: exit $rc, '$(head -c 300 tune.err)'$(ls d.txt* 2>/dev/null | sed 's/^/, left /')"; fi
else
  bad "could not run the tune of the disk-full case"
fi

echo
if ((failures)); then echo "check-faults: $failures failed"; exit 1; fi
echo "check-faults: all passed"
