#!/usr/bin/env bash
# Compile-time cost of the plugin: builds every .c file of real programs
# (default: zlib and bzip2 from Debian's sources) with clang-19 -Oz, without and with
# mlgo's plugin (embedded model, the default mode), alternating the two
# configurations round by round in the same run. Prints total wall-clock
# time per configuration (best of N rounds), their ratio, the peak RSS of
# the largest compile in each configuration and the plugin's size.
#
#   bench/compile_time.sh [ROUNDS] [PKG...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
shift || true
pkgs=("${@:-zlib}")
[[ $# -gt 0 ]] || pkgs=(zlib bzip2)
source "$root/bench/common.sh"
plugin=$(bench_plugin)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
# Only the files that compile standalone with plain clang.
bench_standalone_c_files -Oz "$out" "${pkgs[@]}"

run() { # config -> prints "seconds max_rss_kb"
  local cfg=$1 start end rss=0 r
  start=$(date +%s.%N)
  for f in "${ok[@]}"; do
    if [[ $cfg == plugin ]]; then
      r=$( { /usr/bin/time -f '%M' clang-19 -Oz -w -c -I"$(dirname "$f")" "$f" -o "$out/x.o" \
             -fplugin="$plugin" -fpass-plugin="$plugin" >/dev/null; } 2>&1 | tail -1)
    else
      r=$( { /usr/bin/time -f '%M' clang-19 -Oz -w -c -I"$(dirname "$f")" "$f" -o "$out/x.o" >/dev/null; } 2>&1 | tail -1)
    fi
    (( r > rss )) && rss=$r
  done
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v r="$rss" 'BEGIN { printf "%.3f %d\n", e - s, r }'
}

best_base=1e9; best_plug=1e9; rss_base=0; rss_plug=0
for ((i = 1; i <= rounds; ++i)); do
  read -r t r < <(run baseline); best_base=$(awk -v a="$t" -v b="$best_base" 'BEGIN { print (a < b ? a : b) }'); rss_base=$r
  read -r t r < <(run plugin);   best_plug=$(awk -v a="$t" -v b="$best_plug" 'BEGIN { print (a < b ? a : b) }'); rss_plug=$r
done
printf 'programs: %s (%d files), best of %d rounds\n' "${pkgs[*]}" "${#ok[@]}" "$rounds"
printf 'clang-19 -Oz:              %8.3f s   peak RSS %6d KiB\n' "$best_base" "$rss_base"
printf 'clang-19 -Oz + mlgo plugin: %7.3f s   peak RSS %6d KiB\n' "$best_plug" "$rss_plug"
printf 'compile-time ratio: %.4f   peak RSS difference: %+d KiB   plugin size: %d KiB\n' \
  "$(awk -v a="$best_plug" -v b="$best_base" 'BEGIN { print a / b }')" "$((rss_plug - rss_base))" \
  "$(( $(stat -c %s "$plugin") / 1024 ))"
