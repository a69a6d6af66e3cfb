"""Prints how each function's numbers change from one `mlgo regalloc score
--profile --json` output to another: the entry counts, and the ratio of the
static score, the profile-weighted score and the cycles (or both values when
the first is zero). The static score moves only as far as the profile's
branch probabilities move the block frequencies relative to the entry."""
import json
import sys

a, b = (json.load(open(p))["files"][0]["functions"] for p in sys.argv[1:3])
after = {f["name"]: f for f in b}
for f in a:
    g = after[f["name"]]
    parts = ["entry %s -> %s" % (f["entry_count"], g["entry_count"])]
    for key in ("score", "profile_score", "cycles"):
        if f[key] == 0:
            parts.append("%s %g -> %g" % (key, f[key], g[key]))
        else:
            parts.append("%s x%.4f" % (key, g[key] / f[key]))
    print("%s: %s" % (f["name"], ", ".join(parts)))
