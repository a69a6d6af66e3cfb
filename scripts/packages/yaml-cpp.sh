# yaml-cpp (C++): upstream's CMake build with its tests, which build
# googletest from Debian's /usr/src/googletest with the same compilers.
cmake_args=(-DYAML_CPP_BUILD_TESTS=ON -DYAML_CPP_BUILD_TOOLS=OFF)

list_tests() { echo yaml-cpp-tests; }

run_test() {
  [[ $1 == yaml-cpp-tests ]] || die "no yaml-cpp test '$1'"
  ./mlgo-build/test/yaml-cpp-tests
}
