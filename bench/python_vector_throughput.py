#!/usr/bin/env python3
"""Episodes per second of the inlining vector environments.

    PYTHONPATH=build/python python3 bench/python_vector_throughput.py \
        CORPUS [EPISODES]

Plays EPISODES whole episodes (default 30), every decision 1, with
VectorInliningEnv and AsyncVectorInliningEnv on 1 and 2 environments
(seed 1), and prints one line per run: the class, the environments, the
episodes finished, the wall seconds and episodes per second. Every stock
compile (the reward's baseline) is part of the time: each run starts with
fresh environments.
"""
import sys
import time

import numpy as np

import mlgo


def run(cls, corpus, n, episodes):
    with cls(corpus, num_envs=n) as venv:
        start = time.perf_counter()
        venv.reset(seed=1)
        done = 0
        while done < episodes:
            _, _, term, _, _ = venv.step(np.ones(n, np.int64))
            done += int(term.sum())
        return done, time.perf_counter() - start


def main():
    corpus = sys.argv[1]
    episodes = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for cls in (mlgo.VectorInliningEnv, mlgo.AsyncVectorInliningEnv):
        for n in (1, 2):
            done, secs = run(cls, corpus, n, episodes)
            print(f"{cls.__name__} num_envs={n}: {done} episodes in "
                  f"{secs:.2f} s: {done / secs:.2f} episodes/s", flush=True)


if __name__ == "__main__":
    main()
