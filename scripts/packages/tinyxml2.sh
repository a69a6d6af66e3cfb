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
