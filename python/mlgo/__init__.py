"""mlgo from Python: research environments over stock LLVM 19.

  mlgo.InliningEnv, mlgo.VectorInliningEnv   the inliner, one episode per
                                             corpus module (mlgo.envs)
  mlgo.EvictionEnv, mlgo.VectorEvictionEnv   register-allocation eviction,
                                             one episode per function
  mlgo.read_log, mlgo.Corpus                 training logs as numpy
                                             structured arrays; corpora
  mlgo.Model                                 text models: load, evaluate
                                             on numpy batches, write

Built from the mlgo tree with pybind11 for Debian's /usr/bin/python3; see
docs/python.md.
"""
from ._config import VERSION as __version__
from .data import (Corpus, CorpusModule, Log, LogContext, TensorSpec,
                   code_size, read_log, record_dtype)
from .envs import (Discrete, EnvError, EvictionEnv, InliningEnv,
                   VectorEvictionEnv, VectorInliningEnv, stack)
from .model import Model
from ._paths import plugin_path, bin_dir, mlgo_program

__all__ = [
    "Corpus", "CorpusModule", "Discrete", "EnvError", "EvictionEnv",
    "InliningEnv", "Log",
    "LogContext", "Model", "TensorSpec", "VectorEvictionEnv", "VectorInliningEnv", "bin_dir",
    "code_size", "mlgo_program", "plugin_path", "read_log", "record_dtype",
    "stack",
]
