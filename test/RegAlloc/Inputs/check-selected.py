"""Checks that `mlgo regalloc train --select validation` kept the model with
the lowest validation objective: the report's trained validation ratio is
the least of the start's and of every generation center's (curve.csv).

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
print("%d generations; kept generation %d, the lowest validation objective"
      % (len(rows), kept))
