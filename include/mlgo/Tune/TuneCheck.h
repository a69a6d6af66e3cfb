//===- mlgo/Tune/TuneCheck.h - mlgo tune check: stale decisions -*- C++ -*-===//
//
// `mlgo tune check` (docs/tune.md): a decisions file is written for one
// state of a program's sources; after the sources change, some of its
// entries may match no call site any more, and the plugin then applies
// fewer decisions than the file holds (it warns per module in a build).
// checkDecisions compiles each corpus module the file names, with its
// entries, and reports every entry that fixed no decision and every module
// of the file that matches no module of the corpus, so that a user knows
// when to tune again.
//
// It lives beside the tuner rather than in tools/mlgo: it compiles through
// the same worker pool and finds a module's entries by the same source key
// (getSourceFileName, mlgo/Compile/TrainingCorpus.h) as the tuner that wrote
// the file.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNECHECK_H
#define MLGO_TUNE_TUNECHECK_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>

namespace mlgo {

/// Compiles each module of the corpus in \p CorpusDir that the decisions
/// file \p DecisionsPath names, with its entries and the model \p ModelPath
/// (the embedded one if empty), and lists on \p OS the entries that match
/// no call site and the file's modules that match no corpus module, then
/// "PATH: N of M entries match no call site". Returns N. Errors: the file,
/// the corpus or the model cannot be read, or a compile fails.
///
/// \p LTO is "" (a build without LTO), "thin" or "full": the modules are
/// then compiled as the compile steps of a -flto=thin or -flto build are,
/// with LLVM's pre-link pipeline, where an entry must fix a site for the
/// link to find it (docs/decisions.md, "LTO").
llvm::Expected<size_t> checkDecisions(llvm::StringRef CorpusDir,
                                      llvm::StringRef DecisionsPath,
                                      llvm::StringRef ModelPath,
                                      llvm::raw_ostream &OS,
                                      llvm::StringRef LTO = "");

} // namespace mlgo

#endif // MLGO_TUNE_TUNECHECK_H
