"""Checks that `mlgo regalloc train --select validation` kept the model with
the lowest validation objective: the report's trained validation ratio is
the least of the start's and of every generation center's (curve.csv),
and its training ratio that of the same model (the start's or the kept
center's), not the best training candidate's.

  check-selected.py WORK-DIR
"""
import csv
import re
import sys

work = sys.argv[1]
report = open(work + "/report.md").read()
start, trained = (float(x) for x in re.search(
    r"- validation modules: \d+; start ([0-9.]+), trained ([0-9.]+)",
    report).groups())
kept = int(re.search(r"- kept: the lowest validation objective, "
                     r"generation (\d+)", report).group(1))
rows = list(csv.DictReader(open(work + "/curve.csv")))
values = [start] + [float(r["validation_objective"]) for r in rows]
best = min(range(len(values)), key=lambda g: (values[g], g))
if kept != best or abs(trained - values[best]) > 1e-5:
    sys.exit("kept generation %d (validation %.5f), the lowest is generation "
             "%d (%.5f)" % (kept, trained, best, values[best]))
train_start, train_kept = (float(x) for x in re.search(
    r"- training modules: \d+; objective \([^)]*\): start ([0-9.]+), "
    r"trained ([0-9.]+)", report).groups())
centers = [train_start] + [float(r["center_objective"]) for r in rows]
if abs(train_kept - centers[kept]) > 1e-5:
    sys.exit("the training objective reported for the kept model is %.5f; "
             "generation %d's is %.5f" % (train_kept, kept, centers[kept]))
print("%d generations; kept generation %d, the lowest validation objective"
      % (len(rows), kept))
