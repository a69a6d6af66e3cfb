"""The environments under gymnasium ids: mlgo/Inlining-v0, mlgo/Eviction-v0.

Importing this module registers them with gymnasium when gymnasium is
importable, so that

    import gymnasium, mlgo.gym
    env = gymnasium.make("mlgo/Inlining-v0", corpus="corpus/")

(or gymnasium.make("mlgo.gym:mlgo/Inlining-v0", ...), which imports this
module itself) gives the environment inside gymnasium's usual wrappers,
with env.spec set. Without gymnasium, mlgo.gym.make() takes the same ids
and keyword arguments and returns the bare environment with a spec of our
own (id, entry_point, kwargs), so scripts can be written once.
"""
from dataclasses import dataclass, field
from importlib import import_module

from .spaces import HAVE_GYMNASIUM

#: id -> entry point, what gymnasium.register gets.
ENVIRONMENTS = {
    "mlgo/Inlining-v0": "mlgo.envs:InliningEnv",
    "mlgo/Eviction-v0": "mlgo.envs:EvictionEnv",
}


@dataclass
class EnvSpec:
    """gymnasium.envs.registration.EnvSpec's fields that mlgo uses."""
    id: str
    entry_point: str
    kwargs: dict = field(default_factory=dict)
    max_episode_steps: int = None


def _load(entry_point):
    module, _, name = entry_point.partition(":")
    return getattr(import_module(module), name)


if HAVE_GYMNASIUM:  # pragma: no cover - depends on the machine
    import gymnasium

    for _id, _entry in ENVIRONMENTS.items():
        if _id not in gymnasium.registry:
            gymnasium.register(id=_id, entry_point=_entry)

    def make(id, **kwargs):
        """gymnasium.make(id, **kwargs)."""
        return gymnasium.make(id, **kwargs)
else:
    def make(id, **kwargs):
        """The environment registered as `id`, made with `kwargs`, with
        env.spec set (gymnasium.make's contract, without its wrappers)."""
        if id not in ENVIRONMENTS:
            raise ValueError(f"mlgo.gym: no environment {id!r} (known: "
                             f"{', '.join(ENVIRONMENTS)})")
        env = _load(ENVIRONMENTS[id])(**kwargs)
        env.spec = EnvSpec(id, ENVIRONMENTS[id], dict(kwargs))
        return env
