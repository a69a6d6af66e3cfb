# double-conversion (C++): upstream's CMake build, built by detection; this
# recipe only declares its tests (eval).

# Upstream's tests, test/cctest: one binary, cctest, whose CHECK macros
# abort on failure (they are not assert: MinSizeRel's NDEBUG keeps them),
# run once per test file as test/cctest/CMakeLists.txt registers it
# (test_bignum, test_strtod, ...: 84 tests of bignums, shortest, fixed and
# precision dtoa against Gay's tables, strtod, conversions both ways).
list_tests() {
  sed -n 's/^add_test(NAME \([A-Za-z0-9_]*\).*/\1/p' \
    "$(package_source double-conversion)/test/cctest/CMakeLists.txt"
}

# cctest exits 0 when no test matches its argument, so the run must also
# say it ran some ("Ran N tests.").
run_test() {
  [[ $1 =~ ^test_[a-z_]+$ ]] || die "no double-conversion test '$1'"
  local log
  log=$(cd mlgo-build && ctest -V --no-tests=error -R "^$1\$") || {
    echo "$log"
    exit 1
  }
  echo "$log"
  grep -q 'Ran [1-9][0-9]* tests\.' <<<"$log" ||
    die "double-conversion: $1 ran no test"
}
