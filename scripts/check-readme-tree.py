#!/usr/bin/env python3
"""Checks README.md's "What is where" table against the tree.

The table is the front page's map of the repository, so it must stay
current: every path it names (in backquotes, in its first column) must
exist, and every folder of lib/ (one library area each) must be named in
it as `lib/AREA/`. Prints one line per problem, naming README.md and the
path, and exits 1 if there is any. test/Tools/readme-what-is-where.test
(./test.sh's lit tests) runs it on this repository, and on a planted tree
with each kind of problem.

    scripts/check-readme-tree.py [ROOT]      (default: this repository)
"""
import os
import re
import sys

SECTION = "## What is where"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    readme = os.path.join(root, "README.md")
    try:
        lines = open(readme, encoding="utf-8").read().split("\n")
    except OSError as e:
        print(f"check-readme-tree: {readme}: {e.strerror}", file=sys.stderr)
        return 1
    if SECTION not in lines:
        print(f"check-readme-tree: README.md: no '{SECTION}' section",
              file=sys.stderr)
        return 1
    start = lines.index(SECTION) + 1
    named = []  # (line number, path)
    for n in range(start, len(lines)):
        line = lines[n]
        if line.startswith("## "):
            break
        if not line.startswith("|") or re.match(r"^\|\s*-", line):
            continue
        first = line.split("|")[1]
        for path in re.findall(r"`([^`]+)`", first):
            named.append((n + 1, path))
    problems = []
    if not named:
        problems.append(f"README.md: '{SECTION}' names no path")
    for n, path in named:
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"README.md:{n}: {path} does not exist")
    paths = {p.rstrip("/") for _, p in named}
    lib = os.path.join(root, "lib")
    for area in sorted(os.listdir(lib)):
        if os.path.isdir(os.path.join(lib, area)) and f"lib/{area}" not in paths:
            problems.append(f"README.md: '{SECTION}' misses lib/{area}/")
    for p in problems:
        print(f"check-readme-tree: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
