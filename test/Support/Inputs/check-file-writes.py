#!/usr/bin/env python3
"""Finds whole-file writes that do not go through writeFileAtomically.

Every file mlgo writes whole (models, reports, decisions files, corpus
modules, charts) goes through writeFileAtomically (mlgo/Support/Files.h), so
that a reader, a rerun after kill -9 or a full disk sees the old file or the
new one, never a torn one. This check reads the C++ under lib/, tools/,
plugin/ and include/ for the ways to write a file in place - a
raw_fd_ostream opened on a path, std::ofstream, fopen, open(2) with O_CREAT,
sys::fs::openFileForWrite, llvm::writeToOutput, sys::fs::copy_file - and
fails on each one that the allow-list (streaming-writers.tsv beside this
script: logs, pipes, appended lines, writeFileAtomically itself) does not
name, and on each entry of the list that names nothing.

  check-file-writes.py --source SRC [--allow FILE]
"""

import argparse
import os
import re
import sys

DIRS = ["lib", "tools", "plugin", "include"]
SUFFIXES = (".cpp", ".h", ".inc", ".c")

# (what it is, the pattern that finds it on one line of code)
PATTERNS = [
    ("raw_fd_ostream opened on a path",
     re.compile(r"\braw_fd_ostream\s+\w+\s*[({]|\braw_fd_ostream\s*[({]"
                r"|raw_fd_ostream\s*>\s*\(|optional\s*<\s*(llvm::)?raw_fd_ostream\s*>")),
    ("std::ofstream", re.compile(r"\b(std::)?(w?ofstream|w?fstream)\b")),
    ("fopen", re.compile(r"\b(fopen|freopen|fdopen)\s*\(")),
    ("open(2) with O_CREAT or O_TRUNC", re.compile(r"\bO_(CREAT|TRUNC)\b")),
    ("sys::fs::openFileForWrite",
     re.compile(r"\bopen(Native)?FileFor(Write|ReadWrite)\s*\(")),
    ("llvm::writeToOutput", re.compile(r"\bwriteToOutput\s*\(")),
    ("sys::fs::copy_file", re.compile(r"\bcopy_file\s*\(")),
]


def read_allow(path):
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3 or not all(x.strip() for x in fields):
                sys.exit("%s:%d: expected FILE<tab>TEXT<tab>WHY, got: %s" %
                         (path, number, line))
            entries.append({"file": fields[0], "text": fields[1],
                            "why": fields[2], "line": number, "used": 0})
    return entries


def code_of(line):
    """The line without a // comment that starts it or follows the code."""
    stripped = line.lstrip()
    if stripped.startswith("//") or stripped.startswith("*") or \
            stripped.startswith("/*"):
        return ""
    # A comment after code: cut at "//" outside a string literal.
    quote = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            quote = not quote
        if not quote and line.startswith("//", i):
            return line[:i]
    return line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--allow", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "streaming-writers.tsv"))
    args = ap.parse_args()
    allow = read_allow(args.allow)
    errors = []
    files = 0
    for top in DIRS:
        root = os.path.join(args.source, top)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, args.source)
                files += 1
                with open(path, errors="replace") as f:
                    lines = f.readlines()
                for number, line in enumerate(lines, 1):
                    code = code_of(line)
                    for what, pattern in PATTERNS:
                        if not pattern.search(code):
                            continue
                        allowed = [e for e in allow
                                   if (rel == e["file"] or
                                       rel.endswith("/" + e["file"])) and
                                   e["text"] in code]
                        for e in allowed:
                            e["used"] += 1
                        if not allowed:
                            errors.append(
                                "error: %s:%d: %s: a whole-file write in "
                                "place; write it with writeFileAtomically "
                                "(mlgo/Support/Files.h), or if it streams, "
                                "add it to %s with the reason: %s" %
                                (rel, number, what,
                                 os.path.basename(args.allow), line.strip()))
                        break
    for e in allow:
        if not e["used"]:
            errors.append("error: %s:%d: allows '%s' in %s, which no line "
                          "has any more: remove the entry" %
                          (os.path.basename(args.allow), e["line"],
                           e["text"], e["file"]))
    for e in errors:
        print(e)
    if errors:
        return 1
    print("whole-file writes: %d files checked; %d streaming writers allowed, "
          "every other write goes through writeFileAtomically" %
          (files, len(allow)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
