#!/usr/bin/env bash
# Configures and builds mlgo into build/ (Release, warnings as errors).
#
#   scripts/build.sh [TARGET...]    the named ninja targets (default: all);
#                                   ./run.sh builds `mlgo mlgo-plugin` only
#
# CMake runs every time (a few seconds with a configured tree): what it
# finds installed decides parts of the build (Open MPI, the Python
# package), and `scripts/setup.sh --main` (./run.sh) installs less than
# `scripts/setup.sh --sources` (./test.sh), so a tree first configured by
# ./run.sh must see what ./test.sh installed later. Where ccache is
# installed, the compiles go through it (a developer's second worktree
# builds in seconds); a fresh machine has none and builds without.
#
# MLGO_UNITTESTS_IN_ALL=OFF in the environment leaves the unit tests out
# of the default target (./test.sh builds and runs them in its ASan/UBSan
# build instead); unset, they are built, as a developer expects.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=$(command -v ccache || true)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMLGO_WERROR=ON \
  -DMLGO_UNITTESTS_IN_ALL="${MLGO_UNITTESTS_IN_ALL:-ON}" \
  -DCMAKE_C_COMPILER_LAUNCHER="$launcher" -DCMAKE_CXX_COMPILER_LAUNCHER="$launcher" >/dev/null
ninja -C build "$@"
