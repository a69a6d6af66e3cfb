"""Prints how each function's cost changes from one `mlgo speed cost --json`
output to another: the entry counts, and the ratio of the instruction and
cycle estimates (or both values when the first is zero)."""
import json
import sys

a, b = (json.load(open(p))["files"][0]["functions"] for p in sys.argv[1:3])
after = {f["name"]: f for f in b}
for f in a:
    g = after[f["name"]]
    parts = ["entry %d -> %d" % (f["entry_count"], g["entry_count"])]
    for key in ("instructions", "cycles"):
        if f[key] == 0:
            parts.append("%s %g -> %g" % (key, f[key], g[key]))
        else:
            parts.append("%s x%.4f" % (key, g[key] / f[key]))
    print("%s: %s" % (f["name"], ", ".join(parts)))
