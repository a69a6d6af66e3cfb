#!/usr/bin/env bash
# Fails when a C++ file of the tree is not formatted as .clang-format says
# (LLVM's style), naming each such file; clang-format-19 is the one
# formatter, so every machine agrees. The tree was formatted once, in its
# own commit; from then on a change that leaves unformatted lines fails
# ./test.sh. Fix with: git clang-format --binary clang-format-19 (changed
# lines) or clang-format-19 -i FILE.
#
#   scripts/check-format.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format-19 >/dev/null ||
  { echo "check-format: clang-format-19 is missing (scripts/setup.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.h' | grep -v '^test/.*/Inputs/')
bad=()
for f in "${files[@]}"; do
  clang-format-19 --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [[ ${#bad[@]} -gt 0 ]]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted (clang-format-19 -i FILE):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} C++ files formatted"
