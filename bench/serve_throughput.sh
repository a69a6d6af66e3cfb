#!/usr/bin/env bash
# Decisions per second of `mlgo serve --policy always` against a minimal
# pure-Python host (bench/python_host.py), both serving the same stock
# opt-19 run of -passes='default<Oz>' on all of zlib linked into one module.
# Reports end-to-end throughput (compiler included) and host-side throughput
# (time in the host, excluding waits for the compiler), best of N runs.
#
#   bench/serve_throughput.sh [BUILD_DIR] [RUNS] [POLICY]
#                                   (defaults: build, 5, always; POLICY is
#                                   always or never: with always the inliner
#                                   stops asking once the module has grown
#                                   past -ml-advisor-size-increase-threshold,
#                                   so never yields more decisions)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
runs=${2:-5}
policy=${3:-always}
case "$policy" in
  always) advice=1 ;;
  never) advice=0 ;;
  *) echo "serve_throughput: POLICY must be always or never" >&2; exit 1 ;;
esac
mlgo="$root/$build/bin/mlgo"
[[ -x "$mlgo" ]] || { echo "serve_throughput: $mlgo not built" >&2; exit 1; }

zdir=$(ls -d "$root"/build/src/zlib-*/ 2>/dev/null | head -1 || true)
if [[ -z "$zdir" ]]; then
  echo "serve_throughput: no zlib sources in build/src; run scripts/demo-serve.sh once" >&2
  exit 1
fi
work="$root/$build/bench-serve"
mkdir -p "$work"
bcs=()
for c in "$zdir"/*.c; do
  bc="$work/$(basename "$c" .c).bc"
  clang-19 -Oz -w -DHAVE_UNISTD_H -I"$zdir" -Xclang -disable-llvm-passes \
    -emit-llvm -c "$c" -o "$bc"
  bcs+=("$bc")
done
llvm-link-19 "${bcs[@]}" -o "$work/zlib.bc"
opt_cmd=(opt-19 "-passes=default<Oz>" -enable-ml-inliner=release
         "-inliner-interactive-channel-base={channel}" "$work/zlib.bc"
         -o "$work/zlib.out.bc")

best() { sort -g | head -1; }
m_el=() m_host=() p_el=() p_host=()
decisions=0
for ((i = 0; i < runs; ++i)); do
  line=$("$mlgo" serve --policy "$policy" -- "${opt_cmd[@]}" 2>&1 >/dev/null | tail -1)
  # mlgo serve: N decisions, C context(s), E s elapsed (host H s)
  decisions=$(sed -n 's/^mlgo serve: \([0-9]*\) decision.*/\1/p' <<<"$line")
  m_el+=("$(sed -n 's/.*, \([0-9.]*\)s elapsed.*/\1/p' <<<"$line")")
  m_host+=("$(sed -n 's/.*(host \([0-9.]*\)s).*/\1/p' <<<"$line")")
  line=$(python3 "$root/bench/python_host.py" --advice "$advice" -- "${opt_cmd[@]}" 2>&1 >/dev/null | tail -1)
  pd=$(sed -n 's/^decisions=\([0-9]*\).*/\1/p' <<<"$line")
  [[ "$pd" == "$decisions" ]] || { echo "serve_throughput: hosts disagree ($decisions vs $pd decisions)" >&2; exit 1; }
  p_el+=("$(sed -n 's/.*elapsed=\([0-9.]*\).*/\1/p' <<<"$line")")
  p_host+=("$(sed -n 's/.*host=\([0-9.]*\).*/\1/p' <<<"$line")")
done
me=$(printf '%s\n' "${m_el[@]}" | best) mh=$(printf '%s\n' "${m_host[@]}" | best)
pe=$(printf '%s\n' "${p_el[@]}" | best) ph=$(printf '%s\n' "${p_host[@]}" | best)
python3 - "$decisions" "$me" "$mh" "$pe" "$ph" "$runs" "$policy" <<'PY'
import sys
d, me, mh, pe, ph, runs, policy = int(sys.argv[1]), *map(float, sys.argv[2:6]), *sys.argv[6:8]
print(f"input: zlib (all .c linked), opt-19 -passes='default<Oz>', policy {policy}, {d} decisions, best of {runs} runs")
print(f"{'host':<14}{'elapsed s':>11}{'decisions/s':>14}{'host s':>10}{'host-side decisions/s':>24}")
for name, e, h in (("mlgo serve", me, mh), ("python host", pe, ph)):
    print(f"{name:<14}{e:>11.3f}{d / e:>14.0f}{h:>10.4f}{d / max(h, 1e-9):>24.0f}")
print(f"end-to-end throughput ratio (mlgo/python): {pe / me:.2f}x")
print(f"host-side throughput ratio (mlgo/python): {ph / max(mh, 1e-9):.1f}x")
PY
