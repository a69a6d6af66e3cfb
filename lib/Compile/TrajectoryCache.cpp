//===- lib/Compile/TrajectoryCache.cpp - Compiles answered by replay
//--------===//
//
// See mlgo/Compile/TrajectoryCache.h for why a replay that agrees at every
// decision is the compile's result.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/TrajectoryCache.h"

#include "mlgo/Model/Model.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/MD5.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {

TrajectoryCache::~TrajectoryCache() = default;

Expected<std::shared_ptr<const Model>>
TrajectoryCache::getModel(const CompilePolicy &P) {
  std::string Key(MD5::hash(arrayRefFromStringRef(P.getModelJSON())).digest());
  auto It = Models.find(Key);
  if (It != Models.end())
    return It->second;
  Expected<Model> M = Model::parse(P.getModelJSON(), "policy model");
  if (!M)
    return M.takeError();
  if (Models.size() >= 64)
    Models.clear();
  auto Shared = std::make_shared<const Model>(std::move(*M));
  Models[Key] = Shared;
  return Shared;
}

std::unique_ptr<InterpretedRunner>
TrajectoryCache::makeRunner(const CompilePolicy &P,
                            const std::shared_ptr<const Model> &M) {
  // The runner the worker builds (Inline/ModelRunners.cpp): the model's own
  // rule, or sampling with the policy's seed and temperature.
  PolicyRunnerOptions RO;
  if (P.ExploreSeed) {
    RO.ExplorationTemperature = P.ExploreTemperature;
    RO.Seed = *P.ExploreSeed;
  }
  // A model that needs a feature the log lacks cannot be replayed; the
  // compile then reports the problem.
  auto R = InterpretedRunner::create(M, Specs, RO);
  if (!R) {
    consumeError(R.takeError());
    return nullptr;
  }
  return std::move(*R);
}

Expected<std::string> TrajectoryCache::Trajectory::getLog() const {
  if (!Compressed)
    return std::string(Log.begin(), Log.end());
  SmallVector<uint8_t, 0> Out;
  if (Error E = compression::zstd::decompress(Log, Out, LogSize))
    return E;
  return std::string(Out.begin(), Out.end());
}

Expected<HeuristicSettings>
TrajectoryCache::getHeuristic(const CompilePolicy &P) {
  if (P.Kind != PolicyKind::Model)
    return HeuristicSettings();
  Expected<std::shared_ptr<const Model>> M = getModel(P);
  if (!M)
    return M.takeError();
  return (*M)->Heuristic;
}

bool TrajectoryCache::replays(const Trajectory &T, const CompilePolicy &P,
                              const HeuristicSettings &H,
                              InterpretedRunner *Runner) {
  // The logged inlining_default is the recording policy's heuristic's.
  if (T.Heuristic != H)
    return false;
  const size_t NumFeatures = Specs.size();
  for (size_t K = 0; K < T.size(); ++K) {
    bool Proposed;
    if (Runner) {
      for (size_t F = 0; F < NumFeatures; ++F)
        *Runner->getTensor<int64_t>(F) = T.feature(K * NumFeatures + F);
      Proposed = Runner->evaluate<int64_t>() != 0;
    } else {
      Proposed = T.Defaults[K] != 0;
    }
    bool Applied =
        std::binary_search(P.Flips.begin(), P.Flips.end(), uint32_t(K))
            ? !Proposed
            : Proposed;
    if (Applied != (T.Decisions[K] != 0))
      return false;
  }
  return true;
}

Expected<std::optional<CompileResult>>
TrajectoryCache::lookup(StringRef ModuleKey, const CompilePolicy &P,
                        bool WantLog) {
  if (!isReplayable(P))
    return std::nullopt;
  ++TheStats.Lookups;
  auto It = Modules.find(ModuleKey);
  if (It == Modules.end())
    return std::nullopt;
  std::shared_ptr<const Model> M;
  if (P.Kind == PolicyKind::Model) {
    Expected<std::shared_ptr<const Model>> Parsed = getModel(P);
    if (!Parsed)
      return Parsed.takeError();
    M = std::move(*Parsed);
  }
  const HeuristicSettings H = M ? M->Heuristic : HeuristicSettings();
  // A runner without exploration holds no state between evaluations and
  // serves every trajectory; a sampling one starts afresh for each, as the
  // worker's does for each compile.
  std::unique_ptr<InterpretedRunner> Runner;
  if (M && !P.ExploreSeed && !(Runner = makeRunner(P, M)))
    return std::nullopt;
  // Most recent first.
  for (auto T = It->second.rbegin(); T != It->second.rend(); ++T) {
    if (M && P.ExploreSeed && !(Runner = makeRunner(P, M)))
      return std::nullopt;
    if (!replays(*T, P, H, Runner.get()))
      continue;
    ++TheStats.Hits;
    CompileResult R;
    R.TextSize = T->TextSize;
    R.Grouped = T->Grouped;
    R.NumDecisions = T->size();
    if (WantLog) {
      Expected<std::string> Log = T->getLog();
      if (!Log)
        return makeError("replayed log: " + toString(Log.takeError()));
      R.Log = std::move(*Log);
    }
    return R;
  }
  return std::nullopt;
}

Error TrajectoryCache::record(StringRef ModuleKey, StringRef ModuleName,
                              const CompileResult &R, const CompilePolicy &P) {
  std::string Name = (ModuleName + " (log)").str();
  Expected<HeuristicSettings> H = getHeuristic(P);
  if (!H)
    return H.takeError();
  Expected<DecisionLog> L = parseDecisionLog(R.Log, Name);
  if (!L)
    return L.takeError();
  if (Specs.empty())
    Specs = L->Specs;
  else if (L->Specs != Specs)
    return makeError(Name + ": features differ from the first recorded log's");
  if (L->size() != R.NumDecisions)
    return makeError(Name + ": " + Twine(L->size()) +
                     " logged decisions, but the compile took " +
                     Twine(R.NumDecisions));
  Trajectory T;
  T.Defaults = std::move(L->Defaults);
  T.Decisions = std::move(L->Decisions);
  T.Defaults.shrink_to_fit();
  T.Decisions.shrink_to_fit();
  if (llvm::all_of(L->Features, [](int64_t V) { return isInt<32>(V); })) {
    T.Narrow.assign(L->Features.begin(), L->Features.end());
  } else {
    T.Wide = std::move(L->Features);
    T.Wide.shrink_to_fit();
  }
  T.Heuristic = *H;
  std::deque<Trajectory> &Q = Modules[ModuleKey];
  // The same trajectory again adds nothing.
  for (const Trajectory &Old : Q)
    if (Old.sameSteps(T) && Old.Heuristic == T.Heuristic)
      return Error::success();
  T.TextSize = R.TextSize;
  T.Grouped = R.Grouped;
  T.LogSize = R.Log.size();
  ArrayRef<uint8_t> Raw = arrayRefFromStringRef(R.Log);
  if (compression::zstd::isAvailable()) {
    SmallVector<uint8_t, 0> Packed;
    compression::zstd::compress(Raw, Packed,
                                compression::zstd::BestSpeedCompression);
    T.Log.assign(Packed.begin(), Packed.end());
    T.Compressed = true;
  } else {
    T.Log.assign(Raw.begin(), Raw.end());
  }
  TheStats.StoredBytes += T.getStoredBytes();
  TheStats.RawLogBytes += T.LogSize;
  Q.push_back(std::move(T));
  // Keep the first trajectory (usually the heuristic's, the one most
  // policies stay close to) and the most recent ones.
  if (Q.size() > std::max<size_t>(MaxPerModule, 2)) {
    TheStats.StoredBytes -= Q[1].getStoredBytes();
    TheStats.RawLogBytes -= Q[1].LogSize;
    Q.erase(Q.begin() + 1);
  }
  ++TheStats.Recorded;
  return Error::success();
}

std::vector<JobOutcome> TrajectoryCache::run(
    WorkerPool &Pool, ArrayRef<CompileJob> Jobs,
    ArrayRef<std::string> ModuleKeys,
    std::function<void(size_t, size_t)> Progress,
    std::function<void(size_t, const JobOutcome &)> OnOutcome) {
  assert(Jobs.size() == ModuleKeys.size() && "one module key per job");
  // Modules with a replayable compile running: their other jobs wait for
  // its trajectory.
  StringMap<unsigned> InFlight;
  std::vector<bool> Sent(Jobs.size());
  auto Gate = [&](size_t I, JobOutcome &Answer, bool &WantLog) {
    const CompileJob &J = Jobs[I];
    if (!isReplayable(J.ThePolicy))
      return GateAction::Send;
    if (InFlight.lookup(ModuleKeys[I]))
      return GateAction::Defer;
    // A recorded log may lack the size score such a job asks for.
    Expected<std::optional<CompileResult>> Hit =
        J.WantSizeScore ? std::optional<CompileResult>()
                        : lookup(ModuleKeys[I], J.ThePolicy, J.WantLog);
    if (!Hit) {
      Answer.Error = J.Module + ": " + toString(Hit.takeError());
      return GateAction::Answered;
    }
    if (*Hit) {
      Answer.Result = std::move(**Hit);
      return GateAction::Answered;
    }
    ++InFlight[ModuleKeys[I]];
    Sent[I] = true;
    WantLog = true;
    return GateAction::Send;
  };
  auto Record = [&](size_t I, JobOutcome &O) {
    const CompileJob &J = Jobs[I];
    if (Sent[I]) {
      --InFlight[ModuleKeys[I]];
      if (O.ok()) {
        if (Error E = record(ModuleKeys[I], J.Module, *O.Result, J.ThePolicy)) {
          O.Result.reset();
          O.Error = toString(std::move(E));
        } else if (!J.WantLog) {
          // Free it (clear() would keep the capacity): a run keeps every
          // outcome until its last job is done.
          std::string().swap(O.Result->Log);
        }
      }
    }
    if (OnOutcome)
      OnOutcome(I, O);
  };
  return Pool.run(Jobs, std::move(Progress), Record, Gate);
}

} // namespace mlgo
