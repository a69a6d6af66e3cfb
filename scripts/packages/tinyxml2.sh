# tinyxml2 (C++): upstream's plain Makefile, the static library and its
# test program.
build_system=make
make_args=("CXX=$CXX" "CXXFLAGS=$CXXFLAGS" xmltest staticlib)

list_tests() { echo xmltest; }

# In the source directory, which holds its resources.
run_test() {
  [[ $1 == xmltest ]] || die "no tinyxml2 test '$1'"
  ./xmltest
}

# Under LTO: xmltest, the one program the build links, as make's implicit
# rule links it: xmltest.cpp (compiled in the link by stock clang-19: the
# build compiles and links it in one step and leaves no object of it in
# the corpus) and the library's tinyxml2.o.
# shellcheck disable=SC2016 # expanded by the tune's link
lto_link='clang++-19 -fPIC -Oz -ffunction-sections -fdata-sections $MLGO_LTO_FLAGS -Wl,--gc-sections -Wl,--icf=all \
  $MLGO_SOURCE/xmltest.cpp $MLGO_OBJECTS/tinyxml2.o -o $MLGO_PROGRAM'
