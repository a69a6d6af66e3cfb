# zstd: upstream's top-level Makefile, built by detection (its default
# target: the libraries and the zstd program); this recipe only declares
# its tests (eval).
#
# Eval: a quick, deterministic part of upstream's tests/. Its `make test`
# runs well over ten minutes: playTests.sh with --test-large-data, and the
# fuzzers for -T200s, 2 x -T90s and -T30s of random seeds. The test
# programs are built by tests/Makefile with the build's compiler; they
# compile the library's sources themselves, with its assertions on
# (DEBUGLEVEL=2). run_test runs them directly, never through
# tests/Makefile, whose test targets rebuild programs/zstd with other
# flags. Times on 2 busy cores:
#   playTests        upstream's `make check` (its `shortest`): playTests.sh
#                    on the build's programs/zstd, CLI round trips at every
#                    level, with dictionaries, streaming, .gz/.xz, --list,
#                    --patch-from, ... (~1 min)
#   cli-tests        tests/cli-tests/run.py: 37 CLI scripts whose output is
#                    compared with the expected output (~20 s)
#   fuzzer           its API unit tests, then 100 random round trips from
#                    seed 1 (-s1 -i100 instead of -T200s, ~30 s)
#   zstreamtest      the streaming API, likewise (-s1 -i100, ~20 s); and
#   zstreamtest-newapi  the same with --newapi -t1, as `make test-zstream`
#   decodecorpus     300 random valid frames from seed 1, each decoded and
#                    compared (-t -s1 -n300 instead of -T30, ~15 s)
#   invalidDictionaries, legacy, poolTests  as upstream's test- targets
# Not run: fullbench (a benchmark), the 32-bit variants (no multilib),
# bigdict (a 2 GiB buffer) and longmatch (compresses 8 GiB), test-lz4 (no
# lz4 program), versionsTest (clones older zstd releases from GitHub).
build_tests() {
  run_make -C tests "CC=$CC" datagen fuzzer zstreamtest decodecorpus \
    invalidDictionaries legacy poolTests
}

list_tests() {
  printf '%s\n' playTests cli-tests fuzzer zstreamtest zstreamtest-newapi \
    decodecorpus invalidDictionaries legacy poolTests
}

run_test() {
  cd tests
  case $1 in
  playTests) ZSTD_BIN=../programs/zstd DATAGEN_BIN=./datagen ./playTests.sh ;;
  cli-tests) ./cli-tests/run.py --zstd=../programs/zstd --datagen=./datagen ;;
  fuzzer) ./fuzzer -v -s1 -i100 ;;
  zstreamtest) ./zstreamtest -v -s1 -i100 ;;
  zstreamtest-newapi) ./zstreamtest --newapi -t1 -s1 -i100 ;;
  decodecorpus) ./decodecorpus -t -s1 -n300 ;;
  invalidDictionaries | legacy | poolTests) "./$1" ;;
  *) die "no zstd test '$1'" ;;
  esac
}

# The benchmark (`mlgo eval package --profile`): compress (level 3, the
# default) and decompress the 1 MiB of its own sources, checking the round
# trip; the profile comes from the tests above. programs/zstd compiles the
# library's sources into itself.
bench_programs=(programs/zstd)
# programs/zstd compiles the library's sources itself, with its own defines.
speed_objects='programs/obj/.*'
bench_workload() {
  "$PWD/programs/zstd" -3 -q -c <"$bench_input" >"$1/input.zst"
  "$PWD/programs/zstd" -q -dc <"$1/input.zst" >"$1/input.out"
  cmp "$bench_input" "$1/input.out"
}
