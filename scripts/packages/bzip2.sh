# bzip2: its plain Makefiles. The shared library's objects are built with
# -fPIC under the same names as the static ones, so it is built first and
# cleaned in between; the corpus keeps the static library's objects (the
# ones left on disk), the one module per source it has always had.
build_system=make

build() {
  run_make -f Makefile-libbz2_so "CC=$CC"
  rm -f ./*.o
  run_make "CC=$CC" libbz2.a bzip2 bzip2recover
}

# The commands of bzip2's `make test`: compress sampleN.ref at level N and
# compare with sampleN.bz2; decompress sampleN.bz2 (sample3 with -s, the
# small-memory decoder) and compare with sampleN.ref.
list_tests() {
  local i
  for i in 1 2 3; do echo "sample$i-compress"; done
  for i in 1 2 3; do echo "sample$i-decompress"; done
}

# bzip2 links libbz2.so (-L. -lbz2 finds the shared library's symlink) and
# has no run path: without LD_LIBRARY_PATH it would run the system's
# libbz2.so.1.0, and neither the tests nor the benchmark would run the
# build's compressor.
run_test() {
  [[ $1 =~ ^sample([123])-(compress|decompress)$ ]] || die "no bzip2 test '$1'"
  export LD_LIBRARY_PATH=$PWD
  local i=${BASH_REMATCH[1]} flag=-d
  if [[ ${BASH_REMATCH[2]} == compress ]]; then
    ./bzip2 "-$i" <"sample$i.ref" >"sample$i.rb2"
    cmp "sample$i.bz2" "sample$i.rb2"
  else
    [[ $i == 3 ]] && flag=-ds
    ./bzip2 $flag <"sample$i.bz2" >"sample$i.tst"
    cmp "sample$i.tst" "sample$i.ref"
  fi
}

# The benchmark (`mlgo eval package --profile`): compress and decompress
# the 1 MiB of its own sources, checking the round trip; the profile comes
# from the tests' samples.
bench_programs=(bzip2 libbz2.so.1.0)
# `bzip2` runs libbz2.so, built from the -fPIC *.sho objects.
speed_objects='.*\.sho|bzip2\.o'
bench_workload() {
  export LD_LIBRARY_PATH=$PWD
  "$PWD/bzip2" -c <"$bench_input" >"$1/input.bz2"
  "$PWD/bzip2" -dc <"$1/input.bz2" >"$1/input.out"
  cmp "$bench_input" "$1/input.out"
}
