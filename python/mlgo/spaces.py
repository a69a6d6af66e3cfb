"""Spaces: gymnasium's when gymnasium is importable, else a minimal set of
our own with the same interface (Box, Discrete, MultiDiscrete, Dict).

The environments declare their spaces at construction, and a researcher's
code written against gymnasium.spaces (`space.shape`, `space.dtype`,
`space.sample()`, `x in space`, `space.seed()`, `Dict[...]`) runs
unchanged either way. With gymnasium installed the classes *are*
gymnasium's, so its wrappers, its `check_env` and stable-baselines3 accept
the environments; without it (Debian packages no gymnasium) these stand
in. Only what the environments use is implemented: no flattening, no
composite spaces beyond Dict.
"""
import numpy as np

try:  # pragma: no cover - depends on the machine
    import gymnasium as _gym
    from gymnasium.spaces import Box, Dict, Discrete, MultiDiscrete, Space
    HAVE_GYMNASIUM = True
    GYMNASIUM_VERSION = _gym.__version__
except ImportError:
    HAVE_GYMNASIUM = False
    GYMNASIUM_VERSION = None

    class Space:
        """gymnasium.spaces.Space's interface: shape, dtype, np_random,
        seed(), sample(), contains() and `in`."""

        def __init__(self, shape=None, dtype=None, seed=None):
            self._shape = None if shape is None else tuple(shape)
            self.dtype = None if dtype is None else np.dtype(dtype)
            self._np_random = None
            if seed is not None:
                self.seed(seed)

        @property
        def shape(self):
            return self._shape

        @property
        def np_random(self):
            if self._np_random is None:
                self.seed()
            return self._np_random

        def seed(self, seed=None):
            self._np_random = np.random.default_rng(seed)
            return [seed]

        def __contains__(self, x):
            return self.contains(x)

    class Box(Space):
        """A (possibly unbounded) box of `shape` in `dtype`."""

        def __init__(self, low, high, shape=None, dtype=np.float32,
                     seed=None):
            dtype = np.dtype(dtype)
            if shape is None:
                shape = np.shape(low) if np.ndim(low) else np.shape(high)
            shape = tuple(shape)
            self.low = np.full(shape, low, dtype=dtype) if np.isscalar(low) \
                else np.asarray(low, dtype=dtype)
            self.high = np.full(shape, high, dtype=dtype) \
                if np.isscalar(high) else np.asarray(high, dtype=dtype)
            super().__init__(shape, dtype, seed)

        def contains(self, x):
            if not isinstance(x, np.ndarray):
                try:
                    x = np.asarray(x, dtype=self.dtype)
                except (ValueError, TypeError):
                    return False
            return bool(x.shape == self.shape and
                        np.can_cast(x.dtype, self.dtype) and
                        np.all(x >= self.low) and np.all(x <= self.high))

        def sample(self, mask=None):
            if np.issubdtype(self.dtype, np.integer):
                info = np.iinfo(self.dtype)
                lo = np.maximum(self.low, info.min // 2)
                hi = np.minimum(self.high, info.max // 2)
                return self.np_random.integers(lo, hi, endpoint=True,
                                               size=self.shape,
                                               dtype=self.dtype)
            lo = np.where(np.isfinite(self.low), self.low, -1.0)
            hi = np.where(np.isfinite(self.high), self.high, 1.0)
            return self.np_random.uniform(lo, hi, self.shape).astype(
                self.dtype)

        def __repr__(self):
            return f"Box({self.low.min()}, {self.high.max()}, " \
                   f"{self.shape}, {self.dtype})"

        def __eq__(self, other):
            return isinstance(other, Box) and self.shape == other.shape \
                and self.dtype == other.dtype \
                and np.array_equal(self.low, other.low) \
                and np.array_equal(self.high, other.high)

    class Discrete(Space):
        """The integers start .. start + n - 1."""

        def __init__(self, n, seed=None, start=0):
            self.n = np.int64(n)
            self.start = np.int64(start)
            super().__init__((), np.int64, seed)

        def sample(self, mask=None):
            if mask is None:
                return self.start + self.np_random.integers(self.n)
            allowed = np.flatnonzero(np.asarray(mask))
            if len(allowed) == 0:
                return self.start
            return self.start + self.np_random.choice(allowed)

        def contains(self, x):
            if isinstance(x, (int, np.integer)) and not isinstance(
                    x, (bool, np.bool_)):
                v = int(x)
            elif isinstance(x, np.ndarray) and x.shape == () and \
                    np.issubdtype(x.dtype, np.integer):
                v = int(x)
            else:
                return False
            return bool(self.start <= v < self.start + self.n)

        def __repr__(self):
            return f"Discrete({self.n})"

        def __eq__(self, other):
            return isinstance(other, Discrete) and self.n == other.n and \
                self.start == other.start

    class MultiDiscrete(Space):
        """One Discrete(nvec[i]) per element (a vector env's actions)."""

        def __init__(self, nvec, dtype=np.int64, seed=None):
            self.nvec = np.asarray(nvec, dtype=dtype)
            super().__init__(self.nvec.shape, dtype, seed)

        def sample(self, mask=None):
            return (self.np_random.random(self.nvec.shape) *
                    self.nvec).astype(self.dtype)

        def contains(self, x):
            x = np.asarray(x)
            return bool(x.shape == self.shape and
                        np.issubdtype(x.dtype, np.integer) and
                        np.all(x >= 0) and np.all(x < self.nvec))

        def __repr__(self):
            return f"MultiDiscrete({self.nvec})"

    class Dict(Space):
        """Named subspaces; an element is a dict with exactly those keys."""

        def __init__(self, spaces, seed=None):
            self.spaces = dict(spaces)
            super().__init__(None, None, seed)

        def seed(self, seed=None):
            super().seed(seed)
            for k, s in self.spaces.items():
                s.seed(None if seed is None else
                       int(self._np_random.integers(2**31)))
            return [seed]

        def sample(self, mask=None):
            return {k: s.sample() for k, s in self.spaces.items()}

        def contains(self, x):
            return isinstance(x, dict) and x.keys() == self.spaces.keys() \
                and all(x[k] in s for k, s in self.spaces.items())

        def __getitem__(self, key):
            return self.spaces[key]

        def __iter__(self):
            return iter(self.spaces)

        def __len__(self):
            return len(self.spaces)

        def keys(self):
            return self.spaces.keys()

        def items(self):
            return self.spaces.items()

        def values(self):
            return self.spaces.values()

        def __repr__(self):
            inner = ", ".join(f"{k!r}: {s}" for k, s in self.spaces.items())
            return f"Dict({inner})"


def box_of(spec):
    """The Box of one tensor (an mlgo.TensorSpec): its shape and dtype,
    the dtype's whole range (integers) or unbounded (floats)."""
    dt = spec.dtype
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        return Box(info.min, info.max, spec.shape, dt)
    return Box(-np.inf, np.inf, spec.shape, dt)


def batch(space, n):
    """A space of n elements of `space` stacked on a first axis
    (gymnasium.vector.utils.batch_space's result for these spaces)."""
    if isinstance(space, Box):
        return Box(np.broadcast_to(space.low, (n,) + space.shape),
                   np.broadcast_to(space.high, (n,) + space.shape),
                   (n,) + space.shape, space.dtype)
    if isinstance(space, Discrete):
        return MultiDiscrete(np.full(n, space.n, dtype=space.dtype))
    if isinstance(space, Dict):
        return Dict({k: batch(s, n) for k, s in space.spaces.items()})
    raise TypeError(f"cannot batch {space!r}")
