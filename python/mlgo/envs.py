"""Environments in the gymnasium API shape, over stock clang-19 and mlgo's
plugin in interactive mode (docs/python.md, docs/protocol.md).

No gymnasium is needed: the classes have reset(seed=, options=) -> (obs,
info), step(action) -> (obs, reward, terminated, truncated, info), close(),
action_space and observation_space, and wrap into gymnasium.Env unchanged
if a researcher has it.

Each episode is one real compile: `clang-19 -cc1 <the module's stored
arguments> -x ir M.bc` with mlgo-plugin.so loaded and
-mlgo-interactive-channel-base, served by mlgo's own protocol host
(mlgo::serveCommand, on a thread of the extension module) - so a compiler
that dies, stalls or breaks the stream is a RuntimeError naming the module,
never a hang, and the channel files are always removed.
"""
import os
import tempfile

import numpy as np

from . import _core, _paths
from .data import Corpus, TensorSpec, code_size, record_dtype


class Discrete:
    """gymnasium.spaces.Discrete's shape: the actions 0 .. n-1."""

    def __init__(self, n, seed=None):
        self.n = n
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)

    def sample(self, mask=None):
        if mask is None:
            return int(self.np_random.integers(self.n))
        allowed = np.flatnonzero(np.asarray(mask))
        if len(allowed) == 0:
            return self.n - 1
        return int(self.np_random.choice(allowed))

    def contains(self, x):
        try:
            return int(x) == x and 0 <= int(x) < self.n
        except (TypeError, ValueError):
            return False

    def __repr__(self):
        return f"Discrete({self.n})"


class EnvError(RuntimeError):
    """A compile of an episode failed: the compiler's exit status or signal,
    a stall, a malformed stream. The message names the module."""


def _as_action(env, action, n):
    """An integer action in 0 .. n-1, or a ValueError naming the module."""
    a = action
    if isinstance(a, np.ndarray):
        if a.size != 1:
            raise ValueError(f"{env}: {env._where()}: expected one action, "
                             f"got an array of shape {a.shape}")
        a = a.reshape(-1)[0]
    if isinstance(a, (bool, np.bool_)):
        a = int(a)
    if not isinstance(a, (int, np.integer)) or not 0 <= int(a) < n:
        raise ValueError(f"{env}: {env._where()}: invalid action {action!r}: "
                         f"expected an integer from 0 to {n - 1}")
    return int(a)


class _CompilerEpisodes:
    """What InliningEnv and EvictionEnv share: one compiler process per
    episode, stepped through a _core.Episode."""

    def __init__(self, timeout):
        self.timeout = int(timeout)
        self._episode = None
        self._tmp = tempfile.TemporaryDirectory(prefix="mlgo-env-")
        self._features = None
        self._dtype = None
        self._names = None

    def _start(self, command):
        self._stop()
        self._episode = _core.Episode(command, self.timeout)

    def _stop(self):
        if self._episode is not None:
            self._episode.close()
            self._episode = None

    def _wait(self):
        """'observation' or 'finished'; an EnvError when the compile
        failed."""
        state = self._episode.wait()
        if state == "failed":
            message = self._episode.error()
            self._stop()
            self._done = True
            raise EnvError(f"{self}: {self._where()}: {message}")
        return state

    def _observation(self):
        if self._features is None:
            self._features = [TensorSpec.from_json(s)
                              for s in self._episode.features()]
            self._dtype = record_dtype(self._features)
            self._names = [s.name for s in self._features]
        rec = np.frombuffer(self._episode.observation(), dtype=self._dtype)[0]
        return {n: rec[n] for n in self._names}

    def close(self):
        self._stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class InliningEnv(_CompilerEpisodes):
    """One episode per corpus module: the inliner's decisions, in the order
    it asks for them.

    observation: {feature name: numpy array}, LLVM 19's 38 inliner features
        as the compiler sends them (int64, shape (1,); plus
        'inlining_default', LLVM's own decision, with include_default=True)
        - read-only views of the received bytes;
    action: 1 to inline the call site, 0 not to;
    reward: 0 at every step but the last; at the end, the module's code
        (every executable section of its object, as `mlgo eval corpus`
        counts it) under stock clang at the same level minus under the
        episode's decisions, in bytes (reward='bytes', the default; positive
        is smaller) or as a fraction of the stock size (reward='relative');
    info: module, package, decision (its index), and at the end text_size,
        baseline_text_size, decisions, elapsed_seconds (the compile, from
        its start to its end) and host_seconds (the part of it not spent
        waiting for the compiler: this process's own time per episode).

    Modules in which the inliner asks nothing are skipped (they are listed
    in info['skipped'] of the next reset). Without options, reset() walks
    the modules in an order shuffled by the seed (np.random.default_rng);
    reset(options={'module': name}) compiles that one.
    """

    def __init__(self, corpus, modules=None, packages=None, opt_level="Oz",
                 reward="bytes", include_default=False, timeout=300,
                 clang="clang-19", plugin=None, seed=None):
        super().__init__(timeout)
        if opt_level not in ("Oz", "Os", "O2", "O3"):
            raise ValueError(f"InliningEnv: opt_level must be Oz, Os, O2 or "
                             f"O3, got {opt_level!r}")
        if reward not in ("bytes", "relative"):
            raise ValueError(f"InliningEnv: reward must be 'bytes' or "
                             f"'relative', got {reward!r}")
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus(
            corpus, packages=packages, modules=modules)
        if len(self.corpus) == 0:
            raise ValueError(f"InliningEnv: {self.corpus.path}: no modules")
        self.opt_level = opt_level
        self.reward_kind = reward
        self.include_default = include_default
        self.clang = clang
        self.plugin = plugin or _paths.plugin_path()
        self.action_space = Discrete(2)
        self.observation_space = None  # known after the first reset
        self._baselines = {}
        self._no_decisions = set()
        self._rng = np.random.default_rng(seed)
        self._order = []
        self._module = None
        self._obs = None
        self._decision = 0
        self._done = True

    def __str__(self):
        return "InliningEnv"

    def _where(self):
        return self._module.name if self._module else "(no module)"

    def _level_args(self):
        # The stored arguments say -Oz (or what the build used); a later -O
        # wins in cc1.
        return [] if self.opt_level == "Oz" else ["-" + self.opt_level]

    def _object(self, tag):
        return os.path.join(self._tmp.name, f"{tag}.o")

    def baseline(self, module):
        """The module's code under stock clang at this level (bytes),
        compiled once and kept."""
        if isinstance(module, str):
            module = self.corpus[module]
        key = module.name
        if key not in self._baselines:
            out = self._object("baseline")
            cmd = module.command(out, self._level_args(), self.clang)
            try:
                _core.run_compiler(cmd, self.timeout)
            except RuntimeError as e:
                raise EnvError(f"{self}: {module.name}: {e}") from None
            self._baselines[key] = code_size(out)[0]
        return self._baselines[key]

    def episode_command(self, module):
        """The compiler command of an episode ({channel}: the channel)."""
        p = self.plugin
        extra = self._level_args() + [
            "-load", p, "-fpass-plugin=" + p,
            "-mllvm", "-mlgo-interactive-channel-base={channel}"]
        if self.include_default:
            extra += ["-mllvm", "-mlgo-interactive-include-default"]
        return module.command(self._object("episode"), extra, self.clang)

    def _next_module(self):
        if not self._order:
            self._order = list(self._rng.permutation(len(self.corpus)))
        return self.corpus[int(self._order.pop(0))]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._order = []
            self.action_space.seed(seed)
        options = options or {}
        skipped = []
        tries = 0
        while True:
            if "module" in options:
                module = self.corpus[options["module"]]
            else:
                module = self._next_module()
                if module.name in self._no_decisions:
                    skipped.append(module.name)
                    tries += 1
                    if tries > len(self.corpus):
                        raise EnvError(f"{self}: {self.corpus.path}: the "
                                       f"inliner asks no decision in any "
                                       f"module")
                    continue
            self._module = module
            self._start(self.episode_command(module))
            state = self._wait()
            if state == "observation":
                break
            self._stop()
            self._no_decisions.add(module.name)
            if "module" in options:
                raise ValueError(f"{self}: {module.name}: the inliner asks "
                                 f"no decision in this module")
            skipped.append(module.name)
            tries += 1
            if tries > len(self.corpus):
                raise EnvError(f"{self}: {self.corpus.path}: the inliner "
                               f"asks no decision in any module")
        self._decision = 0
        self._done = False
        self._obs = self._observation()
        if self.observation_space is None:
            self.observation_space = {s.name: s for s in self._features}
        return self._obs, {"module": module.name, "package": module.package,
                           "decision": 0, "skipped": skipped}

    # step() in two halves, so that VectorInliningEnv can start every
    # compiler before it waits for any.
    def _send(self, action):
        if self._done:
            raise ValueError(f"{self}: {self._where()}: no episode in progress "
                             f"(it ended, or reset() was not called); call "
                             f"reset()")
        a = _as_action(self, action, 2)
        self._episode.act(np.int64(a).tobytes())

    def _collect(self):
        state = self._wait()
        self._decision += 1
        info = {"module": self._module.name,
                "package": self._module.package,
                "decision": self._decision}
        if state == "observation":
            self._obs = self._observation()
            return self._obs, 0.0, False, False, info
        self._done = True
        decisions = self._episode.decisions()
        elapsed, host = self._episode.elapsed(), self._episode.host_seconds()
        self._stop()
        size = code_size(self._object("episode"))[0]
        base = self.baseline(self._module)
        reward = float(base - size)
        if self.reward_kind == "relative":
            reward = reward / base if base else 0.0
        info.update(text_size=size, baseline_text_size=base,
                    decisions=decisions, elapsed_seconds=elapsed,
                    host_seconds=host)
        return self._obs, reward, True, False, info

    def step(self, action):
        self._send(action)
        return self._collect()


def stack(observations):
    """A list of observation dicts as one dict of (N, *shape) arrays."""
    names = observations[0].keys()
    return {n: np.stack([o[n] for o in observations]) for n in names}


class _VectorEnv:
    """num_envs environments stepped together, gymnasium's VectorEnv shape:
    every compiler gets its action before any is waited for (each is its
    own process), so the episodes run in parallel. Episodes are dealt from
    one seeded order, so no two environments play the same one at once,
    and reset automatically: an environment whose episode ended returns
    the next episode's first observation, with the last one in
    info['final_observation'][i] and its info in info['final_info'][i]
    (gymnasium 0.29's convention)."""

    def __init__(self, envs, seed):
        self.envs = envs
        self.num_envs = len(envs)
        self.action_space = envs[0].action_space
        self._rng = np.random.default_rng(seed)
        self._order = []
        self._dead = set()

    def _episodes(self):
        """The reset options of every episode (subclasses)."""
        raise NotImplementedError

    def _next(self):
        if not self._order:
            items = [o for o in self._episodes()
                     if repr(sorted(o.items())) not in self._dead]
            if not items:
                raise EnvError(f"{self}: no episode to play")
            self._order = [items[i]
                           for i in self._rng.permutation(len(items))]
        return self._order.pop(0)

    def _reset_one(self, i):
        while True:
            opts = self._next()
            try:
                return self.envs[i].reset(options=opts)
            except ValueError:
                # Nothing to decide there (a module without inlining
                # decisions): never dealt again.
                self._dead.add(repr(sorted(opts.items())))

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._order = []
        obs, infos = zip(*[self._reset_one(i) for i in range(self.num_envs)])
        return stack(list(obs)), self._stack_info(infos)

    @staticmethod
    def _stack_info(infos):
        keys = [k for k in infos[0] if k not in ("skipped",)]
        out = {}
        for k in keys:
            vals = [i.get(k) for i in infos]
            out[k] = np.stack(vals) if isinstance(vals[0], np.ndarray) \
                else np.array(vals)
        return out

    def step(self, actions):
        actions = np.asarray(actions).reshape(self.num_envs)
        for env, a in zip(self.envs, actions):
            env._send(a)
        obs, rewards, terms, truncs, infos = [], [], [], [], []
        final_obs = np.full(self.num_envs, None, dtype=object)
        final_info = np.full(self.num_envs, None, dtype=object)
        for i, env in enumerate(self.envs):
            o, r, term, trunc, info = env._collect()
            if term or trunc:
                final_obs[i], final_info[i] = o, info
                o, info = self._reset_one(i)
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
            infos.append(info)
        done = np.array(terms) | np.array(truncs)
        info = self._stack_info(infos)
        info.update(final_observation=final_obs, _final_observation=done,
                    final_info=final_info, _final_info=done)
        return (stack(obs), np.array(rewards, dtype=np.float64),
                np.array(terms), np.array(truncs), info)

    def close(self):
        for e in self.envs:
            e.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class VectorInliningEnv(_VectorEnv):
    """num_envs InliningEnvs stepped together (_VectorEnv): one episode per
    module, dealt from the seeded order of the corpus's modules."""

    def __init__(self, corpus, num_envs=2, seed=None, **kwargs):
        envs = [InliningEnv(corpus, **kwargs) for _ in range(num_envs)]
        super().__init__(envs, seed)
        self.corpus = envs[0].corpus
        for e in envs[1:]:
            e._baselines = envs[0]._baselines  # one -Oz compile per module

    def __str__(self):
        return "VectorInliningEnv"

    def _episodes(self):
        return [{"module": m.name} for m in self.corpus]


class EvictionEnv(_CompilerEpisodes):
    """One episode per function's register allocation: LLVM's greedy
    allocator asks, for each live range it cannot place, which of 33
    columns to evict (32 candidate registers and column 32, the live range
    itself: evict nothing).

    Each episode is a real `llc-19 -O2` of the function's module with
    LLVM's interactive eviction advisor (-regalloc-enable-advisor=release
    -regalloc-evict-interactive-channel-base, stock llc, no plugin); the
    other functions of the module are answered by mlgo's `first-valid`
    rule on the host thread (a function's allocation does not depend on
    another's).

    observation: {feature: array}, LLVM 19's eviction features (mask,
        is_free, ... shape (1, 33); progress (1,));
    action: a column 0 .. 32; a column the observation's mask forbids is a
        ValueError naming the module and the function (LLVM would fail with
        "ran out of registers"), and the episode goes on;
    info: module, function, decision, and 'action_mask' (bool, 33): the
        columns allowed now;
    reward: at the end of the episode, the function's cost under LLVM's
        own advisor minus under the episode's decisions (positive is
        better). The cost is the speed reward (docs/speed.md: the
        profile-weighted cycles of the function's final code) when the
        module's package has a profile in the corpus, LLVM's static
        regalloc score (docs/regalloc.md) otherwise; info['reward_kind']
        says which. reward='static' forces the static score.

    Modules: a corpus's (optimized first with `opt-19 -O2`, as `mlgo
    regalloc train` does; with a profile, `clang-19 -O2 -fprofile-use`
    instead), or IR files given as files=[...], used as they are. Which
    functions ask for evictions is found by one llc run per module (all
    answered by first-valid), kept for the environment's life; functions
    without evictions have no episode.
    """

    COLUMNS = 33

    def __init__(self, corpus=None, files=None, modules=None, packages=None,
                 reward="auto", timeout=300, llc="llc-19", seed=None):
        super().__init__(timeout)
        if (corpus is None) == (files is None):
            raise ValueError("EvictionEnv: give either a corpus or files")
        if reward not in ("auto", "static"):
            raise ValueError(f"EvictionEnv: reward must be 'auto' or "
                             f"'static', got {reward!r}")
        self.reward_kind = reward
        self.llc = llc
        if corpus is not None:
            self.corpus = corpus if isinstance(corpus, Corpus) else Corpus(
                corpus, packages=packages, modules=modules)
            self._sources = [(m.name, m.bitcode, m.profile)
                             for m in self.corpus]
        else:
            self.corpus = None
            self._sources = []
            for f in files:
                if not os.path.isfile(f):
                    raise ValueError(f"EvictionEnv: {f}: no such file")
                self._sources.append((os.fspath(f), os.fspath(f), None))
        if not self._sources:
            raise ValueError("EvictionEnv: no modules")
        self.action_space = Discrete(self.COLUMNS)
        self.observation_space = None
        self._prepared = {}
        self._rng = np.random.default_rng(seed)
        self._order = []
        self._module = None
        self._function = None
        self._done = True

    def __str__(self):
        return "EvictionEnv"

    def _where(self):
        if self._module is None:
            return "(no module)"
        return f"{self._module}: {self._function}"

    # -- preparation ----------------------------------------------------------

    def _compile(self, argv, what):
        try:
            _core.run_compiler(argv, self.timeout)
        except RuntimeError as e:
            raise EnvError(f"{self}: {what}: {e}") from None

    def _speed(self, profile):
        return profile is not None and self.reward_kind == "auto"

    def _llc_output(self, speed, out):
        if speed:
            return ["-filetype=obj"] + _core.address_map_flags() + ["-o", out]
        return ["-stop-after=virtregrewriter", "-o", out]

    def _costs(self, speed, path):
        """{function: cost} of an episode's output."""
        try:
            if speed:
                return {f: c for f, _, _, c in _core.execution_cost(path)}
            return {f: s for f, s, _ in _core.score_mir(path)}
        except ValueError as e:
            raise EnvError(f"{self}: {self._where()}: {e}") from None

    def prepare(self, name):
        """Prepares a module (once): its IR, the cost of each function under
        LLVM's advisor, and the functions that ask for evictions with their
        decision counts under first-valid. Returns that record."""
        if name in self._prepared:
            return self._prepared[name]
        src = dict((n, (b, p)) for n, b, p in self._sources)
        if name not in src:
            raise KeyError(f"{self}: no module named {name!r}")
        bitcode, profile = src[name]
        speed = self._speed(profile)
        flat = name.replace("/", "@")
        ir = bitcode
        if self.corpus is not None:
            ir = os.path.join(self._tmp.name, flat + ".ir.bc")
            if speed:
                try:
                    _core.apply_profile(bitcode, profile, ir, self.timeout)
                except ValueError as e:
                    raise EnvError(f"{self}: {name}: {e}") from None
            else:
                self._compile(["opt-19", "-O2", bitcode, "-o", ir], name)
        out = os.path.join(self._tmp.name, "baseline" +
                           (".o" if speed else ".mir"))
        self._module, self._function = name, "(LLVM's advisor)"
        self._compile([self.llc, "-O2"] + self._llc_output(speed, out) +
                      [ir], name)
        baseline = self._costs(speed, out)
        # Which functions ask, and how often under first-valid.
        episode = _core.Episode(self._command(ir, speed, "discover"),
                                self.timeout, "first-valid", "\x00none")
        state = episode.wait()
        if state == "failed":
            msg = episode.error()
            episode.close()
            raise EnvError(f"{self}: {name}: {msg}")
        counts = [(f, n) for f, n in episode.context_decisions() if n > 0]
        episode.close()
        rec = {"ir": ir, "speed": speed, "baseline": baseline,
               "functions": counts}
        self._prepared[name] = rec
        return rec

    def _command(self, ir, speed, tag):
        out = os.path.join(self._tmp.name,
                           tag + (".o" if speed else ".mir"))
        return [self.llc, "-O2"] + self._llc_output(speed, out) + [
            "-regalloc-enable-advisor=release",
            "-regalloc-evict-interactive-channel-base={channel}", ir]

    def functions(self, module):
        """The functions of a module that have episodes, with the number
        of evictions each asks for under first-valid."""
        return list(self.prepare(module)["functions"])

    # -- episodes -------------------------------------------------------------

    def _next_episode(self):
        if not self._order:
            pairs = []
            for name, _, _ in self._sources:
                pairs += [(name, f) for f, _ in self.functions(name)]
            if not pairs:
                raise EnvError(f"{self}: no function of any module asks for "
                               f"an eviction")
            self._order = [pairs[i] for i in self._rng.permutation(len(pairs))]
        return self._order.pop(0)

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._order = []
            self.action_space.seed(seed)
        options = options or {}
        if "module" in options:
            module = options["module"]
            fns = [f for f, _ in self.functions(module)]
            function = options.get("function", fns[0] if fns else None)
            if function not in fns:
                raise ValueError(f"{self}: {module}: function "
                                 f"{function!r} asks for no eviction")
        else:
            module, function = self._next_episode()
        rec = self.prepare(module)
        self._module, self._function = module, function
        # first-valid answers every other function; this one comes here.
        self._stop()
        self._episode = _core.Episode(
            self._command(rec["ir"], rec["speed"], "episode"), self.timeout,
            "first-valid", function)
        if self._wait() != "observation":
            raise EnvError(f"{self}: {self._where()}: the function asked for "
                           f"no eviction this time")
        self._done = False
        self._decision = 0
        self._obs = self._observation()
        if self.observation_space is None:
            self.observation_space = {s.name: s for s in self._features}
        return self._obs, self._info()

    def _info(self):
        return {"module": self._module, "function": self._function,
                "decision": self._decision,
                "action_mask": self._obs["mask"].reshape(-1) != 0}

    def _send(self, action):
        if self._done:
            raise ValueError(f"{self}: {self._where()}: no episode in progress "
                             f"(it ended, or reset() was not called); call "
                             f"reset()")
        a = _as_action(self, action, self.COLUMNS)
        mask = self._obs["mask"].reshape(-1)
        if mask[a] == 0:
            raise ValueError(f"{self}: {self._where()}: invalid action {a}: "
                             f"the mask forbids column {a} (allowed: "
                             f"{', '.join(map(str, np.flatnonzero(mask)))})")
        self._episode.act(np.int64(a).tobytes())

    def step(self, action):
        self._send(action)
        return self._collect()

    def _collect(self):
        state = self._wait()
        self._decision += 1
        if state == "observation":
            self._obs = self._observation()
            return self._obs, 0.0, False, False, self._info()
        self._done = True
        decisions = self._episode.decisions()
        self._stop()
        rec = self._prepared[self._module]
        out = os.path.join(self._tmp.name,
                           "episode" + (".o" if rec["speed"] else ".mir"))
        cost = self._costs(rec["speed"], out)
        f = self._function
        if f not in cost or f not in rec["baseline"]:
            raise EnvError(f"{self}: {self._where()}: no cost for the "
                           f"function in the compiler's output")
        reward = float(rec["baseline"][f] - cost[f])
        info = self._info()
        info.update(cost=cost[f], baseline_cost=rec["baseline"][f],
                    decisions=decisions,
                    reward_kind="speed" if rec["speed"] else "static")
        return self._obs, reward, True, False, info


class VectorEvictionEnv(_VectorEnv):
    """num_envs EvictionEnvs stepped together (_VectorEnv): one episode per
    (module, function) with evictions, dealt from one seeded order. The
    environments share the modules' preparation (optimized IR, LLVM's
    costs, the functions)."""

    def __init__(self, corpus=None, num_envs=2, seed=None, **kwargs):
        envs = [EvictionEnv(corpus, **kwargs) for _ in range(num_envs)]
        super().__init__(envs, seed)
        for e in envs[1:]:
            e._prepared = envs[0]._prepared

    def __str__(self):
        return "VectorEvictionEnv"

    def _episodes(self):
        first = self.envs[0]
        return [{"module": name, "function": f}
                for name, _, _ in first._sources
                for f, _ in first.functions(name)]
