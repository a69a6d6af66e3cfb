#!/usr/bin/env bash
# Compile-time cost of the plugin's in-process eviction model (issue target:
# <= 1.10x plain clang-19 -O2 on a real multi-file program). Builds every .c
# file of real programs (default: zlib and bzip2 from Debian's sources) with
# clang-19 -O2 in three configurations, alternated round by round in the
# same run, and prints the best wall-clock time of each and the ratios:
#
#   plain     clang-19 -O2
#   loaded    + the plugin, both advisors LLVM's own (-mlgo-use-llvm-advisor
#             -mlgo-evict-use-llvm-advisor): the cost of loading it
#   evict     + the plugin, LLVM's inliner, mlgo's embedded eviction model
#             (-mlgo-evict)
#
#   bench/evict-compile-time.sh [ROUNDS] [PKG...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
shift || true
pkgs=("$@")
[[ ${#pkgs[@]} -gt 0 ]] || pkgs=(zlib bzip2)
source "$root/bench/common.sh"
plugin=$(bench_plugin)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
# Only the files that compile standalone with plain clang.
bench_standalone_c_files -O2 "$out" "${pkgs[@]}"

flags() {
  case $1 in
    plain) ;;
    loaded) echo "-fplugin=$plugin -fpass-plugin=$plugin -mllvm -mlgo-use-llvm-advisor -mllvm -mlgo-evict-use-llvm-advisor" ;;
    evict) echo "-fplugin=$plugin -fpass-plugin=$plugin -mllvm -mlgo-use-llvm-advisor -mllvm -mlgo-evict" ;;
  esac
}

run() { # config -> seconds
  local start end
  start=$(date +%s.%N)
  for f in "${ok[@]}"; do
    # shellcheck disable=SC2046
    clang-19 -O2 -w -c -I"$(dirname "$f")" "$f" -o "$out/x.o" $(flags "$1")
  done
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

declare -A best=([plain]=1e9 [loaded]=1e9 [evict]=1e9)
for ((i = 1; i <= rounds; ++i)); do
  for cfg in plain loaded evict; do
    t=$(run $cfg)
    best[$cfg]=$(awk -v a="$t" -v b="${best[$cfg]}" 'BEGIN { print (a < b ? a : b) }')
  done
done
printf 'programs: %s (%d files), clang-19 -O2, best of %d rounds\n' "${pkgs[*]}" "${#ok[@]}" "$rounds"
for cfg in plain loaded evict; do
  printf '%-7s %8.3f s   ratio to plain %.4f\n' "$cfg" "${best[$cfg]}" \
    "$(awk -v a="${best[$cfg]}" -v b="${best[plain]}" 'BEGIN { print a / b }')"
done
