#!/usr/bin/env bash
# Do the deterministic costs predict time? For each program of
# bench/speed-programs.sh (default bzip2,minigzip,lzip), three builds that
# differ in optimization level only (-O1, -O2, -O3; no profile), each
# compressing input B (the measurement input, 1 MiB of /usr/include's
# headers):
#
#   * time: `mlgo bench O2 O1 O3` (the -O2 build the baseline): the median
#     CPU-time ratio of O1 and O3 to O2 with its 95% interval;
#   * the two estimates: `mlgo speed simulate` of each build, executed
#     instructions and the cycle estimate of callgrind's cache and branch
#     simulation (docs/speed.md), as ratios to O2.
#
# Prints one line per pair and, for the pairs whose time moved beyond its
# interval, how often each estimate agrees with time in sign.
#
#   bench/speed-time-validate.sh MLGO WORK [PROGRAMS]
#
# WORK keeps sources, builds and results; a rerun reuses the builds.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/speed-programs.sh
source "$here/speed-programs.sh"
mlgo=$(realpath "$1")
work=$(realpath -m "$2")
programs=${3:-bzip2,minigzip,lzip}
mkdir -p "$work"

for p in ${programs//,/ }; do
  d=$work/$p
  mkdir -p "$d"
  if [[ ! -d $d/src ]]; then
    src=$("$speed_root/scripts/fetch-source.sh" "${speed_pkg[$p]}")
    cp -a "$src" "$d/src"
    speed_prepare "$p" "$d/src"
  fi
  speed_inputs "$p" "$d/src" "$d"
  for o in O1 O2 O3; do
    if [[ ! -x $d/$o/$p ]]; then
      rm -rf "$d/$o-objs"
      speed_compile "$p" "$d/src" "$d/$o-objs" "-$o"
      mkdir -p "$d/$o"
      # shellcheck disable=SC2046
      $(speed_link "$p") "$d/$o-objs"/*.o -o "$d/$o/$p"
    fi
  done
  args=()
  for a in ${speed_copts[$p]}; do args+=("--arg=$a"); done
  echo "== $p: mlgo bench" >&2
  "$mlgo" bench "$d/O2/$p" "$d/O1/$p" "$d/O3/$p" "${args[@]}" \
    --stdin="$d/inputB" --ci-width=0.01 --min-runs=10 --max-runs=80 \
    --max-seconds=150 --json --svg="$d/ratios.svg" >"$d/bench.json"
  for o in O1 O2 O3; do
    if [[ ! -s $d/simulate-$o.json ]]; then
      echo "== $p: mlgo speed simulate -$o" >&2
      "$mlgo" speed simulate --json --tree="$d/$o" -- sh -c \
        "\"$d/$o/$p\" ${speed_copts[$p]} <\"$d/inputB\" >/dev/null" \
        >"$d/simulate-$o.json.tmp"
      mv "$d/simulate-$o.json.tmp" "$d/simulate-$o.json"
    fi
  done
done

python3 - "$work" "$programs" <<'PY'
import json, sys
work, programs = sys.argv[1], sys.argv[2].split(",")
sign = lambda x: (x > 0) - (x < 0)
agree = {"instructions": 0, "cycles": 0}
moved = 0
print(f"{'program':9} {'pair':8} {'time (CPU) ratio [95%]':32} "
      f"{'instructions':>12} {'cycles':>8}  agree(instr, cycles)")
for p in programs:
    b = json.load(open(f"{work}/{p}/bench.json"))
    sim = {o: json.load(open(f"{work}/{p}/simulate-{o}.json"))
           for o in ("O1", "O2", "O3")}
    for i, o in ((1, "O1"), (2, "O3")):
        r = b["builds"][i]["ratio"]
        ins = sim[o]["instructions"] / sim["O2"]["instructions"]
        cyc = sim[o]["cycles"] / sim["O2"]["cycles"]
        t = sign(r["median"] - 1) if r["verdict"] != "no measurable difference" else 0
        a = (sign(ins - 1) == t, sign(cyc - 1) == t) if t else ("-", "-")
        if t:
            moved += 1
            agree["instructions"] += a[0]
            agree["cycles"] += a[1]
        print(f"{p:9} {o + '/O2':8} {r['median']:.4f} [{r['low']:.4f}, {r['high']:.4f}] "
              f"{r['verdict'][:9]:9} {ins:12.4f} {cyc:8.4f}  {a[0]}, {a[1]}  "
              f"({b['rounds']} rounds)")
print(f"pairs whose time moved beyond its interval: {moved}; sign agreement: "
      f"instructions {agree['instructions']}/{moved}, cycle estimate "
      f"{agree['cycles']}/{moved}")
PY
