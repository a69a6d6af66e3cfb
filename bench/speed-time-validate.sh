#!/usr/bin/env bash
# Which deterministic cost predicts time? (issue #66, "Validating the
# reward" in docs/speed.md; the choice behind `mlgo tune --cost`.) For each
# program of bench/speed-programs.sh (default bzip2,minigzip,lzip), builds
# that differ in one thing, measured on input B (never profiled: 1 MiB of
# /usr/include's headers; the workload compresses it, decompresses the
# result and checksums that, so every build's output is compared; lua runs
# its benchmark script), in pairs:
#
#   O1/O2, O3/O2, Os/O2   optimization levels, no profile
#   pgo/O2                -O2 -fprofile-use (profile of input A)
#   evict/pgo             the whole eviction model (the plugin's embedded
#                         one, LLVM's inliner deciding)
#   tuned/pgo             the whole tune: `mlgo tune --objective speed`
#                         (--max-compiles $TUNE_COMPILES, default 24, no
#                         workload check), its W/objects linked
#   first-K/first-(K-1)   one kept move of that tune: its decisions file
#                         cut to its first K entries (K up to $MOVES,
#                         default 6) against the same file cut to K-1
#                         (first-0 is pgo); the two builds differ only in
#                         entry K's module, rebuilt with the longer file, so
#                         the pair measures that one move with the moves
#                         before it in place, as the search measured it
#
# Each pair is measured three ways:
#
#   * time: `mlgo bench` (one bench per baseline, every build of the pair
#     list in it): the median CPU-time ratio with its 95% interval; for a
#     first-K pair, whose builds are both in pgo's bench, the median of
#     the rounds' first-K/first-(K-1) ratios, its 95% interval from 2,000
#     bootstrap resamples of the rounds (seed 1);
#   * instructions and the cycle estimate: `mlgo speed simulate` of each
#     build (callgrind with its cache and branch simulation; instructions
#     are its Ir), as ratios to the pair's baseline.
#
# Prints one line per pair, then for the pairs whose time moved beyond its
# interval how often each estimate agrees with time in sign, and the
# Spearman rank correlation of each estimate's ratio with time's median
# ratio (over the moved pairs and over all). The report is also written to
# WORK/report.txt, the pairs to WORK/pairs.tsv.
#
#   bench/speed-time-validate.sh MLGO WORK [PROGRAMS]
#
# Environment: MOVES, TUNE_COMPILES, BENCH_MAX_RUNS (default 60),
# BENCH_MAX_SECONDS (default 300, per bench). WORK keeps sources, builds
# and results; a rerun reuses the builds, the tunes and the simulations,
# and benches again unless WORK/PROGRAM/bench-*.json exist (delete them to
# time again). A full run of the seven programs is about 15 pairs each.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/speed-programs.sh
source "$here/speed-programs.sh"
mlgo=$(realpath "$1")
work=$(realpath -m "$2")
programs=${3:-bzip2,minigzip,lzip}
moves=${MOVES:-6}
compiles=${TUNE_COMPILES:-24}
plugin=$(realpath "$(dirname "$mlgo")/../lib/mlgo/mlgo-plugin.so")
mkdir -p "$work"

# build P D NAME FLAG...: every source of P compiled with FLAG... into
# D/o/NAME, linked into D/b/NAME/bin/P, and D/b/NAME/run.sh, the workload.
build() {
  local p=$1 d=$2 name=$3
  shift 3
  if [[ ! -x $d/b/$name/bin/$p ]]; then
    echo "== $p: build $name" >&2
    rm -rf "$d/o/$name" "$d/b/$name"
    speed_compile "$p" "$d/src" "$d/o/$name" "$@"
    link_build "$p" "$d" "$name"
  fi
}

link_build() {
  local p=$1 d=$2 name=$3
  mkdir -p "$d/b/$name/bin"
  # shellcheck disable=SC2046
  $(speed_link "$p") "$d/o/$name"/*.o -o "$d/b/$name/bin/$p"
  if [[ $p == lua ]]; then
    printf '#!/bin/sh\n"%s" "%s" "%s" | cksum\n' "$d/b/$name/bin/$p" \
      "$speed_root/scripts/packages/lua5.4-bench.lua" "$d/inputB" \
      >"$d/b/$name/run.sh"
  else
    printf '#!/bin/sh\n"%s" %s <"%s" | "%s" %s | cksum\n' \
      "$d/b/$name/bin/$p" "${speed_copts[$p]}" "$d/inputB" \
      "$d/b/$name/bin/$p" "${speed_dopts[$p]}" >"$d/b/$name/run.sh"
  fi
  chmod +x "$d/b/$name/run.sh"
}

# bench D BASE NAME...: time the builds against BASE into D/bench-BASE.json.
bench() {
  local d=$1 base=$2 out=$1/bench-$2.json n args=()
  shift 2
  [[ -s $out ]] && return
  for n in "$base" "$@"; do args+=("$d/b/$n/run.sh"); done
  echo "== $(basename "$d"): mlgo bench $base $*" >&2
  "$mlgo" bench "${args[@]}" --ci-width=0.01 --min-runs=10 \
    --max-runs="${BENCH_MAX_RUNS:-60}" --max-seconds="${BENCH_MAX_SECONDS:-300}" \
    --timeout=120 --json --svg="$d/bench-$base.svg" >"$out.tmp"
  mv "$out.tmp" "$out"
}

simulate() {
  local d=$1 name=$2
  [[ -s $d/simulate-$name.json ]] && return
  echo "== $(basename "$d"): mlgo speed simulate $name" >&2
  "$mlgo" speed simulate --json --tree="$d/b/$name/bin" -- "$d/b/$name/run.sh" \
    >"$d/simulate-$name.json.tmp"
  mv "$d/simulate-$name.json.tmp" "$d/simulate-$name.json"
}

for p in ${programs//,/ }; do
  [[ -n ${speed_files[$p]:-} ]] || { echo "unknown program $p" >&2; exit 2; }
  d=$work/$p
  speed_profile "$p" "$d" "$mlgo"
  for o in O1 O2 O3 Os; do build "$p" "$d" "$o" "-$o"; done
  build "$p" "$d" pgo -fprofile-use="$d/p.profdata"
  build "$p" "$d" evict -fprofile-use="$d/p.profdata" -fplugin="$plugin" \
    -fpass-plugin="$plugin" -mllvm -mlgo-use-llvm-advisor -mllvm -mlgo-evict

  # The tune, and its kept moves one by one.
  if [[ ! -s $d/tuned.decisions ]]; then
    echo "== $p: mlgo tune --objective speed --max-compiles $compiles" >&2
    if [[ ! -s $d/corpus/corpus_description.json ]]; then
      rm -rf "$d/objs" "$d/corpus"
      speed_compile "$p" "$d/src" "$d/objs" -Xclang -fembed-bitcode=all
      "$mlgo" corpus extract --objects "$d/objs" --output "$d/corpus" >/dev/null 2>&1
    fi
    "$mlgo" tune --objective speed --profile "$d/p.profdata" --corpus "$d/corpus" \
      --work-dir "$d/tune" -o "$d/tuned.decisions.tmp" --max-compiles "$compiles" --quiet
    mv "$d/tuned.decisions.tmp" "$d/tuned.decisions"
  fi
  if [[ ! -x $d/b/tuned/bin/$p ]]; then
    # The tune's objects (the profiled program's modules, named as the
    # module with .o added) over the stock ones.
    rm -rf "$d/o/tuned" && cp -a "$d/o/pgo" "$d/o/tuned"
    for f in "$d"/tune/objects/*.o; do
      cp "$f" "$d/o/tuned/$(basename "${f%.o}")"
    done
    link_build "$p" "$d" tuned
  fi
  mkdir -p "$d/moves"
  # Per K: K.decisions, the file cut to its first K entries (each under
  # its module line), and K.module, entry K's module.
  python3 - "$d/tuned.decisions" "$d/moves" "$moves" <<'PY'
import sys
path, out, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
header, module, entries = [], None, []
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("module "):
        module = line
        continue
    if module is None:
        if line:
            header.append(line)
        continue
    if not line or line.startswith("end ") or line.startswith("#"):
        continue
    entries.append((module, line))
for k in range(1, min(limit, len(entries)) + 1):
    body, last = [], None
    for m, e in entries[:k]:
        if m != last:
            body += ["", m]
            last = m
        body.append(e)
    with open(f"{out}/{k}.decisions", "w") as f:
        f.write("\n".join(header + body) + f"\n\nend {k}\n")
    with open(f"{out}/{k}.module", "w") as f:
        f.write(entries[k - 1][0].split(" ", 1)[1] + "\n")
PY
  movenames=() pairs=()
  prev=pgo
  for k in $(seq 1 "$moves"); do
    f=$d/moves/$k.decisions
    [[ -e $f ]] || break
    name=first-$k
    movenames+=("$name")
    if [[ ! -x $d/b/$name/bin/$p ]]; then
      # The module's key is its source's path.
      key=$(cat "$d/moves/$k.module") src=
      for f2 in ${speed_files[$p]}; do [[ $f2 == "$key" ]] && src=$f2; done
      [[ -n $src ]] || { echo "$p: no source of module $key" >&2; exit 1; }
      obj=${src%.*}
      echo "== $p: build $name ($src: $(tail -3 "$f" | head -1))" >&2
      rm -rf "$d/o/$name" && cp -a "$d/o/$prev" "$d/o/$name"
      # shellcheck disable=SC2086
      (cd "$d/src" && ${speed_cc[$p]:-clang-19} -c -O2 -w ${speed_defs[$p]} \
        -fprofile-use="$d/p.profdata" -fplugin="$plugin" -fpass-plugin="$plugin" \
        -mllvm -mlgo-decisions="$f" "$src" -o "$d/o/$name/${obj//\//_}.o")
      if cmp -s "$d/o/$name/${obj//\//_}.o" "$d/o/$prev/${obj//\//_}.o"; then
        echo "   $name: the same object as $prev's" >&2
      fi
      link_build "$p" "$d" "$name"
    fi
    pairs+=("$prev $name")
    prev=$name
  done

  printf '%s\n' "O2 O1" "O2 O3" "O2 Os" "O2 pgo" "pgo evict" "pgo tuned" \
    "${pairs[@]}" >"$d/pairs"
  for n in O1 O2 O3 Os pgo evict tuned "${movenames[@]}"; do simulate "$d" "$n"; done
  bench "$d" O2 O1 O3 Os pgo
  bench "$d" pgo evict tuned "${movenames[@]}"
done

python3 - "$work" "$programs" <<'PY' | tee "$work/report.txt"
import json, random, sys
work, programs = sys.argv[1], sys.argv[2].split(",")
sign = lambda x: (x > 1) - (x < 1)

def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r

def spearman(a, b):
    if len(a) < 3:
        return float("nan")
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")

def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2

def paired(b, base, other):
    """The median of the rounds' other/base ratios of one bench, with a
    95% interval from 2,000 bootstrap resamples of the rounds (seed 1),
    judged as mlgo bench judges its own ratios."""
    key = "cycles" if "cycles" in base else "cpu_seconds"
    ratios = [o / x for o, x in zip(other[key], base[key])]
    rng = random.Random(1)
    boot = sorted(median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    low, high = boot[int(0.025 * 2000)], boot[int(0.975 * 2000) - 1]
    verdict = ("slower" if low > 1 else "faster" if high < 1
               else "no measurable difference")
    return {"median": median(ratios), "low": low, "high": high, "verdict": verdict}

rows = []
print(f"{'program':9} {'pair':14} {'time ratio [95%]':26} {'verdict':9} "
      f"{'instr':>7} {'cycles':>7}  agree(instr, cycles)  rounds")
tsv = open(f"{work}/pairs.tsv", "w")
tsv.write("program\tpair\ttime\tlow\thigh\tverdict\tinstructions\tcycles\trounds\n")
for p in programs:
    d = f"{work}/{p}"
    sim = {}
    benches = {}
    for line in open(f"{d}/pairs"):
        base, other = line.split()
        # A first-K pair is timed inside pgo's bench.
        bench = "O2" if base == "O2" else "pgo"
        if bench not in benches:
            benches[bench] = json.load(open(f"{d}/bench-{bench}.json"))
        b = benches[bench]
        build = lambda n: next(x for x in b["builds"] if x["name"].endswith(f"/b/{n}/run.sh"))
        r = build(other)["ratio"] if base == bench else paired(b, build(base), build(other))
        for n in (base, other):
            if n not in sim:
                sim[n] = json.load(open(f"{d}/simulate-{n}.json"))
        ins = sim[other]["instructions"] / sim[base]["instructions"]
        cyc = sim[other]["cycles"] / sim[base]["cycles"]
        moved = r["verdict"] != "no measurable difference"
        t = sign(r["median"]) if moved else 0
        a = (sign(ins) == t, sign(cyc) == t) if moved else ("-", "-")
        rows.append((p, other, r, ins, cyc, moved, a))
        print(f"{p:9} {other + '/' + base:14} {r['median']:.4f} "
              f"[{r['low']:.4f}, {r['high']:.4f}] {r['verdict'][:9]:9} "
              f"{ins:7.4f} {cyc:7.4f}  {str(a[0]):5} {str(a[1]):5}  {b['rounds']}")
        tsv.write(f"{p}\t{other}/{base}\t{r['median']}\t{r['low']}\t{r['high']}\t"
                  f"{r['verdict']}\t{ins}\t{cyc}\t{b['rounds']}\n")
moved = [x for x in rows if x[5]]
n = len(moved)
ai = sum(1 for x in moved if x[6][0] is True)
ac = sum(1 for x in moved if x[6][1] is True)
pct = lambda k: f"{100 * k / n:.0f}%" if n else "-"
print(f"pairs: {len(rows)}; whose time moved beyond its interval: {n}")
print(f"sign agreement with time: instructions {ai}/{n} ({pct(ai)}), "
      f"cycle estimate {ac}/{n} ({pct(ac)})")
for label, sel in (("moved pairs", moved), ("all pairs", rows)):
    t = [x[2]["median"] for x in sel]
    print(f"Spearman with time's median ratio, {label}: instructions "
          f"{spearman([x[3] for x in sel], t):.3f}, cycle estimate "
          f"{spearman([x[4] for x in sel], t):.3f}")
PY
