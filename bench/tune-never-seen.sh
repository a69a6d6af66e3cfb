#!/usr/bin/env bash
# The never-seen target of docs/tune.md: each program of the eval set that
# no model or ranker has seen in training (scripts/packages/list.tsv: role
# eval, not in the corpus) tuned end to end with `mlgo tune --package` and
# a fixed budget of compiles, then built three ways by `mlgo eval package`
# (-Oz, the embedded model, the model with its decisions file), each build
# running the package's own test suite. Prints each tune report (what tune
# predicts) and eval's tables (what the builds measure), and the wall
# clock. Exits 1 if a build or a test fails.
#
#   bench/tune-never-seen.sh [COMPILES] [BUILD_DIR]
#
# COMPILES is the budget per package (default 400). Work directories stay
# in BUILD_DIR/tune/<package> (default build/), so a rerun resumes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
compiles=${1:-400}
build=${2:-build}
mapfile -t pkgs < <("$root/scripts/package-recipes.sh" list eval |
  while read -r p; do
    roles=$(awk -F'\t' -v p="$p" '$1 == p { print $3 }' \
      "$root/scripts/packages/list.tsv")
    [[ $roles == *corpus-* ]] || echo "$p"
  done)
[[ ${#pkgs[@]} -gt 0 ]] || { echo "tune-never-seen: no never-seen package" >&2; exit 1; }
start=$(date +%s)
status=0
MLGO_TUNE_PACKAGES="${pkgs[*]}" MLGO_TUNE_COMPILES=$compiles \
  "$root/scripts/eval-packages.sh" "$build" "${pkgs[@]}" || status=1
echo "wall clock: $(( $(date +%s) - start )) s for ${#pkgs[@]} packages," \
  "$compiles compiles each"
exit $status
