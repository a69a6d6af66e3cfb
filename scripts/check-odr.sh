#!/usr/bin/env bash
# One-definition-rule check: builds the mlgo tool and the plugin (every
# area's library linked into one binary each) with link-time optimization,
# under which GCC compares every C++ type defined in more than one
# translation unit and reports two different definitions of one name
# (-Wodr, an error here). Two classes named mlgo::Policy, one in Protocol
# and one in Train, once shipped in one binary unnoticed: the linker kept
# one destructor for both.
#
#   scripts/check-odr.sh [BUILD_DIR]     (default: build-odr)
#
# First a self-test: a planted violation (test/Layering/Inputs/odr-*.cpp)
# must fail with GCC's ODR diagnostic, so the check cannot pass by not
# checking.
#
# The build is -O0: GCC compares the types when it merges the translation
# units' streamed types at link time (whole-program analysis), whatever
# the optimization level, and the self-test below uses the same flags.
# The code it then generates is never run, so optimizing it (the Release
# -O3 this build had) was wasted (docs/lab/2026-12-03.md, ci).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-odr}
flags=(-O0 -flto=auto -Wodr -Werror=odr)

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
c++ "${flags[@]}" -c test/Layering/Inputs/odr-compile-policy.cpp -o "$probe/a.o"
c++ "${flags[@]}" -c test/Layering/Inputs/odr-serve-policy.cpp -o "$probe/b.o"
if c++ "${flags[@]}" "$probe/a.o" "$probe/b.o" -o "$probe/t" 2>"$probe/err"; then
  echo "check-odr: the planted ODR violation linked without an error;" \
    "this compiler does not check the ODR" >&2
  exit 1
fi
if ! grep -q "violates the C++ One Definition Rule" "$probe/err"; then
  echo "check-odr: the planted ODR violation failed, but not with GCC's" \
    "ODR diagnostic:" >&2
  cat "$probe/err" >&2
  exit 1
fi

# Configured every time (seconds), so a tree made at -O3 before moves to
# -O0.
cmake -S . -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O0 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O0 -DNDEBUG" \
  -DMLGO_ODR_CHECK=ON -DMLGO_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C "$out" mlgo mlgo-plugin
echo "check-odr: no type has two definitions in bin/mlgo or the plugin"
