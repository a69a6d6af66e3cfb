#!/usr/bin/env bash
# Crash sweep (issue 35): compiles every module of a corpus with the real
# clang-19 -cc1, replayed with the module's own recorded flags (`mlgo corpus
# compile --print-command`, as `mlgo corpus check` and eval replay modules),
# once per plugin mode, and counts what went wrong. Modes:
#
#   stock       no plugin (the reference for llvm-advisor)
#   embedded    the plugin, its embedded model (the default)
#   model-file  -mlgo-model=models/inline-oz/model.json
#   logging     -mlgo-default-policy -mlgo-training-log=F -mlgo-training-log-score;
#               the log must then read back (`mlgo log stats F`)
#   explore     -mlgo-explore-seed=<module index> -mlgo-explore-temperature=2
#   decisions   -mlgo-decisions=FILE (default test/Eval/Inputs/zlib.decisions;
#               stale entries only warn)
#   llvm-advisor  -mlgo-use-llvm-advisor: the object must be byte-identical
#               to stock's
#   evict       -mlgo-evict -mlgo-evict-training-log=F at -O2 (the module's
#               -Os/-Oz, where the eviction model stands aside, becomes
#               -O2): the embedded register-allocation eviction model
#               (issue 34) answers LLVM's greedy allocator; F, if the module
#               had anything to allocate, must read back
#
# and, on every K-th module (a deterministic sample, in corpus order), each
# plugin mode again with clang's -llvm-verify-each (the IR verifier after
# every pass).
#
# Modules run smallest first (--order size, by bitcode bytes), so that a
# run stopped by --time-limit has covered as many modules as it could, or in
# corpus order (--order corpus). With --keep DIR a rerun over the same DIR
# skips the modules already done (their results are in DIR/results/), and
# --report prints the table of what DIR holds without compiling anything.
#
# A compile is a *crash* if clang died of a signal or printed a crash banner
# ("PLEASE submit a bug report", "Stack dump"), a *verifier failure* if it
# reported a broken module, a *timeout* past --timeout seconds, an *error*
# for any other failure (a non-zero exit, or a log that does not read
# back). Prints a table per mode and the failures; exits 1 if any compile
# crashed or failed verification, 2 on other failures.
#
#   bench/crash-sweep.sh [--corpus DIR] [--jobs N] [--verify-every K]
#     [--limit N] [--decisions FILE] [--timeout S] [--modes m1,m2,...]
#     [--keep DIR] [--order size|corpus] [--time-limit S] [--report]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/corpus   # scripts/corpus-debian.sh's default --out
jobs=2
verify_every=20
limit=0
decisions="$root/test/Eval/Inputs/zlib.decisions"
timeout_s=600
modes=stock,embedded,model-file,logging,explore,decisions,llvm-advisor,evict
keep=
order=size
time_limit=0
report_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
  --corpus) corpus=$2; shift 2 ;;
  --jobs | -j) jobs=$2; shift 2 ;;
  --verify-every) verify_every=$2; shift 2 ;;
  --limit) limit=$2; shift 2 ;;
  --decisions) decisions=$2; shift 2 ;;
  --timeout) timeout_s=$2; shift 2 ;;
  --modes) modes=$2; shift 2 ;;
  --keep) keep=$2; shift 2 ;;
  --order) order=$2; shift 2 ;;
  --time-limit) time_limit=$2; shift 2 ;;
  --report) report_only=1; shift ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "crash-sweep.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mlgo=${MLGO:-$root/build/bin/mlgo}
plugin=${MLGO_PLUGIN:-$root/build/lib/mlgo/mlgo-plugin.so}
model=$root/models/inline-oz/model.json
for f in "$mlgo" "$plugin" "$model" "$decisions" "$corpus/corpus_description.json"; do
  [[ -f $f ]] || { echo "crash-sweep.sh: missing $f" >&2; exit 2; }
done
[[ ,$modes, == *,llvm-advisor,* && ,$modes, != *,stock,* ]] && modes=stock,$modes

if [[ -n $keep ]]; then
  mkdir -p "$keep"; work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/results" "$work/tmp"
# "<index in corpus order> <TAB> <module>", in the order they run.
python3 - "$corpus" "$limit" "$order" >"$work/modules" <<'PY'
import json, os, sys
corpus, limit, order = sys.argv[1], int(sys.argv[2]), sys.argv[3]
mods = json.load(open(os.path.join(corpus, "corpus_description.json")))["modules"]
rows = list(enumerate(mods, 1))
if limit > 0:
    rows = rows[:limit]
if order == "size":
    rows.sort(key=lambda r: (os.path.getsize(os.path.join(corpus, r[1] + ".bc")), r[0]))
for i, m in rows:
    print(f"{i}\t{m}")
PY
total=$(wc -l <"$work/modules")
deadline=0
((time_limit > 0)) && deadline=$(($(date +%s) + time_limit))

# mode_args MODE INDEX LOG: the cc1 arguments a mode adds.
mode_args() {
  local p=(-load "$plugin" "-fpass-plugin=$plugin")
  case $1 in
  stock) ;;
  embedded) printf '%s\n' "${p[@]}" ;;
  model-file) printf '%s\n' "${p[@]}" -mllvm "-mlgo-model=$model" ;;
  logging) printf '%s\n' "${p[@]}" -mllvm -mlgo-default-policy -mllvm "-mlgo-training-log=$3" \
    -mllvm -mlgo-training-log-score ;;
  explore) printf '%s\n' "${p[@]}" -mllvm "-mlgo-explore-seed=$2" -mllvm -mlgo-explore-temperature=2 ;;
  decisions) printf '%s\n' "${p[@]}" -mllvm "-mlgo-decisions=$decisions" ;;
  llvm-advisor) printf '%s\n' "${p[@]}" -mllvm -mlgo-use-llvm-advisor ;;
  evict) printf '%s\n' "${p[@]}" -mllvm -mlgo-evict -mllvm "-mlgo-evict-training-log=$3" ;;
  *) echo "crash-sweep.sh: unknown mode '$1'" >&2; return 1 ;;
  esac
}

# compile_one INDEX MODULE MODE VERIFY DIR BASE: one compile, BASE being the
# module's command with @@MODE@@ where the mode's arguments go; prints
# "MODE<TAB>VERIFY<TAB>STATUS<TAB>SECONDS<TAB>MODULE<TAB>DETAIL".
compile_one() {
  local idx=$1 mod=$2 mode=$3 verify=$4 dir=$5 base=$6 args=() cmd status=ok detail= rc start end
  mapfile -t args < <(mode_args "$mode" "$idx" "$dir/log")
  [[ $verify == 1 ]] && args+=(-llvm-verify-each)
  rm -f "$dir/out.o" "$dir/log"
  cmd=${base/@@MODE@@/${args[*]@Q}}
  [[ $mode == evict ]] && cmd=${cmd/ -Oz / -O2 } && cmd=${cmd/ -Os / -O2 }
  start=$(date +%s.%N)
  rc=0
  eval "timeout -s KILL $timeout_s $cmd" </dev/null >/dev/null 2>"$dir/err" || rc=$?
  end=$(date +%s.%N)
  if grep -q 'PLEASE submit a bug report\|Stack dump' "$dir/err" || { ((rc > 128)) && ((rc != 137)); }; then
    status=crash
  elif grep -q 'Broken module found\|Broken function found' "$dir/err"; then
    status=verifier
  elif ((rc == 137)); then
    status=timeout
  elif ((rc != 0)); then
    status=error
  elif [[ $mode == logging ]] && ! "$mlgo" log stats "$dir/log" >/dev/null 2>"$dir/err"; then
    status=error
    rc=log
  elif [[ $mode == evict && -f $dir/log ]] && ! "$mlgo" log stats "$dir/log" >/dev/null 2>"$dir/err"; then
    status=error
    rc=log
  elif [[ $mode == llvm-advisor && $verify == 0 ]] && ! cmp -s "$dir/out.o" "$dir/stock.o"; then
    status=different
  fi
  [[ $status != ok ]] && detail="exit $rc: $(grep -v '^$' "$dir/err" | head -c 300 | tr '\t\n' '  ')"
  [[ $mode == stock && $verify == 0 && $status == ok ]] && mv "$dir/out.o" "$dir/stock.o"
  printf '%s\t%s\t%s\t%.2f\t%s\t%s\n' "$mode" "$verify" "$status" \
    "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')" "$mod" "$detail"
}

# sweep_module INDEX MODULE: every mode on the module at INDEX (1-based, in
# corpus order), unless it is done already or the time limit has passed.
sweep_module() {
  local idx=$1 mod=$2 dir mode base
  [[ -f $work/results/$idx.tsv ]] && return 0
  ((deadline == 0 || $(date +%s) < deadline)) || return 0
  dir=$(mktemp -d "$work/tmp/m.XXXXXX")
  if ! base=$("$mlgo" corpus compile "$corpus" "$mod" --print-command -o "$dir/out.o" \
    @@MODE@@ 2>"$dir/err"); then
    for mode in ${modes//,/ }; do
      printf '%s\t0\terror\t0\t%s\t%s\n' "$mode" "$mod" "$(head -c 300 "$dir/err" | tr '\t\n' '  ')"
    done >"$work/results/$idx.tsv"
    rm -rf "$dir"
    return 0
  fi
  {
    for mode in ${modes//,/ }; do
      compile_one "$idx" "$mod" "$mode" 0 "$dir" "$base"
    done
    if ((verify_every > 0 && (idx - 1) % verify_every == 0)); then
      for mode in ${modes//,/ }; do
        [[ $mode == stock || $mode == llvm-advisor ]] ||
          compile_one "$idx" "$mod" "$mode" 1 "$dir" "$base"
      done
    fi
  } >"$work/results/$idx.tsv.part"
  mv "$work/results/$idx.tsv.part" "$work/results/$idx.tsv"
  rm -rf "$dir"
}
export -f mode_args compile_one sweep_module
export root corpus work mlgo plugin model decisions timeout_s modes verify_every deadline

start=$(date +%s)
((report_only)) ||
  tr '\t' '\n' <"$work/modules" | xargs -d '\n' -n 2 -P "$jobs" bash -c 'sweep_module "$@"' _
end=$(date +%s)
cat /dev/null "$work"/results/*.tsv >"$work/all.tsv"
done_n=$(find "$work/results" -name '*.tsv' | wc -l)
bytes=$(cd "$work/results" && ls | sed -n 's/\.tsv$//p' | python3 -c "
import json, os, sys
mods = json.load(open(os.path.join('$corpus', 'corpus_description.json')))['modules']
size = lambda m: os.path.getsize(os.path.join('$corpus', m + '.bc'))
done = [mods[int(l) - 1] for l in sys.stdin]
print('%.1f%%' % (100.0 * sum(map(size, done)) / sum(map(size, mods))))")

echo "crash sweep: $corpus, $done_n of $total modules ($bytes of the bitcode; $order order)," \
  "-j$jobs, -llvm-verify-each on 1 of every $verify_every modules, $((end - start)) s wall"
awk -F'\t' -v modes="$modes" '
  { k = $1; n[k]++; s[k, $3]++; t[k] += $4
    if ($2 == 1) { vn[k]++; if ($3 == "verifier") vf[k]++ } }
  END {
    printf "| mode | modules | crashes | verifier failures (sampled) | non-identical objects | timeouts | errors | compile time (s) |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
    m = split(modes, M, ",")
    for (i = 1; i <= m; i++) { k = M[i]
      printf "| %s | %d | %d | %s | %s | %d | %d | %.0f |\n", k, n[k] - vn[k], s[k, "crash"],
        (k == "stock" || k == "llvm-advisor") ? "-" : sprintf("%d of %d", vf[k] + 0, vn[k] + 0),
        k == "llvm-advisor" ? sprintf("%d", s[k, "different"]) : "-",
        s[k, "timeout"], s[k, "error"], t[k] }
  }' "$work/all.tsv"
if grep -qP '\t(crash|verifier|timeout|error|different)\t' "$work/all.tsv"; then
  echo "failures (mode, verify-each, status, seconds, module, detail):"
  grep -P '\t(crash|verifier|timeout|error|different)\t' "$work/all.tsv"
fi
grep -qP '\t(crash|verifier)\t' "$work/all.tsv" && exit 1
grep -qP '\t(timeout|error|different)\t' "$work/all.tsv" && exit 2
exit 0
