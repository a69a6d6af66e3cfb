#!/usr/bin/env python3
"""Episodes per second of the inlining vector environments on 1 and 2
workers, their ratio, and the Python side's share of the compiles' time:
issue #68's throughput targets in one command.

    PYTHONPATH=build/python /usr/bin/python3 \\
        bench/python_vector_throughput.py CORPUS [--packages zlib] \\
        [--episodes 34] [--classes async,sync]

Per class (AsyncVectorInliningEnv: each environment in a worker process;
VectorInliningEnv: one process, the compilers in parallel) and per number
of environments (1, 2): fresh environments, seed 1, every decision 1
(inline), EPISODES whole episodes timed from the first reset. Before the
timing every environment compiles every module's stock baseline (the
reward's) and learns which modules ask no decision, once: a training run
pays that once per module and worker, so the rate it lives with is the
one after it. Printed per run: episodes, wall seconds, episodes per
second, CPU seconds (user + sys) of this process, the workers and the
compilers over the timed episodes, and the host share: the sum over the timed
episodes of info['host_seconds'] (the part of each compile in which the
compiler waited for the Python side: decoding, the caller's loop, pipes)
over the sum of info['elapsed_seconds'] (the compiles).

Then the targets (issue #68): 2 workers' rate over 1 worker's, against
1.6 (at least 0.8 N x one worker's rate for N = 2), and the Python-side
overhead, the host share of the 1-worker run, against 5%. With 2 workers
in lockstep (a vector step waits for both), a compiler also waits for the
other worker's step, so their host share is not overhead.

The ratio means something on an idle machine only: the load averages
before and after are printed with it. Wall time, not CPU time, is what
the ratio is about.
"""
import argparse
import os
import resource
import time

import numpy as np

import mlgo
from mlgo.envs import _NoDecisions

CLASSES = {"async": mlgo.AsyncVectorInliningEnv,
           "sync": mlgo.VectorInliningEnv}


def cpu_seconds(venv):
    """User + sys seconds so far of this process, of the compilers it
    reaped, and of the worker processes with the compilers they reaped
    (from /proc: the workers are alive until close)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    if isinstance(venv, mlgo.AsyncVectorInliningEnv):
        tick = os.sysconf("SC_CLK_TCK")
        for w in venv.envs:
            with open(f"/proc/{w.proc.pid}/stat") as f:
                stat = f.read()
            # utime, stime, cutime, cstime: fields 14-17, after the name.
            fields = stat[stat.rfind(")") + 2:].split()
            total += sum(int(x) for x in fields[11:15]) / tick
    return total


def warm(venv, corpus):
    """Every environment compiles every module's baseline and finds the
    modules without decisions, each worker in parallel with the others."""
    if isinstance(venv, mlgo.VectorInliningEnv):
        # The environments of one process share their baselines.
        for m in corpus:
            try:
                venv.envs[0].reset(options={"module": m.name})
            except _NoDecisions:
                pass
        return
    for m in corpus:
        for w in venv.envs:
            w.send("reset", {"module": m.name})
        for w in venv.envs:
            try:
                w.receive()
            except _NoDecisions:
                pass


def run(cls, corpus, n, episodes):
    """(episodes, wall seconds, CPU seconds, host seconds, compile
    seconds) of `episodes` timed episodes on `n` environments."""
    venv = cls(corpus, num_envs=n)
    try:
        warm(venv, corpus)
        cpu = cpu_seconds(venv)
        start = time.perf_counter()
        venv.reset(seed=1)
        done, host, elapsed = 0, 0.0, 0.0
        while done < episodes:
            _, _, term, _, info = venv.step(np.ones(n, np.int64))
            for i in np.flatnonzero(term):
                host += float(info["host_seconds"][i])
                elapsed += float(info["elapsed_seconds"][i])
            done += int(term.sum())
        wall = time.perf_counter() - start
        cpu = cpu_seconds(venv) - cpu
    finally:
        venv.close()
    return done, wall, cpu, host, elapsed


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--packages", default=None,
                    help="comma-separated packages of the corpus")
    ap.add_argument("--episodes", type=int, default=34,
                    help="timed episodes per run (default 34: twice "
                         "zlib's 17 modules)")
    ap.add_argument("--classes", default="async,sync",
                    help="async, sync or both (default); the targets are "
                         "the first one's")
    args = ap.parse_args()
    corpus = mlgo.Corpus(args.corpus, packages=args.packages.split(",")
                         if args.packages else None)
    classes = [CLASSES[c] for c in args.classes.split(",")]
    print(f"corpus: {corpus.path} ({', '.join(corpus.packages)}: "
          f"{len(corpus)} modules); {os.cpu_count()} cores; load average "
          f"{load()} before", flush=True)
    rates, shares = {}, {}
    for cls in classes:
        for n in (1, 2):
            done, wall, cpu, host, elapsed = run(cls, corpus, n,
                                                 args.episodes)
            rates[cls, n] = done / wall
            shares[cls, n] = host / elapsed if elapsed else 0.0
            print(f"{cls.__name__} num_envs={n}: {done} episodes in "
                  f"{wall:.2f} s: {done / wall:.3f} episodes/s; CPU "
                  f"{cpu:.2f} s; host {100 * shares[cls, n]:.2f}% of "
                  f"{elapsed:.2f} s of compiles", flush=True)
    cls = classes[0]
    ratio = rates[cls, 2] / rates[cls, 1]
    print(f"scaling ({cls.__name__}): 2 workers {rates[cls, 2]:.3f} "
          f"episodes/s / 1 worker {rates[cls, 1]:.3f} = {ratio:.3f} "
          f"(target >= 1.6: 0.8 x 2) {'met' if ratio >= 1.6 else 'NOT met'}")
    overhead = shares[cls, 1]
    print(f"Python-side overhead ({cls.__name__}, 1 worker): "
          f"{100 * overhead:.2f}% of the compiles' time (target < 5%) "
          f"{'met' if overhead < 0.05 else 'NOT met'}")
    print(f"load average {load()} after")


if __name__ == "__main__":
    main()
