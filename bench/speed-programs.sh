#!/usr/bin/env bash
# The real programs of the speed benchmarks (bench/speed-tune.sh: `mlgo
# tune --objective speed`; bench/speed-evict.sh: the eviction model), in
# one place: how each is built from its Debian source, and the two
# workloads it runs, A (the profile's, and the tune's workload check) and
# B (the measurement, never seen by a profile or a tune). Sourced by the
# benches; run as a program it runs one workload, which is how `mlgo tune
# --workload` calls it:
#
#   bench/speed-programs.sh run PROGRAM BINARY A|B DIR
#
# runs the workload with BINARY in place of PROGRAM's build, its inputs in
# DIR (DIR/inputA, DIR/inputB, as speed_inputs writes them) and its
# outputs there too, and fails when the output is wrong.
#
# A program is a flat list of its sources, compiled one by one and linked
# into one binary: no shared libraries, every module of the program in the
# corpus (a recipe's build system would build libraries the benchmark does
# not run, and programs that load them through a run path). Each program
# also gets the defines its own build passes.
#
#   bzip2     compress (-c), then decompress (-dc), stdin to stdout
#   minigzip  (zlib) -6, then -d
#   lzip      -c, then -dc
#   xz        (xz-utils: liblzma and xz, configured by its own configure)
#             -6 -c, then -dc
#   zstd      (the zstd program and libzstd's sources, single-threaded;
#             the C Huffman decoder, ZSTD_DISABLE_ASM, so that every
#             module is in the corpus) -3 -c, then -dc
#   brotli    (the brotli tool and its encoder and decoder) -q 9 -c, then
#             -dc
#   lua       (lua5.4: the interpreter) A: the lua test scripts of
#             test/Eval/Inputs/lua (assertions) and bench/speed-lua-a.lua
#             on inputA (a log-style report: lines, gsub, closures); B:
#             scripts/packages/lua5.4-bench.lua on inputB (word counts,
#             sorting, formatting)
#
# For the compressors input A is 1 MiB of the program's own sources and B
# 1 MiB of /usr/include's top-level headers; the round trip is checked.
# lua's string hashes are seeded from the time and from addresses
# (luai_makeseed): one fixed seed makes its executed instructions a
# property of the code.

speed_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# shellcheck disable=SC2034 # read by the benches that source this file
speed_all_programs=bzip2,minigzip,lzip,xz,zstd,brotli,lua

declare -A speed_pkg speed_files speed_defs speed_cc speed_copts speed_dopts
speed_pkg[bzip2]=bzip2
speed_defs[bzip2]="-D_FILE_OFFSET_BITS=64"
speed_files[bzip2]="blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c"
speed_copts[bzip2]=-c speed_dopts[bzip2]=-dc

speed_pkg[minigzip]=zlib
speed_defs[minigzip]="-D_FILE_OFFSET_BITS=64 -DHAVE_UNISTD_H -DHAVE_STDARG_H -I."
speed_files[minigzip]="adler32.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c zutil.c compress.c uncompr.c gzclose.c gzlib.c gzread.c gzwrite.c test/minigzip.c"
speed_copts[minigzip]=-6 speed_dopts[minigzip]=-d

speed_pkg[lzip]=lzip
speed_files[lzip]="arg_parser.cc lzip_index.cc list.cc encoder_base.cc encoder.cc fast_encoder.cc decoder.cc main.cc"
speed_defs[lzip]="-DPROGVERSION=\"1.23\""
speed_copts[lzip]=-c speed_dopts[lzip]=-dc
speed_cc[lzip]=clang++-19

# xz: liblzma's sources as its Makefile.inc lists them for configure's
# defaults on x86-64 (every filter, threads, no assembler), tuklib, xz.
speed_pkg[xz]=xz-utils
speed_files[xz]="$(printf 'src/liblzma/%s ' \
  check/check.c check/crc32_fast.c check/crc32_table.c check/crc64_fast.c \
  check/crc64_table.c check/sha256.c \
  common/{alone_decoder,alone_encoder,auto_decoder,block_buffer_decoder}.c \
  common/{block_buffer_encoder,block_decoder,block_encoder}.c \
  common/{block_header_decoder,block_header_encoder,block_util,common}.c \
  common/{easy_buffer_encoder,easy_decoder_memusage,easy_encoder}.c \
  common/{easy_encoder_memusage,easy_preset,file_info}.c \
  common/{filter_buffer_decoder,filter_buffer_encoder,filter_common}.c \
  common/{filter_decoder,filter_encoder,filter_flags_decoder}.c \
  common/{filter_flags_encoder,hardware_cputhreads,hardware_physmem}.c \
  common/{index,index_decoder,index_encoder,index_hash,lzip_decoder}.c \
  common/{microlzma_decoder,microlzma_encoder,outqueue}.c \
  common/{stream_buffer_decoder,stream_buffer_encoder,stream_decoder}.c \
  common/{stream_decoder_mt,stream_encoder,stream_encoder_mt}.c \
  common/{stream_flags_common,stream_flags_decoder,stream_flags_encoder}.c \
  common/{string_conversion,vli_decoder,vli_encoder,vli_size}.c \
  delta/{delta_common,delta_decoder,delta_encoder}.c \
  lz/{lz_decoder,lz_encoder,lz_encoder_mf}.c \
  lzma/{fastpos_table,lzma2_decoder,lzma2_encoder,lzma_decoder}.c \
  lzma/{lzma_encoder,lzma_encoder_optimum_fast,lzma_encoder_optimum_normal}.c \
  lzma/lzma_encoder_presets.c rangecoder/price_table.c \
  simple/{arm,arm64,armthumb,ia64,powerpc,simple_coder,simple_decoder}.c \
  simple/{simple_encoder,sparc,x86}.c)
$(printf 'src/common/tuklib_%s.c ' cpucores exit mbstr_fw mbstr_width \
  open_stdxxx physmem progname)
$(printf 'src/xz/%s.c ' args coder file_io hardware list main message mytime \
  options signals suffix util)"
speed_defs[xz]="-DHAVE_CONFIG_H -I. -Isrc/common -Isrc/liblzma/api
  -Isrc/liblzma/common -Isrc/liblzma/check -Isrc/liblzma/lz
  -Isrc/liblzma/rangecoder -Isrc/liblzma/lzma -Isrc/liblzma/delta
  -Isrc/liblzma/simple -pthread"
speed_copts[xz]="-6 -c" speed_dopts[xz]=-dc

speed_pkg[zstd]=zstd
speed_files[zstd]="$(printf 'lib/common/%s.c ' debug entropy_common \
  error_private fse_decompress pool threading xxhash zstd_common)
$(printf 'lib/compress/%s.c ' fse_compress hist huf_compress zstd_compress \
  zstd_compress_literals zstd_compress_sequences zstd_compress_superblock \
  zstd_double_fast zstd_fast zstd_lazy zstd_ldm zstd_opt zstdmt_compress)
$(printf 'lib/decompress/%s.c ' huf_decompress zstd_ddict zstd_decompress \
  zstd_decompress_block)
$(printf 'lib/dictBuilder/%s.c ' cover divsufsort fastcover zdict)
$(printf 'programs/%s.c ' benchfn benchzstd datagen dibio fileio \
  fileio_asyncio timefn util zstdcli zstdcli_trace)"
# Single-threaded (no ZSTD_MULTITHREAD): with it the CLI compresses in a
# worker thread and reads and writes in others, where callgrind's count
# from main does not look.
speed_defs[zstd]="-Ilib -Ilib/common -Iprograms -DZSTD_DISABLE_ASM
  -DZSTD_LEGACY_SUPPORT=0 -DXXH_NAMESPACE=ZSTD_"
speed_copts[zstd]="-3 -q -c" speed_dopts[zstd]="-q -dc"

speed_pkg[brotli]=brotli
speed_files[brotli]="$(printf 'c/common/%s.c ' constants context dictionary \
  platform transform)
$(printf 'c/dec/%s.c ' bit_reader decode huffman state)
$(printf 'c/enc/%s.c ' backward_references backward_references_hq bit_cost \
  block_splitter brotli_bit_stream cluster command compress_fragment \
  compress_fragment_two_pass dictionary_hash encode encoder_dict \
  entropy_encode fast_log histogram literal_cost memory metablock \
  static_dict utf8_util)
c/tools/brotli.c"
speed_defs[brotli]="-Ic/include"
speed_copts[brotli]="-q 9 -c" speed_dopts[brotli]=-dc

speed_pkg[lua]=lua5.4
speed_files[lua]="$(printf 'src/%s.c ' lapi lcode lctype ldebug ldo ldump \
  lfunc lgc llex lmem lobject lopcodes lparser lstate lstring ltable ltm \
  lundump lvm lzio lauxlib lbaselib lcorolib ldblib liolib lmathlib loadlib \
  loslib lstrlib ltablib lutf8lib linit lua)"
speed_defs[lua]="-DLUA_USE_LINUX -Dluai_makeseed(L)=0x5eedu"

# speed_link PROGRAM: the linker driver and the libraries the program needs.
speed_link() {
  case $1 in
  lua) echo "clang-19 -lm -ldl" ;;
  xz) echo "clang-19 -pthread" ;;
  brotli) echo "clang-19 -lm" ;;
  *) echo "${speed_cc[$1]:-clang-19}" ;;
  esac
}

# speed_prepare PROGRAM DIR: what the program's build does before it
# compiles, in the copied source DIR.
speed_prepare() {
  case $1 in
  xz) (cd "$2" && ./configure --disable-nls --disable-shared >configure.log 2>&1) ;;
  lua)
    # Debian's rules generate this header; luaconf.h includes it.
    echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' \
      >"$2/src/lua5.4-deb-multiarch.h" ;;
  esac
}

# speed_compile PROGRAM SRCDIR OUTDIR FLAG...: compiles each source of the
# program with clang-19 (or its driver) -O2 FLAG... into OUTDIR, one object
# per source, named as the source with its directories joined by '_'.
speed_compile() {
  local p=$1 src=$2 out=$3 f o
  shift 3
  mkdir -p "$out"
  for f in ${speed_files[$p]}; do
    o=${f%.*}
    # shellcheck disable=SC2086
    (cd "$src" && ${speed_cc[$p]:-clang-19} -c -O2 -w ${speed_defs[$p]} "$@" \
      "$f" -o "$out/${o//\//_}.o")
  done
}

# speed_profile PROGRAM DIR MLGO: the program's source copied to DIR/src
# and prepared, its inputs, and its profile DIR/p.profdata: an
# instrumented build (-O2 -fprofile-generate) running workload A, merged
# by `mlgo profile run`. Done once per DIR.
speed_profile() {
  local p=$1 dir=$2 mlgo=$3 src
  [[ -s $dir/p.profdata ]] && return
  src=$("$speed_root/scripts/fetch-source.sh" "${speed_pkg[$p]}")
  rm -rf "$dir/src" "$dir/inst-objs"
  mkdir -p "$dir"
  cp -a "$src" "$dir/src"
  speed_prepare "$p" "$dir/src"
  speed_inputs "$p" "$dir/src" "$dir"
  speed_compile "$p" "$dir/src" "$dir/inst-objs" -fprofile-generate
  # shellcheck disable=SC2046
  $(speed_link "$p") -fprofile-generate "$dir"/inst-objs/*.o -o "$dir/inst"
  "$mlgo" profile run -o "$dir/p.profdata" -- \
    bash "$speed_root/bench/speed-programs.sh" run "$p" "$dir/inst" A "$dir" \
    >/dev/null
}

# speed_inputs PROGRAM SRCDIR DIR: writes DIR/inputA and DIR/inputB.
speed_inputs() {
  local p=$1 src=$2 dir=$3 f
  # Whole files first, then cut: `head` closing a pipe would fail the
  # pipeline under pipefail.
  if [[ ! -s $dir/inputB ]]; then
    find /usr/include -maxdepth 1 -name '*.h' | LC_ALL=C sort | xargs cat \
      >"$dir/inputB.all"
    head -c 1048576 "$dir/inputB.all" >"$dir/inputB"
    rm "$dir/inputB.all"
  fi
  if [[ $p == lua ]]; then
    find "$src/src" -name '*.[ch]' | LC_ALL=C sort | xargs cat >"$dir/inputA.all"
    head -c 524288 "$dir/inputA.all" >"$dir/inputA"
  else
    for f in ${speed_files[$p]}; do cat "$src/$f"; done >"$dir/inputA.all"
    find "$src" -maxdepth 1 -name '*.h' | LC_ALL=C sort | xargs -r cat \
      >>"$dir/inputA.all"
    head -c 1048576 "$dir/inputA.all" >"$dir/inputA"
  fi
  rm "$dir/inputA.all"
}

# speed_run PROGRAM BINARY A|B DIR: one run of the workload; fails when
# the output is wrong.
speed_run() {
  local p=$1 bin=$2 which=$3 dir=$4 in
  in=$dir/input$which
  if [[ $p == lua ]]; then
    if [[ $which == A ]]; then
      local t
      for t in "$speed_root"/test/Eval/Inputs/lua/*.lua; do
        (cd "$dir" && "$bin" "$t" >/dev/null) || return 1
      done
      "$bin" "$speed_root/bench/speed-lua-a.lua" "$in" >"$dir/run$which.out"
      [[ $(wc -l <"$dir/run$which.out") == 4 ]]
    else
      "$bin" "$speed_root/scripts/packages/lua5.4-bench.lua" "$in" \
        >"$dir/run$which.out"
      [[ $(wc -l <"$dir/run$which.out") == 3 ]]
    fi
    return
  fi
  # shellcheck disable=SC2086
  "$bin" ${speed_copts[$p]} <"$in" >"$dir/run$which.z" &&
    "$bin" ${speed_dopts[$p]} <"$dir/run$which.z" >"$dir/run$which.back" &&
    cmp -s "$in" "$dir/run$which.back"
}

# speed_instructions PROGRAM BINARY A|B DIR: the executed instructions of
# one run of the workload under callgrind, from main on, summed over the
# processes of BINARY (not the shell's or cmp's).
speed_instructions() {
  local p=$1 bin=$2 which=$3 dir=$4 logs=$4/cg-logs total=0 f n
  rm -rf "$logs"
  mkdir -p "$logs"
  valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes \
    --toggle-collect=main --log-file="$logs/%p" \
    bash "$speed_root/bench/speed-programs.sh" run "$p" "$bin" "$which" "$dir" ||
    { echo "$p: the workload failed with $bin" >&2; return 1; }
  for f in "$logs"/*; do
    grep -q "^==[0-9]*== Command: $bin\( \|$\)" "$f" || continue
    n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$f")
    total=$((total + n))
  done
  rm -rf "$logs"
  ((total > 0)) || { echo "$p: callgrind counted nothing of $bin" >&2; return 1; }
  echo "$total"
}

# speed_wall PROGRAM BASE OTHER DIR ROUNDS: the median over ROUNDS paired
# runs of workload B (BASE, then OTHER) of time(OTHER) / time(BASE).
speed_wall() {
  local p=$1 base=$2 other=$3 dir=$4 rounds=$5 i t0 t1 t2 ratios=()
  for ((i = 0; i < rounds; ++i)); do
    t0=$(date +%s%N)
    speed_run "$p" "$base" B "$dir" || return 1
    t1=$(date +%s%N)
    speed_run "$p" "$other" B "$dir" || return 1
    t2=$(date +%s%N)
    ratios+=("$(awk "BEGIN{print ($t2 - $t1) / ($t1 - $t0)}")")
  done
  printf '%s\n' "${ratios[@]}" | sort -g | sed -n "$(((rounds + 1) / 2))p"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  [[ ${1:-} == run && $# == 5 ]] ||
    { echo "usage: $0 run PROGRAM BINARY A|B DIR" >&2; exit 2; }
  [[ -n ${speed_files[$2]:-} ]] || { echo "unknown program $2" >&2; exit 2; }
  speed_run "$2" "$3" "$4" "$5"
fi
