#!/usr/bin/env python3
"""Why lockstep vector environments scale badly: the time of each call of
one InliningEnv, by kind, and what two such environments stepped in
lockstep would make of it.

    PYTHONPATH=build/python /usr/bin/python3 \\
        bench/python_step_trace.py CORPUS [--packages zlib] [--episodes 34]

One environment, seed 1, every decision 1 (inline), after every module's
baseline was compiled once. Each reset() and step() is timed and sorted
into: reset (the compile up to the first decision), middle step (the
compile to the next decision), last step (the rest of the pipeline, the
code generator, the object's measure). Printed: the CPU per episode of
the Python thread, of the process's other threads (the C++ host thread
behind each episode) and of the compilers; per kind of call its count,
mean, median and share of the time.

Then the lockstep model: two workers each playing this trace, the second
rotated to a random episode boundary (200 draws, seed 0), a vector step
taking the longer of the two calls. The 2-worker speed-up over one
worker is twice the trace's time over the sum of those maxima; a worker
that advances on its own (AsyncVectorInliningEnv's pipeline) is bounded
by 2 instead. Wall time: on a loaded machine every call is slower, but
the proportions between kinds, which decide the model, hold.
"""
import argparse
import resource
import time

import numpy as np

import mlgo
from mlgo.envs import _NoDecisions


def trace(corpus, episodes):
    env = mlgo.InliningEnv(corpus, seed=1)
    try:
        for m in corpus:
            try:
                env.reset(options={"module": m.name})
            except _NoDecisions:
                pass
        times, kinds = [], []

        def timed(kind, call, *args):
            t = time.perf_counter()
            out = call(*args)
            times.append(time.perf_counter() - t)
            kinds.append(kind)
            return out

        cpu = cpu_now()
        timed("reset", lambda: env.reset(seed=1))
        done = 0
        while done < episodes:
            t = time.perf_counter()
            _, _, term, trunc, _ = env.step(1)
            times.append(time.perf_counter() - t)
            kinds.append("last" if term or trunc else "middle")
            if term or trunc:
                done += 1
                if done < episodes:
                    timed("reset", env.reset)
        cpu = cpu_now() - cpu
    finally:
        env.close()
    return np.array(times), np.array(kinds), cpu


def cpu_now():
    """CPU seconds so far: (this Python thread, the whole process, the
    compilers reaped)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return np.array([time.thread_time(), own.ru_utime + own.ru_stime,
                     kids.ru_utime + kids.ru_stime])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--packages", default=None)
    ap.add_argument("--episodes", type=int, default=34)
    args = ap.parse_args()
    corpus = mlgo.Corpus(args.corpus, packages=args.packages.split(",")
                         if args.packages else None)
    times, kinds, cpu = trace(corpus, args.episodes)
    n = args.episodes
    print(f"CPU per episode: the Python thread {1e3 * cpu[0] / n:.1f} ms, "
          f"the process's other threads (mlgo's C++ host of each episode) "
          f"{1e3 * (cpu[1] - cpu[0]) / n:.1f} ms, the compilers "
          f"{1e3 * cpu[2] / n:.1f} ms; host/compilers "
          f"{100 * cpu[1] / cpu[2]:.2f}%")
    total = times.sum()
    for kind in ("reset", "middle", "last"):
        x = times[kinds == kind]
        print(f"{kind}: {len(x)} calls, mean {1e3 * x.mean():.1f} ms, "
              f"median {1e3 * np.median(x):.1f} ms, "
              f"{100 * x.sum() / total:.1f}% of the time")
    starts = np.flatnonzero(kinds == "reset")
    rng = np.random.default_rng(0)
    ups = []
    for _ in range(200):
        other = np.roll(times, -int(starts[rng.integers(len(starts))]))
        ups.append(2 * total / np.maximum(times, other).sum())
    print(f"lockstep model, 2 workers over 1: mean {np.mean(ups):.3f} "
          f"(min {np.min(ups):.3f}, max {np.max(ups):.3f}); a worker "
          f"advancing on its own: at most 2")


if __name__ == "__main__":
    main()
