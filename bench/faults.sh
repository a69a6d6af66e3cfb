#!/usr/bin/env bash
# Faults during long work (issue 35): runs `mlgo train` (test/Train's tiny
# counterfactual recipe with evolution strategies, so that it writes
# checkpoints) and `mlgo tune` (test/Tune's two-file program) through the
# things that go wrong on real machines, and checks that each ends with a
# clear message, loses nothing and resumes to the same bytes as an
# uninterrupted run:
#
#   kill      kill -9 of mlgo at seeded random moments (uniform over the
#             length of an uninterrupted run), then a rerun over the same
#             work directory: the model / decisions file and report.md
#             must be byte-identical to the reference run's, and no
#             temporary file may be left behind
#   compiler  a compiler that crashes (SIGSEGV) or hangs on one module
#             (MLGO_WORKER_FAULT, lib/Compile/WorkerPool.cpp): the run must
#             finish within its timeout, name the module, and a rerun
#             without the fault must give the reference bytes
#   enospc    the work directory on a small tmpfs (unshare -rm: a mount
#             namespace of its own) with N KiB free: the run must fail with
#             "mlgo: error:" naming a file (never "LLVM ERROR" or a crash
#             banner), and a rerun with room over the directory it left
#             must give the reference bytes
#   shm       /dev/shm, where compile workers write their objects, full (a
#             tmpfs of N KiB mounted over it in a mount namespace; TMPDIR
#             unset): the run must stop with "mlgo: error:" naming the
#             object's path and "No space left on device", cache nothing
#             for the failed compile, and a rerun with room must give the
#             reference bytes
#   fsize     a file size limit (ulimit -f N KiB): the run must stop with
#             "mlgo: error:" naming a file and "File too large" (SIGXFSZ is
#             ignored, never a silent death), and a rerun without the
#             limit must give the reference bytes
#   corrupt   one byte of a cache or checkpoint file changed (four bits, or
#             the lowest bit) or the file cut short, after a complete run,
#             then a rerun: it must either write the reference bytes or
#             fail with a message naming the file - never crash, and never
#             write other bytes
#
# Prints one line per trial and a summary per scenario; exits 1 if any
# trial failed.
#
#   bench/faults.sh [--scenarios kill,compiler,enospc,shm,fsize,corrupt] [--kills N]
#     [--seed S] [--keep DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scenarios=kill,compiler,enospc,shm,fsize,corrupt
kills=30
seed=1
keep=
while [[ $# -gt 0 ]]; do
  case $1 in
  --scenarios) scenarios=$2; shift 2 ;;
  --kills) kills=$2; shift 2 ;;
  --seed) seed=$2; shift 2 ;;
  --keep) keep=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "faults.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
# MLGO_BIN: the directory of the mlgo to test (default build/bin).
export PATH=${MLGO_BIN:-$root/build/bin}:$PATH
if [[ -n $keep ]]; then
  mkdir -p "$keep"; t=$(cd "$keep" && pwd)
else
  t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fi
failures=0

# The inputs and the reference runs.
sh "$root/test/Train/Inputs/make-corpus.sh" "$t/train" >/dev/null 2>&1
rm -rf "$t/src" && cp -r "$root/test/Tune/Inputs/src" "$t/src"
sh "$root/test/Tune/Inputs/make-corpus.sh" "$t/src" "$t/tune" >/dev/null 2>&1
# A tiny-es recipe whose compiles time out after 3 s (the hang trials).
sed 's/"workers": 2,/"workers": 2, "timeout_seconds": 3,/' \
  "$root/test/Train/Inputs/tiny-es.json" >"$t/recipe.json"
never=$root/test/Inline/Inputs/never-model.json

# run_train WORK OUT [mlgo train args...]: the reference command.
run_train() {
  local w=$1 o=$2; shift 2
  ${EXEC:-} mlgo train --quiet --recipe "$t/recipe.json" --corpus "$t/train/corpus" \
    --work-dir "$w" -o "$o" "$@" >/dev/null
}
run_tune() {
  local w=$1 o=$2; shift 2
  ${EXEC:-} mlgo tune --quiet --model "$never" --corpus "$t/tune/corpus" --work-dir "$w" \
    -o "$o" --timeout 3 "$@" >/dev/null
}
export -f run_train run_tune
export t never
# same TOOL WORK OUT: whether WORK and OUT hold the reference bytes (the
# report's line with the invocation's wall-clock time aside); says what
# differs.
same() {
  cmp -s "$3" "$t/ref-$1.out" || { echo "the output differs from the reference"; return 1; }
  cmp -s <(grep -v '^- Wall-clock time' "$2/report.md") \
    <(grep -v '^- Wall-clock time' "$t/ref-$1/report.md") ||
    { echo "report.md differs from the reference"; return 1; }
}
# crashed FILE: whether FILE (a run's stderr) shows a crash or an abort.
crashed() { grep -q 'PLEASE submit\|Stack dump\|LLVM ERROR\|Assertion' "$1"; }
result() { # SCENARIO OK DETAIL
  local s=$1 ok=$2; shift 2
  if [[ $ok == 1 ]]; then pass[$s]=$((${pass[$s]:-0} + 1)); echo "  ok    $*"
  else fail[$s]=$((${fail[$s]:-0} + 1)); failures=$((failures + 1)); echo "  FAIL  $*"; fi
}
declare -A pass fail

rm -rf "$t/ref-train" "$t/ref-tune"
s0=$(date +%s.%N); run_train "$t/ref-train" "$t/ref-train.out"; s1=$(date +%s.%N)
run_tune "$t/ref-tune" "$t/ref-tune.out"; s2=$(date +%s.%N)
dur_train=$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')
dur_tune=$(awk -v a="$s1" -v b="$s2" 'BEGIN { print b - a }')
echo "reference runs: mlgo train ${dur_train} s, mlgo tune ${dur_tune} s"

if [[ ,$scenarios, == *,kill,* ]]; then
  echo "kill -9 at $kills seeded random moments per tool (seed $seed):"
  for tool in train tune; do
    dur=$dur_train; [[ $tool == tune ]] && dur=$dur_tune
    for ((i = 1; i <= kills; ++i)); do
      d=$(awk -v s="$seed" -v i="$i" -v d="$dur" -v k="$tool" \
        'BEGIN { srand(s * 1000 + i + (k == "tune") * 500); printf "%.3f", rand() * d }')
      w=$t/k-$tool; o=$t/k-$tool.out
      rm -rf "$w" "$o"
      (EXEC=exec "run_$tool" "$w" "$o" 2>/dev/null) &
      pid=$!
      sleep "$d"
      killed=yes; kill -9 "$pid" 2>/dev/null || killed="no (it had finished)"
      wait "$pid" 2>/dev/null
      why=
      [[ -e $o ]] && ! cmp -s "$o" "$t/ref-$tool.out" && why="a partial output was left"
      if [[ -z $why ]] && ! "run_$tool" "$w" "$o" 2>"$t/err"; then
        why="the rerun failed: $(head -1 "$t/err")"
      fi
      [[ -z $why ]] && why=$(same "$tool" "$w" "$o")
      [[ -z $why ]] && why=$(find "$w" "$o.tmp" -name '*.tmp*' 2>/dev/null | sed "s|$t/||" | head -3)
      [[ -n $why ]] && why=": $why"
      ok=0; [[ -z $why ]] && ok=1
      result kill "$ok" "$tool: kill -9 after $d s (killed: $killed)$why"
    done
  done
fi

if [[ ,$scenarios, == *,compiler,* ]]; then
  echo "a compiler that crashes or hangs on one module:"
  for fault in crash hang; do
    # train: alpha/table.o; tune: shapes.o (its only tuned module)
    for tool in train tune; do
      mod=alpha/table.o; [[ $tool == tune ]] && mod=shapes.o
      w=$t/c-$tool-$fault; o=$t/c-$tool-$fault.out
      rm -rf "$w" "$o"
      start=$(date +%s)
      LLVM_DISABLE_SYMBOLIZATION=1 MLGO_WORKER_FAULT=$fault:$mod timeout 120 bash -c 'run_'$tool' "$@"' _ "$w" "$o" 2>"$t/err"
      rc=$?
      secs=$(($(date +%s) - start))
      named=$(grep -c "$mod: " "$t/err" "$w/report.md" 2>/dev/null | awk -F: '{ n += $2 } END { print n }')
      msg=$(grep -ho "$mod: [^|]*" "$t/err" "$w/report.md" 2>/dev/null | head -1)
      ok=0; ((rc != 124 && named > 0)) && ok=1
      result compiler "$ok" "$tool, $fault on $mod: exit $rc after $secs s; \"$msg\""
      if [[ $fault == hang ]]; then
        # Timeouts are not cached: a rerun without the fault compiles the
        # module again and writes the reference bytes.
        "run_$tool" "$w" "$o" 2>"$t/err" && same "$tool" "$w" "$o" >/dev/null
        result compiler "$(($? == 0))" "$tool, hang: a rerun without the fault gives the reference bytes"
      fi
    done
  done
fi

if [[ ,$scenarios, == *,enospc,* ]]; then
  echo "the work directory on a small tmpfs:"
  for tool in train tune; do
    for kb in 4 8 12 16 24 32 48 64 96; do
      w=$t/e-$tool; o=$t/e-$tool/out; saved=$t/e-$tool-saved
      rm -rf "$w" "$saved" "$saved.init" && mkdir -p "$w"
      # A 256 KiB tmpfs with all but KB of it taken.
      unshare -rm sh -c "mount -t tmpfs -o size=256k tmpfs '$w' &&
        head -c $((256 - kb))k /dev/zero >'$w/filler' 2>/dev/null
        mlgo_rc=0
        $(declare -f run_train run_tune); t='$t'; never='$never'
        run_$tool '$w/w' '$o' 2>'$t/err' || mlgo_rc=\$?
        rm -f '$w/filler'; mkdir -p '$saved'; cp -r '$w/.' '$saved'; exit \$mlgo_rc"
      rc=$?
      msg=$(head -1 "$t/err")
      if ((rc == 0)); then
        ok=1; [[ -n $msg ]] && ok=0
        result enospc "$ok" "$tool, ${kb} KiB free: finished (it fit)"
        continue
      fi
      ok=1
      crashed "$t/err" && ok=0
      [[ $msg == "mlgo: error: "*"$t/e-$tool/"* ]] || ok=0
      # With room: resume over what the full disk left.
      run_$tool "$saved/w" "$saved/out" 2>"$t/err2" && same "$tool" "$saved/w" "$saved/out" >"$t/err2" || ok=0
      result enospc "$ok" "$tool, ${kb} KiB free: exit $rc, \"${msg/$t/T}\"; rerun with room: $( ((ok)) && echo reference bytes || head -c 200 "$t/err2")"
    done
  done
fi

# limited_result SCENARIO TOOL WHAT RC EXPECTED: judges a run that hit a
# limit (its stderr in $t/err, its work directory and output the caller's
# $w and $o), then reruns it without the limit.
limited_result() {
  local s=$1 tool=$2 what=$3 rc=$4 expected=$5
  local msg ok=1
  msg=$(head -1 "$t/err")
  if ((rc == 0)); then
    [[ -n $msg ]] && ok=0
    same "$tool" "$w" "$o" >/dev/null || ok=0
    result "$s" "$ok" "$tool, $what: finished (it fit) with the reference bytes"
    return
  fi
  crashed "$t/err" && ok=0
  [[ $msg == "mlgo: error: "*"$expected"* ]] || ok=0
  run_$tool "$w" "$o" 2>"$t/err2" && same "$tool" "$w" "$o" >"$t/err2" || ok=0
  result "$s" "$ok" "$tool, $what: exit $rc, \"${msg//$t/T}\"; rerun: $( ((ok)) && echo reference bytes || head -c 200 "$t/err2")"
}

if [[ ,$scenarios, == *,shm,* ]]; then
  echo "/dev/shm full (where compile workers write objects):"
  for tool in train tune; do
    for kb in 0 4 16 64; do
      w=$t/l-$tool; o=$t/l-$tool.out
      rm -rf "$w" "$o"
      # A 256 KiB tmpfs over /dev/shm with all but KB of it taken.
      env -u TMPDIR unshare -rm sh -c "mount -t tmpfs -o size=256k tmpfs /dev/shm &&
        head -c $((256 - kb))k /dev/zero >/dev/shm/filler 2>/dev/null
        $(declare -f run_train run_tune); t='$t'; never='$never'
        run_$tool '$w' '$o' 2>'$t/err'"
      limited_result shm "$tool" "${kb} KiB free" $? "/dev/shm/mlgo-worker-"
    done
  done
fi

if [[ ,$scenarios, == *,fsize,* ]]; then
  echo "a file size limit (ulimit -f):"
  for tool in train tune; do
    for kb in 1 4 16 64; do
      w=$t/l-$tool; o=$t/l-$tool.out
      rm -rf "$w" "$o"
      (ulimit -f "$kb"; "run_$tool" "$w" "$o" 2>"$t/err")
      limited_result fsize "$tool" "ulimit -f $kb" $? "File too large"
    done
  done
fi

if [[ ,$scenarios, == *,corrupt,* ]]; then
  echo "a corrupted cache or checkpoint file (after a complete run):"
  for tool in train tune; do
    files=(compiles.tsv)
    [[ $tool == train ]] && files+=(classifier.ckpt es.ckpt) || files+=(sites.tsv)
    for f in "${files[@]}"; do
      size=$(stat -c %s "$t/ref-$tool/$f")
      for ((i = 1; i <= 6; ++i)); do
        w=$t/x-$tool; o=$t/x-$tool.out
        rm -rf "$w" && cp -r "$t/ref-$tool" "$w" && rm -f "$o"
        off=$(awk -v s="$seed" -v i="$i" -v n="$size" 'BEGIN { srand(s * 7919 + i); print int(rand() * n) }')
        # Trials 1-3 flip four bits of a byte (XOR 0x5a), 4-5 its lowest
        # bit (a digit stays a digit), 6 cuts the file short.
        if ((i == 6)); then
          what="cut to $off of $size bytes"
          truncate -s "$off" "$w/$f"
        else
          mask=0x5a; ((i >= 4)) && mask=0x01
          what="byte $off of $size XOR $mask"
          python3 -c "
import sys
p, off, mask = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
b = bytearray(open(p, 'rb').read()); b[off] ^= mask; open(p, 'wb').write(b)" "$w/$f" "$off" "$mask"
        fi
        "run_$tool" "$w" "$o" 2>"$t/err"
        rc=$?
        if ((rc == 0)); then
          same "$tool" "$w" "$o" >/dev/null; ok=$(($? == 0))
          outcome="rerun gives the reference bytes"
          ((ok)) || outcome="rerun succeeds with OTHER bytes"
        else
          ok=1; crashed "$t/err" && ok=0; grep -q "$f" "$t/err" || ok=0
          outcome="exit $rc: \"$(head -1 "$t/err" | sed "s|$t|T|g" | cut -c1-160)\""
        fi
        result corrupt "$ok" "$tool, $f $what: $outcome"
      done
    done
  done
fi

echo "summary:"
for s in kill compiler enospc shm fsize corrupt; do
  [[ ,$scenarios, == *,$s,* ]] && echo "  $s: ${pass[$s]:-0} passed, ${fail[$s]:-0} failed"
done
((failures == 0))
