# libjsoncpp (C++, jsoncpp): upstream's CMake build, built by detection;
# this recipe only declares its tests (eval).
#
# Eval only: upstream runs its unit tests (jsoncpp_test) as a post-build
# step of the build itself, so a wrong result would fail the build instead
# of a test; JSONCPP_WITH_POST_BUILD_UNITTEST=OFF leaves them to the tests
# below. The corpus build is unchanged.
if [[ ${flavour:-} == eval ]]; then
  cmake_args=(-DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF)
fi

# Upstream's tests, as its CMake build registers them (JSONCPP_WITH_TESTS
# is on by default; python3 must be found for the last two):
#   jsoncpp_test                       its unit-test binary (reader, writer,
#                                      Value, iterators, fuzz regressions)
#   jsoncpp_readerwriter               test/runjsontests.py: jsontestrunner_exe
#                                      reads each test/data/*.json, writes it
#                                      back with three writers, and compares
#                                      with the .expected files
#   jsoncpp_readerwriter_json_checker  the same, plus the JSON_checker suite
#                                      (test/jsonchecker: what must parse and
#                                      what must fail)
list_tests() {
  printf '%s\n' jsoncpp_test jsoncpp_readerwriter \
    jsoncpp_readerwriter_json_checker
}

run_test() { run_ctest "$1"; }
