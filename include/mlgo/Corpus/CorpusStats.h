//===- mlgo/Corpus/CorpusStats.h - What a corpus holds ----------*- C++ -*-===//
//
// The work behind `mlgo corpus stats`: every module's bitcode is read and
// counted (ModuleStats.h) on a thread pool, and summed over the corpus and
// per package (Package.h); the corpus fingerprint (Fingerprint.h) is
// computed from the same reads. A module that cannot be read is reported,
// never skipped silently: its slot holds the reason.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_CORPUSSTATS_H
#define MLGO_CORPUS_CORPUSSTATS_H

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/ModuleStats.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// One package's share of a corpus.
struct PackageStats {
  /// getModulePackage's answer ("" for modules without a directory).
  std::string Package;
  size_t Modules = 0;
  /// IR instructions of its modules that could be read.
  uint64_t Instructions = 0;
};

struct CorpusStats {
  CorpusDescription Description;
  /// Per module, in description order: its counts, or nothing when it
  /// could not be read (Errors[I] says why).
  std::vector<std::optional<ModuleStats>> Modules;
  std::vector<std::string> Errors;
  /// Sums over the modules that could be read.
  ModuleStats Total;
  /// Every package of the corpus, sorted by name.
  std::vector<PackageStats> Packages;
  /// The corpus fingerprint; empty if some module's bitcode or cc1
  /// arguments could not be read, and then FingerprintError is the first
  /// such failure in module order.
  std::string Fingerprint;
  std::string FingerprintError;

  /// How many modules could not be read.
  size_t getUnreadableCount() const;
};

/// Reads and counts every module of the corpus at \p Dir with \p Threads
/// threads (0: one per hardware thread), calling \p Progress after each.
/// Fails only if the description cannot be read.
llvm::Expected<CorpusStats>
computeCorpusStats(llvm::StringRef Dir, unsigned Threads = 0,
                   const ProgressCallback &Progress = nullptr);

} // namespace mlgo

#endif // MLGO_CORPUS_CORPUSSTATS_H
