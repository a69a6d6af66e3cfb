#!/bin/sh
# Builds zlib's static library from Debian's source with clang-19 at -Oz,
# embedding bitcode, under bear. Usage: build-zlib.sh CACHE_DIR WORK_DIR.
# The source is downloaded once into CACHE_DIR (apt-get source needs the
# deb-src entry scripts/setup.sh --sources adds); WORK_DIR is rebuilt.
set -eu
cache=$1
work=$2
mkdir -p "$cache"
if ! ls "$cache"/zlib_*.orig.tar.* >/dev/null 2>&1; then
  (cd "$cache" && apt-get source --download-only -qq zlib >/dev/null)
fi
rm -rf "$work"
mkdir -p "$work"
tar -xf "$(ls "$cache"/zlib_*.orig.tar.* | head -1)" -C "$work"
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)
cd "$src"
CC=clang-19 CFLAGS="-Oz -Xclang -fembed-bitcode=all" ./configure --static >/dev/null
# bear preloads its own library; in a sanitizer build the lit tests preload
# AddressSanitizer, which must come first, so the third-party build runs
# without it.
env -u LD_PRELOAD bear --output "$work/compile_commands.json" -- make -j2 libz.a >/dev/null 2>&1
# A fixed name for the source (and object) directory, whatever the version.
ln -s "$src" "$work/src"
