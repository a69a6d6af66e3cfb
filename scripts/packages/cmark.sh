# cmark: upstream's CMake build with its tests.

# The add_test names of test/CMakeLists.txt, but for the placeholder it
# registers instead of the spec tests when python3 is missing.
list_tests() {
  sed -n 's/^ *add_test(\(NAME \)\{0,1\}\([A-Za-z0-9_]*\).*/\2/p' \
    "$(package_source cmark)/test/CMakeLists.txt" |
    grep -v '^skipping_spectests$' | sort -u
}

run_test() { run_ctest "$1"; }

# Under LTO: the shipped library, libcmark.so, from its 19 objects (the
# static library and the cmark program compile the same sources again).
lto_objects='mlgo-build/src/CMakeFiles/cmark\.dir/.*'
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang-19 -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all -shared -fPIC \
  $(find "$MLGO_OBJECTS" -name "*.o" | LC_ALL=C sort) -o $MLGO_PROGRAM'
