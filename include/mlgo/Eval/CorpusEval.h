//===- mlgo/Eval/CorpusEval.h - Evaluate policies on a corpus ---*- C++ -*-===//
//
// The driver of `mlgo eval corpus`: every module is compiled under the
// baseline and under every model, in parallel on an llvm ThreadPool, and the
// sizes are collected into a SizeReport in module order (whatever order the
// threads finish in). A module that fails under any policy is left out of
// the size rows and every one of its failures is recorded; none is dropped
// silently.
//
// This file needs LLVM Support only; the compiles go through the
// ModuleCompiler interface.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_CORPUSEVAL_H
#define MLGO_EVAL_CORPUSEVAL_H

#include "mlgo/Eval/ModuleCompiler.h"
#include "mlgo/Eval/SizeReport.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace mlgo {

struct CorpusEvalOptions {
  /// Parallel compiles; 0: one per hardware thread.
  unsigned Jobs = 0;
  /// Called after each compile (from the worker threads, serialized) with
  /// the compiles done and the total.
  ProgressCallback Progress;
};

/// Compiles each of \p Modules under \p Baseline and each of \p Models.
SizeReport evaluateCorpus(ModuleCompiler &Compiler,
                          llvm::ArrayRef<std::string> Modules,
                          const NamedPolicy &Baseline,
                          llvm::ArrayRef<NamedPolicy> Models,
                          const CorpusEvalOptions &Options = {});

} // namespace mlgo

#endif // MLGO_EVAL_CORPUSEVAL_H
