"""check_env: the part of gymnasium's environment contract that mlgo's
environments promise, checked without gymnasium.

gymnasium.utils.env_checker.check_env is the reference and the tests run
it whenever gymnasium is importable; Debian has no gymnasium, so this
checker states the same contract in a few lines of our own, and fails
with an AssertionError saying which part broke:

  * the spaces exist before the first reset (they are what a learner
    sizes its networks from) and are the space classes of mlgo.spaces;
  * reset(seed=, options=) returns (observation, dict), and every
    observation that reset and step return is in observation_space;
  * step(action) returns (observation, float reward, bool terminated,
    bool truncated, dict);
  * reset(seed=S) twice gives the same observation bytes and the same
    np_random state, and the same actions give the same rewards;
  * action_masks() is a boolean vector of action_space.n entries with at
    least one allowed action, and action_space.sample(mask) obeys it.
"""
import numpy as np

from .spaces import Box, Dict, Discrete, Space


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.asarray(a).dtype == np.asarray(b).dtype and \
        np.asarray(a).tobytes() == np.asarray(b).tobytes()


def _rng_state(env):
    return env.unwrapped.np_random.bit_generator.state


def _episode(env, seed, steps):
    """Plays up to `steps` masked-random steps from reset(seed=seed);
    returns (first observation, [(observation, reward, terminated)])."""
    obs, info = env.reset(seed=seed)
    assert isinstance(info, dict), "reset must return (observation, dict)"
    assert obs in env.observation_space, \
        "reset's observation is not in observation_space"
    env.action_space.seed(seed)
    out = []
    for _ in range(steps):
        mask = env.action_masks()
        assert isinstance(mask, np.ndarray) and mask.dtype == bool and \
            mask.shape == (int(env.action_space.n),), \
            f"action_masks() must be bool[{env.action_space.n}], got {mask!r}"
        assert mask.any(), "action_masks() allows no action"
        action = env.action_space.sample(mask.astype(np.int8))
        assert mask[int(action)], "action_space.sample(mask) ignored the mask"
        result = env.step(action)
        assert isinstance(result, tuple) and len(result) == 5, \
            "step must return (obs, reward, terminated, truncated, info)"
        o, r, term, trunc, info = result
        assert o in env.observation_space, \
            "step's observation is not in observation_space"
        assert isinstance(r, (float, np.floating)), \
            f"the reward must be a float, got {type(r).__name__}"
        assert isinstance(term, (bool, np.bool_)) and \
            isinstance(trunc, (bool, np.bool_)), \
            "terminated and truncated must be bools"
        assert isinstance(info, dict), "step's info must be a dict"
        out.append((o, float(r), bool(term)))
        if term or trunc:
            break
    return obs, out


def check_env(env, seed=123, steps=1000):
    """Checks `env` against the contract above (AssertionError if not)."""
    assert isinstance(env.observation_space, Space), \
        "observation_space must be a Space before the first reset"
    assert isinstance(env.observation_space, (Dict, Box)), \
        "observation_space must be a Dict or a Box"
    assert isinstance(env.action_space, Discrete), \
        "action_space must be Discrete"
    assert isinstance(env.metadata, dict), "metadata must be a dict"
    for name in ("spec", "np_random", "unwrapped", "render_mode"):
        assert hasattr(env, name), f"the environment has no {name}"
    first, steps_a = _episode(env, seed, steps)
    state = _rng_state(env)
    again, steps_b = _episode(env, seed, steps)
    assert _rng_state(env) == state, \
        "reset(seed=) twice leaves np_random in different states"
    assert _same(first, again), \
        "reset(seed=) twice gives different observations"
    assert len(steps_a) == len(steps_b) and all(
        _same(a[0], b[0]) and a[1] == b[1] and a[2] == b[2]
        for a, b in zip(steps_a, steps_b)), \
        "the same seed and actions give a different episode"
    env.reset(seed=seed + 1)
    obs, _ = env.reset()
    assert obs in env.observation_space
    obs, _ = env.reset(options={})
    assert obs in env.observation_space
