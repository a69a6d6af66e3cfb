"""Compares `mlgo speed cost --json` estimates of executed instructions with
callgrind's count (Ir, the function's own instructions) for the functions
named, and fails unless each is within the relative tolerance given.

  check-callgrind.py COST.json CALLGRIND.out FUNCTION... TOLERANCE
"""
import json
import subprocess
import sys

cost_file, cg_file, *names, tolerance = sys.argv[1:]
tolerance = float(tolerance)
estimated = {}
for f in json.load(open(cost_file))["files"]:
    for fn in f["functions"]:
        estimated[fn["name"]] = fn["instructions"]
annotate = subprocess.run(["callgrind_annotate", cg_file], check=True,
                          capture_output=True, text=True).stdout
measured = {}
for line in annotate.splitlines():
    # "55,760,000 (86.69%)  ???:first [/path/prog]"
    parts = line.split()
    if (len(parts) >= 3 and parts[0].replace(",", "").isdigit()
            and parts[1].startswith("(") and ":" in parts[2]):
        name = parts[2].split(":", 1)[1]
        measured[name] = int(parts[0].replace(",", ""))
status = 0
for name in names:
    e, m = estimated[name], measured[name]
    print("%s: estimated %d, callgrind %d" % (name, round(e), m))
    if abs(e - m) > tolerance * m:
        print("%s: off by more than %g" % (name, tolerance))
        status = 1
sys.exit(status)
