#!/usr/bin/env bash
# Runs the speed programs' own test suites against the builds that
# bench/speed-tune.sh measured (issue #49: "every test passing" on the
# tuned builds): the -O2 -fprofile-use program (W/PROGRAM.llvm, linked from
# W/tune/objects-llvm) and the tuned one (W/PROGRAM.tuned, from
# W/tune/objects).
#
#   bench/speed-tests.sh [--programs bzip2,lua,...] [--work DIR] [--out DIR]
#
# DIR is speed-tune.sh's --work (read only here); the test trees are
# copies of DIR/PROGRAM/src under OUT/PROGRAM/{llvm,tuned} (default: DIR).
# The package recipes (scripts/packages/) build a package's tests with its
# own build system, where the tune's decisions file cannot apply as is: the
# bench's corpus is a flat list of sources compiled in its own directory,
# and IR PGO names a static function by the path it was compiled from, so
# neither the profile's records nor the file's keys would match the
# package build's. So each program's tests run against the bench's own
# objects instead: the program itself put where the tests expect it, and
# each test program that links the library (zlib's example, lua's luac,
# liblzma's tests, zstd's datagen) relinked here from the build's objects
# with the program's main left out; the test programs' own sources are
# compiled with plain clang -O2 (they are not in the profile):
#
#   bzip2     the recipe's six tests (= its Makefile's `test`: samples 1-3
#             compressed and decompressed, compared with the reference)
#   minigzip  zlib's `teststatic` (minigzip round trip, then example)
#   lzip      `make check` (testsuite/check.sh on the program)
#   lua       the recipe's tests: each script of test/Eval/Inputs/lua, run
#             as source and as luac's bytecode
#   xz        the Makefile's TESTS but test_scripts.sh (xzgrep, xzdiff):
#             liblzma's C tests (check_PROGRAMS), test_files.sh and the
#             test_compress_* round trips
#   zstd      the recipe's playTests (tests/playTests.sh) and cli-tests
#             but the two that need a multithreaded build (35 of 37)
#   brotli    nothing tuned (no entries): the objects are compared instead
#
# Prints one TSV line per program and build: the tests passed of those run,
# and the names of the failing ones. Exits 1 if any test failed.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/speed-programs.sh
source "$here/bench/speed-programs.sh"
programs=$speed_all_programs
work=${TMPDIR:-/tmp}/mlgo-speed-tune
out=
while [[ $# -gt 0 ]]; do
  case $1 in
  --programs) programs=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  *) echo "usage: $0 [--programs a,b] [--work DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
out=${out:-$work}

# The tests of one build: run_tests PROGRAM BINARY OBJECTS TREE prints
# "name<TAB>pass|fail|skip" lines, running in TREE (a fresh copy of the
# sources). Output of each test goes to TREE/test-NAME.log.
one() { # one NAME COMMAND...: runs a test, prints its verdict
  local name=$1 rc
  shift
  ("$@") >"$tree/test-$name.log" 2>&1
  rc=$?
  if [[ $rc == 0 ]]; then
    printf '%s\tpass\n' "$name"
  elif [[ $rc == 77 ]]; then
    printf '%s\tskip\n' "$name"
  else
    printf '%s\tfail\n' "$name"
  fi
}

# lib_objects DIR MODULE: the build's objects but the program's main (the
# corpus module MODULE, a glob; its object is named MODULE.o.o).
lib_objects() { find "$1" -name '*.o' ! -name "$2.o.o" | LC_ALL=C sort; }

tests_bzip2() {
  cp "$binary" "$tree/bzip2"
  (
    # The recipe's functions, as scripts/eval-package.sh runs them.
    die() { echo "$*" >&2; exit 1; }
    CC=clang-19 CFLAGS=-O2
    # shellcheck source=scripts/packages/bzip2.sh
    source "$here/scripts/packages/bzip2.sh"
    cd "$tree" || exit 1
    for t in $(list_tests); do one "$t" run_test "$t"; done
  )
}

tests_minigzip() {
  cp "$binary" "$tree/minigzip"
  # shellcheck disable=SC2046
  (cd "$tree" && clang-19 -O2 -w -D_FILE_OFFSET_BITS=64 -DHAVE_UNISTD_H \
    -DHAVE_STDARG_H -I. test/example.c $(lib_objects "$objects" test_minigzip) \
    -o example) >"$tree/build.log" 2>&1 || { printf 'example-build\tfail\n'; return; }
  # zlib's Makefile: teststatic.
  teststatic() {
    cd "$tree" && echo hello world | ./minigzip | ./minigzip -d &&
      ./example tmpst_$$
  }
  one teststatic teststatic
}

tests_lzip() {
  cp "$binary" "$tree/lzip"
  check() { cd "$tree" && sh testsuite/check.sh testsuite 1.23; }
  one check check
}

tests_lua() {
  cp "$binary" "$tree/src/lua"
  # shellcheck disable=SC2046
  (cd "$tree/src" && clang-19 -O2 -w -DLUA_USE_LINUX luac.c \
    $(lib_objects "$objects" src_lua) -lm -ldl -o luac) >"$tree/build.log" 2>&1 ||
    { printf 'luac-build\tfail\n'; return; }
  (
    die() { echo "$*" >&2; exit 1; }
    CC=clang-19 CFLAGS=-O2
    repo=$here
    # shellcheck source=scripts/packages/lua5.4.sh
    source "$here/scripts/packages/lua5.4.sh"
    cd "$tree" || exit 1
    for t in $(list_tests); do one "$t" run_test "$t"; done
  )
}

tests_xz() {
  local t
  cp "$binary" "$tree/src/xz/xz"
  for t in $(sed -n '/^check_PROGRAMS = /,/^$/p' "$tree/tests/Makefile.am" |
    tr -d '\\' | tr ' ' '\n' | grep -v '^check_PROGRAMS\|^=\|^$'); do
    # shellcheck disable=SC2046
    (cd "$tree/tests" && clang-19 -O2 -w -DHAVE_CONFIG_H -I.. -I../src/common \
      -I../src/liblzma/api -I../src/liblzma -pthread "$t.c" \
      $(lib_objects "$objects" 'src_xz_*') -o "$t") >>"$tree/build.log" 2>&1 ||
      { printf '%s-build\tfail\n' "$t"; continue; }
    [[ $t == create_compress_files ]] && continue
    one "$t" sh -c "cd '$tree/tests' && srcdir=. ./$t"
  done
  # The Makefile's TESTS that are scripts (test_scripts.sh, xzgrep and
  # friends, is not: those are not the program).
  for t in test_files.sh test_compress_prepared_bcj_sparc \
    test_compress_prepared_bcj_x86 test_compress_generated_abc \
    test_compress_generated_random test_compress_generated_text; do
    one "$t" sh -c "cd '$tree/tests' && srcdir=. sh ./$t"
  done
}

tests_zstd() {
  cp "$binary" "$tree/programs/zstd"
  (cd "$tree/tests" && clang-19 -O2 -w -I../lib -I../lib/common -I../programs \
    ../programs/datagen.c datagencli.c -o datagen) >"$tree/build.log" 2>&1 ||
    { printf 'datagen-build\tfail\n'; return; }
  (
    die() { echo "$*" >&2; exit 1; }
    CC=clang-19 CFLAGS=-O2
    # shellcheck source=scripts/packages/zstd.sh
    source "$here/scripts/packages/zstd.sh"
    cd "$tree" || exit 1
    one playTests run_test playTests
  )
  # The recipe's cli-tests but the two that need ZSTD_MULTITHREAD, which
  # the bench's zstd is built without (compression/adapt.sh and
  # compression/multi-threaded.sh; common/ holds helpers, not tests).
  cli_tests() {
    # shellcheck disable=SC2046 # one word per test name
    cd "$tree/tests" &&
      ./cli-tests/run.py --zstd=../programs/zstd --datagen=./datagen \
        $(cd cli-tests && find . -mindepth 2 -name '*.sh' ! -name 'setup*' \
          ! -path './common/*' ! -path ./compression/adapt.sh \
          ! -path ./compression/multi-threaded.sh | sed 's|^\./||' | LC_ALL=C sort)
  }
  one cli-tests-single-threaded cli_tests
}

printf 'program\tbuild\tpassed\tfailed\n'
status=0
for p in ${programs//,/ }; do
  [[ -n ${speed_files[$p]:-} ]] || { echo "unknown program $p" >&2; exit 2; }
  w=$work/$p
  if [[ $p == brotli ]]; then
    same=0 all=0
    for o in "$w"/tune/objects/*.o; do
      all=$((all + 1))
      cmp -s "$o" "$w/tune/objects-llvm/$(basename "$o")" && same=$((same + 1))
    done
    printf '%s\ttuned = llvm\t%s of %s objects identical\t\n' "$p" "$same" "$all"
    continue
  fi
  for build in llvm tuned; do
    binary=$w/$p.$build
    objects=$w/tune/objects
    [[ $build == llvm ]] && objects=$w/tune/objects-llvm
    [[ -x $binary ]] || { echo "no $binary: run bench/speed-tune.sh first" >&2; exit 2; }
    tree=$out/$p/tests-$build
    rm -rf "$tree"
    mkdir -p "$(dirname "$tree")"
    cp -a "$w/src" "$tree"
    verdicts=$("tests_$p")
    [[ -n $verdicts ]] || verdicts=$'(no test ran)\tfail'
    passed=$(grep -c $'\tpass$' <<<"$verdicts")
    ran=$(grep -vc $'\tskip$' <<<"$verdicts")
    failed=$(grep $'\tfail$' <<<"$verdicts" | cut -f1 | paste -sd, -)
    [[ -n $failed ]] && status=1
    printf '%s\t%s\t%s/%s\t%s\n' "$p" "$build" "$passed" "$ran" "${failed:--}"
  done
done
exit $status
