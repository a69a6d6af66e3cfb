# xz-utils: the tarball's own configure; the test programs are built with the
# package, so that a test run only runs them. MAKEINFO=true, as for gzip:
# no manual is built (texinfo is not installed; no artifact needs one).
configure_args=(--disable-nls)
make_args=(MAKEINFO=true)

build_tests() { run_make -C tests check TESTS=; }

list_tests() { automake_tests "$(package_source xz-utils)"; }

run_test() { run_automake_test "$1"; }
