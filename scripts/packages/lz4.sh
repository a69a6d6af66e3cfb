# lz4: upstream's top-level Makefile, built by detection (the library and
# programs/lz4, which compiles the library's sources into itself).
#
# Profile workload (the speed corpus, `mlgo profile package`): programs/lz4
# compresses and decompresses its own library and program sources at the
# fast, default and high-compression levels, checking each round trip.
profile_workload() {
  local tmp
  tmp=$(mktemp -d)
  cat lib/*.c lib/*.h programs/*.c programs/*.h >"$tmp/in"
  for level in --fast=4 -1 -9; do
    ./programs/lz4 -q -f "$level" "$tmp/in" "$tmp/in.lz4"
    ./programs/lz4 -q -d -f "$tmp/in.lz4" "$tmp/out"
    cmp "$tmp/in" "$tmp/out"
  done
  rm -rf "$tmp"
}
