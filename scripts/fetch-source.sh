#!/usr/bin/env bash
# Fetches (once) the Debian bookworm source of a package and prints the
# unpacked source directory. Used by tests, benchmarks and run.sh to get real
# programs; needs the deb-src entry that `scripts/setup.sh --sources` adds.
#
#   scripts/fetch-source.sh PKG [CACHE_DIR]     (default cache: build/src)
set -euo pipefail
pkg=$1
cache=${2:-"$(cd "$(dirname "$0")/.." && pwd)/build/src"}
mkdir -p "$cache/$pkg"
cd "$cache/$pkg"
dir=$(find . -mindepth 1 -maxdepth 1 -type d | head -1)
if [[ -z "$dir" ]]; then
  # Serialize concurrent fetches of the same package (parallel lit tests).
  exec 9>"$cache/$pkg.lock"
  flock 9
  dir=$(find . -mindepth 1 -maxdepth 1 -type d | head -1)
  if [[ -z "$dir" ]]; then
    apt-get source -qq "$pkg" >/dev/null 2>"$cache/$pkg.err" || {
      echo "fetch-source: apt-get source $pkg failed:" >&2
      cat "$cache/$pkg.err" >&2
      exit 1
    }
    dir=$(find . -mindepth 1 -maxdepth 1 -type d | head -1)
  fi
fi
echo "$cache/$pkg/${dir#./}"
