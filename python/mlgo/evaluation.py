"""mlgo.evaluate: one policy against the references, module by module.

  table = mlgo.evaluate(policy, "tiny")          # or a Corpus, a path
  print(table)                                   # per package and total
  table.to_csv("eval.csv")                       # per module too

Columns, each the code of every module (every executable section of its
object, as `mlgo eval corpus` counts it), in bytes:

  Oz        stock clang-19 at the module's level, no plugin;
  embedded  clang-19 with mlgo's plugin and nothing else: the model
            embedded in the plugin (what mlgo-clang ships);
  random    an InliningEnv episode with uniformly random decisions (seeded:
            the same seed gives the same table);
  policy    the policy under evaluation (named after it):
              - a mlgo.Model or a model file's path: compiled by clang with
                -mlgo-model=FILE, exactly as the model ships;
              - an object with predict(obs, deterministic=True) (stable-
                baselines3's policies) or a callable obs -> action: played
                through InliningEnv (env_kwargs go to it).

A module where the inliner asks for no decision has nothing for random or a
played policy to decide: it takes the embedded column's size there.

`seconds` holds each column's wall time over the dataset (compiles, and for
the played ones the environment's steps).

references= names the reference columns to compute (default all three,
in the order above); a training loop that evaluates every iteration asks
for ("Oz",) only, the reference its policy is measured against.
"""
import csv
import io
import os
import tempfile
import time

import numpy as np

from . import _paths
from .data import Corpus, code_size
from .envs import InliningEnv, _NoDecisions
from .model import Model

REFERENCES = ("Oz", "embedded", "random")


class EvaluationTable:
    """Code sizes per module (bytes) for each column, with per-package and
    total sums and each column's wall time."""

    def __init__(self, columns, modules, seconds, dataset):
        #: The column names: 'Oz', 'embedded', 'random', the policy's name.
        self.columns = list(columns)
        #: [(module, package, {column: bytes})], in corpus order.
        self.modules = modules
        #: {column: wall seconds over the whole dataset}.
        self.seconds = dict(seconds)
        self.dataset = dataset

    def packages(self):
        """[(package, {column: bytes})], in order of first appearance."""
        sums = {}
        for _, package, sizes in self.modules:
            acc = sums.setdefault(package, {c: 0 for c in self.columns})
            for c in self.columns:
                acc[c] += sizes[c]
        return list(sums.items())

    def total(self, column=None):
        """The sum over every module: of `column`, or {column: bytes}."""
        sums = {c: sum(s[c] for _, _, s in self.modules)
                for c in self.columns}
        return sums if column is None else sums[column]

    def rows(self):
        """[(kind, name, {column: bytes})]: modules, packages, the total."""
        out = [("module", m, s) for m, _, s in self.modules]
        out += [("package", p, s) for p, s in self.packages()]
        out.append(("total", "", self.total()))
        return out

    def to_csv(self, path=None):
        """The table as CSV (kind, name, then a column per policy, then the
        wall seconds in a last 'seconds' row); written to `path` when given.
        Returns the text."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["kind", "name"] + self.columns)
        for kind, name, sizes in self.rows():
            w.writerow([kind, name] + [sizes[c] for c in self.columns])
        w.writerow(["seconds", ""] + ["%.3f" % self.seconds[c]
                                      for c in self.columns])
        text = buf.getvalue()
        if path is not None:
            tmp = os.fspath(path) + ".tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        return text

    def __str__(self):
        """Per package and in total: bytes, and each column's change
        against Oz; then the wall times."""
        head = ["package"] + self.columns
        lines = []

        def cells(name, sizes):
            out = [name]
            for c in self.columns:
                if c == "Oz" or not sizes["Oz"]:
                    out.append(str(sizes[c]))
                else:
                    out.append("%d (%+.2f%%)" % (
                        sizes[c], 100.0 * (sizes[c] - sizes["Oz"]) /
                        sizes["Oz"]))
            return out
        rows = [head] + [cells(p, s) for p, s in self.packages()]
        rows.append(cells("total", self.total()))
        rows.append(["seconds"] + ["%.2f" % self.seconds[c]
                                   for c in self.columns])
        widths = [max(len(r[k]) for r in rows) for k in range(len(head))]
        for r in rows:
            lines.append("  ".join(r[k].ljust(widths[k]) if k == 0 else
                                   r[k].rjust(widths[k])
                                   for k in range(len(r))).rstrip())
        return "\n".join(lines)


def _as_corpus(dataset, cache_dir):
    if isinstance(dataset, Corpus):
        return dataset
    if isinstance(dataset, str) and not os.path.exists(dataset):
        from . import datasets
        return datasets.load(dataset, cache_dir=cache_dir)
    return Corpus(os.fspath(dataset))


def _policy_name(policy, name):
    if name:
        return name
    if isinstance(policy, Model):
        return policy.name
    if isinstance(policy, (str, os.PathLike)):
        return os.path.basename(os.fspath(policy))
    return getattr(policy, "__name__", type(policy).__name__)


def _decide(policy, obs):
    if hasattr(policy, "predict"):
        action, _ = policy.predict(obs, deterministic=True)
    else:
        action = policy(obs)
    return int(np.asarray(action).reshape(-1)[0])


def evaluate(policy, dataset, name=None, seed=0, clang="clang-19",
             plugin=None, env_kwargs=None, cache_dir=None, timeout=300,
             references=REFERENCES):
    """The EvaluationTable of `policy` on `dataset` (a mlgo.datasets name,
    a Corpus or a corpus directory): see the module's documentation."""
    references = list(references)
    for r in references:
        if r not in REFERENCES:
            raise ValueError(f"mlgo.evaluate: unknown reference {r!r} in "
                             f"references= (known: {', '.join(REFERENCES)})")
    if "Oz" not in references:
        raise ValueError("mlgo.evaluate: references= must hold 'Oz' (every "
                         "column is measured against it)")
    references = [r for r in REFERENCES if r in references]
    corpus = _as_corpus(dataset, cache_dir)
    plugin = plugin or _paths.plugin_path()
    column = _policy_name(policy, name)
    if column in REFERENCES:
        raise ValueError(f"mlgo.evaluate: the policy's column name "
                         f"{column!r} is a reference's; give name=")
    columns = references + [column]
    seconds = {c: 0.0 for c in columns}
    sizes = {m.name: {} for m in corpus}
    tmp = tempfile.TemporaryDirectory(prefix="mlgo-evaluate-")
    model_path = None
    if isinstance(policy, Model):
        model_path = os.path.join(tmp.name, "policy.json")
        policy.save(model_path)
    elif isinstance(policy, (str, os.PathLike)):
        model_path = _paths.require_file(policy, "mlgo.evaluate: no such "
                                         "model file")
        Model.load(model_path)  # a bad model fails here, named
    kwargs = dict(env_kwargs or {})
    env = InliningEnv(corpus, clang=clang, plugin=plugin, timeout=timeout,
                      seed=seed, **kwargs)
    try:
        out = os.path.join(tmp.name, "m.o")
        load = ["-load", plugin, "-fpass-plugin=" + plugin]

        def compile_size(module, extra):
            from . import _core
            limit = 0 if timeout == 0 else max(timeout, 300)
            _core.run_compiler(module.command(out, extra, clang), limit)
            return code_size(out)[0]

        for m in corpus:
            t = time.perf_counter()
            sizes[m.name]["Oz"] = env.baseline(m)
            seconds["Oz"] += time.perf_counter() - t
        # A played column (random, or a policy played through the
        # environment) takes the embedded size where a module asks no
        # decision: compiled then even when the column is not asked for.
        if "embedded" in references or "random" in references or \
                model_path is None:
            for m in corpus:
                t = time.perf_counter()
                sizes[m.name]["embedded"] = compile_size(m, load)
                if "embedded" in references:
                    seconds["embedded"] += time.perf_counter() - t
        rng = np.random.default_rng(seed)

        def play(m, choose):
            try:
                obs, _ = env.reset(options={"module": m.name})
            except _NoDecisions:
                return sizes[m.name]["embedded"]
            while True:
                obs, _, term, trunc, info = env.step(choose(obs))
                if term or trunc:
                    return info["text_size"]

        for m in corpus:
            if "random" not in references:
                break
            t = time.perf_counter()
            sizes[m.name]["random"] = play(
                m, lambda obs: int(rng.integers(2)))
            seconds["random"] += time.perf_counter() - t
        for m in corpus:
            t = time.perf_counter()
            if model_path is not None:
                sizes[m.name][column] = compile_size(
                    m, load + ["-mllvm", "-mlgo-model=" + model_path])
            else:
                sizes[m.name][column] = play(
                    m, lambda obs: _decide(policy, obs))
            seconds[column] += time.perf_counter() - t
    finally:
        env.close()
        tmp.cleanup()
    modules = [(m.name, m.package, sizes[m.name]) for m in corpus]
    return EvaluationTable(columns, modules, seconds, corpus.path)


def model_sizes(models, dataset, jobs=None, clang="clang-19", plugin=None,
                cache_dir=None, timeout=300):
    """The code size of every module of `dataset` (a mlgo.datasets name, a
    Corpus or a corpus directory) compiled by clang with mlgo's plugin and
    each of `models` (mlgo.Model objects or model files' paths) as
    -mlgo-model, exactly as the model ships: evaluation strategies' and
    evaluations' batch. An int64 array, one row per model and one column
    per module in the corpus' order; a single model (not a list) gives
    one row, flattened. The compiles run `jobs` at a time (default: the
    cores this process may use), each a clang-19 of its own; the sizes do
    not depend on `jobs`."""
    import concurrent.futures

    single = isinstance(models, (Model, str, os.PathLike))
    if single:
        models = [models]
    corpus = _as_corpus(dataset, cache_dir)
    plugin = plugin or _paths.plugin_path()
    modules = list(corpus)
    if jobs is None:
        jobs = len(os.sched_getaffinity(0))
    if jobs < 1:
        raise ValueError(f"mlgo.model_sizes: jobs must be at least 1, "
                         f"got {jobs}")
    from . import _core
    limit = 0 if timeout == 0 else max(timeout, 300)
    sizes = np.zeros((len(models), len(modules)), np.int64)
    with tempfile.TemporaryDirectory(prefix="mlgo-model-sizes-") as tmp:
        paths = []
        for i, m in enumerate(models):
            if isinstance(m, Model):
                path = os.path.join(tmp, f"model-{i}.json")
                m.save(path)
            else:
                path = _paths.require_file(m, "mlgo.model_sizes: no such "
                                           "model file")
                Model.load(path)  # a bad model fails here, named
            paths.append(path)

        def compile_one(i, j):
            out = os.path.join(tmp, f"{i}-{j}.o")
            extra = ["-load", plugin, "-fpass-plugin=" + plugin,
                     "-mllvm", "-mlgo-model=" + paths[i]]
            _core.run_compiler(modules[j].command(out, extra, clang), limit)
            size = code_size(out)[0]
            os.unlink(out)
            return size

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futures = {(i, j): pool.submit(compile_one, i, j)
                       for i in range(len(paths))
                       for j in range(len(modules))}
            try:
                for (i, j), f in futures.items():
                    sizes[i, j] = f.result()
            except BaseException:
                # The first error, without waiting for the compiles not
                # yet started.
                for f in futures.values():
                    f.cancel()
                raise
    return sizes[0] if single else sizes
