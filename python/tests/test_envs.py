"""InliningEnv and VectorInliningEnv on the real modules of the tiny corpus."""
import os
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest

import mlgo
from conftest import SOURCE, run

# Decisions the inliner asks for in each module of the tiny corpus at -Oz,
# when every call site is inlined (1) and when none is (0); `mlgo serve`
# (the C++ host) agrees (test_decision_counts_match_mlgo_serve).
ALWAYS = {"alpha/table.o": 4, "alpha/text.o": 6, "beta/stats.o": 4}


def play(env, module, action):
    obs, info = env.reset(options={"module": module})
    steps = 0
    while True:
        obs, reward, term, trunc, info = env.step(action)
        steps += 1
        assert not trunc
        if term:
            return steps, reward, info


def test_reset_observation(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        obs, info = env.reset(options={"module": "alpha/table.o"})
        # The first site the inliner asks about: alpha/table.c's probe()
        # calling hash(), the first such call.
        assert info == {"module": "alpha/table.o", "package": "alpha",
                        "decision": 0, "opt_level": "Oz", "skipped": [],
                        "call_site": ("probe", "hash", 0)}
        # LLVM 19's 38 features, mlgo's six extras, in LLVM's order.
        names = list(obs)
        assert len(names) == 44
        assert names[0] == "sroa_savings" and names[37] == \
            "is_caller_avail_external"
        for name, value in obs.items():
            assert value.dtype == np.int64 and value.shape == (1,), name
        assert env.feature_specs["cost_estimate"].type == "int64_t"
        assert list(env.observation_space) == names


def test_decision_counts(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        for module, n in ALWAYS.items():
            steps, _, info = play(env, module, 1)
            assert steps == n and info["decisions"] == n, module


def test_decision_counts_match_mlgo_serve(tiny_corpus, mlgo_bin, tmp_path):
    corpus = mlgo.Corpus(tiny_corpus)
    env = mlgo.InliningEnv(corpus)
    for m in corpus:
        cmd = env.episode_command(m)
        _, err = run(mlgo_bin, "serve", "--policy", "always", "--", *cmd)
        assert err.startswith(f"mlgo serve: {ALWAYS[m.name]} decisions, 1 "
                              f"context"), err
    env.close()


def eval_corpus(mlgo_bin, corpus, *models):
    argv = [mlgo_bin, "eval", "corpus", corpus, "--per-module",
            "--format", "csv", "--jobs", "2"]
    for m in models:
        argv += ["--model", m]
    out, _ = run(*argv)
    lines = out.strip().splitlines()
    header = lines[0].split(",")
    rows = {}
    for line in lines[1:]:
        cells = dict(zip(header, line.split(",")))
        if cells["kind"] == "module":
            rows[cells["name"]] = cells
    return rows


def constant_model(name, bias):
    """A model that always decides 1 (bias > 0) or 0, written from numpy."""
    spec = mlgo.TensorSpec("callee_basic_block_count", "int64_t", (1,))
    return mlgo.Model.mlp(name, [(spec, [[]])],
                          [(np.zeros((1, 1), np.float32),
                            np.array([bias], np.float32), "linear")])


def test_reward_equals_eval_corpus(tiny_corpus, mlgo_bin, tmp_path):
    always = tmp_path / "always.json"
    never = tmp_path / "never.json"
    constant_model("always", 1.0).save(always)
    constant_model("never", -1.0).save(never)
    rows = eval_corpus(mlgo_bin, tiny_corpus, str(always), str(never))
    assert set(rows) == set(ALWAYS)
    with mlgo.InliningEnv(tiny_corpus) as env, \
            mlgo.InliningEnv(tiny_corpus, reward="relative") as rel:
        for module, row in rows.items():
            oz = int(row["-Oz"])
            for action, column in ((1, "always"), (0, "never")):
                _, reward, info = play(env, module, action)
                assert info["baseline_text_size"] == oz
                assert info["text_size"] == int(row[column]), (module, column)
                assert reward == oz - int(row[column])
                _, r2, _ = play(rel, module, action)
                assert r2 == (oz - int(row[column])) / oz
    # The inliner's choices matter on this corpus: not every reward is 0.
    assert int(rows["beta/stats.o"]["always"]) != int(rows["beta/stats.o"]["-Oz"])


def test_bad_action_names_module_and_episode_goes_on(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        env.reset(options={"module": "beta/stats.o"})
        for bad in (2, -1, 0.5, "1", np.array([1, 0])):
            with pytest.raises(ValueError, match=r"^InliningEnv: beta/stats\.o: "):
                env.step(bad)
        steps = 0
        while True:
            _, _, term, _, _ = env.step(np.int64(1))
            steps += 1
            if term:
                break
        assert steps == ALWAYS["beta/stats.o"]
        with pytest.raises(ValueError, match="no episode in progress"):
            env.step(1)


def children():
    """This process's child processes (every thread's)."""
    pids = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            pids += [int(p) for p in f.read().split()]
    return pids


def test_dead_compiler_is_an_exception_naming_the_module(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus, timeout=30) as env:
        env.reset(options={"module": "alpha/text.o"})
        pids = children()
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGKILL)
        start = time.monotonic()
        with pytest.raises(mlgo.EnvError) as e:
            for _ in range(10):
                env.step(0)
        assert str(e.value) == ("InliningEnv: alpha/text.o: compiler was "
                                "killed by signal 9 (Killed) after 1 "
                                "observation")
        assert time.monotonic() - start < 10
        assert children() == []
        with pytest.raises(ValueError, match="no episode in progress"):
            env.step(0)
        # The next episode works.
        steps, _, _ = play(env, "alpha/table.o", 1)
        assert steps == ALWAYS["alpha/table.o"]


def test_truncated_module_carries_clangs_message(tiny_corpus, tmp_path):
    broken = tmp_path / "corpus"
    shutil.copytree(tiny_corpus, broken)
    with open(broken / "beta/stats.o.bc", "r+b") as f:
        f.truncate(100)
    # clang's own words for this file, from clang itself.
    r = subprocess.run(mlgo.Corpus(str(broken))["beta/stats.o"].command(
        str(tmp_path / "x.o")), capture_output=True, text=True)
    assert r.returncode == 1 and "error: " in r.stderr
    with mlgo.InliningEnv(str(broken)) as env:
        with pytest.raises(mlgo.EnvError) as e:
            env.reset(options={"module": "beta/stats.o"})
    assert str(e.value) == ("InliningEnv: beta/stats.o: clang-19 exited "
                            "with status 1:\n" + r.stderr.rstrip())


def test_seeded_order_is_reproducible(tiny_corpus):
    def order(seed):
        with mlgo.InliningEnv(tiny_corpus, seed=seed) as env:
            return [env.reset()[1]["module"] for _ in range(3)]
    a = order(7)
    assert a == order(7)
    assert sorted(a) == sorted(ALWAYS)


def test_vector_env_matches_single_envs(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        expected = {m: play(env, m, 1)[1] for m in ALWAYS}
    venv = mlgo.VectorInliningEnv(tiny_corpus, num_envs=2, seed=3)
    obs, info = venv.reset()
    assert obs["cost_estimate"].shape == (2, 1)
    assert obs in venv.observation_space
    seen = {}
    for _ in range(40):
        obs, rewards, term, trunc, info = venv.step(np.ones(2, np.int64))
        for i in np.flatnonzero(term):
            assert info["_text_size"][i]
            seen.setdefault(info["module"][i], rewards[i])
            assert info["decisions"][i] == ALWAYS[info["module"][i]]
        if len(seen) == len(ALWAYS):
            break
    venv.close()
    assert seen == expected


def test_level_mismatch_names_both(tiny_corpus):
    # The tiny corpus is built at -Oz: its bitcode carries minsize and
    # optsize, so an -O2 compile of it would not be an -O2 compile.
    for level in ("O2", "O3", "Os"):
        with pytest.raises(ValueError) as e:
            mlgo.InliningEnv(tiny_corpus, opt_level=level)
        assert str(e.value) == (
            f"InliningEnv: opt_level '{level}' does not match the corpus: "
            f"alpha/table.o was built at -Oz ({tiny_corpus}); its bitcode "
            f"carries that level's attributes, so it cannot be compiled at "
            f"-{level} (use a corpus built at -{level}, or opt_level=None)")
    with mlgo.InliningEnv(tiny_corpus, opt_level="Oz") as env:
        assert env.reset(options={"module": "alpha/text.o"})[1][
            "opt_level"] == "Oz"


def test_observations_equal_mlgo_serve_log(tiny_corpus, mlgo_bin, tmp_path):
    # The same decisions (alternate: 1, 0, 1, ...) through the C++ host,
    # logged, and through the environment: the same features, value for
    # value, in the same order.
    corpus = mlgo.Corpus(tiny_corpus)
    log_path = str(tmp_path / "text.log")
    with mlgo.InliningEnv(corpus) as env:
        run(mlgo_bin, "serve", "--policy", "alternate", "--log", log_path,
            "--", *env.episode_command(corpus["alpha/text.o"]))
        rows = mlgo.read_log(log_path).contexts[0].observations
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        seen = []
        for k in range(len(rows)):
            seen.append(obs)
            obs, _, term, _, _ = env.step(1 - k % 2)
        assert term
    assert len(seen) == len(rows) == ALWAYS["alpha/text.o"]
    for o, row in zip(seen, rows):
        for name, value in o.items():
            assert np.array_equal(value, row[name]), name


def test_stalled_compiler_is_killed_and_named(tiny_corpus):
    # A compiler that stops (SIGSTOP) after its first observation sends
    # nothing more: the host kills it after `timeout` seconds.
    with mlgo.InliningEnv(tiny_corpus, timeout=2) as env:
        env.reset(options={"module": "beta/stats.o"})
        pids = children()
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGSTOP)
        start = time.monotonic()
        with pytest.raises(mlgo.EnvError) as e:
            env.step(1)
        assert str(e.value) == ("InliningEnv: beta/stats.o: the compiler "
                                "sent nothing for 2 seconds after 1 "
                                "observation; killed it")
        assert time.monotonic() - start < 10
        assert children() == []


@pytest.fixture(scope="module")
def o2_corpus(tmp_path_factory, mlgo_bin):
    """The tiny corpus's sources built at -O2."""
    out = tmp_path_factory.mktemp("o2")
    src = os.path.join(SOURCE, "test/Train/Inputs")
    for f in ("alpha/table", "alpha/text", "beta/stats"):
        os.makedirs(out / "objs" / os.path.dirname(f), exist_ok=True)
        run("clang-19", "-c", "-O2", "-Xclang", "-fembed-bitcode=all",
            os.path.join(src, f + ".c"), "-o", str(out / "objs" / (f + ".o")))
    run(mlgo_bin, "corpus", "extract", "--objects", str(out / "objs"),
        "--output", str(out / "corpus"))
    return str(out / "corpus")


def test_episodes_compile_at_the_corpus_level(tiny_corpus, o2_corpus,
                                              tmp_path):
    # The baseline at the corpus's level is clang's object at that level,
    # and the level matters here: -O2 and -Oz give other code.
    src = os.path.join(SOURCE, "test/Train/Inputs/alpha/text.c")
    sizes = {}
    for level in ("O2", "Oz"):
        obj = str(tmp_path / f"{level}.o")
        run("clang-19", "-c", "-" + level, src, "-o", obj)
        sizes[level] = mlgo.code_size(obj)[0]
    assert sizes["O2"] != sizes["Oz"]
    for corpus, level in ((o2_corpus, "O2"), (tiny_corpus, "Oz")):
        for given in (None, level):
            with mlgo.InliningEnv(corpus, opt_level=given) as env:
                _, info = env.reset(options={"module": "alpha/text.o"})
                assert info["opt_level"] == level
                assert env.baseline("alpha/text.o") == sizes[level]
                _, reward, info = play(env, "alpha/text.o", 0)
                assert info["baseline_text_size"] == sizes[level]
    with pytest.raises(ValueError, match=r"opt_level 'Oz' does not match the "
                       r"corpus: alpha/table\.o was built at -O2 "):
        mlgo.InliningEnv(o2_corpus, opt_level="Oz")
