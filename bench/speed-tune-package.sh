#!/usr/bin/env bash
# Benchmarks `mlgo tune --objective speed` (issue #49) on real programs built
# by their own build systems: Debian's bzip2, zstd, lzip, xz-utils, zlib
# (minigzip) and lua5.4, each built by its recipe (scripts/packages/), as
# `mlgo eval package` builds it.
#
# For each package:
#  1. the corpus: the package's -O2 build with embedded bitcode, as
#     scripts/corpus-debian.sh --speed builds it (its tree under --build-root),
#     extracted with every object kept, then narrowed to the objects the
#     measured program is made of, as its recipe's speed_objects names
#     them (bzip2 and libbz2.so's PIC objects,
#     programs/zstd's own compiles of the library, xz and liblzma.so's,
#     minigzip and the libz.a members it links, lua and liblua.a's: a
#     module the profiled program does not link has no profile, which the
#     tune refuses);
#  2. the profile: `mlgo profile package --run`, the package's own build
#     at -O2 -fprofile-generate compressing and decompressing input P
#     (1 MiB of /usr/include's headers, bench/speed-programs.sh's input B;
#     lua runs the bench's test scripts and bench/speed-lua-a.lua on it);
#     with --profile-from tests, its recipe's profile workload instead (its
#     test suite, `mlgo profile package`);
#  3. the search: `mlgo tune --objective speed` from the eviction model
#     (--evict-model, given to mlgo tune as --model), checked on input P under callgrind (the corpus's
#     objects linked into one program; modules measured worse reverted);
#  4. the measurement: `mlgo eval package --profile --decisions`, both
#     builds by the package's build system with the same profile, their
#     test suites, and the recipe's benchmark on its own input M (1 MiB of
#     the package's sources, never seen by 2 or 3) under callgrind, the
#     reward, and paired wall-clock runs.
#
# Usage: bench/speed-tune-package.sh [--packages bzip2,zstd,lzip,xz-utils]
#          [--work DIR] [--max-compiles N] [--evict-model FILE]
#          [--build-root DIR] [--mlgo PATH] [--profile-from input|tests]
# The packages must have been built by scripts/corpus-debian.sh --speed
# (their build trees under --build-root, /var/tmp/mlgo-corpus-build-O2 by
# default). Prints one line per package; everything else is in WORK/PKG/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=bzip2,zstd,lzip,xz-utils work=/var/tmp/speed-tune-package
budget=60 evict_model=$here/models/regalloc-evict-speed/model.json
build_root=/var/tmp/mlgo-corpus-build-O2 mlgo=$here/build/bin/mlgo
profile_from=input
while (($#)); do
  case $1 in
  --packages) packages=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --max-compiles) budget=$2; shift 2 ;;
  --evict-model) evict_model=$(realpath "$2"); shift 2 ;;
  --build-root) build_root=$2; shift 2 ;;
  --mlgo) mlgo=$(realpath "$2"); shift 2 ;;
  --profile-from) profile_from=$2; shift 2 ;;
  *) echo "usage: $0 [--packages a,b] [--work DIR] [--max-compiles N] [--evict-model F] [--build-root DIR] [--mlgo PATH]" >&2; exit 2 ;;
  esac
done

# pkg_link PKG BUILD: the tune's --link, the corpus's objects as one
# program (debug information stripped: valgrind 3.19 cannot read all of
# clang-19's DWARF 5).
pkg_link() {
  local objs='$(find $MLGO_OBJECTS -name "*.o" | LC_ALL=C sort)'
  case $1 in
  bzip2 | xz-utils) echo "clang-19 -pthread $objs -Wl,--strip-debug -o \$MLGO_PROGRAM" ;;
  zstd) echo "clang-19 -pthread $objs $(find "$2" -path '*/programs/obj/*/huf_decompress_amd64.o') -lz -llzma -Wl,--strip-debug -o \$MLGO_PROGRAM" ;;
  lzip) echo "clang++-19 $objs -Wl,--strip-debug -o \$MLGO_PROGRAM" ;;
  zlib) echo "clang-19 $objs -Wl,--strip-debug -o \$MLGO_PROGRAM" ;;
  lua5.4) echo "clang-19 $objs -lm -ldl -Wl,-E -Wl,--strip-debug -o \$MLGO_PROGRAM" ;;
  esac
}

# pkg_profile_run PKG IN DIR: the profile's workload in the package's build
# tree: its program compressing and decompressing IN (lua: the bench's
# workload A, the test scripts and bench/speed-lua-a.lua, on IN in DIR).
pkg_profile_run() {
  local z='$MLGO_BUILD_DIR/../p.z' prog
  case $1 in
  bzip2) prog='LD_LIBRARY_PATH=$MLGO_BUILD_DIR ./bzip2' ;;
  zstd) prog='./programs/zstd -q' ;;
  lzip) prog='./lzip' ;;
  xz-utils) prog='LD_LIBRARY_PATH=$MLGO_BUILD_DIR/src/liblzma/.libs src/xz/.libs/xz' ;;
  zlib) echo "./minigzip < $2 > $z && ./minigzip -d < $z | cmp - $2"; return ;;
  lua5.4) echo "bash $here/bench/speed-programs.sh run lua \$MLGO_BUILD_DIR/src/lua A $3"; return ;;
  esac
  echo "$prog -c < $2 > $z && $prog -dc < $z | cmp - $2"
}

# The bench's name of each program (bench/speed-programs.sh).
declare -A bench_name=([bzip2]=bzip2 [zstd]=zstd [lzip]=lzip [xz-utils]=xz
  [zlib]=minigzip [lua5.4]=lua)
# The bench's workload of each program: B, the headers; lua's A, its
# scripts on the headers (B is the recipe's benchmark script).
declare -A bench_input=([lua5.4]=A)

printf '%-9s %9s %9s %9s %9s %7s %s\n' package estimated checked measured reward wall tests
for pkg in ${packages//,/ }; do
  w=$work/$pkg
  mkdir -p "$w/inputs"
  tree=$(find "$build_root/$pkg" -mindepth 1 -maxdepth 1 -type d -name '*[0-9]*' | head -1)
  [[ -f $build_root/$pkg/compile_commands.json && -n $tree ]] ||
    { echo "$pkg: no build under $build_root/$pkg (scripts/corpus-debian.sh --speed $pkg)" >&2; exit 1; }
  # Input P: the headers (bench/speed-programs.sh's input B).
  if [[ ! -s $w/inputs/inputB ]]; then
    find /usr/include -maxdepth 1 -name '*.h' | LC_ALL=C sort | xargs cat >"$w/inputs/all"
    head -c 1048576 "$w/inputs/all" >"$w/inputs/inputB"
    rm "$w/inputs/all"
  fi
  [[ -e $w/inputs/inputA ]] || ln -s inputB "$w/inputs/inputA"
  if [[ ! -s $w/corpus/corpus_description.json ]]; then
    rm -rf "$w/corpus"
    "$mlgo" corpus extract --compile-commands "$build_root/$pkg/compile_commands.json" \
      --output "$w/corpus" --base-dir "$tree" --keep-duplicates --allow-partial \
      >"$w/extract.log" 2>&1
    # The recipe's speed_objects (what `mlgo tune --objective speed
    # --package` keeps); none: every object.
    python3 - "$w/corpus/corpus_description.json" \
      "$(bash "$here/scripts/eval-package.sh" speed-objects "$pkg")" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
d["modules"] = [m for m in d["modules"] if re.fullmatch(sys.argv[2] or ".*", m)]
json.dump(d, open(sys.argv[1], "w"), indent=2)
EOF
  fi
  run=(--run "$(pkg_profile_run "$pkg" "$w/inputs/inputB" "$w/inputs")")
  [[ $profile_from == tests ]] && run=()
  [[ -s $w/p.profdata ]] ||
    "$mlgo" profile package "$pkg" -o "$w/p.profdata" --work-dir "$w/profile" \
      "${run[@]}" >"$w/profile.log" 2>&1
  "$mlgo" tune --objective speed --profile "$w/p.profdata" --corpus "$w/corpus" \
    --work-dir "$w/tune" -o "$w/$pkg.decisions" --model "$evict_model" \
    --max-compiles "$budget" --jobs 2 --link "$(pkg_link "$pkg" "$tree")" \
    --workload "bash $here/bench/speed-programs.sh run ${bench_name[$pkg]} \$MLGO_PROGRAM ${bench_input[$pkg]:-B} $w/inputs" \
    >"$w/tune.log" 2>&1
  "$mlgo" eval package "$pkg" --profile "$w/p.profdata" --decisions "$w/$pkg.decisions" \
    --evict-model "$evict_model" --work-dir "$w/eval" --wall-runs 5 --format csv \
    >"$w/eval.csv" 2>"$w/eval.log"
  est=$(sed -n 's/.*estimated \([-+0-9.]*%\) profile-weighted.*/\1/p' "$w/tune.log")
  chk=$(sed -n 's/.*the file.s program [0-9]* (\([-+0-9.]*%\)).*/\1/p' "$w/tune/report.md")
  python3 - "$w/eval.csv" "$pkg" "$est" "$chk" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
def ratio(metric):
    for r in rows:
        if metric in ",".join(r):
            return float(r[-1])
    return float("nan")
tests = [r for r in rows if r and r[-1] in ("pass", "fail")]
passed = sum(1 for r in tests if r[-1] == "pass" and r[-2] == "pass")
print("%-9s %9s %9s %+8.2f%% %+8.2f%% %7.3f %d/%d" % (
    sys.argv[2], sys.argv[3], sys.argv[4],
    (ratio("executed instructions") - 1) * 100,
    (ratio("reward: instructions") - 1) * 100,
    ratio("wall-clock seconds (median"), passed, len(tests)))
EOF
done
