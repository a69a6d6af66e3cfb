# expat: upstream keeps the library (and its configure) in expat/.
subdir=expat

# Eval: upstream's `make check`, the two programs of tests/Makefile.am's
# TESTS (runtests: its 365 minicheck tests of the parser, runtestspp: the
# same compiled as C++), each run by automake's harness; the test programs
# are built with the package. Its other suite, `make run-xmltest` (xmlwf on
# the W3C XML conformance suite), downloads the suite: not run.
build_tests() { run_make -C tests check TESTS=; }

list_tests() {
  sed -n 's/^TESTS = //p' "$(package_source expat)/expat/tests/Makefile.am" |
    tr -s ' ' '\n' | grep -v '^$'
}

run_test() { run_automake_test "$1"; }
