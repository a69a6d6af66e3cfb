#!/usr/bin/env bash
# The predictor's tuning benchmark (issue #52, docs/tune.md "Predicted
# gains"): `mlgo tune --per-package` on some packages, once with
# `--predict off` and once with `--predict skip` (and `rank` with
# --rank), the same budget and seed, each in a work directory of its own.
# Prints each search's final gain against the model, its compiles,
# predictions and wall clock, the compiles the skip search needed to reach
# the off search's final gain (as a fraction of off's compiles to reach
# it), and plots both curves (bytes saved by compiles) in WORK/predict.svg.
# Predictions count in the budget and on the curves at `mlgo tune
# --prediction-cost` (0.5 of a compile each): "compiles" below is the
# budget spent, compiles plus predictions at that cost.
#
#   bench/tune-predict.sh CORPUS WORK MAX_COMPILES [--rank] [--slices] PACKAGE...
#
# --slices adds skip-components and skip-moves (and rank-components and
# rank-moves with --rank): the same modes with `--predict-slices
# components|moves`, a move predicted on a slice (docs/tune.md).
# Modes for the logged filter (`--logged-filter`, docs/tune.md), none
# run by default: `logged` skips the moves the trajectory's logged size
# scores predict to grow their module, `logged_rank` tries them last,
# `logged_promote` skips them and tries the moves the scores predict to
# shrink it first, `logged_only` tries only those (and LLVM's heuristic),
# `logged+skip` is `logged` followed by `--predict skip` (and
# `logged_only+skip` is `logged_only` followed by it); `logged_declined`
# and `logged_only_declined` are `logged` and `logged_only` with
# `--logged-declined` (moves that inline judged too); `logged_predict` is
# `--logged-filter predict --logged-declined --predict skip` (the moves
# that inline and do not log a gain predicted, charged; the rest as
# `logged_only_declined`), `logged_predict-components` and
# `logged_predict-moves` the same on slices, and `logged_predictN...` with
# `--logged-predict-inline N`.
# With `env ORDER=unguided` every search runs in trajectory order
# (`--unguided`) instead of the ranker's. With `env MODES="off skip-moves"`
# (off first), those modes only; with
# `env PLOT_ONLY=1`, no search: the summary and the plot of the modes'
# earlier runs in WORK.
#
# With no PACKAGE, the inliner's validation packages
# (models/inline-oz/recipe.json). CORPUS must hold them (scripts/corpus-
# debian.sh). Rerunning resumes from WORK (the wall clock is then not the
# search's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "$1" && pwd)
work=$2
max=$3
shift 3
modes=(off skip)
rank=0
if [[ ${1:-} == --rank ]]; then
  modes+=(rank)
  rank=1
  shift
fi
if [[ ${1:-} == --slices ]]; then
  modes+=(skip-components skip-moves)
  [[ $rank == 1 ]] && modes+=(rank-components rank-moves)
  shift
fi
if [[ -n ${MODES:-} ]]; then
  read -r -a modes <<<"$MODES"
fi
pkgs=("$@")
if [[ ${#pkgs[@]} == 0 ]]; then
  mapfile -t pkgs < <(python3 -c '
import json, sys
print("\n".join(json.load(open(sys.argv[1]))["validation_packages"]))' \
    "$root/models/inline-oz/recipe.json")
fi
mlgo=${MLGO:-$root/build/bin/mlgo}
order=${ORDER:-guided}
order_flags=()
case $order in
guided) ;;
unguided) order_flags=(--unguided) ;;
*) echo "tune-predict: ORDER must be guided or unguided, not '$order'" >&2; exit 1 ;;
esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
"$root/scripts/corpus-subset.sh" "$corpus" "$work/corpus" "${pkgs[@]}"
echo "packages: ${pkgs[*]}; budget $max compiles per search"
for m in "${modes[@]}"; do
  [[ -n ${PLOT_ONLY:-} ]] && break
  start=$(date +%s)
  case $m in
  logged) flags=(--logged-filter skip) ;;
  logged_rank) flags=(--logged-filter rank) ;;
  logged_promote) flags=(--logged-filter promote) ;;
  logged_only) flags=(--logged-filter only) ;;
  logged_only_declined) flags=(--logged-filter only --logged-declined) ;;
  logged_declined) flags=(--logged-filter skip --logged-declined) ;;
  logged_only+*) flags=(--logged-filter only --predict "${m#logged_only+}") ;;
  logged_predict*)
    flags=(--logged-filter predict --logged-declined --predict skip)
    n=${m#logged_predict}
    n=${n%%-*}
    [[ -n $n ]] && flags+=(--logged-predict-inline "$n")
    [[ $m == *-* ]] && flags+=(--predict-slices "${m#*-}")
    ;;
  logged+*) flags=(--logged-filter skip --predict "${m#logged+}") ;;
  *)
    flags=(--predict "${m%%-*}")
    [[ $m == *-* ]] && flags+=(--predict-slices "${m#*-}")
    ;;
  esac
  "$mlgo" tune --quiet --per-package --max-compiles "$max" "${flags[@]}" \
    ${order_flags[@]+"${order_flags[@]}"} \
    --corpus "$work/corpus" --work-dir "$work/$m" -o "$work/decisions-$m" \
    -j 2
  echo "$m: wall clock $(( $(date +%s) - start )) s"
  grep -h '^- Search\|^- Predictions\|^- Of those\|^| total' \
    "$work/$m/report.md" || true
done
python3 - "$work" "$order" "${modes[@]}" <<'PY'
import csv, sys
work, order, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
curves = {}
for m in modes:
    rows = list(csv.reader(open(f"{work}/{m}/curve-{order}.csv")))[1:]
    base = int(rows[0][1])
    curves[m] = [(int(c), base - int(b)) for c, b, *_ in rows]
    c, g = curves[m][-1]
    print(f"{m}: {g} bytes saved against the model in {c} compiles")
final = curves["off"][-1][1]
off_at = next(c for c, g in curves["off"] if g >= final)
for m in modes[1:]:
    at = next((c for c, g in curves[m] if g >= final), None)
    if at is None:
        print(f"{m}: never reaches off's final gain ({final} bytes)")
    else:
        print(f"{m}: reaches off's final gain ({final} bytes) after {at} "
              f"compiles, off after {off_at}: {100 * at / max(off_at, 1):.1f}%")
W, H, L, B, T, R = 640, 360, 70, 40, 30, 20
mx = max(max(c for c, _ in v) for v in curves.values()) or 1
my = max(max(g for _, g in v) for v in curves.values()) or 1
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
       'font-family="sans-serif" font-size="12">',
       f'<text x="{L}" y="18">mlgo tune --predict: bytes saved against the '
       'model, by compiles</text>',
       f'<line x1="{L}" y1="{H-B}" x2="{W-R}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H-B}" stroke="black"/>',
       f'<text x="{L-4}" y="{T+4}" text-anchor="end">{my}</text>',
       f'<text x="{L-4}" y="{H-B+4}" text-anchor="end">0</text>',
       f'<text x="{W-R}" y="{H-B+18}" text-anchor="end">{mx} compiles</text>']
def label(m):
    if m == "logged":
        return "--logged-filter skip"
    if m == "logged_rank":
        return "--logged-filter rank"
    if m == "logged_promote":
        return "--logged-filter promote"
    if m == "logged_only":
        return "--logged-filter only"
    if m == "logged_only_declined":
        return "--logged-filter only --logged-declined"
    if m == "logged_declined":
        return "--logged-filter skip --logged-declined"
    if m.startswith("logged_predict"):
        n = m[len("logged_predict"):].split("-")[0]
        return ("--logged-filter predict --logged-declined --predict skip" +
                (f" --logged-predict-inline {n}" if n else "") +
                (" --predict-slices " + m.split("-", 1)[1] if "-" in m else ""))
    if m.startswith("logged+"):
        return "--logged-filter skip --predict " + m[len("logged+"):]
    if m.startswith("logged_only+"):
        return "--logged-filter only --predict " + m[len("logged_only+"):]
    return "--predict " + m.replace("-", " --predict-slices ")
colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
for k, m in enumerate(modes):
    pts = " ".join(f"{L + (W-L-R) * c / mx:.1f},{(H-B) - (H-B-T) * g / my:.1f}"
                   for c, g in curves[m])
    out.append(f'<polyline fill="none" stroke="{colors[k]}" stroke-width="2" '
               f'points="{pts}"/>')
    out.append(f'<text x="{L+10}" y="{T+16+14*k}" fill="{colors[k]}">'
               f'{label(m)}</text>')
out.append("</svg>")
open(f"{work}/predict.svg", "w").write("\n".join(out) + "\n")
print(f"curve: {work}/predict.svg")
PY
