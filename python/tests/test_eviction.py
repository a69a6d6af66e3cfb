"""EvictionEnv on real functions: static score and speed rewards."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import mlgo
from mlgo import envs
from conftest import SOURCE, run

SPILLS = os.path.join(SOURCE, "test/RegAlloc/Inputs/spills.ll")
# Evictions each function of spills.ll asks for when every answer is the
# first allowed column (mlgo serve's first-valid), and when every answer is
# the last allowed one (column 32, "evict nothing", where allowed).
FIRST_VALID = {"pressure": 101, "fill": 48}
LAST_VALID = {"pressure": 13, "fill": 4}


def play(env, module, function, pick):
    obs, info = env.reset(options={"module": module, "function": function})
    assert info["function"] == function and info["action_mask"].dtype == bool
    while True:
        allowed = np.flatnonzero(info["action_mask"])
        obs, reward, term, trunc, info = env.step(int(pick(allowed)))
        if term:
            return reward, info


@pytest.fixture(scope="module")
def spills_env():
    env = mlgo.EvictionEnv(files=[SPILLS], seed=1)
    yield env
    env.close()


def llc_interactive(out, *extra):
    return ["llc-19", "-O2", *extra, "-regalloc-enable-advisor=release",
            "-regalloc-evict-interactive-channel-base={channel}", SPILLS,
            "-o", out]


def test_functions_and_counts_match_mlgo_serve(spills_env, mlgo_bin, tmp_path):
    assert spills_env.functions(SPILLS) == list(FIRST_VALID.items())
    _, err = run(mlgo_bin, "serve", "--policy", "first-valid", "--",
                 *llc_interactive(str(tmp_path / "x.mir"),
                                  "-stop-after=virtregrewriter"))
    total = sum(FIRST_VALID.values())
    assert err.startswith(f"mlgo serve: {total} decisions, "), err
    for f, n in FIRST_VALID.items():
        _, info = play(spills_env, SPILLS, f, lambda a: a[0])
        assert info["decisions"] == n
        _, info = play(spills_env, SPILLS, f, lambda a: a[-1])
        assert info["decisions"] == LAST_VALID[f]


def test_static_reward_equals_regalloc_score(spills_env, mlgo_bin, tmp_path):
    mir = str(tmp_path / "fv.mir")
    run(mlgo_bin, "serve", "--policy", "first-valid", "--",
        *llc_interactive(mir, "-stop-after=virtregrewriter"))

    def scores(path):
        out, _ = run(mlgo_bin, "regalloc", "score", "--json", path)
        return {f["name"]: f["score"]
                for f in json.loads(out)["files"][0]["functions"]}

    llvm, fv = scores(SPILLS), scores(mir)
    for f in FIRST_VALID:
        reward, info = play(spills_env, SPILLS, f, lambda a: a[0])
        assert info["reward_kind"] == "static"
        assert info["baseline_cost"] == llvm[f]
        assert info["cost"] == fv[f]
        assert reward == llvm[f] - fv[f]
    # The choice matters: first-valid is worse than LLVM here.
    assert fv["pressure"] > llvm["pressure"]


def test_masked_action_names_module_and_function(spills_env):
    obs, info = spills_env.reset(options={"module": SPILLS,
                                          "function": "fill"})
    forbidden = int(np.flatnonzero(~info["action_mask"])[0])
    with pytest.raises(ValueError, match=r"^EvictionEnv: .*spills\.ll: fill: "
                       rf"invalid action {forbidden}: the mask forbids"):
        spills_env.step(forbidden)
    with pytest.raises(ValueError, match=r"expected an integer from 0 to 32"):
        spills_env.step(33)
    # The episode goes on.
    while True:
        allowed = np.flatnonzero(info["action_mask"])
        _, _, term, _, info = spills_env.step(int(allowed[-1]))
        if term:
            break
    assert info["decisions"] == LAST_VALID["fill"]


def test_seeded_episodes_are_reproducible():
    def walk(seed):
        with mlgo.EvictionEnv(files=[SPILLS], seed=seed) as env:
            return [env.reset()[1]["function"] for _ in range(4)]
    assert walk(5) == walk(5)
    assert sorted(set(walk(5))) == sorted(FIRST_VALID)


@pytest.fixture(scope="module")
def profiled_corpus(tmp_path_factory, mlgo_bin):
    out = tmp_path_factory.mktemp("prof")
    env = dict(os.environ, PATH=os.path.dirname(mlgo_bin) + ":" +
               os.environ["PATH"])
    subprocess.run(["sh", os.path.join(
        SOURCE, "test/Speed/Inputs/make-profiled-corpus.sh"), str(out)],
        check=True, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    run(mlgo_bin, "corpus", "profile", str(out / "corpus"), "--package",
        "press", "--profile", str(out / "press.profdata"))
    return str(out / "corpus")


def test_speed_reward_where_a_profile_exists(profiled_corpus, mlgo_bin):
    # LLVM's advisor's cycles, as `mlgo regalloc score --profile` costs them.
    out, _ = run(mlgo_bin, "regalloc", "score", "--json", "--profile",
                 os.path.join(os.path.dirname(profiled_corpus),
                              "press.profdata"),
                 os.path.join(profiled_corpus, "press/pressure.o.bc"))
    cycles = {f["name"]: f["cycles"]
              for f in json.loads(out)["files"][0]["functions"]}
    with mlgo.EvictionEnv(profiled_corpus) as env:
        fns = env.functions("press/pressure.o")
        assert [f for f, _ in fns] == ["hot"]
        reward, info = play(env, "press/pressure.o", "hot", lambda a: a[0])
        assert info["reward_kind"] == "speed"
        assert info["baseline_cost"] == cycles["hot"]
        assert info["decisions"] == fns[0][1]
        assert reward == info["baseline_cost"] - info["cost"]
        assert reward != 0
    with mlgo.EvictionEnv(profiled_corpus, reward="static") as env:
        _, info = play(env, "press/pressure.o", "hot", lambda a: a[0])
        assert info["reward_kind"] == "static"


def test_vector_eviction_env_matches_single_env(spills_env):
    expected = {f: play(spills_env, SPILLS, f, lambda a: a[-1])[0]
                for f in LAST_VALID}
    with mlgo.VectorEvictionEnv(files=[SPILLS], num_envs=2, seed=2) as venv:
        obs, info = venv.reset()
        assert obs["mask"].shape == (2, 1, 33)
        assert info["action_mask"].shape == (2, 33)
        # Dealt from one order: the two play different functions.
        assert sorted(info["function"]) == sorted(LAST_VALID)
        seen = {}
        for _ in range(60):
            actions = [np.flatnonzero(m)[-1] for m in info["action_mask"]]
            obs, rewards, term, _, info = venv.step(actions)
            for i in np.flatnonzero(term):
                f = info["function"][i]
                assert info["decisions"][i] == LAST_VALID[f]
                seen.setdefault(f, rewards[i])
            if len(seen) == len(LAST_VALID):
                break
    assert seen == expected


def test_dead_llc_is_an_exception_naming_module_and_function(spills_env):
    _, info = spills_env.reset(options={"module": SPILLS,
                                        "function": "pressure"})
    allowed = int(np.flatnonzero(info["action_mask"])[0])
    pids = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children") as f:
            pids += [int(p) for p in f.read().split()]
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    with pytest.raises(mlgo.EnvError, match=r"^EvictionEnv: .*spills\.ll: "
                       r"pressure: compiler was killed by signal 9"):
        spills_env.step(allowed)


DYING_HOST = """
import os
import mlgo
env = mlgo.EvictionEnv(files=[{spills!r}], seed=1)
env.reset(options={{"module": {spills!r}, "function": "pressure"}})
pids = []
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{{task}}/children") as f:
        pids += f.read().split()
print(" ".join(pids), env._tmp.name, flush=True)
os._exit(0)  # Mid-episode: no finalizer, no close().
"""


def test_a_dead_host_takes_llc_with_it_and_its_directory_is_collected():
    package = os.path.dirname(os.path.dirname(mlgo.__file__))
    done = subprocess.run(
        [sys.executable, "-c", DYING_HOST.format(spills=SPILLS)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": package})
    assert done.returncode == 0, done.stderr
    *pids, tmp = done.stdout.split()
    assert len(pids) == 1
    llc = int(pids[0])
    # llc-19 waited for an advice nobody will send: it must die with its
    # host (PR_SET_PDEATHSIG), not spin at end of file.
    deadline = time.monotonic() + 10
    while envs._is_running(llc) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not envs._is_running(llc)
    assert os.path.basename(tmp).startswith("mlgo-env-")
    assert os.path.isdir(tmp)
    # The next env collects the dead host's directory.
    mlgo.EvictionEnv(files=[SPILLS], seed=1).close()
    assert not os.path.exists(tmp)


# LLVM's own choices (info['llvm_choice']) at each step of each function's
# episode when every step follows them; the other function is answered by
# first-valid, as in every EvictionEnv episode.
LLVM_CHOICES = {
    "pressure": [10, 32, 32, 13, 32, 12, 32, 13, 32, 32, 12, 32, 32, 32, 32,
                 32],
    "fill": [12, 32, 9, 32, 12, 32, 10, 32, 14, 32, 14, 32, 12, 32, 13, 32],
}


def test_llvm_choice_in_info_is_exact(spills_env):
    for f, want in LLVM_CHOICES.items():
        obs, info = spills_env.reset(options={"module": SPILLS, "function": f})
        got = []
        while True:
            got.append(info["llvm_choice"])
            assert got[-1] == mlgo.llvm_eviction_choice(obs)
            obs, reward, term, _, info = spills_env.step(got[-1])
            if term:
                break
        assert got == want
        # LLVM's choices give LLVM's allocation of the function.
        assert reward == 0.0 and info["cost"] == info["baseline_cost"]


def test_answering_llvm_choice_everywhere_gives_stock_object(tmp_path):
    # Every function of the module answered with LLVM's choice (a raw
    # episode, no other policy): the object is llc-19's own, byte for byte.
    stock, ours = str(tmp_path / "stock.o"), str(tmp_path / "ours.o")
    run("llc-19", "-O2", "-filetype=obj", SPILLS, "-o", stock)
    specs = [mlgo.TensorSpec.from_json(s)
             for s in mlgo._core.eviction_feature_specs()]
    dtype = mlgo.record_dtype(specs)
    episode = mlgo._core.Episode(
        llc_interactive(ours, "-filetype=obj"), 300)
    choices = {}
    while episode.wait() == "observation":
        record = np.frombuffer(episode.observation(), dtype=dtype)[0]
        choice = mlgo.llvm_eviction_choice(record)
        choices.setdefault(episode.context(), []).append(choice)
        episode.act(np.int64(choice).tobytes())
    assert episode.wait() == "finished", episode.error()
    episode.close()
    assert {f: len(c) for f, c in choices.items()} == {"pressure": 16,
                                                       "fill": 16}
    with open(stock, "rb") as a, open(ours, "rb") as b:
        assert a.read() == b.read()


def features(**columns):
    """Eviction features with every column zero but those given
    ({name: {column: value}}); column 32 (the live range) allowed."""
    f = {s.name: np.zeros(s.shape, np.float32)
         for s in map(mlgo.TensorSpec.from_json,
                      mlgo._core.eviction_feature_specs())}
    f["mask"][..., 32] = 1
    for name, values in columns.items():
        for column, value in values.items():
            f[name][..., column] = value
    return f


def test_llvm_choice_rules():
    choose = mlgo.llvm_eviction_choice
    # Interferences at least as heavy as the live range cannot be evicted.
    assert choose(features(mask={3: 1}, use_def_density={3: 0.5, 32: 0.5})) \
        == 32
    assert choose(features(mask={3: 1}, use_def_density={3: 0.4, 32: 0.5})) \
        == 3
    # The first of equal costs; a lower cost later wins, broken hints first.
    assert choose(features(mask={1: 1, 2: 1, 4: 1},
                           use_def_density={1: .3, 2: .3, 4: .2, 32: 1})) == 4
    assert choose(features(mask={1: 1, 2: 1}, nr_broken_hints={2: 1},
                           use_def_density={1: .3, 2: .1, 32: 1})) == 1
    # A free register costs nothing; a hint register ends the walk.
    assert choose(features(mask={1: 1, 2: 1}, is_free={2: 1},
                           use_def_density={1: .3, 32: 1})) == 2
    assert choose(features(mask={1: 1, 2: 1}, is_hint={1: 1},
                           use_def_density={1: .3, 2: .1, 32: 1})) == 1
    # Block-local interferences only while nothing was taken.
    assert choose(features(mask={1: 1, 2: 1}, is_local={1: 1, 2: 1},
                           use_def_density={1: .3, 2: .1, 32: 1})) == 1
    # What the features cannot tell: an unspillable live range (column 32
    # masked), urgent evictions, a weight divided by an infinite one.
    assert choose(features(mask={1: 1, 32: 0})) == -1
    assert choose(features(mask={1: 1}, nr_urgent={1: 1})) == -1
    assert choose(features(mask={1: 1, 2: 1},
                           use_def_density={1: np.nan})) == -1
