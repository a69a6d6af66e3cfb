//===- lib/Compile/CompileService.cpp - Compiles of corpus modules
//----------===//
//
// The cache, replay and worker pool behind every compile request of a run
// (see mlgo/Compile/CompileService.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CompileService.h"

#include "mlgo/Compile/DecisionLog.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

#include <chrono>

using namespace llvm;

namespace mlgo {

/// The cache key of compiling \p M under \p P.
static std::string cacheKey(const CorpusModule &M, const CompilePolicy &P) {
  MD5 Hash;
  Hash.update(M.ContentHash);
  Hash.update(P.getKey());
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

/// Keeps the first of the errors \p E of appending results to a cache file.
static void keepFirst(std::string &First, Error E) {
  if (!E)
    return;
  std::string Message = toString(std::move(E));
  if (First.empty())
    First = std::move(Message);
}

/// The error that stops a run when a compile could not write its object:
/// every compile after it would fail alike, and none of them is the
/// module's result.
static Error environmentError(StringRef First) {
  return makeError(First + " (the machine's fault, not the module's: "
                           "nothing was cached for it, and a rerun resumes "
                           "once the object can be written)");
}

Expected<std::vector<CompileCache::Entry>>
CompileService::compile(ArrayRef<ModuleRequest> Requests, StringRef What) {
  std::vector<CompileCache::Entry> Out(Requests.size());
  std::vector<CompileJob> Jobs;
  std::vector<std::string> JobModules;
  std::vector<size_t> Where;
  std::vector<std::string> Keys(Requests.size());
  StringMap<size_t> FirstOfKey;
  for (size_t I = 0; I < Requests.size(); ++I) {
    const auto &[M, P] = Requests[I];
    Keys[I] = cacheKey(module(M), P);
    const CompileCache::Entry *E = Cache.lookup(Keys[I]);
    if (E && (E->GroupedKnown || !NeedGrouped)) {
      Out[I] = *E;
      continue;
    }
    if (FirstOfKey.count(Keys[I]))
      continue;
    FirstOfKey[Keys[I]] = I;
    Jobs.push_back(module(M).makeJob(P));
    JobModules.push_back(module(M).ContentHash);
    Where.push_back(I);
  }
  if (Jobs.empty())
    return Out;
  auto Start = std::chrono::steady_clock::now();
  // Each result is appended to the cache file as soon as it is known; a
  // result that cannot be (a full disk) fails the batch once it is done.
  std::string WriteError, EnvironmentError;
  auto Record = [&](size_t J, const JobOutcome &O) {
    CompileCache::Entry E;
    if (O.ok()) {
      E.Ok = true;
      E.TextSize = O.Result->TextSize;
      E.Grouped = O.Result->Grouped;
      E.Decisions = O.Result->NumDecisions;
      E.Seconds = O.Result->Seconds;
    } else {
      E.Error = O.Error;
      E.Transient = O.Transient;
      if (O.Environment && EnvironmentError.empty())
        EnvironmentError = O.Error;
    }
    keepFirst(WriteError, Cache.insert(Keys[Where[J]], E));
    Out[Where[J]] = E;
  };
  uint64_t HitsBefore = Replay.getStats().Hits;
  Progress Shown((Label + ": " + What).str());
  Replay.run(
      Pool, Jobs, JobModules,
      [&](size_t Done, size_t Total) {
        if (Verbose)
          Shown.update(Done, Total);
      },
      Record);
  Shown.end(formatv(" ({0} by replay) ({1:f1} s)",
                    Replay.getStats().Hits - HitsBefore,
                    std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count())
                .str());
  if (!WriteError.empty())
    return makeError(WriteError);
  if (!EnvironmentError.empty())
    return environmentError(EnvironmentError);
  // Duplicates of a request compiled in this batch.
  for (size_t I = 0; I < Requests.size(); ++I)
    if (!Out[I].Ok && Out[I].Error.empty())
      Out[I] = *Cache.lookup(Keys[I]);
  return Out;
}

std::string
CompileService::runBatch(ArrayRef<CompileJob> Jobs, StringRef What,
                         function_ref<void(size_t, JobOutcome &)> OnOutcome) {
  Progress Shown((Label + ": " + What).str());
  std::string EnvironmentError;
  Pool.run(
      Jobs,
      [&](size_t Done, size_t Total) {
        if (Verbose)
          Shown.update(Done, Total);
      },
      [&](size_t J, JobOutcome &O) {
        if (O.Environment && EnvironmentError.empty())
          EnvironmentError = O.Error;
        OnOutcome(J, O);
      });
  Shown.end();
  return EnvironmentError;
}

Expected<std::vector<CompileService::SitesResult>>
CompileService::compileWithSites(ArrayRef<ModuleRequest> Requests,
                                 StringRef What) {
  std::vector<SitesResult> Out(Requests.size());
  std::vector<CompileJob> Jobs;
  std::vector<size_t> Where;
  std::vector<std::string> Keys(Requests.size());
  StringMap<size_t> FirstOfKey;
  for (size_t I = 0; I < Requests.size(); ++I) {
    const auto &[M, P] = Requests[I];
    Keys[I] = cacheKey(module(M), P);
    const CompileCache::Entry *E = Cache.lookup(Keys[I]);
    const std::vector<DecidedSite> *S = SiteRecords.lookup(Keys[I]);
    if (E && E->Ok && S && (E->GroupedKnown || !NeedGrouped)) {
      Out[I] = {*E, *S};
      continue;
    }
    if (FirstOfKey.count(Keys[I]))
      continue;
    FirstOfKey[Keys[I]] = I;
    CompileJob J = module(M).makeJob(P, /*WantLog=*/false);
    J.WantSites = true;
    Jobs.push_back(std::move(J));
    Where.push_back(I);
  }
  if (Jobs.empty())
    return Out;
  std::string WriteError;
  std::string EnvironmentError =
      runBatch(Jobs, What, [&](size_t J, JobOutcome &O) {
        SitesResult &R = Out[Where[J]];
        if (O.ok()) {
          R.Entry.Ok = true;
          R.Entry.TextSize = O.Result->TextSize;
          R.Entry.Grouped = O.Result->Grouped;
          R.Entry.Decisions = O.Result->NumDecisions;
          R.Entry.Seconds = O.Result->Seconds;
          R.Sites = O.Result->Sites;
          keepFirst(WriteError, SiteRecords.insert(Keys[Where[J]], R.Sites));
        } else {
          R.Entry.Error = O.Error;
          R.Entry.Transient = O.Transient;
        }
        keepFirst(WriteError, Cache.insert(Keys[Where[J]], R.Entry));
      });
  if (!WriteError.empty())
    return makeError(WriteError);
  if (!EnvironmentError.empty())
    return environmentError(EnvironmentError);
  // Duplicates of a request compiled in this batch.
  for (size_t I = 0; I < Requests.size(); ++I)
    if (!Out[I].Entry.Ok && Out[I].Entry.Error.empty())
      Out[I] = Out[FirstOfKey.lookup(Keys[I])];
  return Out;
}

Expected<std::vector<CompileService::Prediction>>
CompileService::predict(ArrayRef<ModuleRequest> Requests, StringRef What) {
  std::vector<Prediction> Out(Requests.size());
  std::vector<CompileJob> Jobs;
  std::vector<size_t> Where;
  std::vector<std::string> Keys(Requests.size());
  StringMap<size_t> FirstOfKey;
  for (size_t I = 0; I < Requests.size(); ++I) {
    const auto &[M, P] = Requests[I];
    Keys[I] = cacheKey(module(M), P);
    if (FirstOfKey.count(Keys[I]))
      continue;
    FirstOfKey[Keys[I]] = I;
    CompileJob J = module(M).makeJob(P);
    J.PredictOnly = true;
    Jobs.push_back(std::move(J));
    Where.push_back(I);
  }
  if (Jobs.empty())
    return Out;
  std::string EnvironmentError =
      runBatch(Jobs, What, [&](size_t J, JobOutcome &O) {
        Prediction &R = Out[Where[J]];
        R.Ok = O.ok();
        if (O.ok())
          R.Bytes = O.Result->PredictedText;
        else
          R.Error = O.Error;
      });
  if (!EnvironmentError.empty())
    return environmentError(EnvironmentError);
  for (size_t I = 0; I < Requests.size(); ++I)
    Out[I] = Out[FirstOfKey.lookup(Keys[I])];
  return Out;
}

Error CompileService::logTrajectories(
    ArrayRef<size_t> Mods, ArrayRef<CompilePolicy> Policies,
    function_ref<void(size_t, ArrayRef<float>, bool, bool)> OnRow,
    std::vector<std::vector<float>> *Scores) {
  std::vector<CompileJob> Jobs;
  std::vector<std::string> JobModules;
  for (size_t K = 0; K < Mods.size(); ++K) {
    CompileJob J = module(Mods[K]).makeJob(Policies[K], /*WantLog=*/true);
    J.WantSizeScore = J.WantDeclinedScore = Scores != nullptr;
    Jobs.push_back(std::move(J));
    JobModules.push_back(module(Mods[K]).ContentHash);
  }
  if (Scores)
    Scores->assign(Mods.size(), {});
  Progress Shown(Label + ": logging");
  std::vector<JobOutcome> R =
      Replay.run(Pool, Jobs, JobModules, [&](size_t Done, size_t Total) {
        if (Verbose)
          Shown.update(Done, Total);
      });
  Shown.end();
  std::vector<float> Row;
  for (size_t K = 0; K < Jobs.size(); ++K) {
    const CorpusModule &Mod = module(Mods[K]);
    if (!R[K].ok())
      return makeError("logging compile of " + Mod.Name +
                       " failed: " + R[K].Error);
    Expected<DecisionLog> L =
        parseDecisionLog(R[K].Result->Log, Mod.Name + " (log)");
    if (!L)
      return L.takeError();
    if (Scores) {
      Expected<std::vector<float>> S =
          readLoggedScores(R[K].Result->Log, Mod.Name + " (log)");
      if (!S)
        return S.takeError();
      if (S->size() != L->size())
        return makeError(formatv("{0} (log): {1} size scores for {2} "
                                 "decisions",
                                 Mod.Name, S->size(), L->size())
                             .str());
      (*Scores)[K] = std::move(*S);
    }
    std::vector<std::string> Names;
    for (const TensorSpec &S : L->Specs)
      Names.push_back(S.name());
    if (FeatureNames.empty()) {
      FeatureNames = Names;
      DefaultColumn = L->DefaultColumn;
    } else if (Names != FeatureNames) {
      return makeError(Mod.Name + " (log): features differ from the first "
                                  "log's");
    }
    for (size_t D = 0; D < L->size(); ++D) {
      Row.assign(L->row(D).begin(), L->row(D).end());
      OnRow(K, Row, L->Decisions[D], L->Defaults[D]);
    }
  }
  return Error::success();
}

} // namespace mlgo
