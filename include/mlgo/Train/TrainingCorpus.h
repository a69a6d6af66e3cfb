//===- mlgo/Train/TrainingCorpus.h - Corpus modules for training -*- C++ -*-===//
//
// A corpus (mlgo/Corpus) loaded for training: every module with its
// package (the first component of its path, as `mlgo corpus combine` and
// scripts/corpus-debian.sh lay corpora out), its bitcode path and its stored
// cc1 arguments, ready to become CompileJobs.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAIN_TRAININGCORPUS_H
#define MLGO_TRAIN_TRAININGCORPUS_H

#include "mlgo/Train/CompileWorker.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

struct CorpusModule {
  std::string Name;
  std::string Package;
  std::string BitcodePath;
  std::vector<std::string> CC1Args;
  /// MD5 of the bitcode and the arguments (hex): identifies the module's
  /// content in caches, whatever its name.
  std::string ContentHash;
  /// Size of the .bc in bytes: a deterministic stand-in for compile cost in
  /// search budgets (measured seconds would make runs depend on load).
  uint64_t BitcodeSize = 0;

  CompileJob makeJob(CompilePolicy P, bool WantLog = false) const;
};

/// Loads every module of the corpus at \p Dir (reading each .cmd and
/// hashing each .bc). Fails, naming the file, if one is missing.
llvm::Expected<std::vector<CorpusModule>> loadTrainingCorpus(llvm::StringRef Dir);

/// What a trained model depends on in a corpus, as 32 hex digits: the MD5
/// of every module's name and ContentHash, in \p Modules' order. Two
/// corpora with equal fingerprints train the same model from the same
/// recipe and LLVM. The bitcode and cc1 arguments carry the package
/// versions and the paths the packages were built at, so a corpus rebuilt
/// after a Debian update, or under another directory, differs.
std::string getCorpusFingerprint(llvm::ArrayRef<CorpusModule> Modules);

/// The package of a module path: its first component ("zlib/adler32.o" ->
/// "zlib"); "" for a module not in a directory.
std::string getModulePackage(llvm::StringRef Module);

/// \p Package as messages name it: "(modules without a directory)" for the
/// empty package of top-level modules, which a recipe cannot name.
std::string describePackage(llvm::StringRef Package);

/// The plugin next to the mlgo executable (<bin>/../lib/MLGOInliner.so),
/// for commands that compare against a spawned clang.
std::string getDefaultPluginPath();

} // namespace mlgo

#endif // MLGO_TRAIN_TRAININGCORPUS_H
