//===- mlgo/Compile/TrajectoryCache.h - Compiles answered by replay -*- C++
//-*-===//
//
// Most compiles of a training run change nothing: a candidate policy, a
// perturbed model or a threshold sweep takes, on most modules, exactly the
// decisions some earlier compile of that module took. TrajectoryCache
// answers those compiles without running the compiler, soundly:
//
//   The inliner's decisions are the only input of the pipeline that depends
//   on the policy, and the compile is deterministic. So the features the
//   policy sees at decision k depend only on the module and decisions
//   0 .. k-1. If policy P, evaluated on a recorded trajectory's logged
//   features, takes the recorded decision at step 0, it sees step 1's logged
//   features in a real compile too, and so on by induction: when P agrees at
//   every step, compiling the module under P reproduces that trajectory -
//   the same decisions, the same .text size, the same log bytes.
//
// A trajectory is recorded from every compile that carries its training log
// (run() asks the workers for logs of replayable policies). Replay mirrors
// the advisor exactly: the heuristic's decision is the logged
// "inlining_default"; a model is evaluated by the same InterpretedRunner the
// worker uses (so exploration with a seed samples the same draws); flips
// invert the proposed decision at their indices. The stock policy (LLVM's
// own advisor, no log) is never replayed.
//
// The cache lives in memory, keyed by the module's content hash
// (CorpusModule::ContentHash), with at most MaxPerModule trajectories per
// module: the first one recorded (usually the heuristic's, which most
// policies stay close to) and the most recent ones.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_TRAJECTORYCACHE_H
#define MLGO_COMPILE_TRAJECTORYCACHE_H

#include "mlgo/Compile/DecisionLog.h"
#include "mlgo/Compile/WorkerPool.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

class InterpretedRunner;

class TrajectoryCache {
public:
  explicit TrajectoryCache(size_t MaxPerModule = 4)
      : MaxPerModule(MaxPerModule) {}
  ~TrajectoryCache();

  /// Whether a compile under \p P can be answered by replay.
  static bool isReplayable(const CompilePolicy &P) {
    return (P.Kind == PolicyKind::Heuristic || P.Kind == PolicyKind::Model) &&
           !P.Fixed;
  }

  /// The result of compiling the module whose content hash is \p ModuleKey
  /// under \p P, if a recorded trajectory of that module decides it; the
  /// log is included when \p WantLog. Errors: a model that does not parse.
  llvm::Expected<std::optional<CompileResult>>
  lookup(llvm::StringRef ModuleKey, const CompilePolicy &P, bool WantLog);

  /// Records the trajectory of a compile of module \p ModuleKey under \p P;
  /// \p R must carry its log. Errors name \p ModuleName (a malformed log).
  /// A trajectory only answers policies whose heuristic has the same
  /// settings (the model format's "heuristic"): the logged inlining_default
  /// is that heuristic's decision.
  llvm::Error record(llvm::StringRef ModuleKey, llvm::StringRef ModuleName,
                     const CompileResult &R, const CompilePolicy &P);

  /// Runs \p Jobs (module content hashes in \p ModuleKeys) like
  /// WorkerPool::run, answering from recorded trajectories what it can.
  /// Each job is looked up when a worker is free to take it; while a module
  /// is being compiled, its later jobs wait (the workers take other
  /// modules' jobs), so that the running compile's trajectory can answer
  /// them. Outcomes are in job order and equal to the pool's (Seconds is 0
  /// for replayed ones). A job that wants the size score
  /// (CompileJob::WantSizeScore) is always compiled, and recorded.
  std::vector<JobOutcome>
  run(WorkerPool &Pool, llvm::ArrayRef<CompileJob> Jobs,
      llvm::ArrayRef<std::string> ModuleKeys,
      std::function<void(size_t, size_t)> Progress = nullptr,
      std::function<void(size_t, const JobOutcome &)> OnOutcome = nullptr);

  struct Stats {
    uint64_t Lookups = 0; ///< Replayable jobs looked up.
    uint64_t Hits = 0;    ///< Of which answered without compiling.
    uint64_t Recorded = 0;
    /// Bytes the kept trajectories hold (steps and stored logs), and the
    /// bytes their logs had as the compiles returned them.
    uint64_t StoredBytes = 0;
    uint64_t RawLogBytes = 0;
  };
  const Stats &getStats() const { return TheStats; }

private:
  /// One recorded compile, stored compactly: a cache holds thousands.
  struct Trajectory {
    /// Per decision: the heuristic's decision and the applied one.
    std::vector<uint8_t> Defaults, Decisions;
    /// The features, Specs.size() per decision: in Narrow when every value
    /// fits in 32 bits (nearly always), else in Wide.
    std::vector<int32_t> Narrow;
    std::vector<int64_t> Wide;
    uint64_t TextSize = 0;
    std::vector<GroupedSection> Grouped;
    /// The log bytes, zstd-compressed when LLVM has zstd (LogSize is then
    /// the uncompressed size), else as they are.
    std::vector<uint8_t> Log;
    size_t LogSize = 0;
    bool Compressed = false;
    /// The heuristic settings of the policy compiled; Defaults are that
    /// heuristic's decisions.
    HeuristicSettings Heuristic;

    size_t size() const { return Decisions.size(); }
    uint64_t getStoredBytes() const {
      return Defaults.size() + Decisions.size() + 4 * Narrow.size() +
             8 * Wide.size() + 16 * Grouped.size() + Log.size();
    }
    int64_t feature(size_t I) const {
      return Wide.empty() ? int64_t(Narrow[I]) : Wide[I];
    }
    bool sameSteps(const Trajectory &O) const {
      return Decisions == O.Decisions && Narrow == O.Narrow && Wide == O.Wide;
    }
    /// The log as the compile returned it.
    llvm::Expected<std::string> getLog() const;
  };
  /// The runner the worker would build for model policy \p P; null if the
  /// model cannot read the logged features.
  std::unique_ptr<InterpretedRunner>
  makeRunner(const CompilePolicy &P, const std::shared_ptr<const Model> &M);
  /// Whether \p P takes every decision of \p T; \p Runner evaluates P's
  /// model (null for the heuristic).
  bool replays(const Trajectory &T, const CompilePolicy &P,
               const HeuristicSettings &H, InterpretedRunner *Runner);
  llvm::Expected<std::shared_ptr<const Model>> getModel(const CompilePolicy &P);
  /// The heuristic settings of \p P (the default for a non-model policy).
  llvm::Expected<HeuristicSettings> getHeuristic(const CompilePolicy &P);

  size_t MaxPerModule;
  /// The log's features without "inlining_decision", set by the first
  /// record(); every later log must have the same.
  std::vector<TensorSpec> Specs;
  llvm::StringMap<std::deque<Trajectory>> Modules;
  llvm::StringMap<std::shared_ptr<const Model>> Models;
  Stats TheStats;
};

} // namespace mlgo

#endif // MLGO_COMPILE_TRAJECTORYCACHE_H
