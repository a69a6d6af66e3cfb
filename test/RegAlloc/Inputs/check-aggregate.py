"""Checks `mlgo regalloc train --aggregate` against its definition,
recomputed from the score cache: for every candidate scored on the
training modules, the ratio model / LLVM default of each package (its
modules' scores summed), aggregated as the option says. The best objective
of curve.csv's last generation must be the least of these, and the
report's start objective the start model's. It prints whether the mean
of the same ratios would have given another best objective, so that a
test can insist on a corpus where the aggregate matters.

  check-aggregate.py WORK-DIR SCORES-FILE mean|max|softmax [T]

(no validation packages: every module scored is a training module; the
start is the first model in the file after LLVM's default).
"""
import collections
import csv
import math
import re
import sys

work, scores, kind = sys.argv[1:4]
temperature = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01


def aggregate(ratios, kind):
    if kind == "mean":
        return sum(ratios) / len(ratios)
    top = max(ratios)
    if kind == "max":
        return top
    return top + temperature * math.log(
        sum(math.exp((r - top) / temperature) for r in ratios) / len(ratios))


by_candidate = collections.defaultdict(dict)
order = []
for line in open(scores):
    candidate, module, score = line.rstrip("\n").split("\t")[:3]
    if candidate not in by_candidate:
        order.append(candidate)
    by_candidate[candidate][module] = float(score)
default = by_candidate.pop("llvm-default")
objective = {}
for kind_ in (kind, "mean"):
    for candidate, modules in by_candidate.items():
        sums = collections.defaultdict(lambda: [0.0, 0.0])
        for module, score in modules.items():
            package = sums[module.split("/")[0]]
            package[0] += score
            package[1] += default[module]
        ratios = [m / d for m, d in sums.values() if d > 0]
        objective[kind_, candidate] = aggregate(ratios, kind_)

rows = list(csv.DictReader(open(work + "/curve.csv")))
best = min(v for (k, _), v in objective.items() if k == kind)
reported = float(rows[-1]["best_objective"])
if abs(best - reported) > 1e-6:
    sys.exit("best objective %.6f in curve.csv; the %s over packages gives "
             "%.6f" % (reported, kind, best))
report = open(work + "/report.md").read()
start = float(re.search(r"- training modules: \d+; objective \([^)]*\): "
                        r"start ([0-9.]+)", report).group(1))
start_id = [c for c in order if c != "llvm-default"][0]
if abs(start - objective[kind, start_id]) > 1e-5:
    sys.exit("start objective %.5f in the report; the %s over packages "
             "gives %.5f" % (start, kind, objective[kind, start_id]))
mean_best = min(v for (k, _), v in objective.items() if k == "mean")
print("%d candidates; best %s objective %.6f as reported; the mean would "
      "give %s" % (len(by_candidate), kind, best,
                   "the same" if abs(mean_best - best) <= 1e-6
                   else "another"))
