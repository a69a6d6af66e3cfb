"""Logs read in Python equal `mlgo log dump`; corpus iteration."""
import os

import numpy as np
import pytest

import mlgo
from conftest import SOURCE, run


def parse_dump(text):
    """`mlgo log dump`'s records: [(context, kind, number, {name: [str]})]."""
    records, context, current = [], None, None
    for line in text.splitlines():
        key, _, value = line.partition(": ")
        if key in ("features", "score", "advice"):
            continue
        if key == "context":
            context = value
        elif key in ("observation", "outcome"):
            current = (context, key, int(value), {})
            records.append(current)
        elif key == "site":
            continue
        else:
            current[3][key] = value.split(",")
    return records


def same(array, strings):
    """Every value of `array` is the number its dump prints."""
    flat = np.asarray(array).ravel()
    assert len(flat) == len(strings)
    for v, s in zip(flat, strings):
        if np.issubdtype(flat.dtype, np.floating):
            ref = flat.dtype.type(float(s))
            assert (np.isnan(ref) and np.isnan(v)) or \
                ref.tobytes() == v.tobytes(), (v, s)
        else:
            assert int(s) == int(v), (v, s)


def check_against_dump(mlgo_bin, path):
    log = mlgo.read_log(path)
    dump, _ = run(mlgo_bin, "log", "dump", path)
    records = parse_dump(dump)
    obs = [r for r in records if r[1] == "observation"]
    outcomes = [r for r in records if r[1] == "outcome"]
    assert log.num_observations == len(obs)
    table = log.table()
    names = [s.name for s in log.features]
    for row, (context, _, number, values) in zip(table, obs):
        assert log.contexts[row["context"]].name == context
        assert row["observation"] == number
        assert list(values) == names
        for n in names:
            same(row[n], values[n])
    if log.score is not None:
        got = [(c.name, int(i), r) for c in log.contexts
               for i, r in zip(c.reward_index, c.rewards)]
        assert len(got) == len(outcomes)
        for (cname, i, r), (context, _, number, values) in zip(got, outcomes):
            assert (cname, i) == (context, number)
            same(r, values[log.score.name])
    return log


def test_inliner_log_equals_dump(tiny_corpus, mlgo_bin, tmp_path):
    corpus = mlgo.Corpus(tiny_corpus)
    env = mlgo.InliningEnv(corpus)
    path = str(tmp_path / "inline.log")
    run(mlgo_bin, "serve", "--policy", "alternate", "--log", path, "--",
        *env.episode_command(corpus["alpha/text.o"]))
    env.close()
    log = check_against_dump(mlgo_bin, path)
    assert [c.name for c in log.contexts] == [""]
    assert len(log.contexts[0]) == 6
    assert log.features[-1].name == "inlining_decision"
    assert list(log.contexts[0].observations["inlining_decision"][:, 0]) == \
        [1, 0, 1, 0, 1, 0]
    # A view of the reader's buffer, not a copy per record.
    assert not log.contexts[0].observations.flags.writeable


def test_regalloc_log_with_rewards_equals_dump(mlgo_bin, tmp_path):
    path = str(tmp_path / "evict.log")
    run(mlgo_bin, "regalloc", "log",
        os.path.join(SOURCE, "test/RegAlloc/Inputs/spills.ll"), "-o", path)
    log = check_against_dump(mlgo_bin, path)
    assert log.score.name == "reward"
    assert [c.name for c in log.contexts] == \
        ["pressure", "fill", "poly", "with_asm", "leaf"]
    assert log["pressure"].observations["mask"].shape[1:] == (1, 33)
    assert log["pressure"].rewards[0, 0] == np.float32(765.4)
    rewards = log.table()["reward"][:, 0]
    assert np.count_nonzero(~np.isnan(rewards)) == 2


def test_bad_log_is_an_error_naming_the_file(tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_bytes(b'{"features":[{"name":"a","type":"int64_t","port":0,'
                    b'"shape":[1]}]}\n{"context":""}\n{"observation":0}\n'
                    b'\x01\x02')
    with pytest.raises(ValueError, match=str(bad) + r".*expected 8 bytes of "
                       r"tensor data, got 2"):
        mlgo.read_log(bad)


def test_corpus_metadata(tiny_corpus):
    c = mlgo.Corpus(tiny_corpus)
    assert [m.name for m in c] == ["alpha/table.o", "alpha/text.o",
                                   "beta/stats.o"]
    assert c.packages == ["alpha", "beta"]
    assert [m.name for m in c.modules("beta")] == ["beta/stats.o"]
    m = c["alpha/text.o"]
    assert m.package == "alpha"
    assert m.bitcode_size == os.path.getsize(m.bitcode) > 0
    assert m.cc1_args()[0] == "-cc1" and "-Oz" in m.cc1_args()
    assert [m.name for m in mlgo.Corpus(tiny_corpus, packages=["beta"])] == \
        ["beta/stats.o"]
    with pytest.raises(ValueError, match="no package named gamma"):
        mlgo.Corpus(tiny_corpus, packages=["gamma"])
    with pytest.raises(FileNotFoundError, match="corpus_description.json"):
        mlgo.Corpus(os.path.dirname(tiny_corpus))
