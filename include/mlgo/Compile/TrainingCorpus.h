//===- mlgo/Compile/TrainingCorpus.h - Corpus modules for training -*- C++
//-*-===//
//
// A corpus (mlgo/Corpus) loaded for training: every module with its
// package (mlgo/Corpus/Package.h), its bitcode path, its stored cc1
// arguments and its content hash (mlgo/Corpus/Fingerprint.h), ready to
// become CompileJobs.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_TRAININGCORPUS_H
#define MLGO_COMPILE_TRAININGCORPUS_H

#include "mlgo/Compile/CompileWorker.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlgo {

struct CorpusModule {
  std::string Name;
  std::string Package;
  std::string BitcodePath;
  std::vector<std::string> CC1Args;
  /// getModuleContentHash of the bitcode and the arguments: identifies the
  /// module's content in caches, whatever its name.
  std::string ContentHash;
  /// Size of the .bc in bytes: a deterministic stand-in for compile cost in
  /// search budgets (measured seconds would make runs depend on load).
  uint64_t BitcodeSize = 0;

  CompileJob makeJob(CompilePolicy P, bool WantLog = false) const;
};

/// Loads every module of the corpus at \p Dir (reading each .cmd and
/// hashing each .bc). Fails, naming the file, if one is missing.
llvm::Expected<std::vector<CorpusModule>>
loadTrainingCorpus(llvm::StringRef Dir);

/// The corpus fingerprint (mlgo/Corpus/Fingerprint.h) of \p Modules, in
/// order.
std::string getCorpusFingerprint(llvm::ArrayRef<CorpusModule> Modules);

/// The source file of corpus module \p M as the plugin resolves it in a
/// build (resolveSourcePath): its source_filename joined to the directory
/// it was compiled in (-fdebug-compilation-dir). It is what finds a
/// module's entries in a decisions file. Errors name the bitcode file.
llvm::Expected<std::string> getSourceFileName(const CorpusModule &M);

/// The source_filename of corpus module \p M as its bitcode records it,
/// unresolved (getSourceFileName resolves it). Errors name the bitcode file.
llvm::Expected<std::string> readSourceFileName(const CorpusModule &M);

/// Corpus module \p M's bitcode in \p Ctx, read lazily: its functions'
/// bodies are not materialized, and a function not yet read is not a
/// declaration. Errors name the bitcode file.
llvm::Expected<std::unique_ptr<llvm::Module>>
readLazyModule(const CorpusModule &M, llvm::LLVMContext &Ctx);

/// The source_filename of corpus module \p M resolved against this
/// process's directory, as the plugin resolves it in a compile spawned
/// here (the module of the decisions files such compiles read). Errors
/// name the bitcode file.
llvm::Expected<std::string> getSourceFileNameHere(const CorpusModule &M);

} // namespace mlgo

#endif // MLGO_COMPILE_TRAININGCORPUS_H
