#!/usr/bin/env bash
# Runs the Python package's tests (python/tests, pytest) against a build:
# the package in <build>/python, with the interpreter the build was
# configured for (MLGO_PYTHON, /usr/bin/python3 by default: Debian's
# python3-pybind11, -numpy, -pytest and -torch are for it, and the first
# python3 on PATH may be another one). About a minute and a half on 2 cores.
#
#   scripts/check-python.sh [BUILD_DIR] [PYTEST_ARGS...]
#
# BUILD_DIR (default build) may be absolute, relative to the current
# directory, or relative to the source tree.
set -euo pipefail
build=${1:-build}
shift || true
if [[ -d $build ]]; then
  build=$(cd "$build" && pwd)
fi
cd "$(dirname "$0")/.."
if [[ $build != /* ]]; then
  build=$PWD/$build
fi
# A build configured before pybind11 was installed (scripts/setup.sh
# installs it) has no package yet: configure again (CMake looks again for
# what it did not find) and build it.
if ! ls "$build"/python/mlgo/_core*.so >/dev/null 2>&1 && [[ -f $build/build.ninja ]]; then
  cmake "$build" >/dev/null && ninja -C "$build" -j2 mlgo-python >/dev/null || true
fi
py=$(sed -n 's/^MLGO_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [[ -z "$py" || ! -x "$py" ]]; then
  echo "check-python: $build was not configured with a Python (MLGO_PYTHON)" >&2
  exit 1
fi
if ! ls "$build"/python/mlgo/_core*.so >/dev/null 2>&1; then
  echo "check-python: $build/python/mlgo has no _core module; pybind11 was not" \
       "found when $build was configured (scripts/setup.sh installs pybind11-dev" \
       "and python3-pybind11; then reconfigure)" >&2
  exit 1
fi
PYTHONPATH="$build/python" exec "$py" -m pytest -q -p no:cacheprovider python/tests "$@"
