"""AsyncVectorInliningEnv: VectorInliningEnv with each environment in a
worker process of its own, so that everything an episode does - its
compile, the stock compile its reward needs, decoding observations, the
object's measure - runs in parallel with the other environments', not
only the compilers between two steps.

VectorInliningEnv (mlgo.envs) already lets its N compilers run at once,
but everything else happens in the one Python process, one environment
after another: above all a new episode's reset, which compiles the
module with stock clang (the baseline, once per module) and waits for the
first observation, while the other environments wait. Here each
environment is an InliningEnv in a worker (multiprocessing, "spawn": the
parent's host threads are never forked), driven over a pipe; step() sends
every worker its action, or its next episode's reset, before it waits for
any.

The interface and the results are VectorInliningEnv's (gymnasium 1.x's
VectorEnv, next-step autoreset, infos as dicts of arrays with '_key'
masks): episodes are dealt by this process from the same seeded order, so
for a seed the modules, observations and rewards are those of
VectorInliningEnv with that seed. step_async()/step_wait() split step() as
gymnasium's AsyncVectorEnv does.

A worker that dies is an EnvError naming it; an exception in a worker
(an EnvError, a ValueError for a bad action) is raised again here.
"""
import multiprocessing

import numpy as np

from .data import Corpus
from .envs import (EnvError, InliningEnv, _NoDecisions, _VectorEnv,
                   _vector_info, stack)


def _work(conn, corpus_args, kwargs):
    """A worker's loop: ('reset', options) -> (obs, info); ('step', action)
    -> (obs, reward, terminated, truncated, info); ('close',) ends it.
    Answers are ('ok', value) or ('error', exception)."""
    env = None
    try:
        try:
            env = InliningEnv(Corpus(*corpus_args), **kwargs)
            conn.send(("ok", None))
        except Exception as e:  # noqa: BLE001 - reported to the parent
            conn.send(("error", e))
            return
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                return
            if msg[0] == "close":
                return
            try:
                if msg[0] == "reset":
                    out = env.reset(options=msg[1])
                else:
                    out = env.step(msg[1])
                conn.send(("ok", out))
            except Exception as e:  # noqa: BLE001 - reported to the parent
                conn.send(("error", e))
    finally:
        if env is not None:
            env.close()
        conn.close()


class _Worker:
    """One InliningEnv in a worker process, with the surface _VectorEnv
    drives (reset, _send, _collect, action_masks, close)."""

    def __init__(self, ctx, index, corpus_args, kwargs):
        self.index = index
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_work, args=(child, corpus_args,
                                                    kwargs), daemon=True)
        self.proc.start()
        child.close()
        self.receive()

    def __str__(self):
        return f"AsyncVectorInliningEnv worker {self.index}"

    def send(self, *msg):
        self.conn.send(msg)

    def receive(self):
        try:
            kind, value = self.conn.recv()
        except (EOFError, OSError):
            self.proc.join(1)
            raise EnvError(f"{self} (pid {self.proc.pid}) died (exit code "
                           f"{self.proc.exitcode})") from None
        if kind == "error":
            raise value
        return value

    def reset(self, options=None):
        self.send("reset", options)
        return self.receive()

    def _send(self, action):
        self.send("step", action)

    def _collect(self):
        return self.receive()

    def action_masks(self):
        return np.ones(2, dtype=bool)

    def close(self):
        if self.proc is None:
            return
        try:
            self.send("close")
        except (OSError, ValueError):
            pass
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        self.proc = None


class AsyncVectorInliningEnv(_VectorEnv):
    """num_envs InliningEnvs, each in a worker process (see the module's
    documentation); the arguments are VectorInliningEnv's."""

    def __init__(self, corpus, num_envs=2, seed=None, **kwargs):
        packages = kwargs.pop("packages", None)
        modules = kwargs.pop("modules", None)
        if not isinstance(corpus, Corpus):
            corpus = Corpus(corpus, packages=packages, modules=modules)
        # The spaces, from a local environment (it compiles nothing); its
        # checks of the arguments fail here, before any worker starts.
        with InliningEnv(corpus, **kwargs) as probe:
            spaces = (probe.observation_space, probe.action_space)
        self.corpus = corpus
        ctx = multiprocessing.get_context("spawn")
        args = (corpus.path, None, [m.name for m in corpus])
        workers = []
        try:
            for i in range(num_envs):
                workers.append(_Worker(ctx, i, args, kwargs))
                workers[-1].observation_space, workers[-1].action_space = \
                    spaces
        except BaseException:
            for w in workers:
                w.close()
            raise
        _VectorEnv.__init__(self, workers, seed)
        self._pending = None

    def __str__(self):
        return "AsyncVectorInliningEnv"

    def _episodes(self):
        return [{"module": m.name} for m in self.corpus]

    def _start_reset(self, i):
        opts = self._next()
        self.envs[i].send("reset", opts)
        return opts

    def _finish_reset(self, i, opts):
        while True:
            try:
                return self.envs[i].receive()
            except _NoDecisions:
                # As VectorInliningEnv: never dealt again.
                self._dead.add(repr(sorted(opts.items())))
                opts = self._start_reset(i)

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (list, tuple)):
            seed = seed[0]
        if seed is not None:
            from .envs import _new_rng
            self._np_random, self._np_random_seed = _new_rng(seed)
            self._order = []
        if options:
            raise ValueError(f"{self}: reset takes no options (episodes are "
                             f"dealt from the seeded order)")
        if self._pending is not None:
            raise ValueError(f"{self}: reset() while step_async() waits "
                             f"for step_wait()")
        starts = [self._start_reset(i) for i in range(self.num_envs)]
        obs, infos = zip(*[self._finish_reset(i, o)
                           for i, o in enumerate(starts)])
        self._autoreset[:] = False
        return stack(list(obs)), _vector_info(infos, self.num_envs)

    def step_async(self, actions):
        """Sends every worker its action (or, after an episode's end, its
        next episode's reset); step_wait() collects."""
        if self._pending is not None:
            raise ValueError(f"{self}: step_async() twice without "
                             f"step_wait()")
        actions = np.asarray(actions).reshape(self.num_envs)
        pending = []
        for i, (env, a) in enumerate(zip(self.envs, actions)):
            if self._autoreset[i]:
                pending.append(("reset", self._start_reset(i)))
            else:
                env._send(a)
                pending.append(("step", None))
        self._pending = pending

    def step_wait(self):
        if self._pending is None:
            raise ValueError(f"{self}: step_wait() without step_async()")
        pending, self._pending = self._pending, None
        obs, rewards, terms, truncs, infos = [], [], [], [], []
        error = None
        for i, (kind, opts) in enumerate(pending):
            try:
                if kind == "reset":
                    o, info = self._finish_reset(i, opts)
                    r, term, trunc = 0.0, False, False
                else:
                    o, r, term, trunc, info = self.envs[i]._collect()
            except Exception as e:  # noqa: BLE001 - after every worker
                # answered, so that none is left with an unread answer.
                error = error or e
                continue
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
            infos.append(info)
        if error is not None:
            raise error
        terms, truncs = np.array(terms), np.array(truncs)
        self._autoreset = terms | truncs
        return (stack(obs), np.array(rewards, dtype=np.float64), terms,
                truncs, _vector_info(infos, self.num_envs))

    def step(self, actions):
        self.step_async(actions)
        return self.step_wait()
