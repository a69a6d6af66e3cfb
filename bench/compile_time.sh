#!/usr/bin/env bash
# Compile-time cost of the plugin: builds every .c file of a real program
# (default: lua5.4 from Debian's sources) with clang-19 -Oz, without and with
# mlgo's plugin (embedded model, the default mode), alternating the two
# configurations round by round in the same run. Prints total wall-clock
# time per configuration (best of N rounds), their ratio, the peak RSS of
# the largest compile in each configuration and the plugin's size.
#
#   bench/compile_time.sh [PKG] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pkg=${1:-lua5.4}
rounds=${2:-3}
plugin="$root/build/lib/MLGOInliner.so"
[[ -f "$plugin" ]] || { echo "build the plugin first (scripts/build.sh)" >&2; exit 1; }
src=$("$root/scripts/fetch-source.sh" "$pkg")
mapfile -t files < <(find "$src" -name '*.c' -path '*src*' | sort)
[[ ${#files[@]} -gt 0 ]] || mapfile -t files < <(find "$src" -name '*.c' | sort)
incs=(); for d in $(printf '%s\n' "${files[@]}" | xargs -n1 dirname | sort -u); do incs+=("-I$d"); done
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

# Keep only the files that compile standalone with plain clang.
ok=()
for f in "${files[@]}"; do
  clang-19 -Oz -w -c "${incs[@]}" "$f" -o "$out/probe.o" 2>/dev/null && ok+=("$f")
done

run() { # config -> prints "seconds max_rss_kb"
  local cfg=$1 start end rss=0 r
  start=$(date +%s.%N)
  for f in "${ok[@]}"; do
    if [[ $cfg == plugin ]]; then
      r=$( { /usr/bin/time -f '%M' clang-19 -Oz -w -c "${incs[@]}" "$f" -o "$out/x.o" \
             -fplugin="$plugin" -fpass-plugin="$plugin" >/dev/null; } 2>&1 | tail -1)
    else
      r=$( { /usr/bin/time -f '%M' clang-19 -Oz -w -c "${incs[@]}" "$f" -o "$out/x.o" >/dev/null; } 2>&1 | tail -1)
    fi
    (( r > rss )) && rss=$r
  done
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $rss"
}

best_base=1e9; best_plug=1e9; rss_base=0; rss_plug=0
for ((i = 1; i <= rounds; ++i)); do
  read -r t r < <(run baseline); best_base=$(echo "if ($t < $best_base) $t else $best_base" | bc); rss_base=$r
  read -r t r < <(run plugin);   best_plug=$(echo "if ($t < $best_plug) $t else $best_plug" | bc); rss_plug=$r
done
printf 'program: %s (%d files), best of %d rounds\n' "$pkg" "${#ok[@]}" "$rounds"
printf 'clang-19 -Oz:              %8.3f s   peak RSS %6d KiB\n' "$best_base" "$rss_base"
printf 'clang-19 -Oz + mlgo plugin: %7.3f s   peak RSS %6d KiB\n' "$best_plug" "$rss_plug"
printf 'compile-time ratio: %.4f   peak RSS difference: %+d KiB   plugin size: %d KiB\n' \
  "$(echo "$best_plug / $best_base" | bc -l)" "$((rss_plug - rss_base))" \
  "$(( $(stat -c %s "$plugin") / 1024 ))"
