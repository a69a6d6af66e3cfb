# lzip (C++): its own configure script (not autoconf's), which takes CXX and
# CXXFLAGS as arguments.
configure_args=("CXX=$CXX" "CXXFLAGS=$CXXFLAGS")

# `make check`: its testsuite/check.sh.
list_tests() { echo check; }

run_test() {
  [[ $1 == check ]] || die "no lzip test '$1'"
  make check
}

# The benchmark: compress and decompress the 1 MiB of its own sources.
bench_programs=(lzip)
bench_workload() {
  "$PWD/lzip" -c <"$bench_input" >"$1/input.lz"
  "$PWD/lzip" -dc <"$1/input.lz" >"$1/input.out"
  cmp "$bench_input" "$1/input.out"
}

# Under LTO (`mlgo tune --package lzip --lto`): lzip, linked as its
# Makefile links it, its objects in the Makefile's order.
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang++-19 -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all \
  $MLGO_OBJECTS/arg_parser.o $MLGO_OBJECTS/lzip_index.o $MLGO_OBJECTS/list.o \
  $MLGO_OBJECTS/encoder_base.o $MLGO_OBJECTS/encoder.o \
  $MLGO_OBJECTS/fast_encoder.o $MLGO_OBJECTS/decoder.o $MLGO_OBJECTS/main.o \
  -o $MLGO_PROGRAM'
