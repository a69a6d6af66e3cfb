"""Where mlgo's plugin and programs are, for this copy of the package.

In order: the environment (MLGO_PLUGIN, MLGO_BIN_DIR), the place relative to
the package that the build tree and `cmake --install` share, then the
absolute place the build or install recorded (for a copy pip made
elsewhere). A missing file is an error that names every place tried.
"""
import errno
import os

from . import _config

_HERE = os.path.dirname(os.path.abspath(__file__))


def _first(kind, env, rel, absolute, is_ok):
    tried = []
    if os.environ.get(env):
        tried.append(os.environ[env])
    tried.append(os.path.normpath(os.path.join(_HERE, rel)))
    tried.append(absolute)
    for p in tried:
        if is_ok(p):
            return p
    raise FileNotFoundError(
        f"mlgo: cannot find the {kind}; tried {', '.join(tried)} "
        f"(set {env})")


def plugin_path():
    """The mlgo-plugin.so this package drives compilers with."""
    return _first("plugin", "MLGO_PLUGIN", _config.REL_PLUGIN,
                  _config.ABS_PLUGIN, os.path.isfile)


def bin_dir():
    """The directory holding the `mlgo` program."""
    return _first("mlgo programs", "MLGO_BIN_DIR", _config.REL_BIN,
                  _config.ABS_BIN,
                  lambda d: os.path.isfile(os.path.join(d, "mlgo")))


def mlgo_program():
    return os.path.join(bin_dir(), "mlgo")


def require_file(path, problem="No such file or directory"):
    """`path` as a str, or FileNotFoundError naming it (errno ENOENT, the
    path as `filename`, as Python's own open() raises)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, problem, path)
    return path
