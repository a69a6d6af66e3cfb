#!/usr/bin/env python3
"""Checks mlgo's library layering (cmake/MLGOLayers.cmake) against the code.

  check-layering.py --source SRC --build BUILD includes
      Reads BUILD/mlgo-layers.json (every library and program with its kind,
      sources and declared mlgo dependencies) and the #include lines of the
      code, and reports as errors:
        * a library or program that includes the headers of an mlgo library
          it does not link, or links one whose headers it never includes;
        * a cycle among the libraries' declared dependencies;
        * an LLVM-free library (the core: Support, Tensor, Runner, Log,
          Protocol, Model; and Learn, InlinePolicy, TrainCore) including an
          LLVM header outside the allowed parts (ADT, Support, Config,
          Demangle, some llvm-c), or a core area whose library is not
          LLVM-free;
        * an LLVM-free library linking an LLVM-bound one (whose include
          directories, all of LLVM's, it would then compile with);
        * any file under lib/<Core> or include/mlgo/<Core> that includes a
          forbidden LLVM header (a grep, whatever CMake lists).
      Exits 1 if there is an error.

  check-layering.py --build BUILD compile PROBE [--library NAME]
      Compiles PROBE (-fsyntax-only) with the flags of each LLVM-free
      library (or of library NAME), taken from BUILD/compile_commands.json,
      and prints one line per library: "NAME: compiles" or "NAME: does not
      compile: <the compiler's first error>".
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys

CORE_AREAS = ["Support", "Tensor", "Runner", "Log", "Protocol", "Model"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
LLVM_RE = re.compile(r"^(llvm|llvm-c|clang|clang-c)/")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def includes_of(path):
    return INCLUDE_RE.findall(read(path))


class Layers:
    def __init__(self, source, build):
        self.source = source
        data = json.loads(read(os.path.join(build, "mlgo-layers.json")))
        self.allowed = data.pop("llvm_free_parts")
        self.targets = data
        self.libraries = {n: t for n, t in data.items()
                          if t["kind"] != "program"}
        self.errors = []

    def error(self, msg):
        self.errors.append(msg)

    def allowed_llvm(self, header):
        return any(header == p or header.startswith(p + "/")
                   for p in self.allowed)

    def own_headers(self):
        """Maps include/mlgo/<Area>/X.h to the library with X.cpp, or to the
        area's only library."""
        owner, by_area = {}, {}
        for name, lib in self.libraries.items():
            for src in lib["sources"]:
                parts = src.split("/")
                if len(parts) != 3 or parts[0] != "lib":
                    continue
                area, stem = parts[1], os.path.splitext(parts[2])[0]
                by_area.setdefault(area, set()).add(name)
                header = "mlgo/%s/%s.h" % (area, stem)
                if os.path.exists(os.path.join(self.source, "include",
                                               header)):
                    owner[header] = name
        for area, libs in sorted(by_area.items()):
            directory = os.path.join(self.source, "include", "mlgo", area)
            if not os.path.isdir(directory):
                continue
            for f in sorted(os.listdir(directory)):
                header = "mlgo/%s/%s" % (area, f)
                if not f.endswith(".h") or header in owner:
                    continue
                if len(libs) != 1:
                    self.error("include/%s: no %s.cpp, and area %s has "
                               "several libraries (%s): which owns it?" %
                               (header, f[:-2], area,
                                ", ".join(sorted(libs))))
                    continue
                owner[header] = next(iter(libs))
        self.owner = owner
        self.by_area = by_area

    def files_of(self, name):
        """The target's sources and owned headers, and every local header
        they include ("X.h" next to the includer), transitively."""
        files = [os.path.join(self.source, s)
                 for s in self.targets[name]["sources"]]
        files += [os.path.join(self.source, "include", h)
                  for h, o in sorted(self.owner.items()) if o == name]
        seen, todo = [], list(files)
        while todo:
            f = todo.pop(0)
            if f in seen or not os.path.exists(f):
                continue
            seen.append(f)
            for inc in includes_of(f):
                local = os.path.join(os.path.dirname(f), inc)
                if os.path.exists(local):
                    todo.append(os.path.normpath(local))
        return seen

    def check_target(self, name):
        target = self.targets[name]
        used = {}
        for f in self.files_of(name):
            rel = os.path.relpath(f, self.source)
            for inc in includes_of(f):
                if inc.startswith("mlgo/"):
                    if inc == "mlgo/Config.h" or inc.startswith(
                            "mlgo/embedded/"):
                        continue  # generated by the build
                    lib = self.owner.get(inc)
                    if lib is None:
                        self.error("%s includes %s, which no mlgo library "
                                   "owns" % (rel, inc))
                    elif lib != name:
                        used.setdefault(lib, "%s includes %s" % (rel, inc))
                elif (target["kind"] == "llvm-free" and LLVM_RE.match(inc)
                      and not self.allowed_llvm(inc)):
                    self.error("%s (LLVM-free library %s) includes %s" %
                               (rel, name, inc))
        declared = set(target["depends"]) & set(self.libraries)
        if target["kind"] == "llvm-free":
            for lib in sorted(declared):
                if self.libraries[lib]["kind"] != "llvm-free":
                    self.error("%s (LLVM-free) links %s, which is "
                               "LLVM-bound: it would compile with all of "
                               "LLVM's headers" % (name, lib))
        for lib in sorted(set(used) - declared):
            self.error("%s does not link %s, but %s" % (name, lib, used[lib]))
        for lib in sorted(declared - set(used)):
            self.error("%s links %s but includes none of its headers" %
                       (name, lib))

    def check_cycles(self):
        state = {}

        def visit(name, path):
            state[name] = "open"
            for dep in sorted(self.libraries[name]["depends"]):
                if dep not in self.libraries:
                    continue
                if state.get(dep) == "open":
                    cycle = path[path.index(dep):] + [dep]
                    self.error("dependency cycle: " + " -> ".join(cycle))
                elif dep not in state:
                    visit(dep, path + [dep])
            state[name] = "done"

        for name in sorted(self.libraries):
            if name not in state:
                visit(name, [name])

    def check_core(self):
        for area in CORE_AREAS:
            libs = self.by_area.get(area, set())
            if not libs:
                self.error("core area %s has no library" % area)
            for lib in sorted(libs):
                if self.libraries[lib]["kind"] != "llvm-free":
                    self.error("%s (core area %s) is not LLVM_FREE" %
                               (lib, area))
            for top in ["lib/" + area, "include/mlgo/" + area]:
                directory = os.path.join(self.source, top)
                for root, _, names in os.walk(directory):
                    for f in sorted(names):
                        path = os.path.join(root, f)
                        for inc in includes_of(path):
                            if LLVM_RE.match(inc) and \
                                    not self.allowed_llvm(inc):
                                self.error("%s (core) includes %s" % (
                                    os.path.relpath(path, self.source), inc))


def check_includes(args):
    layers = Layers(args.source, args.build)
    layers.own_headers()
    for name in sorted(layers.targets):
        layers.check_target(name)
    layers.check_cycles()
    layers.check_core()
    # One message per finding, whichever way it was found.
    for e in sorted(set(layers.errors)):
        print("error: " + e)
    if layers.errors:
        return 1
    print("layering: %d libraries and %d programs link exactly what they "
          "include, without cycles; the LLVM-free libraries include only %s" %
          (len(layers.libraries), len(layers.targets) - len(layers.libraries),
           ", ".join(layers.allowed)))
    return 0


def compile_probe(args):
    data = json.loads(read(os.path.join(args.build, "mlgo-layers.json")))
    data.pop("llvm_free_parts")
    names = [args.library] if args.library else sorted(
        n for n, t in data.items() if t["kind"] == "llvm-free")
    commands = json.loads(read(os.path.join(args.build,
                                            "compile_commands.json")))
    probe = os.path.abspath(args.probe)
    for name in names:
        marker = "CMakeFiles/%s.dir/" % name
        entry = next((c for c in commands
                      if marker in c.get("output", c["command"])), None)
        if entry is None:
            print("%s: no compile command" % name)
            continue
        argv = (entry["arguments"] if "arguments" in entry
                else shlex.split(entry["command"]))
        out, skip = [], False
        for a in argv:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c", "-MF", "-MT", "-MQ"):
                skip = True
                continue
            if a in ("-MD", "-MMD"):
                continue
            out.append(a)
        out += ["-fsyntax-only", probe]
        r = subprocess.run(out, cwd=entry["directory"], capture_output=True,
                           text=True)
        if r.returncode == 0:
            print("%s: compiles" % name)
            continue
        first = next((l for l in r.stderr.splitlines() if "error" in l),
                     r.stderr.strip())
        first = first.replace(probe, os.path.basename(probe))
        print("%s: does not compile: %s" % (name, first))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--source", help="the source tree")
    p.add_argument("--build", required=True, help="the build tree")
    sub = p.add_subparsers(dest="mode", required=True)
    sub.add_parser("includes")
    c = sub.add_parser("compile")
    c.add_argument("probe")
    c.add_argument("--library")
    args = p.parse_args()
    if args.mode == "includes":
        if not args.source:
            p.error("includes needs --source")
        return check_includes(args)
    return compile_probe(args)


if __name__ == "__main__":
    sys.exit(main())
