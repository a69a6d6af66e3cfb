# zlib: built by detection, with its own configure; `make` builds configure's
# `all: static shared all64`, the static and shared library and
# example/minigzip in three flavours.

list_tests() { printf '%s\n' teststatic testshared test64; }

run_test() {
  [[ $1 =~ ^(teststatic|testshared|test64)$ ]] || die "no zlib test '$1'"
  make "$1"
}

# The benchmark: minigzip (static) compresses and decompresses the 1 MiB of
# its own sources, checking the round trip.
bench_programs=(minigzip)
# The libz.a members minigzip links (not compress, uncompr, infback).
speed_objects='(adler32|crc32|deflate|gzclose|gzlib|gzread|gzwrite|inffast|inflate|inftrees|minigzip|trees|zutil)\.o'
bench_workload() {
  "$PWD/minigzip" <"$bench_input" >"$1/input.gz"
  "$PWD/minigzip" -d <"$1/input.gz" >"$1/input.out"
  cmp "$bench_input" "$1/input.out"
}
