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
