#!/usr/bin/env bash
# Benchmarks `mlgo tune --objective speed` (issue #49) on real programs
# built from their Debian sources by a fixed recipe (below): each program
# is profiled on input A (its own sources), its -O2 build becomes a corpus,
# the search tunes it, and the tuned program (W/objects/*.o linked) is
# measured against clang-19 -O2 -fprofile-use with the same profile (the
# search's LLVM objects, W/objects-llvm/*.o, the same compiles stock clang
# makes) on input B (1 MiB of /usr/include, another text): executed
# instructions under callgrind (the whole run of compress and decompress,
# from main), the round trip checked, and paired wall-clock runs.
#
#   bench/speed-tune.sh [--programs bzip2,minigzip,lzip] [--max-compiles N]
#                       [--work DIR]
#
# Prints one TSV line per program: the search's estimated change, the
# measured change of executed instructions, the median wall-clock ratio
# of 5 paired runs (tuned / -O2), the search's compiles and minutes, and
# the number of inlining + eviction entries. The tune checks its modules
# on input A under callgrind (--workload) and reverts those measured
# worse. Deterministic but for the wall clock.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mlgo=${MLGO:-$here/build/bin/mlgo}
programs=bzip2,minigzip
max=60
work=${TMPDIR:-/tmp}/mlgo-speed-tune
while [[ $# -gt 0 ]]; do
  case $1 in
  --programs) programs=$2; shift 2 ;;
  --max-compiles) max=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  *) echo "usage: $0 [--programs a,b] [--max-compiles N] [--work DIR]" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
inputB=$work/inputB
if [[ ! -s $inputB ]]; then
  find /usr/include -maxdepth 1 -name '*.h' | LC_ALL=C sort | xargs cat >"$inputB.all"
  head -c 1048576 "$inputB.all" >"$inputB"
  rm "$inputB.all"
fi

# The sources (relative to the unpacked package) and the package.
declare -A pkg files defs carg darg cc
pkg[bzip2]=bzip2
defs[bzip2]="-D_FILE_OFFSET_BITS=64"
carg[bzip2]=-c darg[bzip2]=-dc
files[bzip2]="blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c"
pkg[minigzip]=zlib
defs[minigzip]="-D_FILE_OFFSET_BITS=64 -DHAVE_UNISTD_H -DHAVE_STDARG_H -I."
carg[minigzip]=-6 darg[minigzip]=-d
pkg[lzip]=lzip
files[lzip]="arg_parser.cc lzip_index.cc list.cc encoder_base.cc encoder.cc fast_encoder.cc decoder.cc main.cc"
defs[lzip]="-DPROGVERSION=\"1.23\""
carg[lzip]=-c darg[lzip]=-dc
cc[lzip]=clang++-19
files[minigzip]="adler32.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c zutil.c compress.c uncompr.c gzclose.c gzlib.c gzread.c gzwrite.c test/minigzip.c"

# compress then decompress $2 with program $1 (stdin to stdout: $C and $D
# are the program's options), checking the round trip.
roundtrip() {
  local prog=$1 in=$2 out=$3
  "$prog" "$C" <"$in" >"$out.z" && "$prog" "$D" <"$out.z" >"$out.back" && cmp -s "$in" "$out.back"
}

instructions() {
  local prog=$1 in=$2 out=$3 n=0 c d
  c=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=main \
    "$prog" "$C" <"$in" 2>&1 >"$out.z" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  d=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=main \
    "$prog" "$D" <"$out.z" 2>&1 >"$out.back" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  cmp -s "$in" "$out.back" || { echo "round trip failed: $prog" >&2; exit 1; }
  echo $((c + d))
}

printf 'program\testimated\tmeasured_instructions\twall_ratio\tcompiles\tminutes\tentries\n'
for p in ${programs//,/ }; do
  [[ -n ${pkg[$p]:-} ]] || { echo "unknown program $p" >&2; exit 2; }
  src=$("$here/scripts/fetch-source.sh" "${pkg[$p]}")
  w=$work/$p
  C=${carg[$p]} D=${darg[$p]} CC=${cc[$p]:-clang-19}
  export C D
  mkdir -p "$w"
  if [[ ! -s $w/corpus/corpus_description.json ]]; then
    rm -rf "$w/src" "$w/objs" "$w/corpus"
    mkdir -p "$w/objs"
    cp -a "$src" "$w/src"
    (
      cd "$w/src"
      flags=${defs[$p]}
      # shellcheck disable=SC2086
      $CC -O2 $flags -fprofile-generate ${files[$p]} -o ../inst
      cat ./*.c* ./*.h >../inputA.all
      head -c 1048576 ../inputA.all >../inputA
      "$mlgo" profile run -o ../p.profdata -- sh -c \
        '../inst "$C" < ../inputA > ../a.z && ../inst "$D" < ../a.z > ../a.back' >/dev/null
      for f in ${files[$p]}; do
        # shellcheck disable=SC2086
        $CC -c -O2 $flags -Xclang -fembed-bitcode=all "$f" -o "../objs/$(basename "${f%.*}").o"
      done
    )
    "$mlgo" corpus extract --objects "$w/objs" --output "$w/corpus" >/dev/null 2>&1
  fi
  start=$(date +%s)
  # The workload check runs input A (the profile's input), so that input B
  # stays unseen by the tune.
  "$mlgo" tune --objective speed --profile "$w/p.profdata" --corpus "$w/corpus" \
    --work-dir "$w/tune" -o "$w/$p.decisions" --max-compiles "$max" --quiet \
    --link "$CC \$MLGO_OBJECTS/*.o -o \$MLGO_PROGRAM" \
    --workload "\$MLGO_PROGRAM $C < $w/inputA > $w/wa.z && \$MLGO_PROGRAM $D < $w/wa.z | cmp -s - $w/inputA"
  minutes=$(awk "BEGIN{printf \"%.1f\", ($(date +%s) - $start) / 60}")
  $CC "$w"/tune/objects-llvm/*.o -o "$w/$p.llvm"
  $CC "$w"/tune/objects/*.o -o "$w/$p.tuned"
  roundtrip "$w/$p.llvm" "$inputB" "$w/rt-llvm"
  roundtrip "$w/$p.tuned" "$inputB" "$w/rt-tuned"
  base=$(instructions "$w/$p.llvm" "$inputB" "$w/cg-llvm")
  tuned=$(instructions "$w/$p.tuned" "$inputB" "$w/cg-tuned")
  ratios=()
  for _ in 1 2 3 4 5; do
    t0=$(date +%s.%N); roundtrip "$w/$p.llvm" "$inputB" "$w/wl"; t1=$(date +%s.%N)
    roundtrip "$w/$p.tuned" "$inputB" "$w/wt"; t2=$(date +%s.%N)
    ratios+=("$(awk "BEGIN{print ($t2 - $t1) / ($t1 - $t0)}")")
  done
  wall=$(printf '%s\n' "${ratios[@]}" | sort -g | sed -n 3p)
  estimated=$(sed -n 's/^meta estimated .*(\(.*\))$/\1/p' "$w/$p.decisions")
  compiles=$(sed -n 's/^meta compiles //p' "$w/$p.decisions")
  entries="$(grep -c '^inline\|^no-inline' "$w/$p.decisions" || true)+$(grep -c '^evict ' "$w/$p.decisions" || true)"
  measured=$(awk "BEGIN{printf \"%+.2f%%\", 100 * ($tuned - $base) / $base}")
  printf '%s\t%s\t%s (%s -> %s)\t%.4f\t%s\t%s\t%s\n' "$p" "$estimated" "$measured" \
    "$base" "$tuned" "$wall" "$compiles" "$minutes" "$entries"
done
