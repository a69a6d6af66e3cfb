"""Data: tensor specs, training logs as numpy structured arrays, corpora.

A training log (docs/training-log.md) is read by mlgo's own C++ reader
(`mlgo::LogReader`, through mlgo._core), so Python accepts and rejects
exactly what `mlgo log dump` does, with the same messages (file and byte
offset). Each context's observations arrive as one buffer of fixed-size
records; `np.frombuffer` views it without a copy as a structured array
with one field per feature (shape as in the header). The file itself cannot
be viewed in place: records are separated by JSON lines of varying length.
"""
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from . import _core
from ._paths import require_file

_DTYPES = {
    "float": np.float32, "double": np.float64,
    "int8_t": np.int8, "uint8_t": np.uint8,
    "int16_t": np.int16, "uint16_t": np.uint16,
    "int32_t": np.int32, "uint32_t": np.uint32,
    "int64_t": np.int64, "uint64_t": np.uint64,
}


@dataclass(frozen=True)
class TensorSpec:
    """One tensor as LLVM names it: name, element type, shape."""
    name: str
    type: str
    shape: Tuple[int, ...]
    port: int = 0

    @staticmethod
    def from_json(text):
        d = json.loads(text) if isinstance(text, str) else text
        return TensorSpec(d["name"], d["type"], tuple(d["shape"]),
                          d.get("port", 0))

    def to_json(self):
        return {"name": self.name, "type": self.type, "port": self.port,
                "shape": list(self.shape)}

    @property
    def dtype(self):
        return np.dtype(_DTYPES[self.type])

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize


def record_dtype(specs):
    """The packed structured dtype of one observation: one field per spec,
    in order, no padding (the log's and the protocol's layout)."""
    return np.dtype([(s.name, s.dtype, s.shape) for s in specs])


# --------------------------------------------------------------------------
# Logs
# --------------------------------------------------------------------------

@dataclass
class LogContext:
    """One context of a log: the inliner's module (named ""), or one
    function of the register allocator."""
    name: str
    #: One record per observation, a field per feature (read-only view).
    observations: np.ndarray
    #: The observation numbers (from 0 within the context).
    index: np.ndarray
    #: The outcomes' scores (shape (n,) + score shape), if the log has them.
    rewards: Optional[np.ndarray] = None
    #: The observation number each score follows.
    reward_index: Optional[np.ndarray] = None

    def __len__(self):
        return len(self.observations)


@dataclass
class Log:
    """A whole training log."""
    path: str
    features: List[TensorSpec]
    score: Optional[TensorSpec]
    advice: Optional[TensorSpec]
    contexts: List[LogContext] = field(default_factory=list)

    @property
    def dtype(self):
        return record_dtype(self.features)

    def __getitem__(self, name):
        for c in self.contexts:
            if c.name == name:
                return c
        raise KeyError(f"{self.path}: no context named {name!r}")

    @property
    def num_observations(self):
        return sum(len(c) for c in self.contexts)

    def table(self):
        """Every observation of every context in one structured array, with
        a 'context' field (index into self.contexts), 'observation' (its
        number) and, when the log has a score, 'reward' (the score of the
        outcome that follows the observation, NaN where none does)."""
        fields = [("context", np.int32), ("observation", np.uint64)]
        fields += [(s.name, s.dtype, s.shape) for s in self.features]
        if self.score is not None:
            fields.append(("reward", np.float64, self.score.shape))
        out = np.zeros(self.num_observations, dtype=fields)
        at = 0
        for ci, c in enumerate(self.contexts):
            n = len(c)
            part = out[at:at + n]
            part["context"] = ci
            part["observation"] = c.index
            for s in self.features:
                part[s.name] = c.observations[s.name]
            if self.score is not None:
                part["reward"] = np.nan
                if c.rewards is not None and len(c.rewards):
                    pos = {int(i): k for k, i in enumerate(c.index)}
                    rows = [pos[int(i)] for i in c.reward_index]
                    part["reward"][rows] = c.rewards
            at += n
        return out


def read_log(path):
    """Reads a training log (LLVM's format; mlgo's reader). Errors are
    ValueErrors naming the file and the byte offset."""
    raw = _core.read_log(require_file(path, "no such training log"))
    features = [TensorSpec.from_json(s) for s in raw["features"]]
    score = TensorSpec.from_json(raw["score"]) if raw["score"] else None
    advice = TensorSpec.from_json(raw["advice"]) if raw["advice"] else None
    dt = record_dtype(features)
    log = Log(os.fspath(path), features, score, advice)
    for c in raw["contexts"]:
        obs = np.frombuffer(c["data"], dtype=dt)
        index = np.asarray(c["index"], dtype=np.uint64)
        rewards = reward_index = None
        if score is not None:
            rewards = np.frombuffer(c["scores"], dtype=score.dtype).reshape(
                (-1,) + score.shape)
            reward_index = np.asarray(c["score_index"], dtype=np.uint64)
        log.contexts.append(LogContext(c["name"], obs, index, rewards,
                                       reward_index))
    return log


# --------------------------------------------------------------------------
# Corpora
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class CorpusModule:
    """One module of a corpus (docs/corpus.md)."""
    corpus: str
    name: str
    #: The module's package: the first component of its name, "" if none
    #: (mlgo::getModulePackage, as `mlgo train` and `mlgo eval` group).
    package: str
    bitcode: str
    #: Its bitcode's size in bytes.
    bitcode_size: int
    profile: Optional[str] = None

    def cc1_args(self):
        """The stored cc1 arguments (the module's .cmd)."""
        return _core.module_cc1_args(self.corpus, self.name)

    @property
    def source_name(self):
        """The module's main source file as its compile named it (cc1's
        -main-file-name): the key of its decisions-file entries."""
        args = self.cc1_args()
        for k, a in enumerate(args[:-1]):
            if a == "-main-file-name":
                return args[k + 1]
        return os.path.basename(self.name)

    @property
    def opt_level(self):
        """The level the module was built at: the last -O of its stored
        arguments ('Oz', 'O2', ...; 'O0' without one, cc1's default)."""
        level = "O0"
        for a in self.cc1_args():
            if a.startswith("-O"):
                level = {"-O": "O1", "-Ofast": "O3"}.get(a, a[1:])
        return level

    def command(self, output, extra_args=(), clang="clang-19"):
        """The `clang-19 -cc1` command that compiles it as its build did,
        into `output`, with `extra_args` appended."""
        return _core.module_command(self.corpus, self.name, output,
                                    list(extra_args), clang)


class Corpus:
    """A corpus directory (corpus_description.json and each module's .bc
    and .cmd), iterated in the description's order."""

    def __init__(self, path, packages=None, modules=None):
        self.path = os.path.abspath(os.fspath(path))
        require_file(self.path, "no such corpus directory")
        require_file(os.path.join(self.path, "corpus_description.json"),
                     "not a corpus: no corpus_description.json")
        names = _core.corpus_modules(self.path)
        profiles = _core.corpus_profiles(self.path)
        if packages is not None:
            want = set(packages)
            unknown = want - {_core.module_package(n) for n in names}
            if unknown:
                raise ValueError(f"{self.path}: no package named "
                                 f"{', '.join(sorted(unknown))}")
            names = [n for n in names if _core.module_package(n) in want]
        if modules is not None:
            have = set(names)
            missing = [m for m in modules if m not in have]
            if missing:
                raise ValueError(f"{self.path}: no module named "
                                 f"{', '.join(missing)}")
            names = list(modules)
        self._modules = []
        for n in names:
            bc = os.path.join(self.path, n + ".bc")
            pkg = _core.module_package(n)
            size = os.path.getsize(require_file(
                bc, f"corpus module {n}: no bitcode"))
            self._modules.append(CorpusModule(self.path, n, pkg, bc, size,
                                              profiles.get(pkg)))

    def __iter__(self):
        return iter(self._modules)

    def __len__(self):
        return len(self._modules)

    def __getitem__(self, i):
        if isinstance(i, str):
            for m in self._modules:
                if m.name == i:
                    return m
            raise KeyError(f"{self.path}: no module named {i!r}")
        return self._modules[i]

    @property
    def packages(self):
        out = []
        for m in self._modules:
            if m.package not in out:
                out.append(m.package)
        return out

    def modules(self, package=None):
        return [m for m in self._modules
                if package is None or m.package == package]


def code_size(path):
    """The code of an object file as mlgo measures it everywhere
    (docs/eval.md): (total bytes of executable sections, [(grouped section
    name, bytes)])."""
    return _core.code_size(require_file(path, "no such object file"))
