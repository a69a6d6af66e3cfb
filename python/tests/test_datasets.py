"""mlgo.datasets: the names and splits (from the package list, no network),
the bundled tiny corpus, subsets of a corpus built already."""
import filecmp
import os

import pytest

import mlgo
import mlgo.datasets as datasets
from conftest import SOURCE


def test_names():
    assert datasets.names() == [
        "tiny",
        "debian-c-train", "debian-c-validation", "debian-c-eval",
        "debian-cxx-train", "debian-cxx-validation", "debian-cxx-eval",
        "debian-all-train", "debian-all-validation", "debian-all-eval"]
    with pytest.raises(ValueError) as e:
        datasets.get("debian-c-test")
    assert str(e.value) == (
        "mlgo.datasets: no dataset named 'debian-c-test' (known: "
        + ", ".join(datasets.names()) + ")")


def test_splits_follow_the_package_list():
    get = datasets.get
    assert get("debian-c-validation").packages == (
        "expat", "zstd", "lmdb", "libuv1", "giflib")
    assert get("debian-cxx-validation").packages == (
        "libjsoncpp", "double-conversion", "ninja-build")
    assert get("debian-c-eval").packages == ("xz-utils", "cmark", "cjson")
    assert get("debian-cxx-eval").packages == (
        "tinyxml2", "yaml-cpp", "lzip", "uchardet")
    assert get("debian-c-train").packages[:3] == ("zlib", "bzip2", "lua5.4")
    assert len(get("debian-c-train").packages) == 15
    assert get("debian-cxx-train").packages == (
        "fmtlib", "snappy", "pugixml", "cppcheck", "googletest")
    for split in datasets.SPLITS:
        # In the list's order, which interleaves the languages for eval.
        both = get(f"debian-all-{split}").packages
        assert sorted(both) == sorted(get(f"debian-c-{split}").packages +
                                      get(f"debian-cxx-{split}").packages)
    assert get("debian-all-eval").packages[:3] == ("xz-utils", "tinyxml2",
                                                   "yaml-cpp")
    train = set(get("debian-all-train").packages)
    validation = set(get("debian-all-validation").packages)
    evaluation = set(get("debian-all-eval").packages)
    assert not train & validation and not train & evaluation
    assert not validation & evaluation
    # The bundled list is the repository's.
    assert filecmp.cmp(os.path.join(os.path.dirname(datasets.__file__),
                                    "data", "packages.tsv"),
                       os.path.join(SOURCE, "scripts/packages/list.tsv"),
                       shallow=False)


def test_build_command_runs_the_corpus_script(tmp_path, monkeypatch):
    argv = datasets.build_command("debian-cxx-eval", cache_dir=tmp_path,
                                  source=SOURCE, jobs=2)
    assert argv == ["bash", os.path.join(SOURCE, "scripts/corpus-debian.sh"),
                    "--out", str(tmp_path / "debian"), "--jobs", "2",
                    "--mlgo", mlgo.mlgo_program(),
                    "tinyxml2", "yaml-cpp", "lzip", "uchardet"]
    with pytest.raises(FileNotFoundError) as e:
        datasets.load("debian-c-eval", cache_dir=tmp_path, build=False,
                      source=SOURCE)
    assert str(e.value).startswith(
        f"mlgo.datasets: debian-c-eval is not built in {tmp_path}/debian "
        f"(build it with load('debian-c-eval'), or: bash ")
    # An install knows no checkout: one must be named.
    monkeypatch.setattr(datasets._config, "SOURCE_DIR", "")
    monkeypatch.delenv("MLGO_SOURCE_DIR", raising=False)
    with pytest.raises(FileNotFoundError) as e:
        datasets.build_command("debian-c-eval", source=tmp_path / "none")
    assert str(e.value) == (
        f"mlgo.datasets: building a Debian dataset needs a checkout of mlgo "
        f"(its scripts/corpus-debian.sh); tried {tmp_path}/none (give "
        f"source= or set MLGO_SOURCE_DIR)")


def test_tiny_is_built_once_and_reproducibly(tmp_path, tiny_corpus):
    corpus = datasets.load("tiny", cache_dir=tmp_path / "a")
    assert [m.name for m in corpus] == ["alpha/table.o", "alpha/text.o",
                                         "beta/stats.o"]
    description = os.path.join(corpus.path, "corpus_description.json")
    stamp = os.stat(description).st_mtime_ns
    again = datasets.load("tiny", cache_dir=tmp_path / "a")
    assert again.path == corpus.path
    assert os.stat(description).st_mtime_ns == stamp
    # Elsewhere, the same bytes: the build does not depend on the paths.
    other = datasets.get("tiny").load(cache_dir=tmp_path / "b")
    for m, n in zip(corpus, other):
        assert filecmp.cmp(m.bitcode, n.bitcode, shallow=False), m.name
    # The same modules as the tests' corpus: the inliner asks as often.
    from test_envs import ALWAYS, play
    with mlgo.InliningEnv(corpus) as env:
        for module, n in ALWAYS.items():
            assert play(env, module, 1)[0] == n


def test_subset_of_a_built_corpus(tmp_path, tiny_corpus):
    out = datasets._subset(tiny_corpus, str(tmp_path / "beta"), ("beta",))
    assert [m.name for m in mlgo.Corpus(out)] == ["beta/stats.o"]
    with pytest.raises(ValueError) as e:
        datasets.load("debian-c-validation", cache_dir=tmp_path,
                      from_corpus=tiny_corpus)
    assert str(e.value) == (
        f"mlgo.datasets: {os.path.abspath(tiny_corpus)} has no package "
        f"expat, zstd, lmdb, libuv1, giflib")
