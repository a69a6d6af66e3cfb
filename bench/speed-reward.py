#!/usr/bin/env python3
"""Validates the speed reward against execution (docs/speed.md, "Validation").

For real programs, pairs of builds that differ in one module's register
allocation are compared two ways: the change the reward predicts
(`mlgo speed cost` of the program, estimated executed instructions and
cycles on the profiled workload) and the change callgrind measures in
executed instructions on a *different* input. A pair is

  * flip      one eviction decision of the model inverted
              (-mlgo-evict-flips=N) in a hot function of one module;
  * flips3    three neighbouring decisions of one hot function inverted
              at once;
  * advisor   one module compiled with LLVM's eviction advisor instead of
              the model (every decision of the module may change);
  * model     every module compiled with a perturbed model: the
              tie-breaker's weights (which decide 56% of the corpus's
              evictions) each scaled by 1 + 0.5 N(0,1) from a fixed seed,
              the whole-model changes a trainer's search makes.

Each program is built from its Debian source by a fixed recipe (below),
instrumented first, profiled on input A with `mlgo profile run`, then
every module is compiled with the profile, the basic-block address map and
mlgo's eviction model. Pairs whose object is byte-identical to the base
change nothing and are not run. Prints one TSV line per pair and a summary:
the pairs whose measured change exceeds 0.1%, the share of them where the
predicted and measured changes agree in sign (instructions and cycles), and
the Spearman rank correlation.

  bench/speed-reward.py [--programs bzip2,minigzip,lzip,lua] [--flips N]
                        [--models N] [--work DIR] [--out pairs.tsv]
                        [--estimator solved|measured]

The estimator: "solved" (the default) takes each block's count from the
profile, its entry counts and branch probabilities solved for visits;
"measured" from a run of the base build on input A under callgrind (`mlgo
speed counts`, the block counts the trainer's reward reads where a package
has them), the profile elsewhere. Both are recorded on input A only.

Deterministic: the same programs, inputs and options give the same pairs
and the same callgrind counts. Resumable: every candidate examined is
recorded in WORK/PROGRAM/done.tsv (its row, or that its object did not
change), and a rerun reads those back instead of building them again. The
predictions are kept apart, in WORK/PROGRAM/predicted.tsv, for the
estimator named in WORK/PROGRAM/estimator: when the estimate changes, a
rerun predicts every pair again (compiles only) and keeps callgrind's
counts, which depend on the code alone.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MLGO = os.environ.get("MLGO", os.path.join(ROOT, "build", "bin", "mlgo"))
PLUGIN = os.environ.get("MLGO_PLUGIN",
                        os.path.join(ROOT, "build", "lib", "mlgo",
                                     "mlgo-plugin.so"))
# The estimate's version: pairs predicted by an older one are predicted
# again (their callgrind counts kept) - "solved" counts come from the
# branch probabilities (docs/speed.md).
ESTIMATOR = "solved-counts"
MAP_FLAGS = ["-fbasic-block-address-map", "-mllvm",
             "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"]

# How each program is built from its Debian source: the package, the
# source files (relative to the source tree), compile and link flags, and
# the language driver.
PROGRAMS = {
    "bzip2": dict(
        package="bzip2", driver="clang-19",
        sources=["blocksort.c", "huffman.c", "crctable.c", "randtable.c",
                 "compress.c", "decompress.c", "bzlib.c", "bzip2.c"],
        cflags=["-D_FILE_OFFSET_BITS=64", "-w"], ldflags=[],
        run=lambda p, i, o: [
            f"{p} -c < {i} > {o}.bz2", f"{p} -dc < {o}.bz2 > {o}.back",
            f"cmp {i} {o}.back"]),
    "minigzip": dict(
        package="zlib", driver="clang-19",
        sources=["adler32.c", "crc32.c", "deflate.c", "infback.c",
                 "inffast.c", "inflate.c", "inftrees.c", "trees.c",
                 "zutil.c", "compress.c", "uncompr.c", "gzclose.c",
                 "gzlib.c", "gzread.c", "gzwrite.c", "test/minigzip.c"],
        cflags=["-I.", "-DHAVE_UNISTD_H", "-DHAVE_STDARG_H", "-w"],
        ldflags=[],
        run=lambda p, i, o: [
            f"{p} < {i} > {o}.gz", f"{p} -d < {o}.gz > {o}.back",
            f"cmp {i} {o}.back"]),
    "lzip": dict(
        package="lzip", driver="clang++-19",
        sources=["arg_parser.cc", "lzip_index.cc", "list.cc",
                 "encoder_base.cc", "encoder.cc", "fast_encoder.cc",
                 "decoder.cc", "main.cc"],
        cflags=['-DPROGVERSION="1.23"', "-w"], ldflags=[],
        run=lambda p, i, o: [
            f"{p} -c < {i} > {o}.lz", f"{p} -dc < {o}.lz > {o}.back",
            f"cmp {i} {o}.back"]),
    "lua": dict(
        package="lua5.4", driver="clang-19",
        sources=[f"src/{f}" for f in [
            "lapi.c", "lcode.c", "lctype.c", "ldebug.c", "ldo.c", "ldump.c",
            "lfunc.c", "lgc.c", "llex.c", "lmem.c", "lobject.c",
            "lopcodes.c", "lparser.c", "lstate.c", "lstring.c", "ltable.c",
            "ltm.c", "lundump.c", "lvm.c", "lzio.c", "lauxlib.c",
            "lbaselib.c", "lcorolib.c", "ldblib.c", "liolib.c",
            "lmathlib.c", "loadlib.c", "loslib.c", "lstrlib.c",
            "ltablib.c", "lutf8lib.c", "linit.c", "lua.c"]],
        # lua seeds its string hashes with the time and the addresses of a
        # variable and a function (lstate.c, luai_makeseed): every run, and
        # every build that moves code, would hash differently and execute a
        # different number of instructions. One fixed seed makes callgrind's
        # count a property of the code.
        cflags=["-DLUA_USE_LINUX", "-Dluai_makeseed(L)=0x5eedu", "-w"],
        ldflags=["-lm", "-ldl"],
        # Debian's rules generate this header (luaconf.h includes it).
        generated={"src/lua5.4-deb-multiarch.h":
                   '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n'},
        run=lambda p, i, o: [f"{p} {i}.lua {i} > {o}.out"]),
}

LUA_SCRIPT = """
local f = assert(io.open(arg[1], "rb")); local s = f:read("a"); f:close()
local words, n = {}, 0
for w in s:gmatch("[%a_][%w_]*") do n = n + 1; words[w] = (words[w] or 0) + 1 end
local keys = {}
for k in pairs(words) do keys[#keys + 1] = k end
table.sort(keys, function(a, b) return words[a] > words[b] or (words[a] == words[b] and a < b) end)
local out = {}
for i = 1, math.min(#keys, 200) do out[#out + 1] = string.format("%s=%d", keys[i], words[keys[i]]) end
local t = {}
for i = 1, 60000 do t[i] = (i * 7919) % 1000003 end
table.sort(t)
print(n, #keys, table.concat(out, ","):len(), t[1], t[#t])
"""


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True,
                          **kw)


def fetch(package):
    return subprocess.run([os.path.join(ROOT, "scripts", "fetch-source.sh"),
                           package], check=True, capture_output=True,
                          text=True).stdout.strip()


def make_inputs(work):
    """Input A profiles, input B measures: different text, both real."""
    a, b = os.path.join(work, "input-a"), os.path.join(work, "input-b")
    if not os.path.exists(b):
        def cat(package, exts, limit):
            src, data = fetch(package), b""
            for dirpath, _, files in sorted(os.walk(src)):
                for f in sorted(files):
                    if f.endswith(exts):
                        with open(os.path.join(dirpath, f), "rb") as h:
                            data += h.read()
                    if len(data) >= limit:
                        return data[:limit]
            return data
        with open(a, "wb") as h:
            h.write(cat("zlib", (".c", ".h"), 400_000) +
                    cat("bzip2", (".c", ".h"), 300_000))
        with open(b, "wb") as h:
            h.write(cat("lua5.4", (".c", ".h"), 250_000) +
                    cat("lzip", (".cc", ".h", ".texi"), 150_000))
        for p in (a, b):
            with open(p + ".lua", "w") as h:
                h.write(LUA_SCRIPT)
    return a, b


def compile_module(prog, src_dir, source, obj, extra):
    r = PROGRAMS[prog]
    cmd = [r["driver"], "-O2", "-c", os.path.join(src_dir, source),
           "-o", obj] + r["cflags"] + extra
    subprocess.run(cmd, check=True, cwd=src_dir, capture_output=True)


def link(prog, objs, out):
    r = PROGRAMS[prog]
    subprocess.run([r["driver"], "-O2"] + objs + ["-o", out] + r["ldflags"],
                   check=True, capture_output=True)


def run_workload(prog, binary, inp, scratch, callgrind=False, dump=False):
    cmds = PROGRAMS[prog]["run"](binary, inp, os.path.join(scratch, "o"))
    total = 0
    for i, c in enumerate(cmds):
        if callgrind and not c.startswith("cmp"):
            out = os.path.join(scratch, f"cg.{i}")
            c = (f"valgrind --tool=callgrind --callgrind-out-file={out} "
                 + ("--dump-instr=yes " if dump else "") +
                 f"--log-file={out}.log " + c)
        sh(c, capture_output=True)
        if callgrind and not cmds[i].startswith("cmp"):
            with open(os.path.join(scratch, f"cg.{i}")) as h:
                for line in h:
                    if line.startswith("summary:") or line.startswith("totals:"):
                        total += int(line.split()[1])
                        break
    return total


def speed_cost(binary, counts=None):
    cmd = [MLGO, "speed", "cost", "--json", binary]
    if counts:
        cmd += ["--counts", counts]
    j = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                  text=True).stdout)
    funcs = {}
    for f in j["files"]:
        for fn in f["functions"]:
            funcs[fn["name"]] = fn
    return j["instructions"], j["cycles"], funcs


def read_log_contexts(path):
    """(function, number of decisions) per context of an eviction log, in
    order, from LLVM's training-log format (docs/training-log.md)."""
    with open(path, "rb") as h:
        data = h.read()
    nl = data.index(b"\n")
    header = json.loads(data[:nl])
    size = 0
    sizes = {"int64_t": 8, "int32_t": 4, "float": 4, "double": 8,
             "int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2,
             "uint32_t": 4, "uint64_t": 8}
    for f in header["features"]:
        n = 1
        for d in f["shape"]:
            n *= d
        size += n * sizes[f["type"]]
    score = header.get("score")
    pos, contexts = nl + 1, []
    while pos < len(data):
        nl = data.index(b"\n", pos)
        line = json.loads(data[pos:nl])
        pos = nl + 1
        if "context" in line:
            contexts.append([line["context"], 0])
        elif "observation" in line:
            contexts[-1][1] += 1
            pos += size + 1
        elif "outcome" in line:
            pos += 4 + 1 if score else 0
    return contexts


def sha(path):
    with open(path, "rb") as h:
        return hashlib.sha256(h.read()).hexdigest()


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else float("nan")


def perturbed_model(path, seed):
    """The shipped model with its tie-breaker's weights (the ones fitted
    on log features, far below the main rule) scaled by 1 + 0.5 N(0,1)."""
    with open(os.path.join(ROOT, "models", "regalloc-evict",
                           "model.json")) as h:
        model = json.load(h)
    rng = random.Random(seed)
    w = model["layers"][0]["weights"][0]
    for i, x in enumerate(w):
        if x != 0 and abs(x) < 1e-3:
            w[i] = x * (1 + 0.5 * rng.gauss(0, 1))
    model["metadata"]["name"] = f"regalloc-evict-perturbed-{seed}"
    with open(path, "w") as h:
        json.dump(model, h, indent=1)


def load_done(path):
    done = {}
    if os.path.exists(path):
        with open(path) as h:
            for line in h:
                f = line.rstrip("\n").split("\t")
                done[tuple(f[:3])] = f[3:]
    return done


def record_counts(prog, base, inp_a, scratch, path):
    """The base's block counts on input A (every process of the workload)."""
    run_workload(prog, base, inp_a, scratch, callgrind=True, dump=True)
    dumps = sorted(os.path.join(scratch, f) for f in os.listdir(scratch)
                   if f.startswith("cg.") and not f.endswith(".log"))
    sh([MLGO, "speed", "counts", base, "--callgrind", ",".join(dumps),
        "-o", path], capture_output=True)


def validate(prog, work, flips_per_program, models, out, estimator):
    r = PROGRAMS[prog]
    src = fetch(r["package"])
    for path, text in r.get("generated", {}).items():
        with open(os.path.join(src, path), "w") as h:
            h.write(text)
    pw = os.path.join(work, prog)
    os.makedirs(pw, exist_ok=True)
    inp_a, inp_b = make_inputs(work)
    scratch = tempfile.mkdtemp(dir=pw)
    # 1. Instrumented build, profiled on input A.
    profile = os.path.join(pw, "a.profdata")
    if not os.path.exists(profile):
        objs = []
        for s in r["sources"]:
            o = os.path.join(pw, "inst-" + s.replace("/", "_") + ".o")
            compile_module(prog, src, s, o, ["-fprofile-generate"])
            objs.append(o)
        inst = os.path.join(pw, "inst")
        link(prog, objs + ["-fprofile-generate"], inst)
        script = os.path.join(pw, "profile.sh")
        with open(script, "w") as h:
            h.write("set -e\n" + "\n".join(r["run"](inst, inp_a, scratch + "/p")))
        sh([MLGO, "profile", "run", "-o", profile, "--", "bash", script],
           capture_output=True)
    speed = ["-fprofile-use=" + profile, "-Werror=backend-plugin"] + MAP_FLAGS
    plug = ["-fplugin=" + PLUGIN, "-fpass-plugin=" + PLUGIN]
    # 2. The base: every module with the model, its decisions logged. Objects
    # of an older estimator (other map flags) are rebuilt; their code, and so
    # callgrind's counts in done.tsv, are the same.
    marker = os.path.join(pw, "estimator")
    if not os.path.exists(marker) or open(marker).read() != ESTIMATOR:
        for s in r["sources"]:
            o = os.path.join(pw, "base-" + s.replace("/", "_") + ".o")
            if os.path.exists(o):
                os.remove(o)
        with open(marker, "w") as h:
            h.write(ESTIMATOR)
    base_objs, logs = [], {}
    for s in r["sources"]:
        o = os.path.join(pw, "base-" + s.replace("/", "_") + ".o")
        log = o + ".log"
        if not os.path.exists(o):
            compile_module(prog, src, s, o, speed + plug + [
                "-mllvm", "-mlgo-evict", "-mllvm",
                "-mlgo-evict-training-log=" + log])
        base_objs.append(o)
        logs[s] = log if os.path.exists(log) else None
    base = os.path.join(pw, "base")
    link(prog, base_objs, base)
    counts = None
    if estimator == "measured":
        counts = os.path.join(pw, "counts-a.tsv")
        if not os.path.exists(counts):
            record_counts(prog, base, inp_a, scratch, counts)
    b_instr, b_cycles, b_funcs = speed_cost(base, counts)
    b_ir = run_workload(prog, base, inp_b, scratch, callgrind=True)
    print(f"{prog}: base predicts {b_instr:.0f} instructions, "
          f"{b_cycles:.0f} cycles; callgrind {b_ir} on input B",
          file=sys.stderr)
    # Hot functions: those that hold 95% of the base's cycles, and each at
    # least 1% (a change in a colder one cannot move the total by 0.1%).
    hot, acc = set(), 0.0
    for name, f in sorted(b_funcs.items(), key=lambda kv: -kv[1]["cycles"]):
        if acc >= 0.95 * b_cycles or f["cycles"] < 0.01 * b_cycles:
            break
        hot.add(name)
        acc += f["cycles"]
    # 3. Candidate pairs.
    candidates = []
    for i, s in enumerate(r["sources"]):
        candidates.append(("advisor", i, s, None))
        if not logs[s]:
            continue
        index = 0
        hot_runs = []
        for name, n in read_log_contexts(logs[s]):
            if name in hot and n:
                hot_runs.append(range(index, index + n))
            index += n
        hot_decisions = [d for r in hot_runs for d in r]
        step = max(1, len(hot_decisions) // max(1, flips_per_program))
        for d in hot_decisions[::step]:
            candidates.append(("flip", i, s, str(d)))
        # Three neighbours in one function: a larger change, same kind.
        for r in hot_runs:
            for k in range(0, len(r) - 2, max(3, len(r) // 4)):
                candidates.append(("flips3", i, s,
                                   ",".join(str(d) for d in r[k:k + 3])))
    for m in range(models):
        candidates.append(("model", None, "*", str(m)))
    done_path = os.path.join(pw, "done.tsv")
    done = load_done(done_path)
    predicted_path = os.path.join(
        pw, "predicted.tsv" if estimator == "solved" else
        f"predicted-{estimator}.tsv")
    predicted = load_done(predicted_path)
    rows = []
    with open(done_path, "a") as done_file, \
            open(predicted_path, "a") as predicted_file:
        for kind, i, s, d in candidates:
            key = (kind, s, d or "")
            if key not in done:
                done[key] = measure_pair(prog, src, pw, scratch, speed, plug,
                                         base_objs, kind, i, s, d, inp_b)
                done_file.write("\t".join(list(key) + done[key]) + "\n")
                done_file.flush()
                if done[key] != ["same"] and estimator == "solved":
                    predicted[key] = done[key][:2]
                    predicted_file.write(
                        "\t".join(list(key) + predicted[key]) + "\n")
                    predicted_file.flush()
            if done[key] != ["same"] and key not in predicted:
                binary = build_pair(prog, src, pw, scratch, speed, plug,
                                    base_objs, kind, i, s, d)
                instr, cycles, _ = speed_cost(binary, counts)
                predicted[key] = [repr(instr), repr(cycles)]
                predicted_file.write(
                    "\t".join(list(key) + predicted[key]) + "\n")
                predicted_file.flush()
            if done[key] == ["same"]:
                continue
            instr, cycles = (float(x) for x in predicted[key])
            ir = float(done[key][2])
            row = (prog, kind, s, d or "", instr - b_instr,
                   cycles - b_cycles, ir - b_ir, b_ir)
            rows.append(row)
            line = "\t".join(str(x) for x in row[:4]) + "\t" + "\t".join(
                f"{x:.0f}" for x in row[4:7]) + \
                f"\t{(ir - b_ir) / b_ir:+.4%}"
            print(line, flush=True)
            out.write(line + "\n")
            out.flush()
    shutil.rmtree(scratch)
    return rows


def build_pair(prog, src, pw, scratch, speed, plug, base_objs, kind, i, s,
               d):
    """The pair's program, or None when its objects are the base's."""
    r = PROGRAMS[prog]
    objs = list(base_objs)
    if kind == "model":
        model = os.path.join(pw, f"model-{d}.json")
        perturbed_model(model, int(d))
        changed = False
        for k, source in enumerate(r["sources"]):
            o = os.path.join(scratch, f"model-{k}.o")
            compile_module(prog, src, source, o, speed + plug + [
                "-mllvm", "-mlgo-evict-model=" + model])
            changed |= sha(o) != sha(base_objs[k])
            objs[k] = o
    else:
        o = os.path.join(scratch, "pair.o")
        extra = speed + plug
        if kind in ("flip", "flips3"):
            extra += ["-mllvm", "-mlgo-evict", "-mllvm",
                      f"-mlgo-evict-flips={d}"]
        compile_module(prog, src, s, o, extra)
        # Compiles are deterministic: the same decisions give the same
        # object, so an identical object is a pair that changed nothing.
        changed = sha(o) != sha(base_objs[i])
        objs[i] = o
    if not changed:
        return None
    binary = os.path.join(scratch, "pair")
    link(prog, objs, binary)
    return binary


def measure_pair(prog, src, pw, scratch, speed, plug, base_objs, kind, i, s,
                 d, inp_b):
    """[instructions, cycles, measured] of the pair's build, or ["same"]
    when its objects are the base's."""
    binary = build_pair(prog, src, pw, scratch, speed, plug, base_objs, kind,
                        i, s, d)
    if binary is None:
        return ["same"]
    instr, cycles, _ = speed_cost(binary)
    ir = run_workload(prog, binary, inp_b, scratch, callgrind=True)
    return [repr(instr), repr(cycles), str(ir)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", default="bzip2,minigzip,lzip,lua")
    ap.add_argument("--flips", type=int, default=60,
                    help="flips per module, spread over its hot decisions")
    ap.add_argument("--models", type=int, default=8,
                    help="perturbed whole models per program")
    ap.add_argument("--work", default=os.path.join(ROOT, "build",
                                                    "speed-reward"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--estimator", choices=("solved", "measured"),
                    default="solved")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    out_path = args.out or os.path.join(args.work, "pairs.tsv")
    rows = []
    with open(out_path, "w") as out:
        out.write("program\tkind\tmodule\tflip\tpredicted_instructions\t"
                  "predicted_cycles\tmeasured_instructions\tmeasured_pct\n")
        for prog in args.programs.split(","):
            rows += validate(prog, args.work, args.flips, args.models, out,
                             args.estimator)
    big = [r for r in rows if abs(r[6]) > 0.001 * r[7]]
    print(f"\n{len(rows)} pairs changed code; {len(big)} changed executed "
          f"instructions by more than 0.1%")
    if big:
        for label, col in (("instructions", 4), ("cycles", 5)):
            agree = sum(1 for r in big if (r[col] > 0) == (r[6] > 0)
                        and r[col] != 0)
            rho = spearman([r[col] for r in big], [r[6] for r in big])
            print(f"  {label} estimate: sign agrees on {agree}/{len(big)} "
                  f"({agree / len(big):.1%}); Spearman {rho:.3f}")
    for kind in ("flip", "flips3", "advisor", "model"):
        k = [r for r in big if r[1] == kind]
        if k:
            agree = sum(1 for r in k if (r[4] > 0) == (r[6] > 0) and r[4] != 0)
            print(f"  {kind}: {agree}/{len(k)} (instructions)")
    if rows:
        rho = spearman([r[4] for r in rows], [r[6] for r in rows])
        print(f"  all {len(rows)} pairs: Spearman (instructions) {rho:.3f}")


if __name__ == "__main__":
    main()
