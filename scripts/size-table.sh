#!/usr/bin/env bash
# The main job of ./run.sh: compile real programs (Debian's zlib and bzip2
# sources by default) twice - with stock clang-19 -Oz, and with clang-19 -Oz
# plus mlgo's plugin deciding every inlining with its embedded model - and
# print the .text size of every object, the totals, and the compile time of
# both configurations (same run).
#
#   scripts/size-table.sh [BUILD_DIR] [PKG...]     (default: build zlib bzip2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}; shift || true
pkgs=("$@"); [[ ${#pkgs[@]} -gt 0 ]] || pkgs=(zlib bzip2)
plugin="$root/$build/lib/mlgo/mlgo-plugin.so"
[[ -f "$plugin" ]] || { echo "size-table: $plugin not built; run scripts/build.sh" >&2; exit 1; }
out="$root/$build/size-table"
rm -rf "$out"; mkdir -p "$out/oz" "$out/mlgo"

text_size() { # sum of the sizes of .text* sections of an object
  llvm-size-19 -A "$1" | awk '$1 ~ /^\.text/ { s += $2 } END { print s + 0 }'
}
now() { date +%s.%N; }

files=()
for pkg in "${pkgs[@]}"; do
  src=$("$root/scripts/fetch-source.sh" "$pkg" "$root/build/src")
  while IFS= read -r f; do
    # Keep the files that compile standalone (no generated headers needed).
    clang-19 -Oz -w -c -I"$(dirname "$f")" "$f" -o "$out/probe.o" 2>/dev/null && files+=("$pkg:$f")
  done < <(find "$src" -maxdepth 2 -name '*.c' | sort)
done

t_oz=0; t_mlgo=0
printf '%-28s %10s %10s %9s\n' object "-Oz" "mlgo" "delta"
tot_oz=0; tot_mlgo=0
for entry in "${files[@]}"; do
  pkg=${entry%%:*}; f=${entry#*:}
  name="$pkg/$(basename "$f" .c).o"
  mkdir -p "$out/oz/$pkg" "$out/mlgo/$pkg"
  s=$(now)
  clang-19 -Oz -w -c -I"$(dirname "$f")" "$f" -o "$out/oz/$name"
  m=$(now)
  clang-19 -Oz -w -c -I"$(dirname "$f")" "$f" -o "$out/mlgo/$name" \
    -fplugin="$plugin" -fpass-plugin="$plugin"
  e=$(now)
  t_oz=$(awk -v a="$t_oz" -v s="$s" -v m="$m" 'BEGIN { print a + m - s }')
  t_mlgo=$(awk -v a="$t_mlgo" -v m="$m" -v e="$e" 'BEGIN { print a + e - m }')
  a=$(text_size "$out/oz/$name"); b=$(text_size "$out/mlgo/$name")
  tot_oz=$((tot_oz + a)); tot_mlgo=$((tot_mlgo + b))
  printf '%-28s %10d %10d %+8.2f%%\n' "$name" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { print a ? 100 * (b - a) / a : 0 }')"
done
printf '%-28s %10d %10d %+8.2f%%\n' "TOTAL (${#files[@]} objects)" "$tot_oz" "$tot_mlgo" \
  "$(awk -v a="$tot_oz" -v b="$tot_mlgo" 'BEGIN { print 100 * (b - a) / a }')"
printf 'compile time: -Oz %.2f s, mlgo %.2f s, ratio %.3f\n' "$t_oz" "$t_mlgo" \
  "$(awk -v a="$t_oz" -v b="$t_mlgo" 'BEGIN { print b / a }')"
model=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$root/models/inline-oz/model.json" | head -1)
echo "model: embedded '$model' (models/inline-oz/model.json)"
