# cmark: upstream's CMake build with its tests.

# The add_test names of test/CMakeLists.txt, but for the placeholder it
# registers instead of the spec tests when python3 is missing.
list_tests() {
  sed -n 's/^ *add_test(\(NAME \)\{0,1\}\([A-Za-z0-9_]*\).*/\2/p' \
    "$(package_source cmark)/test/CMakeLists.txt" |
    grep -v '^skipping_spectests$' | sort -u
}

run_test() { run_ctest "$1"; }
