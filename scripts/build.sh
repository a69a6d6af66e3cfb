#!/usr/bin/env bash
# Configures and builds mlgo into build/ (Release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMLGO_WERROR=ON >/dev/null
fi
ninja -C build "$@"
