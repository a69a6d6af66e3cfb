"""Named datasets: corpora by name, built on demand and cached.

  mlgo.datasets.names()                  every name
  mlgo.datasets.get("debian-c-validation")
                                         a Dataset: its packages, split,
                                         language (no building)
  mlgo.datasets.load("tiny")             a Corpus, built if need be

The names (docs/python.md, "Datasets"):

  tiny                      the bundled corpus of the tests and tutorials:
                            three C modules in two packages (alpha, beta),
                            built from sources shipped in the package with
                            clang-19 -Oz and `mlgo corpus extract` in a few
                            seconds, offline;
  debian-LANG-SPLIT         Debian bookworm packages, as the project's
                            training corpus builds them (scripts/corpus-
                            debian.sh: -Oz, embedded bitcode, one fixed
                            build root, so byte-reproducible). LANG is c,
                            cxx or all; SPLIT is
                              train       the corpus-train packages
                              validation  the corpus-validation ones, held
                                          out by models/inline-oz's recipe
                              eval        the never-trained packages of
                                          `mlgo eval package`'s default run
                                          (role 'eval' and no corpus role)
                            from scripts/packages/list.tsv (bundled as
                            data/packages.tsv).

Cache: `cache_dir`, else $MLGO_DATASETS_DIR, else $XDG_CACHE_HOME/mlgo/
datasets (~/.cache/mlgo/datasets). The Debian packages are built once into
<cache>/debian (corpus-debian.sh's stamps make a rerun redo only what is
missing or failed; it needs network access, deb-src entries and a source
checkout of mlgo: `source_dir`, $MLGO_SOURCE_DIR, or the build's own), and
each dataset is a subset of it, <cache>/<name>: symbolic links to the
packages and a description of their modules, in the combined corpus's
order (as scripts/corpus-subset.sh makes). `from_corpus=DIR` takes the
packages from a corpus built already (the repository's corpus/) instead.
"""
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Tuple

from . import _config, _paths
from .data import Corpus

_HERE = os.path.dirname(os.path.abspath(__file__))
_DATA = os.path.join(_HERE, "data")

SPLITS = ("train", "validation", "eval")
LANGUAGES = {"c": ("C",), "cxx": ("C++",), "all": ("C", "C++")}

#: The tiny corpus's sources, under data/tiny (test/Train/Inputs).
TINY_SOURCES = ("alpha/table.c", "alpha/text.c", "beta/stats.c")


@dataclass(frozen=True)
class Dataset:
    """A named dataset: which packages, without building anything."""
    name: str
    #: The packages, in corpus order ('tiny': alpha, beta).
    packages: Tuple[str, ...]
    #: 'train', 'validation', 'eval' ('tiny': None).
    split: str = None
    #: 'c', 'cxx', 'all' ('tiny': 'c').
    language: str = "c"

    def load(self, **kwargs):
        """load(self.name, **kwargs)."""
        return load(self.name, **kwargs)


def _package_rows():
    """(package, language, roles) of every row of the package list."""
    path = os.path.join(_DATA, "packages.tsv")
    _paths.require_file(path, "mlgo.datasets: the package list is missing "
                        "(an incomplete install of mlgo?)")
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.rstrip("\n").split("\t")
            if cells[0] == "package":
                continue
            rows.append((cells[0], cells[1], tuple(cells[2].split(","))))
    return rows


def _in_split(roles, split):
    if split == "train":
        return "corpus-train" in roles
    if split == "validation":
        return "corpus-validation" in roles
    return "eval" in roles and not any(r.startswith("corpus-")
                                       for r in roles)


def names():
    """Every dataset name, 'tiny' first."""
    return ["tiny"] + [f"debian-{lang}-{split}" for lang in LANGUAGES
                       for split in SPLITS]


def get(name):
    """The Dataset called `name`; a ValueError naming the known ones for
    another name."""
    if name == "tiny":
        return Dataset("tiny", ("alpha", "beta"), None, "c")
    parts = name.split("-") if isinstance(name, str) else []
    if (len(parts) != 3 or parts[0] != "debian" or parts[1] not in LANGUAGES
            or parts[2] not in SPLITS):
        raise ValueError(f"mlgo.datasets: no dataset named {name!r} "
                         f"(known: {', '.join(names())})")
    lang, split = parts[1], parts[2]
    packages = tuple(p for p, language, roles in _package_rows()
                     if language in LANGUAGES[lang]
                     and _in_split(roles, split))
    return Dataset(name, packages, split, lang)


def cache_root(cache_dir=None):
    """Where datasets are kept (see the module's documentation)."""
    if cache_dir is not None:
        return os.path.abspath(os.fspath(cache_dir))
    if os.environ.get("MLGO_DATASETS_DIR"):
        return os.path.abspath(os.environ["MLGO_DATASETS_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlgo", "datasets")


def source_dir(source=None):
    """The mlgo checkout whose corpus scripts build the Debian datasets:
    `source`, $MLGO_SOURCE_DIR, or the tree this build came from; a
    FileNotFoundError naming them when none has the scripts."""
    tried = [os.fspath(p) for p in (source, os.environ.get("MLGO_SOURCE_DIR"),
                                    getattr(_config, "SOURCE_DIR", ""))
             if p]
    for d in tried:
        if os.path.isfile(os.path.join(d, "scripts", "corpus-debian.sh")):
            return os.path.abspath(d)
    raise FileNotFoundError(
        "mlgo.datasets: building a Debian dataset needs a checkout of mlgo "
        "(its scripts/corpus-debian.sh); tried "
        f"{', '.join(tried) if tried else 'nothing'} (give source= or "
        "set MLGO_SOURCE_DIR)")


def build_command(name, cache_dir=None, source=None, jobs=1):
    """The command that builds `name`'s packages into <cache>/debian."""
    ds = get(name)
    if ds.name == "tiny":
        raise ValueError("mlgo.datasets: 'tiny' is built from bundled "
                         "sources, not by the corpus scripts")
    root = cache_root(cache_dir)
    src = source_dir(source)
    return ["bash", os.path.join(src, "scripts", "corpus-debian.sh"),
            "--out", os.path.join(root, "debian"), "--jobs", str(int(jobs)),
            "--mlgo", _paths.mlgo_program()] + list(ds.packages)


def load(name, cache_dir=None, build=True, from_corpus=None, source=None,
         jobs=1):
    """The Corpus of dataset `name`, from the cache; built when missing and
    `build` (else a FileNotFoundError saying how to build it).
    from_corpus: take the packages from that corpus directory instead of
    building them."""
    ds = get(name)
    root = cache_root(cache_dir)
    if ds.name == "tiny":
        return Corpus(_tiny(root))
    out = os.path.join(root, ds.name)
    if from_corpus is not None:
        return Corpus(_subset(os.fspath(from_corpus), out, ds.packages))
    debian = os.path.join(root, "debian")
    if not _has_packages(debian, ds.packages):
        if not build:
            raise FileNotFoundError(
                f"mlgo.datasets: {name} is not built in {debian} (build it "
                f"with load({name!r}), or: "
                f"{' '.join(build_command(name, cache_dir, source, jobs))})")
        argv = build_command(name, cache_dir, source, jobs)
        r = subprocess.run(argv)
        if r.returncode != 0 or not _has_packages(debian, ds.packages):
            raise RuntimeError(
                f"mlgo.datasets: {name}: building its packages failed "
                f"(exit status {r.returncode}); {debian}/packages.tsv says "
                f"why for each package")
    return Corpus(_subset(debian, out, ds.packages))


def _modules(corpus_dir):
    path = os.path.join(corpus_dir, "corpus_description.json")
    with open(_paths.require_file(path, "not a corpus (no "
                                  "corpus_description.json)")) as f:
        return json.load(f)["modules"]


def _has_packages(corpus_dir, packages):
    if not os.path.isfile(os.path.join(corpus_dir,
                                       "corpus_description.json")):
        return False
    have = {m.split("/")[0] for m in _modules(corpus_dir)}
    return all(p in have for p in packages)


def _subset(corpus_dir, out, packages):
    """`out` as a corpus of `packages` of `corpus_dir` (links and a
    description, as scripts/corpus-subset.sh makes); returns `out`."""
    corpus_dir = os.path.abspath(corpus_dir)
    modules = _modules(corpus_dir)
    have = {m.split("/")[0] for m in modules}
    missing = [p for p in packages if p not in have]
    if missing:
        raise ValueError(f"mlgo.datasets: {corpus_dir} has no package "
                         f"{', '.join(missing)}")
    keep = set(packages)
    os.makedirs(out, exist_ok=True)
    for p in packages:
        link = os.path.join(out, p)
        target = os.path.join(corpus_dir, p)
        if os.path.islink(link) and os.readlink(link) == target:
            continue
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(target, link)
    description = {"has_thinlto": False,
                   "modules": [m for m in modules
                               if m.split("/")[0] in keep]}
    text = json.dumps(description, indent=1)
    path = os.path.join(out, "corpus_description.json")
    if not os.path.isfile(path) or open(path).read() != text:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return out


def _tiny(root):
    """The tiny corpus, built once into <root>/tiny-<version>/corpus from
    the bundled sources: each compiled where it lies, by its relative name,
    with -ffile-compilation-dir=. (test/Train/Inputs/make-corpus.sh's
    portable mode), so the bitcode does not depend on where the package
    or the cache is. Built in a temporary directory and renamed into
    place: a reader never sees half a corpus."""
    home = os.path.join(root, f"tiny-{_config.VERSION}")
    corpus = os.path.join(home, "corpus")
    if os.path.isfile(os.path.join(corpus, "corpus_description.json")):
        return corpus
    src = os.path.join(_DATA, "tiny")
    for s in TINY_SOURCES:
        _paths.require_file(os.path.join(src, s), "mlgo.datasets: a source "
                            "of the tiny corpus is missing")
    os.makedirs(root, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tiny.", dir=root)
    try:
        for s in TINY_SOURCES:
            obj = os.path.join(work, "objs", s[:-2] + ".o")
            os.makedirs(os.path.dirname(obj), exist_ok=True)
            _run(["clang-19", "-c", "-Oz", "-ffile-compilation-dir=.",
                  "-Xclang", "-fembed-bitcode=all", s, "-o", obj], src)
        _run([_paths.mlgo_program(), "corpus", "extract", "--objects",
              os.path.join(work, "objs"), "--output",
              os.path.join(work, "corpus")], work)
        shutil.rmtree(os.path.join(work, "objs"))
        try:
            os.rename(work, home)
        except OSError:
            # Another process built it first: theirs stands.
            if not os.path.isfile(os.path.join(corpus,
                                               "corpus_description.json")):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return corpus


def _run(argv, cwd):
    r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"mlgo.datasets: {' '.join(argv)} (in {cwd}) "
                           f"exited with status {r.returncode}:\n"
                           f"{r.stderr.rstrip()}")
