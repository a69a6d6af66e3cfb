#!/usr/bin/env bash
# Executed instructions (valgrind --tool=callgrind, deterministic) and paired
# wall-clock time of real programs built at clang-19 -O2 with LLVM's own
# eviction advisor ("default") and with mlgo's eviction model ("model": the
# plugin with -mlgo-evict, LLVM's inliner in both). The programs are built
# by `mlgo eval package --evict`: each package by its own build system, its
# own test suite run against both builds (a test failing only with the
# model is a possible miscompile, and stops the benchmark). xz-utils and
# lzip are programs no model has seen in training. Each runs a fixed input:
#
#   bzip2     compress, then decompress, INPUT
#   minigzip  (zlib) compress, then decompress, INPUT
#   xz        compress (-6), then decompress, INPUT
#   lzip      compress, then decompress, INPUT
#   lua       (lua5.4) the interpreter running a fixed script (string,
#             table and arithmetic work)
#
# INPUT is the program sources concatenated (deterministic, ~2 MB).
# Prints eval's tables (tests, .text, build time), then one line per
# program: instructions default, model, ratio; wall median default, model,
# ratio (ROUNDS paired runs, alternating).
#
#   bench/evict-callgrind.sh [ROUNDS] [MODEL.json]
#
# The builds stay in $EVICT_WORK when it is set (default: a temporary
# directory, removed at the end).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
model=${2:-}
source "$root/bench/common.sh"
plugin=$(bench_plugin)
mlgo=${MLGO:-$root/build/bin/mlgo}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
work=${EVICT_WORK:-$out/eval}
pkgs=(bzip2 zlib xz-utils lzip lua5.4)

eval_args=(--evict --work-dir "$work")
[[ -z "$model" ]] || eval_args+=(--evict-model "$model")
"$mlgo" eval package "${pkgs[@]}" "${eval_args[@]}"

# The builds' programs: eval names LLVM's build "oz" (its -Oz column when
# evaluating the inliner) and the model's "model".
for cfg in default model; do
  dir=$cfg; [[ $cfg == default ]] && dir=oz
  mkdir -p "$out/$cfg"
  cp "$work/bzip2/$dir/src/bzip2" "$work/zlib/$dir/src/minigzip" \
     "$work/lzip/$dir/src/lzip" "$work/lua5.4/$dir/src/src/lua" "$out/$cfg/"
  # xz links liblzma's shared library; its libtool wrapper is a shell
  # script, so run the real program against the build's own library.
  cp "$work/xz-utils/$dir/src/src/xz/.libs/xz" "$out/$cfg/xz"
  mkdir -p "$out/$cfg/lib"
  cp -L "$work/xz-utils/$dir/src/src/liblzma/.libs/liblzma.so.5" "$out/$cfg/lib/"
  # bzip2 links the build's libbz2.so.1.0, which has the compressor; with
  # no run path it would load the system's.
  cp -L "$work/bzip2/$dir/src/libbz2.so.1.0" "$out/$cfg/lib/"
done
src() { cat "$(cat "$work/$1/source-dir.txt")"/$2; }
{ src bzip2 '*.c'; src zlib '*.c'; src lua5.4 'src/*.c'; src bzip2 '*.c'; src zlib '*.c'; src lua5.4 'src/*.c'; } > "$out/input"

cat > "$out/bench.lua" <<'LUA'
local t, s = {}, 0
for i = 1, 200000 do t[i] = (i * 7919) % 1000003 end
table.sort(t)
for i = 1, #t do s = s + t[i] % 97 end
local parts = {}
for i = 1, 20000 do parts[#parts + 1] = string.format("%d:%x", i, t[i]) end
local text = table.concat(parts, ",")
local n = 0
for w in text:gmatch("%x+") do n = n + #w end
print(s, n)
LUA

run() { # cfg program -> runs the workload once
  local d=$out/$1
  case $2 in
    bzip2) LD_LIBRARY_PATH=$d/lib "$d/bzip2" -c < "$out/input" > "$out/$1.bz2" && LD_LIBRARY_PATH=$d/lib "$d/bzip2" -dc < "$out/$1.bz2" > "$out/$1.out" ;;
    minigzip) "$d/minigzip" < "$out/input" > "$out/$1.gz" && "$d/minigzip" -d < "$out/$1.gz" > "$out/$1.out" ;;
    xz) LD_LIBRARY_PATH=$d/lib "$d/xz" -6 -c < "$out/input" > "$out/$1.xz" && LD_LIBRARY_PATH=$d/lib "$d/xz" -dc < "$out/$1.xz" > "$out/$1.out" ;;
    lzip) "$d/lzip" -c < "$out/input" > "$out/$1.lz" && "$d/lzip" -dc < "$out/$1.lz" > "$out/$1.out" ;;
    lua) "$d/lua" "$out/bench.lua" > "$out/$1.out" ;;
  esac
}

instructions() { # cfg program -> total instructions of the workload
  # One valgrind log per process, in files: a program whose stderr the
  # workload redirects must still be counted.
  local total=0 n logs=$out/cg-logs
  rm -rf "$logs"; mkdir "$logs"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes \
    --log-file="$logs/%p" bash -c "$(declare -f run); out=$out; run $1 $2"
  for n in $(cat "$logs"/* | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'); do
    total=$((total + n))
  done
  echo "$total"
}

printf '%-9s %14s %14s %8s %9s %9s %8s\n' program instr-default instr-model ratio wall-def wall-model ratio
for p in bzip2 minigzip xz lzip lua; do
  # The outputs must be right: a miscompile shows here first.
  run default $p; run model $p
  if [[ $p == lua ]]; then
    cmp -s "$out/default.out" "$out/model.out" || { echo "$p: the model's build prints something else" >&2; exit 1; }
  else
    for cfg in default model; do
      cmp -s "$out/input" "$out/$cfg.out" || { echo "$p ($cfg): the round trip changed the data" >&2; exit 1; }
    done
  fi
  id=$(instructions default $p); im=$(instructions model $p)
  td=(); tm=()
  for ((i = 0; i < rounds; ++i)); do
    s=$(date +%s%N); run default $p; e=$(date +%s%N); td+=($(( (e - s) / 1000 )))
    s=$(date +%s%N); run model $p; e=$(date +%s%N); tm+=($(( (e - s) / 1000 )))
  done
  md=$(printf '%s\n' "${td[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")
  mm=$(printf '%s\n' "${tm[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p")
  awk -v p=$p -v a=$id -v b=$im -v c=$md -v d=$mm 'BEGIN {
    printf "%-9s %14.0f %14.0f %8.4f %8.3fs %8.3fs %8.4f\n", p, a, b, b / a, c / 1e6, d / 1e6, d / c }'
done
