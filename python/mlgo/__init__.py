"""mlgo from Python: research environments over stock LLVM 19.

  mlgo.InliningEnv, mlgo.VectorInliningEnv   the inliner, one episode per
                                             corpus module (mlgo.envs)
  mlgo.EvictionEnv, mlgo.VectorEvictionEnv   register-allocation eviction,
                                             one episode per function
  mlgo.llvm_eviction_choice                  LLVM's own advisor's column
                                             at an eviction step (imitation)
  mlgo.AsyncVectorInliningEnv                VectorInliningEnv with each
                                             environment in a worker process
                                             (mlgo.vector)
  mlgo.gym                                   the gymnasium ids
                                             mlgo/Inlining-v0, -Eviction-v0
  mlgo.Box, Dict, Discrete, check_env        spaces (gymnasium's when it is
                                             importable) and the contract
  mlgo.read_log, mlgo.Corpus                 training logs as numpy
                                             structured arrays; corpora
  mlgo.Model                                 text models: load, evaluate
                                             on numpy batches, write
  mlgo.datasets                              named corpora (tiny, Debian
                                             train/validation/eval), cached
  mlgo.evaluate                              a policy against -Oz, the
                                             embedded model and random

Built from the mlgo tree with pybind11 for Debian's /usr/bin/python3; see
docs/python.md.
"""
import sys as _sys

from . import _config
from ._config import VERSION as __version__


def _load_core():
    """Imports the extension, or says why not: built for another Python
    (both versions named), or missing."""
    try:
        from . import _core  # noqa: F401
    except ImportError as e:
        here = "%d.%d" % _sys.version_info[:2]
        if here != _config.PYTHON_VERSION:
            raise ImportError(
                f"mlgo: this package's extension (mlgo._core) was built for "
                f"Python {_config.PYTHON_VERSION} ({_config.PYTHON}), and "
                f"this is Python {here} ({_sys.executable}); run it with "
                f"{_config.PYTHON}, or build mlgo for this interpreter "
                f"(cmake -DMLGO_PYTHON={_sys.executable})") from e
        raise ImportError(f"mlgo: cannot load its extension mlgo._core "
                          f"(built for {_config.PYTHON}): {e}") from e


_load_core()

from .data import (Corpus, CorpusModule, Log, LogContext, TensorSpec,
                   code_size, read_log, record_dtype)
from .envs import (CompilerExitError, EnvError, EvictionEnv, InliningEnv,
                   VectorEvictionEnv, VectorInliningEnv, llvm_eviction_choice,
                   stack)
from .spaces import Box, Dict, Discrete, HAVE_GYMNASIUM
from .checker import check_env
from .model import Model
from . import datasets
from .evaluation import EvaluationTable, evaluate, model_sizes
from .vector import AsyncVectorInliningEnv
from ._paths import plugin_path, bin_dir, mlgo_program

__all__ = [
    "AsyncVectorInliningEnv", "Box", "CompilerExitError", "Corpus", "CorpusModule", "Dict", "Discrete",
    "EnvError", "EvaluationTable",
    "EvictionEnv", "HAVE_GYMNASIUM", "check_env",
    "InliningEnv", "Log",
    "LogContext", "Model", "TensorSpec", "VectorEvictionEnv", "VectorInliningEnv", "bin_dir",
    "code_size", "datasets", "evaluate", "model_sizes", "mlgo_program", "plugin_path", "read_log", "record_dtype",
    "llvm_eviction_choice", "stack",
]
