"""AsyncVectorInliningEnv on 2 workers: the results of VectorInliningEnv
for the same seed, every time."""
import numpy as np
import pytest

import mlgo


def rollout(venv, steps, seed):
    """Every step's (observation bytes, rewards, terminated, modules)."""
    obs, info = venv.reset(seed=seed)
    out = [(obs["cost_estimate"].tobytes(), list(info["module"]))]
    for k in range(steps):
        actions = np.array([(k + i) % 2 for i in range(venv.num_envs)])
        obs, rewards, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        out.append((obs["cost_estimate"].tobytes(), rewards.tolist(),
                    term.tolist(), list(info["module"])))
    return out


def test_async_equals_sync_and_is_deterministic(tiny_corpus):
    with mlgo.VectorInliningEnv(tiny_corpus, num_envs=2) as sync:
        expected = rollout(sync, 24, seed=5)
    # Some episodes ended, with rewards, and new ones began.
    assert sum(sum(s[2]) for s in expected[1:]) >= 4
    for _ in range(2):
        with mlgo.AsyncVectorInliningEnv(tiny_corpus, num_envs=2) as venv:
            assert list(venv.single_observation_space) == \
                list(sync.single_observation_space)
            assert rollout(venv, 24, seed=5) == expected


def test_async_errors_come_back(tiny_corpus):
    with mlgo.AsyncVectorInliningEnv(tiny_corpus, num_envs=2) as venv:
        venv.reset(seed=1)
        with pytest.raises(ValueError, match=r"^InliningEnv: .*: invalid "
                           r"action 2: expected an integer from 0 to 1"):
            venv.step(np.array([2, 2]))
        venv.step_async(np.array([0, 1]))
        with pytest.raises(ValueError, match="step_async\\(\\) twice"):
            venv.step_async(np.array([0, 1]))
        venv.step_wait()
    with pytest.raises(ValueError, match="reward must be"):
        mlgo.AsyncVectorInliningEnv(tiny_corpus, reward="fast")
    with pytest.raises(ValueError, match="^InliningEnv: reward 'speed' needs "
                       "a profile of each package played, and .* has none "
                       "for 'alpha', 'beta';"):
        mlgo.AsyncVectorInliningEnv(tiny_corpus, reward="speed")


def pipeline(venv, per_env, seed):
    """Each environment's first `per_env` answers through async_reset /
    recv / send: (observation bytes, reward, terminated, module), with
    actions that depend on the environment and its own step count only."""
    venv.async_reset(seed=seed)
    out = [[] for _ in range(venv.num_envs)]
    while min(len(o) for o in out) < per_env:
        obs, rewards, term, trunc, info = venv.recv()
        ids = info["env_id"]
        assert len(ids) >= 1 and list(ids) == sorted(set(ids))
        assert not trunc.any()
        for k, i in enumerate(ids):
            out[i].append((obs["cost_estimate"][k].tobytes(),
                           float(rewards[k]), bool(term[k]),
                           info["module"][k]))
        venv.send([(len(out[i]) + i) % 2 for i in ids], ids)
    venv.recv()  # what is still owed; reset() would read it too
    return [o[:per_env] for o in out]


def lone(corpus, seed, env_id, n):
    """What one InliningEnv seeded like pipeline's environment env_id
    answers to the same actions."""
    out = []
    with mlgo.InliningEnv(corpus) as env:
        obs, info = env.reset(seed=seed)
        out.append((obs["cost_estimate"].tobytes(), 0.0, False,
                    info["module"]))
        while len(out) < n:
            obs, r, term, _, info = env.step((len(out) + env_id) % 2)
            out.append((obs["cost_estimate"].tobytes(), float(r), term,
                        info["module"]))
            if term and len(out) < n:
                # The next step's answer: the next episode's start.
                obs, info = env.reset()
                out.append((obs["cost_estimate"].tobytes(), 0.0, False,
                            info["module"]))
    return out


def test_pipeline_each_env_is_its_own_seeded_env(tiny_corpus):
    runs = []
    for _ in range(2):
        with mlgo.AsyncVectorInliningEnv(tiny_corpus, num_envs=2) as venv:
            runs.append(pipeline(venv, 30, seed=7))
            # Back to lockstep: reset() reads what the pipeline owed.
            obs, info = venv.reset(seed=5)
            assert len(info["module"]) == 2
    assert runs[0] == runs[1]
    seeds = mlgo.envs._new_rng(7)[0].integers(0, 2**31 - 1, size=2)
    for i in range(2):
        assert runs[0][i] == lone(tiny_corpus, int(seeds[i]), i, 30)
        # Episodes ended, with rewards, and new ones began.
        assert sum(t for _, _, t, _ in runs[0][i]) >= 2


def test_pipeline_misuse(tiny_corpus):
    with mlgo.AsyncVectorInliningEnv(tiny_corpus, num_envs=2) as venv:
        with pytest.raises(ValueError, match="send\\(\\) before "
                           "async_reset\\(\\)"):
            venv.send([1], [0])
        venv.async_reset(seed=1)
        with pytest.raises(ValueError, match="environment 0 has an answer "
                           "pending; recv\\(\\) it first"):
            venv.send([1], [0])
        with pytest.raises(ValueError, match="no environment 2 \\(of 2\\)"):
            venv.send([1], [2])
        with pytest.raises(ValueError, match="step\\(\\) while the pipeline "
                           "runs"):
            venv.step(np.array([1, 1]))


def test_state_and_restore_continue_exactly(tiny_corpus):
    for cls in (mlgo.VectorInliningEnv, mlgo.AsyncVectorInliningEnv):
        with cls(tiny_corpus, num_envs=2, seed=3) as a:
            a.reset()
            for k in range(5):
                a.step(np.array([k % 2, 1]))
            state = a.state()
            expected = rollout_from(a, 12)
        with cls(tiny_corpus, num_envs=2, seed=99) as b:
            obs, _ = b.restore(state)
            assert rollout_from(b, 12) == expected


def rollout_from(venv, steps):
    out = []
    for k in range(steps):
        obs, rewards, term, _, info = venv.step(np.array([1, k % 2]))
        out.append((obs["cost_estimate"].tobytes(), rewards.tolist(),
                    term.tolist(), list(info["module"])))
    return out
