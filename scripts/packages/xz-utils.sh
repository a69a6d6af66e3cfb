# xz-utils: the tarball's own configure; the test programs are built with the
# package, so that a test run only runs them. MAKEINFO=true, as for gzip:
# no manual is built (texinfo is not installed; no artifact needs one).
configure_args=(--disable-nls)
make_args=(MAKEINFO=true)

build_tests() { run_make -C tests check TESTS=; }

list_tests() { automake_tests "$(package_source xz-utils)"; }

run_test() { run_automake_test "$1"; }

# The benchmark: xz -6 compresses and decompresses the 1 MiB of its own
# sources. xz is libtool's wrapper script; the real program runs against the
# build's liblzma, where the work is, so both are costed.
bench_programs=(src/xz/.libs/xz src/liblzma/.libs/liblzma.so.5)
# xz runs liblzma.so, built from the -fPIC objects in .libs/.
speed_objects='src/xz/.*|src/liblzma/\.libs/.*'
bench_workload() {
  local xz=$PWD/src/xz/.libs/xz
  export LD_LIBRARY_PATH=$PWD/src/liblzma/.libs
  "$xz" -6 -c <"$bench_input" >"$1/input.xz"
  "$xz" -dc <"$1/input.xz" >"$1/input.out"
  cmp "$bench_input" "$1/input.out"
}

# Under LTO: the shipped library, liblzma.so, from the -fPIC objects in
# .libs/, linked as libtool links it, with its version script (which
# hides every symbol it does not export).
lto_objects='src/liblzma/\.libs/liblzma_la-.*\.o'
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang-19 -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all -shared -fPIC -pthread \
  -Wl,--version-script=$MLGO_SOURCE/src/liblzma/liblzma_linux.map \
  $(find "$MLGO_OBJECTS" -name "*.o" | LC_ALL=C sort) -o $MLGO_PROGRAM'
