//===- mlgo/Corpus/CorpusCheck.h - Does a corpus replay? --------*- C++ -*-===//
//
// The work behind `mlgo corpus check`: every module is compiled again from
// its bitcode and stored cc1 arguments (CompileCommand.h), on a thread
// pool, and the .text size of the result is compared with the size of the
// original object, recorded at extraction (extraction_report.json). A
// corpus that replays to the original sizes measures what the real build
// would have produced.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_CORPUSCHECK_H
#define MLGO_CORPUS_CORPUSCHECK_H

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

struct CorpusCheckOptions {
  /// Parallel compiles; 0: one per hardware thread.
  unsigned Threads = 0;
  /// The clang driver that replays a module.
  std::string Clang = std::string(DefaultClang);
  /// Called after each module.
  ProgressCallback Progress;
};

/// What the replay of one module found.
struct ModuleCheck {
  std::string Module;
  /// Empty if the module replays to its original .text size; otherwise why
  /// not: ".text size 120, original 128", the compiler's error, or "not in
  /// extraction_report.json".
  std::string Problem;
};

/// Replays every module of the corpus at \p Dir (in a temporary directory,
/// removed afterwards) and returns one ModuleCheck per module, in corpus
/// order. Fails if the description or the extraction report cannot be read
/// or no temporary directory can be made.
llvm::Expected<std::vector<ModuleCheck>>
checkCorpus(llvm::StringRef Dir, const CorpusCheckOptions &Options = {});

} // namespace mlgo

#endif // MLGO_CORPUS_CORPUSCHECK_H
