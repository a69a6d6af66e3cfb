#!/usr/bin/env python3
"""Decisions per second through mlgo.InliningEnv.step, against the C++
`mlgo serve` host and a pure-Python host (bench/python_host.py, written the
way LLVM's interactive_host.py is), on the same compiles.

  PYTHONPATH=build/python /usr/bin/python3 bench/python_env_throughput.py \
      CORPUS [--packages p1,p2] [--runs N] [--action 0|1]

Every module of the corpus (or of the packages) is compiled as an
InliningEnv episode compiles it: clang-19 -cc1 with its stored arguments
and the plugin in interactive mode, every decision answered with --action
(1: inline, like `mlgo serve --policy always`). Per host, the best of N
runs of the whole set; the rate is decisions / wall seconds, the compiler
included, as a training loop sees it:

  * mlgo serve: the wall time of each `mlgo serve --policy always -- CMD`
    process (its start-up, ~25 ms, included);
  * python host: the same for `python3 bench/python_host.py -- CMD`;
  * InliningEnv: from reset() to the terminal step(), in process; the -Oz
    baselines the reward needs are compiled before timing (an environment
    compiles each module's once), the object's code measure after each
    episode is timed.

Host-side time, the hosts' own cost per decision without the compiler's,
is printed too: mlgo serve's "(host H s)", python_host.py's "host=H", and
InliningEnv's info["host_seconds"] (which counts the caller's Python
between steps, since the compiler waits for it).

All three must count the same decisions per module, or the script fails.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import mlgo

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def wall(argv):
    start = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"python_env_throughput: {argv[0]} failed:\n{r.stderr}")
    return elapsed, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--packages", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--action", type=int, default=1, choices=(0, 1))
    args = ap.parse_args()
    corpus = mlgo.Corpus(args.corpus, packages=args.packages.split(",")
                         if args.packages else None)
    env = mlgo.InliningEnv(corpus)
    mlgo_bin = mlgo.mlgo_program()
    policy = "always" if args.action else "never"
    modules = list(corpus)
    for m in modules:
        env.baseline(m)

    results = {"mlgo serve": [], "python host": [], "InliningEnv": []}
    host = {k: [] for k in results}
    counts = {}
    for _ in range(args.runs):
        totals = {k: 0.0 for k in results}
        host_totals = {k: 0.0 for k in results}
        for m in modules:
            cmd = env.episode_command(m)
            t, err = wall([mlgo_bin, "serve", "--policy", policy, "--"] + cmd)
            n = int(re.search(r"mlgo serve: (\d+) decision", err).group(1))
            totals["mlgo serve"] += t
            host_totals["mlgo serve"] += float(
                re.search(r"\(host ([0-9.]+)s\)", err).group(1))
            t, err = wall([sys.executable,
                           os.path.join(ROOT, "bench/python_host.py"),
                           "--advice", str(args.action), "--"] + cmd)
            pn = int(re.search(r"decisions=(\d+)", err).group(1))
            totals["python host"] += t
            host_totals["python host"] += float(
                re.search(r"host=([0-9.]+)", err).group(1))
            start = time.perf_counter()
            en = 0
            try:
                env.reset(options={"module": m.name})
                while True:
                    en += 1
                    _, _, done, _, info = env.step(args.action)
                    if done:
                        host_totals["InliningEnv"] += info["host_seconds"]
                        break
            except ValueError:
                en = 0  # the inliner asks nothing in this module
            totals["InliningEnv"] += time.perf_counter() - start
            if len({n, pn, en}) != 1:
                sys.exit(f"python_env_throughput: {m.name}: the hosts "
                         f"disagree: mlgo serve {n}, python host {pn}, "
                         f"InliningEnv {en} decisions")
            counts[m.name] = n
        for k in results:
            results[k].append(totals[k])
            host[k].append(host_totals[k])
    env.close()
    decisions = sum(counts.values())
    print(f"input: {args.corpus}"
          f"{' (' + args.packages + ')' if args.packages else ''}, "
          f"{len(modules)} modules, {decisions} decisions (action "
          f"{args.action}), best of {args.runs} runs")
    print(f"{'host':<14}{'seconds':>10}{'decisions/s':>14}"
          f"{'vs mlgo serve':>16}{'host s':>10}{'host-side decisions/s':>24}")
    cpp = min(results["mlgo serve"])
    for k, v in results.items():
        best, h = min(v), min(host[k])
        print(f"{k:<14}{best:>10.3f}{decisions / best:>14.1f}"
              f"{cpp / best:>15.2f}x{h:>10.4f}{decisions / max(h, 1e-9):>24.0f}")
    print("(host s: time in the host, not waiting for the compiler; for "
          "InliningEnv this includes the Python that calls step())")


if __name__ == "__main__":
    main()
