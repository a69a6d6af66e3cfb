//===- mlgo/Compile/CompileService.h - Compiles of corpus modules -*- C++
//-*-===//
//
// What every search over a corpus needs underneath: "compile module M under
// policy P" asked thousands of times, answered once each. A CompileService
// owns the modules of a run and answers each request, in this order, from
//   1. the compile cache (<work>/compiles.tsv, CompileCache.h): results of
//      this run or of an interrupted one, so `kill -9` loses nothing;
//   2. trajectory replay (TrajectoryCache.h): a compile whose decisions a
//      recorded trajectory of the module already decides;
//   3. the worker pool (WorkerPool.h): in-process clang, in forked workers.
// Identical requests in one batch are compiled once. Every new result is
// appended to the cache as soon as it is known.
//
// Training (Trainer.cpp) is one client; per-program tuning is another.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_COMPILESERVICE_H
#define MLGO_COMPILE_COMPILESERVICE_H

#include "mlgo/Compile/CompileCache.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Compile/TrajectoryCache.h"
#include "mlgo/Compile/WorkerPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// A compile of module Modules[first] under policy second.
using ModuleRequest = std::pair<size_t, CompilePolicy>;

class CompileService {
public:
  /// \p Verbose: show a progress line per batch on stderr.
  CompileService(std::vector<CorpusModule> Modules, WorkerPool &Pool,
                 bool Verbose)
      : Modules(std::move(Modules)), Pool(Pool), Verbose(Verbose) {}

  /// Reads the results already in \p Path and appends new ones to it.
  llvm::Error openCache(llvm::StringRef Path) { return Cache.open(Path); }
  /// Same for the call sites compileWithSites() records (SiteCache).
  llvm::Error openSiteCache(llvm::StringRef Path) {
    return SiteRecords.open(Path);
  }

  /// Compiles must carry their grouped sections (a size measure that is
  /// not "module", or linked totals): a cached result of an earlier version
  /// without them is compiled again.
  void setNeedGrouped(bool Need) { NeedGrouped = Need; }

  const std::vector<CorpusModule> &modules() const { return Modules; }
  /// Adds a module that is not the corpus's (a slice of one, for
  /// function-level compiles: mlgo/Compile/FunctionSlice.h) and returns the
  /// index requests name it by: after the corpus's. modules() stays the
  /// corpus's; results are cached by the module's content as any other.
  size_t addModule(CorpusModule M) {
    Extra.push_back(std::move(M));
    return Modules.size() + Extra.size() - 1;
  }
  /// Progress lines start with \p Label (default "mlgo train"); \p Verbose
  /// shows them.
  void setProgress(llvm::StringRef Label, bool Verbose) {
    this->Label = Label.str();
    this->Verbose = Verbose;
  }

  /// The result of each request (failed ones have Ok false and the error,
  /// naming the module). \p What names the batch on the progress line. The
  /// error: a result could not be appended to the cache file (a full
  /// disk); the batch is finished first, and the file keeps whole lines.
  llvm::Expected<std::vector<CompileCache::Entry>>
  compile(llvm::ArrayRef<ModuleRequest> Reqs, llvm::StringRef What);

  /// A compile's result and the call site of each of its decisions.
  struct SitesResult {
    CompileCache::Entry Entry;
    std::vector<DecidedSite> Sites;
  };
  /// Like compile(), also giving every decision's call site (from the site
  /// cache, or compiled again; never by trajectory replay).
  llvm::Expected<std::vector<SitesResult>>
  compileWithSites(llvm::ArrayRef<ModuleRequest> Reqs, llvm::StringRef What);
  /// A prediction of a compile's .text (CompileJob::PredictOnly): the IR
  /// pipeline under the policy, no code generator, the embedded
  /// native-size model over every function it leaves. Not cached:
  /// predictions are cheaper than a compile and a function of the IR, so a
  /// rerun makes the same ones.
  struct Prediction {
    bool Ok = false;
    double Bytes = 0;
    /// Why Ok is false, naming the module.
    std::string Error;
  };
  /// One prediction per request; identical requests in one batch are run
  /// once. The error: the machine's fault (OutputWriteError).
  llvm::Expected<std::vector<Prediction>>
  predict(llvm::ArrayRef<ModuleRequest> Reqs, llvm::StringRef What);
  /// Compiles module \p Mods[K] under \p Policies[K] with logging and calls
  /// \p OnRow(K, features, applied decision, heuristic's decision) for
  /// every decision, in order. The first log's feature names (the decision
  /// left out) become getFeatureNames(); a later log with other features is
  /// an error. With \p Scores, the compiles also log the IR2Native
  /// per-decision score of inlined and declined sites
  /// (CompileJob::WantSizeScore and WantDeclinedScore, which change no
  /// object), and (*Scores)[K] becomes module K's, one per decision; such a
  /// compile is never answered by trajectory replay (a recorded log may
  /// have no score), but records its trajectory as any other.
  llvm::Error logTrajectories(
      llvm::ArrayRef<size_t> Mods, llvm::ArrayRef<CompilePolicy> Policies,
      llvm::function_ref<void(size_t, llvm::ArrayRef<float>, bool, bool)> OnRow,
      std::vector<std::vector<float>> *Scores = nullptr);
  const std::vector<std::string> &getFeatureNames() const {
    return FeatureNames;
  }
  /// The column of inlining_default among getFeatureNames().
  size_t getDefaultColumn() const { return DefaultColumn; }

private:
  /// Runs \p Jobs on the pool under one progress line named \p What and
  /// hands each outcome to \p OnOutcome. Returns the first environment
  /// error (the machine's fault, not a module's), empty if none.
  std::string
  runBatch(llvm::ArrayRef<CompileJob> Jobs, llvm::StringRef What,
           llvm::function_ref<void(size_t, JobOutcome &)> OnOutcome);

  const CorpusModule &module(size_t I) const {
    return I < Modules.size() ? Modules[I] : Extra[I - Modules.size()];
  }
  std::vector<CorpusModule> Modules;
  std::vector<CorpusModule> Extra;
  WorkerPool &Pool;
  bool Verbose;
  bool NeedGrouped = false;
  std::string Label = "mlgo train";
  CompileCache Cache;
  SiteCache SiteRecords;
  TrajectoryCache Replay;
  std::vector<std::string> FeatureNames;
  size_t DefaultColumn = 0;
};

} // namespace mlgo

#endif // MLGO_COMPILE_COMPILESERVICE_H
