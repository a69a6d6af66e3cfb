"""Environments for gymnasium (1.x), over stock clang-19 and mlgo's plugin
in interactive mode (docs/python.md, docs/protocol.md).

With gymnasium importable the environments are gymnasium.Env subclasses
and the vector environments gymnasium.vector.VectorEnv subclasses, with
gymnasium's spaces, so gymnasium's wrappers, `check_env` and
stable-baselines3 take them as they are (mlgo.gym registers them as
mlgo/Inlining-v0 and mlgo/Eviction-v0). Without gymnasium (Debian has no
package of it) the same classes stand on small bases of our own with the
same interface: reset(seed=, options=) -> (obs, info), step(action) ->
(obs, reward, terminated, truncated, info), close(), action_space and
observation_space (known at construction), np_random, metadata, spec,
unwrapped.

Each episode is one real compile: `clang-19 -cc1 <the module's stored
arguments> -x ir M.bc` with mlgo-plugin.so loaded and
-mlgo-interactive-channel-base, served by mlgo's own protocol host
(mlgo::serveCommand, on a thread of the extension module) - so a compiler
that dies, stalls or breaks the stream is a RuntimeError naming the module,
never a hang, and the channel files are always removed.
"""
import os
import re
import shutil
import tempfile

import numpy as np

from . import _core, _paths
from .data import Corpus, TensorSpec, code_size, record_dtype
from .spaces import HAVE_GYMNASIUM, Box, Dict, Discrete, batch, box_of

if HAVE_GYMNASIUM:  # pragma: no cover - depends on the machine
    import gymnasium
    from gymnasium.utils import seeding as _seeding
    _Env = gymnasium.Env
    _VectorBase = gymnasium.vector.VectorEnv
    try:
        from gymnasium.vector import AutoresetMode
        _NEXT_STEP = AutoresetMode.NEXT_STEP
    except ImportError:  # gymnasium 1.0
        _NEXT_STEP = "NextStep"

    def _new_rng(seed):
        return _seeding.np_random(seed)
else:
    _NEXT_STEP = "next_step"

    def _new_rng(seed):
        seq = np.random.SeedSequence(seed)
        return np.random.Generator(np.random.PCG64(seq)), seq.entropy

    class _Env:
        """gymnasium.Env's interface, for machines without gymnasium."""
        metadata = {"render_modes": []}
        render_mode = None
        spec = None
        _np_random = None
        _np_random_seed = None

        @property
        def np_random(self):
            """The environment's generator (seeded by reset(seed=))."""
            if self._np_random is None:
                self._np_random, self._np_random_seed = _new_rng(None)
            return self._np_random

        @np_random.setter
        def np_random(self, value):
            self._np_random = value
            self._np_random_seed = -1

        @property
        def np_random_seed(self):
            if self._np_random is None:
                self._np_random, self._np_random_seed = _new_rng(None)
            return self._np_random_seed

        @property
        def unwrapped(self):
            return self

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                self._np_random, self._np_random_seed = _new_rng(seed)

        def render(self):
            return None

        def close(self):
            pass

        def __str__(self):
            return type(self).__name__

    class _VectorBase:
        """gymnasium.vector.VectorEnv's interface."""
        metadata = {"autoreset_mode": _NEXT_STEP}
        render_mode = None
        spec = None
        closed = False
        _np_random = None
        _np_random_seed = None

        @property
        def np_random(self):
            if self._np_random is None:
                self._np_random, self._np_random_seed = _new_rng(None)
            return self._np_random

        @property
        def unwrapped(self):
            return self

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                self._np_random, self._np_random_seed = _new_rng(seed)

        def close(self, **kwargs):
            if self.closed:
                return
            self.close_extras(**kwargs)
            self.closed = True

        def close_extras(self, **kwargs):
            pass


class EnvError(RuntimeError):
    """A compile of an episode failed: the compiler's exit status or signal,
    a stall, a malformed stream. The message names the module."""


class CompilerExitError(EnvError):
    """The compiler of an episode ended badly (an exit status other than 0,
    a signal). The message names the module and the status and ends with
    the end of the compiler's stderr (clang's own message), which is also
    `stderr`."""

    def __init__(self, message, stderr=""):
        super().__init__(message)
        self.stderr = stderr

    def __reduce__(self):
        return (CompilerExitError, (str(self), self.stderr))


def _raise_failed(env, episode, where):
    """Closes a failed episode and raises its error: a CompilerExitError
    (with the compiler's stderr) when the compiler ended badly, else an
    EnvError."""
    message = episode.error()
    exited, tail = episode.compiler_exited(), episode.stderr_tail()
    episode.close()
    if env._episode is episode:
        env._episode = None
    env._done = True
    if exited:
        raise CompilerExitError(f"{where}: {message}", tail)
    raise EnvError(f"{where}: {message}")


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


class _NoDecisions(ValueError):
    """The compiler asked for no decision in the requested episode."""


def _check_options(env, options, known):
    """The reset options, checked: an unknown key is a ValueError naming it
    (a typo must never play another episode silently)."""
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ValueError(f"{env}: reset options must be a dict, got "
                         f"{type(options).__name__}")
    for k in options:
        if k not in known:
            raise ValueError(f"{env}: unknown reset option {k!r} (known: "
                             f"{', '.join(known)})")
    if "actions" in options and "module" not in options:
        raise ValueError(f"{env}: reset option 'actions' needs 'module' (a "
                         f"prefix is of one episode)")
    return options


def _vector_space(specs):
    """The float32 vector form of observations of `specs`."""
    n = sum(s.size for s in specs)
    return Box(-np.inf, np.inf, (n,), np.float32)


_ENV_DIR = re.compile(r"mlgo-env-([0-9]+)-[^/]+")


def _is_running(pid):
    """Whether process `pid` runs (a zombie does not: it will never remove
    its directory)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2:stat.rfind(")") + 3] != "Z"


def collect_stale_env_dirs(root=None):
    """Removes the mlgo-env-PID-* directories of this user in `root`
    (default: tempfile.gettempdir()) whose process PID is gone; returns how
    many."""
    root = root or tempfile.gettempdir()
    removed = 0
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    for name in names:
        m = _ENV_DIR.fullmatch(name)
        if not m or int(m.group(1)) == os.getpid():
            continue
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not os.path.isdir(path) or os.path.islink(path) \
                or st.st_uid != os.getuid() or _is_running(int(m.group(1))):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += not os.path.exists(path)
    return removed

class _CompilerEpisodes(_Env):
    """What InliningEnv and EvictionEnv share: one compiler process per
    episode, stepped through a _core.Episode; the spaces, declared at
    construction from the features the compiler is known to send."""

    metadata = {"render_modes": []}

    def __init__(self, timeout, specs, observation, seed, extra=()):
        self.timeout = int(timeout)
        self._episode = None
        # The owner's pid in the name: a host that died without removing it
        # (SIGKILL, os._exit, SIGTERM without a handler) leaves it for the
        # next env to collect, as mlgo's own TempDirs do.
        collect_stale_env_dirs()
        self._tmp = tempfile.TemporaryDirectory(
            prefix=f"mlgo-env-{os.getpid()}-")
        if observation not in ("dict", "vector"):
            raise ValueError(f"{self}: observation must be 'dict' or "
                             f"'vector', got {observation!r}")
        self.observation_form = observation
        self._features = list(specs)
        self._dtype = record_dtype(self._features)
        # Observed beside the stream (InliningEnv's step info), after the
        # stream's features.
        self._extra = list(extra)
        self._names = [s.name for s in self._features + self._extra]
        self.feature_specs = {s.name: s for s in self._features + self._extra}
        everything = self._features + self._extra
        if observation == "dict":
            self.observation_space = Dict(
                {s.name: box_of(s) for s in everything})
        else:
            self.observation_space = _vector_space(everything)
        self._checked_header = False
        self._accepted_header = None
        if seed is not None:
            self._np_random, self._np_random_seed = _new_rng(seed)

    def _stderr_path(self):
        return os.path.join(self._tmp.name, "compiler.stderr")

    def _start(self, command, others="", target=""):
        self._stop()
        self._checked_header = False
        self._episode = _core.Episode(command, self.timeout, others, target,
                                      self._stderr_path())

    def _stop(self):
        if self._episode is not None:
            self._episode.close()
            self._episode = None

    def _wait(self):
        """'observation' or 'finished'; an EnvError when the compile
        failed."""
        state = self._episode.wait()
        if state == "failed":
            _raise_failed(self, self._episode, f"{self}: {self._where()}")
        return state

    def _record(self):
        """The pending observation as a packed record (np.void)."""
        if not self._checked_header:
            raw = self._episode.features()
            # The header parsed once: the next episodes' is the same text.
            if raw == self._accepted_header:
                self._checked_header = True
                return np.frombuffer(self._episode.observation(),
                                     dtype=self._dtype)[0]
            got = [TensorSpec.from_json(s) for s in raw]
            if got != self._features:
                self._stop()
                self._done = True
                raise EnvError(
                    f"{self}: {self._where()}: the compiler sends the "
                    f"features {[s.name for s in got]}, not the declared "
                    f"{[s.name for s in self._features]} (another plugin "
                    f"or LLVM version?)")
            self._checked_header = True
            self._accepted_header = raw
        return np.frombuffer(self._episode.observation(),
                             dtype=self._dtype)[0]

    def _extra_values(self):
        """{name: array} of the extra observations (subclasses)."""
        return {}

    def _observation(self):
        rec = self._record()
        self._raw = rec
        values = {n: rec[n] for n in rec.dtype.names}
        values.update(self._extra_values())
        if self.observation_form == "vector":
            return np.concatenate([
                np.asarray(values[n], np.float32).reshape(-1)
                for n in self._names])
        return {n: values[n] for n in self._names}

    def _replay(self, options, info):
        """reset()'s end: with options['actions'] (which needs 'module'),
        plays that prefix of actions and returns the observation and info
        after it - the same bytes as stepping them by hand, since the
        compiler is deterministic. A prefix the episode does not outlast
        is a ValueError."""
        actions = options.get("actions")
        if actions is None:
            return self._obs, info
        actions = list(actions)
        for k, a in enumerate(actions):
            obs, _, term, trunc, info = self.step(a)
            if term or trunc:
                raise ValueError(
                    f"{self}: {self._where()}: reset option 'actions': the "
                    f"episode ends after {k + 1} of the {len(actions)} "
                    f"actions; a prefix must leave a decision to take")
        return self._obs, info

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
        return False


def _opcode_classes(names):
    """{class: opcode count names}: LLVM's opcode classes
    (llvm/IR/Instruction.def), each a run of the opcode counts in `names`
    (IR statistics; LLVM's opcodes that IR2Native does not count, such as
    callbr or va_arg, are in no class)."""
    runs = (("terminator", "op_ret", "op_unreachable"),
            ("unary", "op_fneg", "op_fneg"),
            ("binary", "op_add", "op_frem"),
            ("bitwise", "op_shl", "op_xor"),
            ("memory", "op_alloca", "op_atomicrmw"),
            ("cast", "op_trunc", "op_bitcast"),
            ("other", "op_icmp", "op_freeze"))
    return {c: tuple(names[names.index(first):names.index(last) + 1])
            for c, first, last in runs}


class InliningEnv(_CompilerEpisodes):
    """One episode per corpus module: the inliner's decisions, in the order
    it asks for them.

    observation: observation='dict' (default): {feature name: numpy
        array}, LLVM 19's 38 inliner features and mlgo's six extras
        (int64, shape (1,); plus 'inlining_default', LLVM's own decision,
        with include_default=True) - read-only views of the received
        bytes; with ir_stats=True also 'caller_ir_stats' and
        'callee_ir_stats' (int64, shape (len(IR_STAT_NAMES),)): the IR
        statistics of the site's caller and callee as they are when the
        inliner asks - IR2Native's function features: TTI size,
        instructions, blocks, loops, ..., and one count per opcode
        (docs/ir2native.md); observation='vector': the same values in
        that order as one float32 vector. observation_space says which,
        from construction.
    action: 1 to inline the call site, 0 not to (action_masks(): both);
    reward: 0 at every step but the last; at the end, the module's code
        (every executable section of its object, as `mlgo eval corpus`
        counts it) under stock clang at the same level minus under the
        episode's decisions, in bytes (reward='bytes', the default; positive
        is smaller) or as a fraction of the stock size (reward='relative');
        reward='ir2native' is dense instead: each step's reward is the
        bytes the decision just taken saves as IR2Native predicts them
        (the caller's predicted size before minus after, plus the
        callee's when inlining deleted it; 0 when nothing was inlined),
        also info['predicted_delta']; reward='speed' (a corpus whose packages
        have profiles) is 0 at every step but the last, and then the
        module's profile-weighted executed instructions (`mlgo speed cost`
        of its object, compiled with the package's profile) under stock
        clang minus under the episode's decisions (positive is faster),
        with info['cost'] and info['baseline_cost'] (and the cycles:
        'cycles', 'baseline_cycles');
    info: module, package, decision (its index), opt_level, call_site
        (the site the pending observation asks about: (caller, callee,
        ordinal); absent at the end), and at the end
        text_size, baseline_text_size, decisions, sites (the call site of
        every decision: (caller, callee, ordinal), names escaped as
        decisions files and the plugin's .sites write them), elapsed_seconds (the compile, from its start to
        its end) and host_seconds (the part of it not spent waiting for the
        compiler: this process's own time per episode).

    opt_level: the level the corpus's modules were built at (their stored
    -O), which is also what the episode compiles at; None takes it from the
    modules. A level other than a module's is a ValueError naming both: the
    bitcode carries the level's attributes (optsize, minsize), so another
    -O would not compile it at that level.

    Modules in which the inliner asks nothing are skipped (they are listed
    in info['skipped'] of the next reset). Without options, reset() walks
    the modules in an order shuffled by np_random (seeded by reset(seed=)
    or the constructor's seed); reset(options={'module': name}) compiles
    that one.
    """

    RESET_OPTIONS = ("module", "actions")

    IR_STAT_NAMES = tuple(_core.size_feature_names())

    IR_OPCODE_CLASSES = _opcode_classes(IR_STAT_NAMES)

    @classmethod
    def opcode_class_counts(cls, stats):
        """{class: instructions} of an IR statistics vector
        (caller_ir_stats or callee_ir_stats), by IR_OPCODE_CLASSES."""
        stats = np.asarray(stats).reshape(-1)
        index = {n: k for k, n in enumerate(cls.IR_STAT_NAMES)}
        return {c: int(sum(stats[index[n]] for n in names))
                for c, names in cls.IR_OPCODE_CLASSES.items()}

    def __init__(self, corpus, modules=None, packages=None, opt_level=None,
                 reward="bytes", include_default=False, timeout=300,
                 clang="clang-19", plugin=None, seed=None,
                 observation="dict", ir_stats=False):
        specs = [TensorSpec.from_json(s)
                 for s in _core.inline_feature_specs(bool(include_default))]
        self.ir_stats = bool(ir_stats)
        n = len(self.IR_STAT_NAMES)
        extra = [TensorSpec(k, "int64_t", (n,))
                 for k in ("caller_ir_stats", "callee_ir_stats")]
        super().__init__(timeout, specs, observation, seed,
                         extra if self.ir_stats else [])
        if reward not in ("bytes", "relative", "ir2native", "speed"):
            raise ValueError(f"InliningEnv: reward must be 'bytes', "
                             f"'relative', 'ir2native' or 'speed', got "
                             f"{reward!r}")
        self.corpus = corpus if isinstance(corpus, Corpus) else Corpus(
            corpus, packages=packages, modules=modules)
        if len(self.corpus) == 0:
            raise ValueError(f"InliningEnv: {self.corpus.path}: no modules")
        if reward == "speed":
            _check_profiles(self.corpus)
        self.opt_level = _check_level(self, self.corpus, opt_level)
        self.reward_kind = reward
        self.include_default = include_default
        self.clang = clang
        self.plugin = plugin or _paths.plugin_path()
        self.action_space = Discrete(2)
        self._baselines = {}
        # reward='speed': (instructions, cycles, profiled functions) of
        # each module's stock object.
        self._baseline_costs = {}
        self._no_decisions = set()
        self._order = []
        self._module = None
        self._obs = None
        self._decision = 0
        self._done = True
        self._actions = []
        self._last_sites = self._last_actions = None
        self._steps = None

    def __str__(self):
        return "InliningEnv"

    def close(self):
        if getattr(self, "_steps", None) is not None:
            self._steps.close()
            self._steps = None
        super().close()

    def _where(self):
        return self._module.name if self._module else "(no module)"

    def _object(self, tag):
        return os.path.join(self._tmp.name, f"{tag}.o")

    def _speed_flags(self, module):
        """reward='speed': the cc1 arguments that apply the package's
        profile as a package build does (a function the profile does not
        know is cold; one whose control flow changed keeps no counts, with
        clang's warning) and record what `mlgo speed cost` reads: the
        basic-block address map with its PGO analysis."""
        if self.reward_kind != "speed":
            return []
        return (["-fprofile-instrument-use-path=" + module.profile] +
                _core.address_map_clang_flags())

    def _speed_cost(self, path):
        """(profile-weighted instructions, cycles, functions with a profile
        count) of an object: `mlgo speed cost`'s totals, summed in its
        order."""
        try:
            functions = _core.execution_cost(path)
        except ValueError as e:
            raise EnvError(f"{self}: {self._where()}: {e}") from None
        instructions = cycles = 0.0
        profiled = 0
        for _, entry_count, i, c in functions:
            instructions += i
            cycles += c
            profiled += entry_count > 0
        return instructions, cycles, profiled

    def baseline_cost(self, module):
        """reward='speed': (profile-weighted executed instructions, cycles,
        functions with a profile count) of the module's stock object
        (baseline())."""
        if isinstance(module, str):
            module = self.corpus[module]
        self.baseline(module)
        return self._baseline_costs[module.name]

    def baseline(self, module):
        """The module's code under stock clang at its level (bytes),
        compiled once and kept (with reward='speed', with the package's
        profile). A module clang cannot compile is an EnvError carrying
        clang's own message."""
        if isinstance(module, str):
            module = self.corpus[module]
        key = module.name
        if key not in self._baselines:
            out = self._object("baseline")
            cmd = module.command(out, self._speed_flags(module), self.clang)
            # `timeout` bounds a stall of the episode's stream; a whole
            # stock compile gets at least 300 s (0: no limit).
            limit = 0 if self.timeout == 0 else max(self.timeout, 300)
            try:
                _core.run_compiler(cmd, limit)
            except RuntimeError as e:
                raise EnvError(f"{self}: {module.name}: {e}") from None
            if self.reward_kind == "speed":
                self._baseline_costs[key] = self._speed_cost(out)
            self._baselines[key] = code_size(out)[0]
        return self._baselines[key]

    def episode_command(self, module):
        """The compiler command of an episode ({channel}: the channel)."""
        p = self.plugin
        extra = [
            "-load", p, "-fpass-plugin=" + p,
            "-mllvm", "-mlgo-interactive-channel-base={channel}",
            "-mllvm", "-mlgo-training-log=" + self._sites_log(),
            "-mllvm", "-mlgo-interactive-step-info=" + self._steps_path()]
        if self.ir_stats:
            extra += ["-mllvm", "-mlgo-interactive-ir-stats"]
        if self.reward_kind == "ir2native":
            extra += ["-mllvm", "-mlgo-size-score"]
        if self.include_default:
            extra += ["-mllvm", "-mlgo-interactive-include-default"]
        extra += self._speed_flags(module)
        return module.command(self._object("episode"), extra, self.clang)

    def _steps_path(self):
        return os.path.join(self._tmp.name, "episode.steps")

    def _start(self, command, others="", target=""):
        # The plugin appends to the step info file: a fresh one per episode.
        if os.path.exists(self._steps_path()):
            os.remove(self._steps_path())
        if self._steps is not None:
            self._steps.close()
        self._steps = _StepInfo(self._steps_path())
        super()._start(command, others, target)

    def _extra_values(self):
        if not self.ir_stats:
            return {}
        return {"caller_ir_stats": self._steps.caller,
                "callee_ir_stats": self._steps.callee}

    def _sites_log(self):
        return os.path.join(self._tmp.name, "episode.log")

    def _next_module(self):
        if not self._order:
            self._order = list(self.np_random.permutation(len(self.corpus)))
        return self.corpus[int(self._order.pop(0))]

    def _named_module(self, name):
        try:
            return self.corpus[name]
        except (KeyError, IndexError, TypeError):
            raise ValueError(f"{self}: reset option 'module': no module "
                             f"named {name!r} in {self.corpus.path}") \
                from None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._order = []
            self.action_space.seed(seed)
        options = _check_options(self, options, self.RESET_OPTIONS)
        skipped = []
        tries = 0
        while True:
            if "module" in options:
                module = self._named_module(options["module"])
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
            # The stock compile first: a module clang cannot compile fails
            # here with clang's own message.
            self.baseline(module)
            if self.reward_kind == "speed" and \
                    self.baseline_cost(module)[2] == 0:
                # The workload ran none of its functions: every policy
                # costs 0 there, so it has no speed episode.
                self._no_decisions.add(module.name)
                if "module" in options:
                    raise _NoDecisions(
                        f"{self}: {module.name}: no function of the module "
                        f"has a count in its package's profile "
                        f"{module.profile} (the workload never ran it): "
                        f"no speed reward to play for")
                skipped.append(module.name)
                tries += 1
                if tries > len(self.corpus):
                    raise EnvError(f"{self}: {self.corpus.path}: the "
                                   f"profiles give no module a count")
                continue
            self._start(self.episode_command(module))
            state = self._wait()
            if state == "observation":
                break
            self._stop()
            self._no_decisions.add(module.name)
            if "module" in options:
                raise _NoDecisions(f"{self}: {module.name}: the inliner asks "
                                   f"no decision in this module")
            skipped.append(module.name)
            tries += 1
            if tries > len(self.corpus):
                raise EnvError(f"{self}: {self.corpus.path}: the inliner "
                               f"asks no decision in any module")
        self._decision = 0
        self._done = False
        self._actions = []
        self._last_sites = self._last_actions = None
        # Read once per episode: each step's info repeats it.
        self._level = self.level_of(module)
        self._steps.read(self)
        self._obs = self._observation()
        info = {"module": module.name, "package": module.package,
                "decision": 0, "opt_level": self._level,
                "skipped": skipped, "call_site": self._steps.site}
        return self._replay(options, info)

    def level_of(self, module):
        """The optimization level a module compiles at ('Oz', 'O2', ...)."""
        return module.opt_level

    def action_masks(self):
        """The actions allowed now (both, always): for masked PPO."""
        return np.ones(2, dtype=bool)

    # step() in two halves, so that VectorInliningEnv can start every
    # compiler before it waits for any.
    def _send(self, action):
        if self._done:
            raise ValueError(f"{self}: {self._where()}: no episode in progress "
                             f"(it ended, or reset() was not called); call "
                             f"reset()")
        a = _as_action(self, action, 2)
        self._episode.act(np.int64(a).tobytes())
        self._actions.append(a)

    def _collect(self):
        state = self._wait()
        self._decision += 1
        info = {"module": self._module.name,
                "package": self._module.package,
                "decision": self._decision,
                "opt_level": self._level}
        self._steps.read(self)
        delta = None
        if self.reward_kind == "ir2native":
            delta = self._steps.delta_of(self, self._decision - 1)
            info["predicted_delta"] = delta
        if state == "observation":
            self._obs = self._observation()
            info["call_site"] = self._steps.site
            return self._obs, (delta or 0.0), False, False, info
        self._done = True
        decisions = self._episode.decisions()
        elapsed, host = self._episode.elapsed(), self._episode.host_seconds()
        self._stop()
        size = code_size(self._object("episode"))[0]
        base = self.baseline(self._module)
        reward = float(base - size)
        if self.reward_kind == "relative":
            reward = reward / base if base else 0.0
        elif self.reward_kind == "ir2native":
            reward = delta
        elif self.reward_kind == "speed":
            cost, cycles, _ = self._speed_cost(self._object("episode"))
            base_cost, base_cycles, _ = self.baseline_cost(self._module)
            reward = base_cost - cost
            info.update(cost=cost, baseline_cost=base_cost, cycles=cycles,
                        baseline_cycles=base_cycles)
        self._last_sites = self._read_sites()
        self._last_actions = list(self._actions)
        info.update(text_size=size, baseline_text_size=base,
                    decisions=decisions, sites=self._last_sites,
                    elapsed_seconds=elapsed, host_seconds=host)
        return self._obs, reward, True, False, info

    def export_decisions(self, path):
        """Writes the last finished episode's decisions as a decisions file
        (docs/decisions.md) that `mlgo-clang -mllvm -mlgo-decisions=FILE`
        (or clang-19 with the plugin) applies: one site entry per decision,
        under the module's source file name, so that compiling the module
        with it rebuilds the episode's object. Returns the path."""
        if not self._done or self._last_sites is None:
            raise ValueError(f"{self}: {self._where()}: no finished episode "
                             f"to export")
        entries = sorted(
            (c, d, o, a) for (c, d, o), a in zip(self._last_sites,
                                                 self._last_actions))
        key = _escape_name(self._module.source_name)
        lines = ["# mlgo inlining decisions (format: docs/decisions.md)",
                 "mlgo-decisions 1",
                 f"meta episode InliningEnv {self._module.name}"]
        # A module built for speed takes a file for speed (the plugin
        # refuses a file for size there, and the reverse).
        if self.level_of(self._module) in ("O1", "O2", "O3"):
            lines.append("meta objective speed")
        lines += ["", f"module {key}"]
        lines += [f"{'inline' if a else 'no-inline'} {c} {d} {o}"
                  for c, d, o, a in entries]
        tmp = os.fspath(path) + ".tmp"
        with open(tmp, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, path)
        return path

    def _read_sites(self):
        """The episode's call sites, from the plugin's <log>.sites."""
        path = self._sites_log() + ".sites"
        sites = [tuple(l.split(" ")) for l in
                 open(path).read().splitlines()]
        return [(c, d, int(o)) for c, d, o in sites]

    def step(self, action):
        self._send(action)
        return self._collect()


class _StepInfo:
    """The plugin's step info file of one episode (-mlgo-interactive-step-
    info; docs/python.md, "Step info"), read as it grows: whole lines only,
    since the plugin writes each step's records in one write before the
    observation (or, for 'delta', before the next one or the end)."""

    def __init__(self, path):
        self.path = path
        self._file = None
        self._partial = ""
        self.site = None
        self.caller = self.callee = None
        self.deltas = []

    def read(self, env):
        if self._file is None:
            if not os.path.exists(self.path):
                raise EnvError(f"{env}: {env._where()}: the plugin wrote no "
                               f"step info ({self.path}); is the plugin "
                               f"older than this package?")
            self._file = open(self.path)
        text = self._partial + self._file.read()
        lines = text.split("\n")
        self._partial = lines.pop()
        for line in lines:
            tag, _, rest = line.partition(" ")
            if tag == "site":
                c, d, o = rest.split(" ")
                self.site = (c, d, int(o))
            elif tag in ("caller", "callee"):
                setattr(self, tag, np.array(rest.split(" "), dtype=np.int64))
            elif tag == "delta":
                # %.9g: the float32 exactly, once read as a float32.
                self.deltas.append(float(np.float32(rest)))
            else:
                raise EnvError(f"{env}: {env._where()}: {self.path}: "
                               f"unknown step info record {line!r}")

    def delta_of(self, env, k):
        if k >= len(self.deltas):
            raise EnvError(f"{env}: {env._where()}: {self.path}: no "
                           f"predicted size delta for decision {k}")
        return self.deltas[k]

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None


def _escape_name(name):
    """A name as decisions files write it (docs/decisions.md): bytes up to
    0x20, 0x7f and above, '%' and '*' as %XX."""
    out = []
    for b in name.encode():
        if b <= 0x20 or b >= 0x7f or b in (0x25, 0x2a):
            out.append("%%%02X" % b)
        else:
            out.append(chr(b))
    return "".join(out)


def _check_profiles(corpus):
    """reward='speed' needs a profile of every package played: a
    ValueError naming the corpus and the packages without one."""
    missing = [p for p in corpus.packages
               if any(m.profile is None for m in corpus.modules(p))]
    if missing:
        with_one = [p for p in corpus.packages if p not in missing]
        raise ValueError(
            f"InliningEnv: reward 'speed' needs a profile of each package "
            f"played, and {corpus.path} has none for "
            f"{', '.join(repr(p) for p in missing)}"
            + (f" (it has one for {', '.join(repr(p) for p in with_one)}: "
               f"packages=[...] chooses them)" if with_one else "")
            + "; `mlgo corpus profile CORPUS --package NAME --profile "
              "P.profdata` adds one (docs/speed.md)")


def _check_level(env, corpus, opt_level):
    """The level of every module, or a ValueError naming the requested
    level and the module's."""
    if opt_level is not None and opt_level not in ("O0", "O1", "O2", "O3",
                                                    "Os", "Oz"):
        raise ValueError(f"{env}: opt_level must be O0, O1, O2, O3, Os or "
                         f"Oz, got {opt_level!r}")
    if opt_level is None:
        return None
    for m in corpus:
        if m.opt_level != opt_level:
            raise ValueError(
                f"{env}: opt_level {opt_level!r} does not match the corpus: "
                f"{m.name} was built at -{m.opt_level} ({corpus.path}); its "
                f"bitcode carries that level's attributes, so it cannot be "
                f"compiled at -{opt_level} (use a corpus built at "
                f"-{opt_level}, or opt_level=None)")
    return opt_level


def stack(observations):
    """A list of observations (dicts or arrays) stacked on a first axis.
    A dict's arrays (all of one shape and dtype per key) are stacked by
    np.array, which gives np.stack's array at a fraction of its cost (a
    step's 44 features: 30 us instead of 110)."""
    if isinstance(observations[0], dict):
        names = observations[0].keys()
        return {n: np.array([o[n] for o in observations]) for n in names}
    return np.stack(observations)


def _vector_info(infos, num_envs):
    """gymnasium 1.x's vector info: per key an array over the environments
    and a boolean '_key' array saying which have it."""
    out = {}
    for i, info in enumerate(infos):
        for k, v in info.items():
            if k not in out:
                if isinstance(v, (bool, int, float, np.number)):
                    out[k] = np.zeros(num_envs, dtype=type(v))
                elif isinstance(v, np.ndarray):
                    out[k] = np.zeros((num_envs,) + v.shape, dtype=v.dtype)
                else:
                    out[k] = np.full(num_envs, None, dtype=object)
                out["_" + k] = np.zeros(num_envs, dtype=bool)
            out[k][i] = v
            out["_" + k][i] = True
    return out


class _VectorEnv(_VectorBase):
    """num_envs environments stepped together, gymnasium 1.x's VectorEnv:
    every compiler gets its action before any is waited for (each is its
    own process), so the episodes run in parallel. Episodes are dealt from
    one seeded order, so no two environments play the same one at once.

    Autoreset is gymnasium 1.x's default, next-step: the step that ends an
    environment's episode returns its last observation with terminated
    True; the next step() ignores that environment's action and returns
    the first observation of its next episode (reward 0, not terminated).
    Infos are dicts of arrays with '_key' masks."""

    metadata = {"autoreset_mode": _NEXT_STEP}

    def __init__(self, envs, seed):
        self.envs = envs
        self.num_envs = len(envs)
        self.single_observation_space = envs[0].observation_space
        self.single_action_space = envs[0].action_space
        self.observation_space = batch(self.single_observation_space,
                                       self.num_envs)
        self.action_space = batch(self.single_action_space, self.num_envs)
        self._order = []
        self._dead = set()
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        if seed is not None:
            self._np_random, self._np_random_seed = _new_rng(seed)

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
                           for i in self.np_random.permutation(len(items))]
        return self._order.pop(0)

    def _reset_one(self, i):
        while True:
            opts = self._next()
            try:
                return self.envs[i].reset(options=opts)
            except _NoDecisions:
                # Nothing to decide there (a module without inlining
                # decisions): never dealt again.
                self._dead.add(repr(sorted(opts.items())))

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (list, tuple)):
            seed = seed[0]
        super().reset(seed=seed)
        if seed is not None:
            self._order = []
        if options:
            raise ValueError(f"{self}: reset takes no options (episodes are "
                             f"dealt from the seeded order)")
        obs, infos = zip(*[self._reset_one(i) for i in range(self.num_envs)])
        self._autoreset[:] = False
        return stack(list(obs)), _vector_info(infos, self.num_envs)

    def action_masks(self):
        """(num_envs, n) booleans: each environment's allowed actions."""
        return np.stack([e.action_masks() for e in self.envs])

    def _episode_of(self, i):
        """Environment i's episode: (module, actions so far)."""
        env = self.envs[i]
        return env._module.name, list(env._actions)

    def state(self):
        """Everything a checkpoint needs to continue this vector
        environment exactly, as a picklable dict: the dealer's generator
        and what is left of its round, the episodes never dealt again, and
        each environment's episode (its module, the actions taken so far,
        whether it ended at the last step). restore() on a new vector
        environment of the same arguments continues as this one would."""
        episodes = []
        for i in range(self.num_envs):
            module, actions = self._episode_of(i)
            episodes.append({"module": module, "actions": actions,
                             "ended": bool(self._autoreset[i])})
        return {"rng": self.np_random.bit_generator.state,
                "order": [dict(o) for o in self._order],
                "dead": sorted(self._dead), "episodes": episodes}

    def restore(self, state):
        """Takes a state() of another vector environment of the same
        arguments and continues from it, instead of reset(): every
        environment replays its episode's actions (reset option
        'actions'), one that had ended all but its last (the same last
        observation; its next step starts its next episode). Returns the
        observations and infos the other one's last step returned (the
        observations byte for byte: the compiler is deterministic)."""
        if len(state["episodes"]) != self.num_envs:
            raise ValueError(f"{self}: restore: the state has "
                             f"{len(state['episodes'])} environments, this "
                             f"one {self.num_envs}")
        self.np_random.bit_generator.state = state["rng"]
        self._order = [dict(o) for o in state["order"]]
        self._dead = set(state["dead"])
        obs, infos = [], []
        for i, ep in enumerate(state["episodes"]):
            actions = ep["actions"][:-1] if ep["ended"] else ep["actions"]
            o, info = self._replay_one(i, {"module": ep["module"],
                                           "actions": list(actions)})
            obs.append(o)
            infos.append(info)
        self._autoreset = np.array([ep["ended"]
                                    for ep in state["episodes"]])
        return stack(obs), _vector_info(infos, self.num_envs)

    def _replay_one(self, i, options):
        return self.envs[i].reset(options=options)

    def step(self, actions):
        actions = np.asarray(actions).reshape(self.num_envs)
        for i, (env, a) in enumerate(zip(self.envs, actions)):
            if not self._autoreset[i]:
                env._send(a)
        obs, rewards, terms, truncs, infos = [], [], [], [], []
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                o, info = self._reset_one(i)
                r, term, trunc = 0.0, False, False
            else:
                o, r, term, trunc, info = env._collect()
            obs.append(o)
            rewards.append(r)
            terms.append(term)
            truncs.append(trunc)
            infos.append(info)
        terms, truncs = np.array(terms), np.array(truncs)
        self._autoreset = terms | truncs
        return (stack(obs), np.array(rewards, dtype=np.float64), terms,
                truncs, _vector_info(infos, self.num_envs))

    def close_extras(self, **kwargs):
        for e in self.envs:
            e.close()

    def close(self, **kwargs):
        if getattr(self, "closed", False):
            return
        self.close_extras(**kwargs)
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class VectorInliningEnv(_VectorEnv):
    """num_envs InliningEnvs stepped together (_VectorEnv): one episode per
    module, dealt from the seeded order of the corpus's modules."""

    def __init__(self, corpus, num_envs=2, seed=None, **kwargs):
        envs = [InliningEnv(corpus, **kwargs) for _ in range(num_envs)]
        super().__init__(envs, seed)
        self.corpus = envs[0].corpus
        for e in envs[1:]:
            e._baselines = envs[0]._baselines  # one -Oz compile per module
            e._baseline_costs = envs[0]._baseline_costs

    def __str__(self):
        return "VectorInliningEnv"

    def _episodes(self):
        return [{"module": m.name} for m in self.corpus]


def llvm_eviction_choice(features):
    """The column LLVM 19's own eviction advisor (DefaultEvictionAdvisor,
    -regalloc-enable-advisor=default) would pick at an eviction step, from
    the features LLVM's ML advisor sent for it: 0 .. 31, or 32 for "evict
    nothing". -1 where those features do not determine it (see below).

    `features` maps each feature name to its values (an EvictionEnv
    observation in the 'dict' form, or a record of the raw features).

    What LLVM does, restated from its public behaviour: it walks the
    columns in allocation order; a column the ML advisor masks off cannot
    be evicted by either advisor; a free register costs nothing; otherwise
    every interfering live range must be lighter than the live range
    seeking a register (use_def_density: the heaviest interference's spill
    weight; column 32: the live range's own), and once one column was
    taken, a column whose interferences are local to the block of a local
    live range (is_local) is refused. A column is taken when its cost
    (broken hints, heaviest weight) is strictly below the best so far; the
    walk stops at a taken hint register (is_hint). Nothing taken is column
    32.

    -1 where the features lack what LLVM compares: column 32 masked or
    nr_urgent non-zero (the live range seeking a register is unspillable;
    LLVM then lets "urgent" interferences through by register-class sizes
    and cascade numbers the features do not carry), or a weight that is not
    a number (an interference is unspillable: LLVM divides the weights by
    the largest, infinite one, so every finite weight arrives as 0). One
    case the features cannot tell apart: the division is in float32, so
    two spill weights an ulp or two apart can arrive equal; equal weights
    are taken as equal (LLVM's strict comparison then refuses), which is
    right when they really are. Exact for targets whose registers all cost
    the same per use (x86-64); elsewhere LLVM also looks for a cheaper
    register under tighter limits that the features do not show.
    """
    def column(name):
        return np.asarray(features[name]).reshape(-1)

    mask = column("mask")
    if not mask[EvictionEnv.NONE]:
        return -1
    hints, weights = column("nr_broken_hints"), column("use_def_density")
    free, local = column("is_free"), column("is_local")
    urgent, is_hint = column("nr_urgent"), column("is_hint")
    if urgent[mask != 0].any() or not np.isfinite(weights[mask != 0]).all():
        return -1
    own = weights[EvictionEnv.NONE]
    best = None
    choice = EvictionEnv.NONE
    for pos in range(EvictionEnv.NONE):
        if not mask[pos]:
            continue
        cost = (hints[pos], weights[pos])
        # Each interference must be lighter than the live range.
        if not free[pos] and cost[1] >= own:
            continue
        if best is not None and (local[pos] or not cost < best):
            continue
        best, choice = cost, pos
        if is_hint[pos]:
            break
    return choice


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
        is_free, ... shape (1, 33); progress (1,)), or with
        observation='vector' the same values as one float32 vector;
    action: a column 0 .. 32; a column the observation's mask forbids is a
        ValueError naming the module and the function (LLVM would fail with
        "ran out of registers"), and the episode goes on;
    info: module, function, decision, 'action_mask' (bool, 33): the
        columns allowed now (also action_masks()), and 'llvm_choice': the
        column LLVM's own advisor would pick now, for imitation, or -1
        where the features do not determine it (llvm_eviction_choice);
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
    # The column that answers "evict nothing".
    NONE = 32
    RESET_OPTIONS = ("module", "function", "actions")

    def __init__(self, corpus=None, files=None, modules=None, packages=None,
                 reward="auto", timeout=300, llc="llc-19", seed=None,
                 observation="dict"):
        specs = [TensorSpec.from_json(s)
                 for s in _core.eviction_feature_specs()]
        super().__init__(timeout, specs, observation, seed)
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
                _paths.require_file(f, "EvictionEnv: no such IR file")
                self._sources.append((os.fspath(f), os.fspath(f), None))
        if not self._sources:
            raise ValueError("EvictionEnv: no modules")
        self.action_space = Discrete(self.COLUMNS)
        self._prepared = {}
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
            raise ValueError(f"{self}: no module named {name!r}")
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
                                self.timeout, "first-valid", "\x00none",
                                self._stderr_path())
        state = episode.wait()
        if state == "failed":
            _raise_failed(self, episode, f"{self}: {name}")
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
            self._order = [pairs[i]
                           for i in self.np_random.permutation(len(pairs))]
        return self._order.pop(0)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._order = []
            self.action_space.seed(seed)
        options = _check_options(self, options, self.RESET_OPTIONS)
        if "function" in options and "module" not in options:
            raise ValueError(f"{self}: reset option 'function' needs "
                             f"'module'")
        if "module" in options:
            module = options["module"]
            fns = [f for f, _ in self.functions(module)]
            function = options.get("function", fns[0] if fns else None)
            if function not in fns:
                raise _NoDecisions(f"{self}: {module}: function "
                                 f"{function!r} asks for no eviction")
        else:
            module, function = self._next_episode()
        rec = self.prepare(module)
        self._module, self._function = module, function
        # first-valid answers every other function; this one comes here.
        self._start(self._command(rec["ir"], rec["speed"], "episode"),
                    "first-valid", function)
        if self._wait() != "observation":
            raise EnvError(f"{self}: {self._where()}: the function asked for "
                           f"no eviction this time")
        self._done = False
        self._decision = 0
        self._obs = self._observation()
        return self._replay(options, self._info())

    def action_masks(self):
        """The columns allowed now (bool, 33; LLVM's mask): for masked
        PPO."""
        return np.asarray(self._raw["mask"]).reshape(-1) != 0

    def _info(self):
        return {"module": self._module, "function": self._function,
                "decision": self._decision,
                "action_mask": self.action_masks(),
                "llvm_choice": llvm_eviction_choice(self._raw)}

    def _send(self, action):
        if self._done:
            raise ValueError(f"{self}: {self._where()}: no episode in progress "
                             f"(it ended, or reset() was not called); call "
                             f"reset()")
        a = _as_action(self, action, self.COLUMNS)
        mask = self.action_masks()
        if not mask[a]:
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
