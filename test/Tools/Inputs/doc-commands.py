"""Checks the mlgo commands that the documentation shows.

Usage: doc-commands.py SRC_ROOT PLUGIN_HELP_FILE

Reads README.md, docs/*.md and models/*/README.md under SRC_ROOT. In their
code (fenced blocks and `inline` spans), every line that runs
`mlgo COMMAND [ACTION]` (or `build/bin/mlgo ...`) must name a command and action that `mlgo --help` and `mlgo COMMAND --help` list,
and every option written after it must be one that the action's
`--help-hidden` lists (arguments that the command hands on to another
program, after `--` for serve and after the module for corpus compile, and
quoted words, such as the shell command of `eval build --test '...'`, are
not mlgo's and are skipped). Every -mlgo-* option must be one that
PLUGIN_HELP_FILE, the output of `opt -load-pass-plugin=... --help-hidden`,
lists. Prints one line per mismatch, "FILE: problem", then "N mismatches".
"""
import glob
import os
import re
import subprocess
import sys

src, plugin_file = sys.argv[1], sys.argv[2]


def run_help(args):
    out = subprocess.run(["mlgo"] + args, capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def listed(help_text, heading):
    """The names listed under HEADING: in an `mlgo [group] --help`."""
    section = help_text.split(heading + ":\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in section.splitlines()]


commands = listed(run_help(["--help"]), "COMMANDS")
groups = {c: listed(h, "ACTIONS") for c in commands
          if (h := run_help([c, "--help"])) and "ACTIONS:" in h}
options = {}


def options_of(command):
    if command not in options:
        text = run_help(command.split() + ["--help-hidden"]) or ""
        options[command] = set(re.findall(r"^  (--?[\w-]+)", text, re.M))
    return options[command]


actions = {}


def is_action(command, word):
    """Whether `mlgo COMMAND WORD` is a two-word subcommand of a command
    that is no group (`mlgo tune build` beside `mlgo tune`)."""
    if (command, word) not in actions:
        text = run_help([command, word, "--help"]) or ""
        actions[(command, word)] = f"SUBCOMMAND '{command} {word}'" in text
    return actions[(command, word)]


plugin_options = {"-" + o for o in
                  re.findall(r"^ +--?(mlgo-[a-z-]+)", open(plugin_file).read(),
                             re.M)}
files = [os.path.join(src, "README.md")]
files += sorted(glob.glob(os.path.join(src, "docs", "*.md")))
files += sorted(glob.glob(os.path.join(src, "models", "*", "README.md")))
problems = []
for path in files:
    name = os.path.relpath(path, src)
    text = open(path).read()
    code = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    code += re.findall(r"`([^`\n]+)`", prose)
    code += re.findall(r"``([^`]+)``", prose)
    for snippet in code:
        snippet = re.sub(r"\\\n\s*", " ", snippet)
        for opt in re.findall(r"(?<![\w-])-mlgo-[a-z-]+", snippet):
            if opt not in plugin_options:
                problems.append(f"{name}: unknown plugin option {opt}")
        for line in snippet.splitlines():
            for m in re.finditer(r"^\s*(?:\S*/)?mlgo ([a-z][a-z0-9]*)(?: ([a-z]+))?(.*)",
                                 line):
                first, second, rest = m.group(1), m.group(2), m.group(3)
                if first not in commands:
                    problems.append(f"{name}: unknown command 'mlgo {first}'")
                    continue
                command = first
                if first in groups:
                    if second is None:
                        continue  # the group itself, e.g. `mlgo eval`
                    if second not in groups[first]:
                        problems.append(
                            f"{name}: unknown action 'mlgo {first} {second}'")
                        continue
                    command += " " + second
                elif second and is_action(first, second):
                    command += " " + second  # `mlgo tune check`, a command's action
                elif second:
                    rest = " " + second + rest
                if command == "serve":
                    rest = rest.split(" -- ")[0]
                if command == "corpus compile":
                    continue  # what follows the module goes to clang
                # Quoted words are values (`--test 'ctest -V'`), not
                # options of mlgo's.
                rest = re.sub(r"'[^']*'|\"[^\"]*\"", "''", rest)
                rest = rest.split("#")[0]  # a shell comment
                for opt in re.findall(r"(?<![\w/.=-])(--?[a-z][\w-]*)", rest):
                    if opt not in options_of(command):
                        problems.append(
                            f"{name}: 'mlgo {command}' has no option {opt}")
for p in problems:
    print(p)
print(f"{len(problems)} mismatches")
