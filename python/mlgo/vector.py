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

A worker that ends an episode in step() starts the next one at once (the
module dealt as that episode's end is received, in the environments'
order, as VectorInliningEnv deals it): its reset - the stock compile of a
new module, the compile up to the first decision - runs while this
process still waits for the other workers and while the caller computes
its next actions.

step() still waits for every worker: a vector step takes as long as its
slowest environment, and an inlining episode's steps are anything but
even (the last one runs the rest of the pipeline and the code generator,
a reset the front of it), so in lockstep one worker's long step idles
the other's compiler. The pipeline interface lets each worker advance on
its own instead, as EnvPool's asynchronous mode does:

    venv.async_reset(seed=1)
    while training:
        obs, rewards, terms, truncs, info = venv.recv()   # ready ones
        venv.send(policy(obs), info["env_id"])

recv() returns the environments whose answer came (at least one; their
indices in info["env_id"]), send() gives those (or any that have none
pending) their actions. Autoreset is next-step as in step(), but done in
the worker: as soon as an episode ends, its worker starts its next one,
and the action sent after the last step only fetches that episode's first
observation. Each worker plays its own seeded order of the corpus's
modules (an InliningEnv seeded from the vector seed), so for a seed every
environment's episodes, observations and rewards depend only on the
actions it was sent, not on which worker answered first. Two workers may
play one module at once.

A worker that dies is an EnvError naming it; an exception in a worker
(an EnvError, a ValueError for a bad action) is raised again here.

Messages are pickled tuples on a multiprocessing Pipe (send_bytes and
recv_bytes: no ForkingPickler, which only adds what these messages never
hold). A dict observation travels as the packed record the compiler sent
(its bytes) and the extra observations beside it, and is unpacked into
the same arrays here: pickling 44 one-element arrays one by one cost
more than everything else of a step's message.
"""
import multiprocessing
import pickle
import select

import numpy as np

from .data import Corpus
from .envs import (EnvError, InliningEnv, _NoDecisions, _VectorEnv,
                   _vector_info, stack)


def _put(conn, msg):
    conn.send_bytes(pickle.dumps(msg, pickle.HIGHEST_PROTOCOL))


def _get(conn):
    return pickle.loads(conn.recv_bytes())


def _packed(env, out):
    """An answer (obs, ...) with a dict observation replaced by (the
    record's bytes, {extra name: array}); _unpack() undoes it."""
    obs = out[0]
    if not isinstance(obs, dict) or obs is not env._obs:
        return out
    extra = {s.name: obs[s.name] for s in env._extra}
    return ((env._raw.tobytes(), extra),) + tuple(out[1:])


def _unpack(obs, dtype):
    """The observation dict of a _packed() answer's first value: the
    record's fields (read-only views of its bytes, as InliningEnv's own)
    then the extra observations, in the environment's order."""
    if not isinstance(obs, tuple):
        return obs
    raw, extra = obs
    rec = np.frombuffer(raw, dtype=dtype)[0]
    values = {n: rec[n] for n in dtype.names}
    values.update(extra)
    return values


def _work(conn, corpus_args, kwargs):
    """A worker's loop: ('reset', options) -> (obs, info); ('step', action)
    -> (obs, reward, terminated, truncated, info); ('pipeline', seed)
    starts the pipeline (the env reset with that seed; every answer then
    a step's five values, and an episode's end followed at once by the
    next episode's reset, whose first observation answers the next
    'step'); ('close',) ends it. Answers are ('ok', value) or ('error',
    exception)."""
    env = None
    try:
        try:
            env = InliningEnv(Corpus(*corpus_args), **kwargs)
            _put(conn, ("ok", None))
        except Exception as e:  # noqa: BLE001 - reported to the parent
            _put(conn, ("error", e))
            return
        pipeline = False
        held = None  # pipeline: the answer of the next episode's reset
        while True:
            try:
                msg = _get(conn)
            except EOFError:
                return
            if msg[0] == "close":
                return
            ended = False
            try:
                if msg[0] == "reset":
                    pipeline, held = False, None
                    out = env.reset(options=msg[1])
                elif msg[0] == "pipeline":
                    pipeline, held = True, None
                    obs, info = env.reset(seed=msg[1])
                    out = (obs, 0.0, False, False, info)
                elif held is not None:
                    _put(conn, held)
                    held = None
                    continue
                else:
                    out = env.step(msg[1])
                    ended = out[2] or out[3]
                _put(conn, ("ok", _packed(env, out)))
            except Exception as e:  # noqa: BLE001 - reported to the parent
                _put(conn, ("error", e))
                continue
            if pipeline and ended:
                try:
                    obs, info = env.reset()
                    held = ("ok", _packed(env, (obs, 0.0, False, False,
                                                info)))
                except Exception as e:  # noqa: BLE001 - at the next step
                    held = ("error", e)
    finally:
        if env is not None:
            env.close()
        conn.close()


class _Worker:
    """One InliningEnv in a worker process, with the surface _VectorEnv
    drives (reset, _send, _collect, action_masks, close)."""

    def __init__(self, ctx, index, corpus_args, kwargs, dtype):
        self.index = index
        # The observation record's dtype (_unpack()).
        self._dtype = dtype
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_work, args=(child, corpus_args,
                                                    kwargs), daemon=True)
        self.proc.start()
        child.close()
        self.receive()

    def __str__(self):
        return f"AsyncVectorInliningEnv worker {self.index}"

    def send(self, *msg):
        _put(self.conn, msg)

    def receive(self):
        try:
            kind, value = _get(self.conn)
        except (EOFError, OSError):
            self.proc.join(1)
            raise EnvError(f"{self} (pid {self.proc.pid}) died (exit code "
                           f"{self.proc.exitcode})") from None
        if kind == "error":
            raise value
        if value is None:
            return value
        return (_unpack(value[0], self._dtype),) + tuple(value[1:])

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
            dtype = probe._dtype
        self.corpus = corpus
        ctx = multiprocessing.get_context("spawn")
        args = (corpus.path, None, [m.name for m in corpus])
        workers = []
        try:
            for i in range(num_envs):
                workers.append(_Worker(ctx, i, args, kwargs, dtype))
                workers[-1].observation_space, workers[-1].action_space = \
                    spaces
        except BaseException:
            for w in workers:
                w.close()
            raise
        _VectorEnv.__init__(self, workers, seed)
        self._pending = None
        # Resets started as the last step's episodes ended: {env: options}.
        self._started = {}
        # Each environment's episode as this process saw it (state()).
        self._episodes_seen = [None] * num_envs
        # The pipeline: the environments whose answer is awaited, or None
        # outside it.
        self._awaited = None

    def __str__(self):
        return "AsyncVectorInliningEnv"

    def _episodes(self):
        return [{"module": m.name} for m in self.corpus]

    def _episode_of(self, i):
        module, actions = self._episodes_seen[i]
        return module, list(actions)

    def _replay_one(self, i, options):
        self._leave_pipeline()
        out = self.envs[i].reset(options=options)
        self._episodes_seen[i] = (options["module"],
                                  list(options.get("actions", [])))
        return out

    def _start_reset(self, i):
        opts = self._next()
        self.envs[i].send("reset", opts)
        return opts

    def _finish_reset(self, i, opts):
        while True:
            try:
                obs, info = self.envs[i].receive()
                self._episodes_seen[i] = (info["module"], [])
                return obs, info
            except _NoDecisions:
                # As VectorInliningEnv: never dealt again.
                self._dead.add(repr(sorted(opts.items())))
                opts = self._start_reset(i)

    def _drain(self):
        """Reads every answer still owed (started resets, the pipeline's
        pending steps), so that each worker waits for its next order."""
        owed = list(self._started)
        if self._awaited is not None:
            owed += list(self._awaited)
        self._started = {}
        self._awaited = None
        for i in owed:
            try:
                self.envs[i].receive()
            except Exception:  # noqa: BLE001 - what was owed is dropped
                pass

    def _leave_pipeline(self):
        if self._pending is not None:
            raise ValueError(f"{self}: reset() while step_async() waits "
                             f"for step_wait()")
        self._drain()

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (list, tuple)):
            seed = seed[0]
        if options:
            raise ValueError(f"{self}: reset takes no options (episodes are "
                             f"dealt from the seeded order)")
        self._leave_pipeline()
        if seed is not None:
            from .envs import _new_rng
            self._np_random, self._np_random_seed = _new_rng(seed)
            self._order = []
        starts = [self._start_reset(i) for i in range(self.num_envs)]
        obs, infos = zip(*[self._finish_reset(i, o)
                           for i, o in enumerate(starts)])
        self._autoreset[:] = False
        return stack(list(obs)), _vector_info(infos, self.num_envs)

    def step_async(self, actions):
        """Sends every worker its action (a worker whose episode ended at
        the last step is already starting its next one); step_wait()
        collects."""
        if self._pending is not None:
            raise ValueError(f"{self}: step_async() twice without "
                             f"step_wait()")
        if self._awaited is not None:
            raise ValueError(f"{self}: step() while the pipeline runs "
                             f"(async_reset()); reset() first")
        actions = np.asarray(actions).reshape(self.num_envs)
        pending = []
        for i, (env, a) in enumerate(zip(self.envs, actions)):
            if self._autoreset[i]:
                opts = self._started.pop(i, None)
                if opts is None:
                    opts = self._start_reset(i)
                pending.append(("reset", opts))
            else:
                env._send(a)
                self._episodes_seen[i][1].append(int(a))
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
            self._autoreset[i] = term or trunc
            if term or trunc:
                # Its next episode, dealt now in the order of the
                # environments as VectorInliningEnv deals it, starts at
                # once.
                self._started[i] = self._start_reset(i)
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
            infos.append(info)
        if error is not None:
            raise error
        terms, truncs = np.array(terms), np.array(truncs)
        return (stack(obs), np.array(rewards, dtype=np.float64), terms,
                truncs, _vector_info(infos, self.num_envs))

    def step(self, actions):
        self.step_async(actions)
        return self.step_wait()

    # The pipeline (the module's documentation).

    def async_reset(self, seed=None):
        """Starts the pipeline: every worker resets its environment with a
        seed of its own, drawn from the vector's generator (seeded by
        `seed` when given); recv() returns their first observations."""
        self._leave_pipeline()
        if seed is not None:
            from .envs import _new_rng
            self._np_random, self._np_random_seed = _new_rng(seed)
            self._order = []
        seeds = self.np_random.integers(0, 2**31 - 1, size=self.num_envs)
        for w, s in zip(self.envs, seeds):
            w.send("pipeline", int(s))
        self._awaited = set(range(self.num_envs))
        self._autoreset[:] = False

    def recv(self):
        """(obs, rewards, terminated, truncated, info) of the environments
        whose answer came, at least one, in the order of their indices,
        which info['env_id'] holds. Waits for the first answer only."""
        if not self._awaited:
            raise ValueError(f"{self}: recv() with no answer awaited "
                             f"(async_reset(), then send() after each "
                             f"recv())")
        ids = self._ready()
        obs, rewards, terms, truncs, infos = [], [], [], [], []
        error = None
        for i in ids:
            self._awaited.discard(i)
            try:
                o, r, term, trunc, info = self.envs[i].receive()
            except Exception as e:  # noqa: BLE001 - after every answer
                error = error or e
                continue
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
            infos.append(info)
        if error is not None:
            raise error
        info = _vector_info(infos, len(ids))
        info["env_id"] = np.array(ids, dtype=np.int64)
        return (stack(obs), np.array(rewards, dtype=np.float64),
                np.array(terms), np.array(truncs), info)

    def _ready(self):
        """The awaited environments with an answer to read (or whose worker
        died), in order; blocks until there is one."""
        if len(self._awaited) == 1:
            return list(self._awaited)
        fds = {self.envs[i].conn.fileno(): i for i in self._awaited}
        poller = select.poll()
        for fd in fds:
            poller.register(fd, select.POLLIN)
        return sorted(fds[fd] for fd, _ in poller.poll())

    def send(self, actions, env_ids):
        """Sends each of `env_ids` its action (after an episode's end, the
        action is ignored: that environment's next episode has begun)."""
        if self._awaited is None:
            raise ValueError(f"{self}: send() before async_reset()")
        env_ids = np.asarray(env_ids, dtype=np.int64).reshape(-1)
        actions = np.asarray(actions).reshape(len(env_ids))
        for i in env_ids:
            if not 0 <= i < self.num_envs:
                raise ValueError(f"{self}: send(): no environment {i} (of "
                                 f"{self.num_envs})")
            if i in self._awaited:
                raise ValueError(f"{self}: send(): environment {i} has an "
                                 f"answer pending; recv() it first")
        for i, a in zip(env_ids, actions):
            self.envs[i].send("step", a)
            self._awaited.add(int(i))

    def close_extras(self, **kwargs):
        self._awaited = None
        self._started = {}
        super().close_extras(**kwargs)
