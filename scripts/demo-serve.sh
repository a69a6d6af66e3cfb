#!/usr/bin/env bash
# The main demo: compile every .c file of zlib (Debian's source package) with
# stock clang-19 while `mlgo serve --policy always` answers each inlining
# decision over the interactive protocol, record a training log per file, and
# compare the .text size with plain `clang-19 -Oz`.
#
#   scripts/demo-serve.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
mlgo="$root/$build/bin/mlgo"
[[ -x "$mlgo" ]] || { echo "demo-serve: $mlgo not built; run scripts/build.sh" >&2; exit 1; }

# zlib's sources, fetched once into build/src.
src="$root/build/src"
mkdir -p "$src"
zdir=$(ls -d "$src"/zlib-*/ 2>/dev/null | head -1 || true)
if [[ -z "$zdir" ]]; then
  echo "demo-serve: fetching zlib sources (apt-get source zlib)"
  (cd "$src" && apt-get source -qq --download-only zlib >/dev/null 2>&1 &&
     dpkg-source -x --skip-patches zlib_*.dsc >/dev/null 2>&1) ||
    { echo "demo-serve: cannot fetch zlib sources; run scripts/setup.sh --sources" >&2; exit 1; }
  zdir=$(ls -d "$src"/zlib-*/ | head -1)
fi

out="$root/$build/demo-serve"
rm -rf "$out"
mkdir -p "$out"
printf '%-14s %9s %12s %12s %8s\n' file decisions "text(serve)" "text(-Oz)" delta
total_d=0 total_s=0 total_o=0
for c in "$zdir"/*.c; do
  name=$(basename "$c" .c)
  flags=(-Oz -w -DHAVE_UNISTD_H -I"$zdir" -c "$c")
  if ! "$mlgo" serve --policy always --log "$out/$name.log" -- \
      clang-19 "${flags[@]}" -mllvm -enable-ml-inliner=release \
      -mllvm -inliner-interactive-channel-base={channel} \
      -o "$out/$name.serve.o" 2>"$out/$name.err"; then
    echo "demo-serve: $name.c failed:" >&2
    cat "$out/$name.err" >&2
    exit 1
  fi
  clang-19 "${flags[@]}" -o "$out/$name.oz.o"
  decisions=$(sed -n 's/^mlgo serve: \([0-9]*\) decision.*/\1/p' "$out/$name.err")
  ts=$(llvm-size-19 -A "$out/$name.serve.o" | awk '$1 == ".text" {print $2}')
  to=$(llvm-size-19 -A "$out/$name.oz.o" | awk '$1 == ".text" {print $2}')
  printf '%-14s %9s %12s %12s %+8d\n' "$name.c" "$decisions" "$ts" "$to" $((ts - to))
  total_d=$((total_d + decisions)) total_s=$((total_s + ts)) total_o=$((total_o + to))
done
printf '%-14s %9s %12s %12s %+8d\n' total "$total_d" "$total_s" "$total_o" $((total_s - total_o))
echo "logs: $out/*.log  (inspect with: $mlgo log stats $out/deflate.log)"
