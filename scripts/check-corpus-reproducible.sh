#!/usr/bin/env bash
# Checks that scripts/corpus-debian.sh builds the same corpus wherever its
# output goes: builds PKG (default double-conversion, ~20 s) with a private
# build root into OUT-A, deletes the build, builds it again into OUT-B, and
# compares every extracted file and the two `mlgo corpus stats`
# fingerprints. A difference means a model trained on one corpus cannot be
# reproduced from the other (docs/corpus.md, "Reproducibility").
#
#   scripts/check-corpus-reproducible.sh BUILD-DIR [PKG]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?usage: check-corpus-reproducible.sh BUILD-DIR [PKG]}" && pwd)"
pkg="${2:-double-conversion}"
mlgo="$build/bin/mlgo"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fingerprint() { "$mlgo" corpus stats "$1" | sed -n 's/^fingerprint: //p'; }

for side in a b; do
  rm -rf "$tmp/root/$pkg"
  if ! "$here/scripts/corpus-debian.sh" --build-root "$tmp/root" \
         --out "$tmp/out-$side" --mlgo "$mlgo" --jobs 2 "$pkg" \
         > "$tmp/$side.log" 2>&1; then
    echo "check-corpus-reproducible: building $pkg into $tmp/out-$side failed:" >&2
    tail -20 "$tmp/$side.log" >&2
    exit 1
  fi
  if [[ "$(cut -f5 "$tmp/out-$side/packages.tsv" | tail -1)" != ok ]]; then
    echo "check-corpus-reproducible: $pkg was not extracted into $tmp/out-$side:" >&2
    cat "$tmp/out-$side/packages.tsv" >&2
    exit 1
  fi
done

status=0
# Every module's bitcode and cc1 command line, and the descriptions.
if ! diff -r "$tmp/out-a/$pkg" "$tmp/out-b/$pkg"; then
  echo "check-corpus-reproducible: FAIL: the two builds of $pkg differ" >&2
  status=1
fi
fa=$(fingerprint "$tmp/out-a")
fb=$(fingerprint "$tmp/out-b")
if [[ -z "$fa" || "$fa" != "$fb" ]]; then
  echo "check-corpus-reproducible: FAIL: fingerprints '$fa' and '$fb' differ" >&2
  status=1
fi
modules=$(find "$tmp/out-a/$pkg" -name '*.bc' | wc -l)
if [[ "$modules" -eq 0 ]]; then
  echo "check-corpus-reproducible: FAIL: no modules extracted from $pkg" >&2
  status=1
fi
[[ $status -eq 0 ]] &&
  echo "check-corpus-reproducible: $pkg built twice into different directories: $modules modules, identical, fingerprint $fa"
exit $status
