# ninja-build (C++): upstream's CMake build, built by detection; re2c is not
# needed (the generated lexers are in the source). Only the tool, not the
# perftests; eval adds its test binary. (Eval's MinSizeRel, not Release:
# ninja turns on LTO for Release, and then the link step's own inliner -
# LLVM's, not mlgo's - re-optimizes everything.)
make_args=(ninja)

build_tests() { make -C "$build_dir" -j"$jobs" ninja_test; }

# Its own unit-test binary, ninja_test, and a small project built with the
# ninja it built: a first build, an incremental rebuild after touching one
# input, and a no-op run.
list_tests() { printf '%s\n' ninja_test build-project; }

run_test() {
  case $1 in
  ninja_test) ./mlgo-build/ninja_test ;;
  build-project)
    # Concatenates generated parts through a rule with a depfile; checks
    # the output, that touching one input rebuilds only what depends on
    # it, and that a third run has nothing to do.
    local ninja=$PWD/mlgo-build/ninja p=$out/project
    rm -rf "$p"
    mkdir -p "$p"
    cd "$p"
    printf 'a\n' >a.in
    printf 'b\n' >b.in
    cat >build.ninja <<'NINJA'
rule gen
  command = tr a-z A-Z < $in > $out && echo "$out: $in" > $out.d
  depfile = $out.d
  deps = gcc
rule cat
  command = cat $in > $out
build a.out: gen a.in
build b.out: gen b.in
build all.txt: cat a.out b.out
default all.txt
NINJA
    "$ninja" >first.log
    [[ $(cat all.txt) == $'A\nB' ]] || die "ninja-build: wrong all.txt"
    grep -q '\[3/3\]' first.log || die "ninja-build: first build was not 3 steps"
    sleep 1
    printf 'bb\n' >b.in
    "$ninja" >second.log
    [[ $(cat all.txt) == $'A\nBB' ]] || die "ninja-build: rebuild missed b.in"
    grep -q '\[2/2\]' second.log || die "ninja-build: rebuild was not 2 steps"
    "$ninja" | grep -q 'no work to do' || die "ninja-build: third run did work"
    ;;
  *) die "no ninja-build test '$1'" ;;
  esac
}
