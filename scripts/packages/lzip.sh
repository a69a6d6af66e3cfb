# lzip (C++): its own configure script (not autoconf's), which takes CXX and
# CXXFLAGS as arguments.
configure_args=("CXX=$CXX" "CXXFLAGS=$CXXFLAGS")

# `make check`: its testsuite/check.sh.
list_tests() { echo check; }

run_test() {
  [[ $1 == check ]] || die "no lzip test '$1'"
  make check
}
