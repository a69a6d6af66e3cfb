#!/usr/bin/env bash
# Executed instructions (valgrind --tool=callgrind, deterministic) and paired
# wall-clock time of real programs built with clang-19 -O2 and LLVM's own
# eviction advisor ("default") or mlgo's eviction model ("model": the plugin
# with -mlgo-evict, LLVM's inliner in both). Programs, built from Debian's
# sources by their own source lists, each run on a fixed input:
#
#   bzip2    compress, then decompress, INPUT
#   lz4      compress, then decompress, INPUT (level 9)
#   zlib     minigzip compress, then decompress, INPUT
#   lua5.4   the interpreter running a fixed script (string, table and
#            arithmetic work)
#
# INPUT is the program sources concatenated (deterministic, ~2 MB).
# Prints one line per program: instructions default, model, ratio; wall
# median default, model, ratio (ROUNDS paired runs, alternating).
#
#   bench/evict-callgrind.sh [ROUNDS] [MODEL.json]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
model=${2:-}
source "$root/bench/common.sh"
plugin=$(bench_plugin)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
model_flags=(-fplugin="$plugin" -fpass-plugin="$plugin" -mllvm -mlgo-use-llvm-advisor -mllvm -mlgo-evict)
[[ -z "$model" ]] || model_flags+=(-mllvm "-mlgo-evict-model=$model")

bz=$("$root/scripts/fetch-source.sh" bzip2)
lz=$("$root/scripts/fetch-source.sh" lz4)
zl=$("$root/scripts/fetch-source.sh" zlib)
lu=$("$root/scripts/fetch-source.sh" lua5.4)
# Debian's lua5.4 patches read module paths from a header debian/rules writes.
mkdir -p "$out/inc"
echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' > "$out/inc/lua5.4-deb-multiarch.h"
cat "$bz"/*.c "$lz"/lib/*.c "$zl"/*.c "$lu"/src/*.c "$bz"/*.c "$lz"/lib/*.c > "$out/input"

build() { # cfg -> binaries in $out/$cfg
  local cfg=$1 d=$out/$1 flags=()
  mkdir -p "$d"
  [[ $cfg == model ]] && flags=("${model_flags[@]}")
  local cc=(clang-19 -O2 -w "${flags[@]}")
  "${cc[@]}" -D_FILE_OFFSET_BITS=64 "$bz"/{blocksort,huffman,crctable,randtable,compress,decompress,bzlib,bzip2}.c -o "$d/bzip2"
  "${cc[@]}" -I"$lz/lib" "$lz"/lib/{lz4,lz4hc,lz4frame,xxhash}.c "$lz"/programs/{bench,datagen,lz4cli,lz4io}.c -o "$d/lz4"
  "${cc[@]}" -DHAVE_UNISTD_H -I"$zl" "$zl"/{adler32,compress,crc32,deflate,gzclose,gzlib,gzread,gzwrite,infback,inffast,inflate,inftrees,trees,uncompr,zutil}.c "$zl/test/minigzip.c" -o "$d/minigzip"
  "${cc[@]}" -DLUA_USE_LINUX -I"$out/inc" $(ls "$lu"/src/*.c | grep -v luac.c) -o "$d/lua" -lm -ldl
}

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
    bzip2) "$d/bzip2" -c < "$out/input" > "$out/$1.bz2" && "$d/bzip2" -dc < "$out/$1.bz2" > "$out/$1.out" ;;
    lz4) "$d/lz4" -9 -c < "$out/input" > "$out/$1.lz4" 2>/dev/null && "$d/lz4" -dc < "$out/$1.lz4" > "$out/$1.out" 2>/dev/null ;;
    minigzip) "$d/minigzip" < "$out/input" > "$out/$1.gz" && "$d/minigzip" -d < "$out/$1.gz" > "$out/$1.out" ;;
    lua) "$d/lua" "$out/bench.lua" > "$out/$1.out" ;;
  esac
}

instructions() { # cfg program -> total instructions of the workload
  # One valgrind log per process, in files: a program whose stderr the
  # workload redirects (lz4's) must still be counted.
  local total=0 n logs=$out/cg-logs
  rm -rf "$logs"; mkdir "$logs"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes \
    --log-file="$logs/%p" bash -c "$(declare -f run); out=$out; run $1 $2"
  for n in $(cat "$logs"/* | sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'); do
    total=$((total + n))
  done
  echo "$total"
}

build default
build model
printf '%-9s %14s %14s %8s %9s %9s %8s\n' program instr-default instr-model ratio wall-def wall-model ratio
for p in bzip2 lz4 minigzip lua; do
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
    printf "%-9s %14d %14d %8.4f %8.3fs %8.3fs %8.4f\n", p, a, b, b / a, c / 1e6, d / 1e6, d / c }'
done
