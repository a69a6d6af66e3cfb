#!/usr/bin/env python3
"""Where a tune run's compiles went, and what an oracle order would need.

    bench/tune-oracle.py W [W2...]

W is an `mlgo tune` work directory (docs/tune.md, "Work directory"): its
tries log `tries-guided.tsv` and `curve-guided.csv` are read (the
`-unguided` ones when it has no guided log), and, when
its trajectories logged IR2Native's size scores (`--logged-filter`),
`sites.tsv` with `compiles.tsv` give each try's logged gain. Prints:

- LLVM's heuristic's tries, and how many left the module's size as the
  model's;
- the kept tries: step, module, the try's rank in its module's plan (1 is
  the first move judged since the module was last planned, i.e. since
  the baseline or its last kept move), its linked bytes;
- the tries spent in modules that never kept a move, and those that
  undo a move the same module kept the step before (the same callee's
  group move, or the same site, the other way);
- the compiles two oracles would need for the run's final gain, taking
  the kept moves' measured bytes as they are (exact only when the kept
  moves do not interact, which a different order cannot promise):
  * global: only the kept tries are compiled, each with its new
    trajectory: baselines + 2 x kept;
  * lockstep: the search's lockstep as it is (docs/tune.md, "Lockstep":
    each module with moves left tries one move per step), every module's
    plan in the perfect order (its kept moves first, the largest first):
    per step, the compiles of that step's tries in the run (the modules
    that still had moves; the step's compiles less its kept moves'
    trajectory compiles; with --predict, its predictions' charge too) plus
    one trajectory compile per kept move, until every module's kept moves
    are in;
- with scores of the declined sites too (`--logged-declined`), how often
  the logged gain of the tries of moves that inline agrees in sign with
  their measured change;
- with logged scores, the tries by the sign of their logged gain, how
  many of each were kept, and what a filter that tried only those with a
  positive gain would have compiled for what, the tries coming in the
  same order (an estimate: it leaves out the kept tries without one, and
  a search with fewer tries would reach other moves within its budget).

Only the standard library; the same inputs print the same text.
"""
import collections
import csv
import hashlib
import os
import sys


def order_of(w):
    """The order whose tries log W holds: guided, else unguided."""
    return "guided" if os.path.exists(f"{w}/tries-guided.tsv") else "unguided"


def read_tries(w):
    with open(f"{w}/tries-{order_of(w)}.tsv") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for r in rows:
        for k in ("step", "compiles", "changed", "callee_sites", "position",
                  "unit_text", "delta", "ok", "kept"):
            r[k] = int(r[k])
    return rows


def read_curve(w):
    with open(f"{w}/curve-{order_of(w)}.csv") as f:
        rows = list(csv.reader(f))[1:]
    return [(int(r[0]), int(r[1])) for r in rows if r]


def read_states(w):
    """Per trajectory compile: (the unit's .text, the callers, the sites)."""
    text = {}
    try:
        with open(f"{w}/compiles.tsv") as f:
            for line in f:
                p = line.split("\t")
                if len(p) > 1 and p[1].lstrip("-").isdigit():
                    text[p[0]] = int(p[1])
                    # Sites scored with the declined ones are cached under
                    # a key of their own (CompileService::setSizeScore).
                    d = hashlib.md5((p[0] + "declined").encode()).hexdigest()
                    text[d] = int(p[1])
        f = open(f"{w}/sites.tsv")
    except OSError:
        return []
    states = []
    with f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            sites = []
            for s in p[2:]:
                q = s.split(" ")
                if len(q) < 6:
                    continue  # the checksum field, or a site without score
                sites.append((q[0], q[1], int(q[2]), int(q[3]) & 1,
                              float.fromhex(q[5])))
            if sites:
                states.append((text.get(p[0]), {s[0] for s in sites}, sites))
    return states


def logged_gain(sites, move):
    """getLoggedGain() of include/mlgo/Tune/TuneSearch.h, from sites.tsv."""
    p = move.split(" ")
    if p[0] != "group" and p[0] != "site":
        return None
    inline = 1 if p[-1] == "inline" else 0
    if p[0] == "group":
        scores = [s[4] for s in sites if s[1] == p[1] and s[3] != inline]
    else:
        scores = [s[4] for s in sites
                  if (s[0], s[1], s[2]) == (p[1], p[2], int(p[3]))
                  and s[3] != inline]
    if not scores or all(x == 0 for x in scores):
        return None
    return sum(scores) if inline else -sum(scores)


def try_gain(states, r):
    """The try's logged gain in the state it was tried in: a trajectory of
    the unit's .text before the move whose callers include the move's."""
    p = r["move"].split(" ")
    if p[0] not in ("site", "group"):
        return None
    cands = [s for s in states if s[0] == r["unit_text"] and
             (p[0] != "site" or p[1] in s[1])]
    gains = {logged_gain(s[2], r["move"]) for s in cands}
    if p[-1] == "inline":
        # Declined sites log 0 unless scored: nothing logged is none.
        gains.discard(None)
        if not gains:
            return None
    if len(gains) != 1:
        return "unknown"
    return gains.pop()


def inverse(a, b):
    """Whether move b undoes move a (same site or callee, other way)."""
    pa, pb = a.split(" "), b.split(" ")
    return pa[:-1] == pb[:-1] and pa[-1] != pb[-1]


def report(w):
    tries = read_tries(w)
    curve = read_curve(w)
    heur = [r for r in tries if r["move"] == "heuristic"]
    search = [r for r in tries if r["move"] != "heuristic"]
    base = search[0]["compiles"] if search else curve[-1][0]
    final = curve[0][1] - curve[-1][1]
    print(f"{w}: {curve[-1][0]} compiles, {final} bytes saved against the "
          f"model; {base} before the first step with a move, "
          f"{len(search)} tries of moves")
    print(f"LLVM's heuristic: {len(heur)} tries, "
          f"{sum(r['kept'] for r in heur)} kept, "
          f"{sum(r['delta'] == 0 for r in heur)} the model's size to the byte")
    rank = collections.Counter()
    last_kept = {}
    kept = []
    per_step = collections.Counter()
    undo = 0
    for r in search:
        m = r["module"]
        rank[m] += 1
        per_step[r["step"]] += 1
        lk = last_kept.get(m)
        if lk and lk[0] == r["step"] - 1 and inverse(lk[1], r["move"]):
            undo += 1
        if r["kept"]:
            kept.append((r["step"], m, rank[m], -r["delta"], r["move"]))
            last_kept[m] = (r["step"], r["move"])
            rank[m] = 0
    print("kept tries (step, module, rank in its plan, bytes, move):")
    for k in kept:
        print(f"  {k[0]}\t{k[1]}\t{k[2]}\t{k[3]}\t{k[4]}")
    keeping = {k[1] for k in kept}
    idle = sum(1 for r in search if r["module"] not in keeping)
    print(f"tries in modules that kept nothing: {idle} of {len(search)}; "
          f"tries undoing the module's move kept the step before: {undo}")
    print(f"oracle, global: {base} + 2 x {len(kept)} kept = "
          f"{base + 2 * len(kept)} compiles for {sum(k[3] for k in kept)} bytes")
    # Lockstep with each module's kept moves first, largest first.
    by_mod = collections.defaultdict(list)
    for k in kept:
        by_mod[k[1]].append(k[3])
    for v in by_mod.values():
        v.sort(reverse=True)
    # A step's compiles of tries in the run: its compiles less the kept
    # moves' trajectory compiles (tries set aside in a step are compiled
    # but not in the log).
    starts = {}
    for r in search:
        starts.setdefault(r["step"], r["compiles"])
    order = sorted(starts)
    for i, s in enumerate(order):
        end = starts[order[i + 1]] if i + 1 < len(order) else curve[-1][0]
        kept_s = sum(1 for k in kept if k[0] == s)
        per_step[s] = max(per_step[s], end - starts[s] - kept_s)
    steps = max((len(v) for v in by_mod.values()), default=0)
    spent, saved, reach = base, 0, None
    points = []
    for s in range(1, steps + 1):
        keeps = [v[s - 1] for v in by_mod.values() if len(v) >= s]
        active = max(per_step.get(s, 0), len(keeps))
        spent += active + len(keeps)
        saved += sum(keeps)
        points.append(f"{spent} {saved}")
        if reach is None and saved >= final:
            reach = spent
    print(f"oracle, lockstep (compiles, bytes after each step): "
          f"{', '.join(points)}; the final gain at {reach}")
    states = read_states(w)
    if not states:
        return
    table = collections.defaultdict(lambda: [0, 0, 0])
    for r in search:
        g = try_gain(states, r)
        sign = ("unknown" if g == "unknown" else "none" if g is None
                else "positive" if g > 0 else "negative" if g < 0 else "zero")
        table[sign][0] += 1
        table[sign][1] += r["kept"]
        table[sign][2] += -r["delta"] if r["kept"] else 0
    print("logged gain of the tries (sign: tries, kept, bytes kept):")
    for sign in ("positive", "zero", "negative", "none", "unknown"):
        if sign in table:
            t = table[sign]
            print(f"  {sign}\t{t[0]}\t{t[1]}\t{t[2]}")
    # The logged gain's sign against the measured change, by direction.
    # The sign of the logged gain of moves that inline (declined sites
    # scored: `--logged-declined`) against the measured change.
    judged = [(try_gain(states, r), r["delta"]) for r in search
              if r["move"].endswith(" inline") and r["ok"]]
    judged = [(g, d) for g, d in judged
              if g not in (None, "unknown") and d != 0]
    if judged:
        agree = sum((g > 0) == (d < 0) for g, d in judged)
        pos = [(g, d) for g, d in judged if g > 0]
        print(f"moves that inline, tries that change the size: the logged "
              f"gain's sign agrees on {agree} of {len(judged)}; "
              f"{len(pos)} with a positive gain, "
              f"{sum(d < 0 for g, d in pos)} of them shrink")
    t = table["positive"]
    print(f"filter, only the tries with a positive logged gain, in the same "
          f"order: {base} + {t[0]} tries + {t[1]} trajectories = "
          f"{base + t[0] + t[1]} compiles for {t[2]} bytes")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    for w in sys.argv[1:]:
        report(w)


if __name__ == "__main__":
    main()
