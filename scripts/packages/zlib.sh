# zlib: built by detection, with its own configure; `make` builds configure's
# `all: static shared all64`, the static and shared library and
# example/minigzip in three flavours.

list_tests() { printf '%s\n' teststatic testshared test64; }

run_test() {
  [[ $1 =~ ^(teststatic|testshared|test64)$ ]] || die "no zlib test '$1'"
  make "$1"
}
