#!/usr/bin/env bash
# The main job: install what is missing, build, then compile real programs
# (zlib and bzip2 from Debian's sources) with stock clang-19 -Oz and with
# mlgo's plugin and its embedded model, and print the .text size table and
# the compile-time ratio. (scripts/demo-serve.sh shows `mlgo serve` driving
# stock clang over the interactive protocol.)
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --sources
scripts/build.sh
exec scripts/size-table.sh build
