# uchardet (C++): upstream's CMake build with its tests.

# One test per sample file, test/<language>/<charset>.*, named
# "<language>:<charset>" as test/CMakeLists.txt names them, without the
# five it skips as known broken.
list_tests() {
  local src f lang charset
  src=$(package_source uchardet)
  for f in "$src"/test/[a-z][a-z]/*; do
    lang=$(basename "$(dirname "$f")") charset=$(basename "$f")
    echo "$lang:${charset%%.*}"
  done | grep -v -x -e ja:utf-16le -e ja:utf-16be -e es:iso-8859-15 \
    -e da:iso-8859-1 -e he:iso-8859-8 | sort
}

run_test() { run_ctest "$1"; }

# Under LTO: the shipped library, libuchardet.so, from the shared
# library's objects (the static library and the tools are built from the
# same sources).
lto_objects='mlgo-build/src/CMakeFiles/libuchardet\.dir/.*'
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang++-19 -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all -shared -fPIC \
  $(find "$MLGO_OBJECTS" -name "*.o" | LC_ALL=C sort) -o $MLGO_PROGRAM'
