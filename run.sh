#!/usr/bin/env bash
# The main job: install what is missing, build, then build real programs
# from Debian's sources end to end with stock clang-19 -Oz and with mlgo's
# plugin and its embedded model - the eval packages of
# scripts/packages/list.tsv: zlib, bzip2, lua5.4 and the C++ ninja-build
# from the training corpus, and xz-utils, the C++ tinyxml2, yaml-cpp, lzip
# and uchardet, cmark and cjson, which the model has never seen - and print
# for each the .text size table of its binaries and libraries, the build-time
# and peak-RSS ratios, and its test suite's results against both builds
# (`mlgo eval package`, docs/eval.md). scripts/size-table.sh prints the
# older per-object table. (scripts/demo-serve.sh shows `mlgo serve` driving
# stock clang over the interactive protocol.)
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --sources
scripts/build.sh
exec scripts/eval-packages.sh build
