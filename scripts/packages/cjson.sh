# cjson: upstream's CMake build with its tests. Its own warning flags
# include -Werror and -fstack-protector-strong: off, so that the build is
# the compiler's -Oz and nothing else.
cmake_args=(-DENABLE_CUSTOM_COMPILER_FLAGS=OFF)

# cJSON_test (CMakeLists.txt) and the Unity tests of tests/CMakeLists.txt.
list_tests() {
  echo cJSON_test
  sed -n '/set(unity_tests/,/)/p' "$(package_source cjson)/tests/CMakeLists.txt" |
    sed '1d;$d' | tr -d ' '
}

run_test() { run_ctest "$1"; }

# Under LTO (`mlgo tune --package cjson --lto`): the shipped library,
# libcjson.so, from cJSON.c (the tests' programs are not shipped).
lto_objects='mlgo-build/CMakeFiles/cjson\.dir/cJSON\.c\.o'
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang-19 -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all -shared -fPIC \
  $MLGO_OBJECTS/mlgo-build/CMakeFiles/cjson.dir/cJSON.c.o -o $MLGO_PROGRAM'
