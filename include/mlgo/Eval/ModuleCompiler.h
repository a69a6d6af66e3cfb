//===- mlgo/Eval/ModuleCompiler.h - Module -> .text size --------*- C++ -*-===//
//
// Evaluation asks one question many times: how large is the .text of this
// corpus module when compiled under this inlining policy? ModuleCompiler is
// that question as an interface, so the evaluation driver (CorpusEval.h)
// does not care how the compile happens. ClangModuleCompiler spawns
// `clang-19 -cc1` with the module's stored arguments (exactly as the
// original build compiled it, mlgo/Corpus/CompileCommand.h), with the
// plugin loaded for a model, as tasks (mlgo/Support/Tasks.h), so that they
// run on the worker ranks of a run across machines.
//
// The size is mlgo's one measure of native code (mlgo/Corpus/CodeSize.h):
// every executable section, with the sections of COMDAT groups (C++ inline
// and template functions) listed too, so that a report can count each of
// them once per package, as linking the package's objects together would.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_MODULECOMPILER_H
#define MLGO_EVAL_MODULECOMPILER_H

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/ArrayRef.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

/// A policy under the name a report gives it ("-Oz", a model's name).
struct NamedPolicy {
  std::string Name;
  CompilePolicy Policy;
};

/// Compiles corpus modules and measures their code. codeSize() may be
/// called from several threads at once.
class ModuleCompiler {
public:
  virtual ~ModuleCompiler();
  /// The code of \p Module (a corpus module name) compiled under
  /// \p Policy. The error says what failed: a missing file, a compiler
  /// error (with its message), a timeout, an unreadable object.
  virtual llvm::Expected<CodeSize> codeSize(llvm::StringRef Module,
                                            const CompilePolicy &Policy) = 0;

  /// A compile of \p Module under \p Policy, for codeSizes().
  struct Request {
    std::string Module;
    const CompilePolicy *Policy;
  };
  /// codeSize() of every request, in request order, on \p Threads threads
  /// (0: one per hardware thread); \p Progress as runJobs calls it. A
  /// compiler that can run its compiles elsewhere overrides it.
  virtual std::vector<llvm::Expected<CodeSize>>
  codeSizes(llvm::ArrayRef<Request> Requests, unsigned Threads,
            const ProgressCallback &Progress);
};

} // namespace mlgo

#endif // MLGO_EVAL_MODULECOMPILER_H
