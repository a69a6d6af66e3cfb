"""The gymnasium contract: spaces known at construction, reset/step types,
seeding, action_masks(), the registered ids, the vector envs' gymnasium 1.x
conventions. Checked by mlgo.check_env (ours) always, and by gymnasium's
own check_env when gymnasium is importable."""
import os
import subprocess

import numpy as np
import pytest

import mlgo
import mlgo.gym
from conftest import SOURCE

SPILLS = os.path.join(SOURCE, "test/RegAlloc/Inputs/spills.ll")
ALWAYS = {"alpha/table.o": 4, "alpha/text.o": 6, "beta/stats.o": 4}

try:
    import gymnasium
    from gymnasium.utils.env_checker import check_env as gym_check_env
    NO_GYMNASIUM = None
except ImportError as e:
    gymnasium = None
    NO_GYMNASIUM = (f"gymnasium is not importable by this Python ({e}); "
                    f"Debian packages no gymnasium: mlgo.check_env checks "
                    f"the same contract")


def make_envs(corpus):
    return {"inlining": lambda **kw: mlgo.InliningEnv(corpus, **kw),
            "eviction": lambda **kw: mlgo.EvictionEnv(files=[SPILLS], **kw)}


@pytest.mark.parametrize("kind", ["inlining", "eviction"])
@pytest.mark.parametrize("form", ["dict", "vector"])
def test_contract_of_our_checker(tiny_corpus, kind, form):
    with make_envs(tiny_corpus)[kind](observation=form) as env:
        mlgo.check_env(env)


@pytest.mark.skipif(gymnasium is None, reason=NO_GYMNASIUM or "")
@pytest.mark.parametrize("kind", ["inlining", "eviction"])
def test_contract_of_gymnasium_check_env(tiny_corpus, kind):
    with make_envs(tiny_corpus)[kind]() as env:
        gym_check_env(env, skip_render_check=True)


def test_spaces_known_at_construction(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        space = env.observation_space
        assert isinstance(space, mlgo.Dict) and len(space) == 44
        box = space["cost_estimate"]
        assert isinstance(box, mlgo.Box)
        assert box.shape == (1,) and box.dtype == np.int64
        assert env.action_space == mlgo.Discrete(2)
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        assert list(obs) == list(space)
        assert obs in space
    with mlgo.InliningEnv(tiny_corpus, include_default=True,
                          observation="vector") as env:
        assert env.observation_space.shape == (45,)
        assert env.observation_space.dtype == np.float32
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        assert obs.dtype == np.float32 and obs.shape == (45,)
        names = list(env.feature_specs)
        raw = env._raw
        assert obs.tolist() == [float(raw[n][0]) for n in names]
    with mlgo.EvictionEnv(files=[SPILLS]) as env:
        assert env.observation_space["mask"].shape == (1, 33)
        assert env.observation_space["progress"].dtype == np.float32
        assert env.action_space.n == 33
    with mlgo.EvictionEnv(files=[SPILLS], observation="vector") as env:
        assert env.observation_space.shape == (20 * 33 + 1,)


def test_action_masks(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        env.reset(options={"module": "beta/stats.o"})
        assert env.action_masks().tolist() == [True, True]
    with mlgo.EvictionEnv(files=[SPILLS]) as env:
        _, info = env.reset(options={"module": SPILLS, "function": "fill"})
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (33,)
        assert np.array_equal(mask, env._raw["mask"].reshape(-1) != 0)
        assert np.array_equal(mask, info["action_mask"])
        assert 0 < mask.sum() < 33
        for _ in range(20):
            assert mask[int(env.action_space.sample(mask.astype(np.int8)))]


def test_seeding_repeats_observation_bytes(tiny_corpus):
    def walk(seed):
        with mlgo.InliningEnv(tiny_corpus) as env:
            out = []
            for k in range(3):
                obs, info = env.reset(seed=seed if k == 0 else None)
                out.append((info["module"],
                            b"".join(v.tobytes() for v in obs.values())))
            return out, env.np_random.bit_generator.state
    a, state = walk(11)
    b, state2 = walk(11)
    assert a == b and state == state2
    assert sorted(m for m, _ in a) == sorted(ALWAYS)
    # np_random is the environment's generator: reset(seed=) restarts it.
    with mlgo.InliningEnv(tiny_corpus) as env:
        env.reset(seed=11)
        first = env.np_random.bit_generator.state
        env.reset(seed=11)
        assert env.np_random.bit_generator.state == first


def test_reset_option_typo_is_an_error_naming_it(tiny_corpus):
    with mlgo.InliningEnv(tiny_corpus) as env:
        with pytest.raises(ValueError) as e:
            env.reset(options={"modul": "alpha/text.o"})
        assert str(e.value) == ("InliningEnv: unknown reset option 'modul' "
                                "(known: module, actions)")
        with pytest.raises(ValueError) as e:
            env.reset(options={"module": "alpha/txt.o"})
        assert str(e.value) == (f"InliningEnv: reset option 'module': no "
                                f"module named 'alpha/txt.o' in {tiny_corpus}")
    with mlgo.EvictionEnv(files=[SPILLS]) as env:
        with pytest.raises(ValueError, match=r"^EvictionEnv: unknown reset "
                           r"option 'fuction' \(known: module, function, actions\)$"):
            env.reset(options={"module": SPILLS, "fuction": "fill"})


def test_registered_ids_make_the_environments(tiny_corpus):
    env = mlgo.gym.make("mlgo/Inlining-v0", corpus=tiny_corpus)
    try:
        assert env.spec.id == "mlgo/Inlining-v0"
        assert isinstance(env.unwrapped, mlgo.InliningEnv)
        assert env.metadata["render_modes"] == []
        obs, info = env.reset(seed=1)
        assert obs in env.observation_space
    finally:
        env.close()
    env = mlgo.gym.make("mlgo/Eviction-v0", files=[SPILLS])
    try:
        assert env.spec.id == "mlgo/Eviction-v0"
        assert isinstance(env.unwrapped, mlgo.EvictionEnv)
    finally:
        env.close()
    if gymnasium is not None:
        assert "mlgo/Inlining-v0" in gymnasium.registry
    with pytest.raises(ValueError if gymnasium is None else Exception):
        mlgo.gym.make("mlgo/Inlinng-v0", corpus=tiny_corpus)


def play_vector(venv, seed, steps):
    obs, info = venv.reset(seed=seed)
    trace = [(obs["cost_estimate"].tobytes(), tuple(info["module"]))]
    for _ in range(steps):
        obs, r, term, trunc, info = venv.step(np.array([1, 0]))
        trace.append((obs["cost_estimate"].tobytes(), tuple(info["module"]),
                      r.tolist(), term.tolist()))
    return trace


def test_vector_env_gymnasium_1_conventions(tiny_corpus):
    with mlgo.VectorInliningEnv(tiny_corpus, num_envs=2, seed=3) as venv:
        assert venv.num_envs == 2
        assert venv.single_action_space == mlgo.Discrete(2)
        assert venv.observation_space["cost_estimate"].shape == (2, 1)
        assert venv.action_masks().shape == (2, 2)
        obs, info = venv.reset(seed=5)
        # infos are arrays over the environments with '_key' masks.
        assert info["_module"].tolist() == [True, True]
        assert info["decision"].tolist() == [0, 0]
        # Next-step autoreset: the step that ends an episode returns its
        # last observation; the next step starts the next episode (reward
        # 0, not terminated, decision 0) whatever its action.
        ended = None
        for _ in range(20):
            obs, r, term, trunc, info = venv.step(np.array([1, 1]))
            if ended is not None:
                assert info["decision"][ended] == 0
                assert r[ended] == 0.0 and not term[ended]
                break
            if term.any():
                ended = int(np.flatnonzero(term)[0])
                assert info["decisions"][ended] == ALWAYS[
                    info["module"][ended]]
        assert ended is not None


def test_vector_env_on_two_workers_is_deterministic_per_seed(tiny_corpus):
    with mlgo.VectorInliningEnv(tiny_corpus, num_envs=2) as venv:
        a = play_vector(venv, 9, 12)
    with mlgo.VectorInliningEnv(tiny_corpus, num_envs=2) as venv:
        b = play_vector(venv, 9, 12)
        c = play_vector(venv, 9, 12)
    assert a == b == c
    assert sum(sum(t[3]) for t in a[1:]) >= 2  # episodes ended on the way


def test_replay_of_a_prefix_gives_the_same_observation_bytes(tiny_corpus):
    prefix = [1, 0, 1]
    with mlgo.InliningEnv(tiny_corpus) as env:
        obs, _ = env.reset(options={"module": "alpha/text.o"})
        for a in prefix:
            obs, _, term, _, info = env.step(a)
            assert not term
        by_hand = b"".join(v.tobytes() for v in obs.values())
        while True:
            obs, reward, term, _, end = env.step(0)
            if term:
                break
    with mlgo.InliningEnv(tiny_corpus) as env:
        obs, info = env.reset(options={"module": "alpha/text.o",
                                       "actions": prefix})
        assert info["decision"] == len(prefix)
        assert b"".join(v.tobytes() for v in obs.values()) == by_hand
        while True:
            obs, r, term, _, e = env.step(0)
            if term:
                break
        assert r == reward and e["sites"] == end["sites"]
        with pytest.raises(ValueError) as err:
            env.reset(options={"module": "alpha/text.o",
                               "actions": [1] * ALWAYS["alpha/text.o"]})
        assert str(err.value) == (
            "InliningEnv: alpha/text.o: reset option 'actions': the episode "
            "ends after 6 of the 6 actions; a prefix must leave a decision "
            "to take")
        with pytest.raises(ValueError, match="'actions' needs 'module'"):
            env.reset(options={"actions": [1]})


def test_exported_decisions_rebuild_the_episode_object(tiny_corpus, tmp_path,
                                                      mlgo_bin):
    clang = os.path.join(os.path.dirname(mlgo_bin), "mlgo-clang")
    corpus = mlgo.Corpus(tiny_corpus)
    with mlgo.InliningEnv(corpus) as env:
        for module in ALWAYS:
            env.reset(options={"module": module})
            k = 0
            while True:
                _, _, term, _, info = env.step(k % 2)
                k += 1
                if term:
                    break
            path = env.export_decisions(str(tmp_path / "d.txt"))
            text = open(path).read().splitlines()
            assert text[:5] == [
                "# mlgo inlining decisions (format: docs/decisions.md)",
                "mlgo-decisions 1", f"meta episode InliningEnv {module}", "",
                f"module {corpus[module].source_name}"]
            assert len(text) == 5 + info["decisions"] == 5 + len(info["sites"])
            episode_obj = open(env._object("episode"), "rb").read()
            # The module's own compile, with mlgo-clang's plugin and the
            # file: the episode's object, byte for byte.
            out = str(tmp_path / "rebuilt.o")
            cmd = corpus[module].command(out, [
                "-load", env.plugin, "-fpass-plugin=" + env.plugin,
                "-mllvm", "-mlgo-decisions=" + path])
            r = subprocess.run(cmd, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert open(out, "rb").read() == episode_obj, module
            # And mlgo-clang from the source, as a user would.
            src = os.path.join(SOURCE, "test/Train/Inputs",
                               module[:-2] + ".c")
            r = subprocess.run([clang, "-Oz", "-c", src, "-o", out, "-mllvm",
                                "-mlgo-decisions=" + path],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert mlgo.code_size(out)[0] == info["text_size"], module
