# gzip: the tarball's own configure; the test programs are built with the
# package, so that a test run only runs them. MAKEINFO=true: gzip's manual
# would need texinfo, and no artifact depends on it.
configure_args=(--disable-nls)
make_args=(MAKEINFO=true)

build_tests() { run_make -C tests check TESTS=; }

list_tests() { automake_tests "$(package_source gzip)"; }

run_test() { run_automake_test "$1"; }
