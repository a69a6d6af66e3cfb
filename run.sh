#!/usr/bin/env bash
# The main job: install what is missing, build, then compile a real program
# (zlib, from Debian's sources) while `mlgo serve` answers every inlining
# decision that stock clang-19 asks for over the interactive protocol.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --sources
scripts/build.sh
exec scripts/demo-serve.sh
