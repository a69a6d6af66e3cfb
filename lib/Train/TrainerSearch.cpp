//===- lib/Train/TrainerSearch.cpp - The greedy search --------------------===//
//
// Modes search-imitate and bc (mlgo/Train/Trainer.h, phases 2 and 3): the
// greedy search over each training module's decision trajectory, and the
// best trajectories replayed with logging as the classifier's rows.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

#include "mlgo/Compile/DecisionLog.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/TrainCore/GreedySearch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"

using namespace llvm;

namespace mlgo {
namespace trainer {

Expected<std::vector<std::vector<uint32_t>>> search(Context &C,
                                                    const Baseline &B) {
  size_t N = C.Modules.size();
  std::vector<std::vector<uint32_t>> BestFlips(N);
  if (C.Recipe.Mode != TrainMode::SearchImitate)
    return BestFlips;
  GreedySearch Search;
  uint64_t SearchedBaseline = 0;
  for (size_t M : B.Train) {
    if (!isSearchable(C, B, M))
      continue;
    Search.addModule(M, candidates(C, B, M), B.HeuristicSize[M],
                     B.HeuristicDecisions[M]);
    SearchedBaseline += B.Sizes[M];
  }
  C.log("search: " + describeSearched(C, B, Search.size()));
  for (unsigned Step = 0;; ++Step) {
    std::vector<GreedySearch::Try> Tries = Search.nextStep();
    if (Tries.empty())
      break;
    std::vector<ModuleRequest> Req;
    for (GreedySearch::Try &T : Tries) {
      CompilePolicy P = CompilePolicy::heuristic();
      P.Flips = std::move(T.Flips);
      Req.push_back({T.Module, std::move(P)});
    }
    Expected<std::vector<CompileCache::Entry>> Compiled =
        C.compile(Req, ("search step " + Twine(Step)).str());
    if (!Compiled)
      return Compiled.takeError();
    const std::vector<CompileCache::Entry> &R = *Compiled;
    std::vector<std::optional<GreedySearch::Outcome>> Outcomes;
    for (size_t K = 0; K < Req.size(); ++K) {
      if (R[K].Ok)
        Outcomes.push_back(GreedySearch::Outcome{B.sizeOf(Req[K].first, R[K]),
                                                 R[K].Decisions});
      else
        Outcomes.push_back(std::nullopt);
    }
    Search.record(Outcomes);
    double Pct = SearchedBaseline
                     ? 100.0 * Search.getTotalSize() / SearchedBaseline
                     : 100;
    C.Record.SearchCurve.addPoint(Step, {Pct, Search.getTries() / 1000.0});
  }
  uint64_t Best = Search.getTotalSize(), Heur = SearchedBaseline;
  size_t Improved = 0;
  // Where the search found room: -Oz and best .text of the searched
  // modules, by package.
  PackageSizes PerPackage;
  for (size_t K = 0; K < Search.size(); ++K) {
    size_t M = Search.getModule(K);
    BestFlips[M] = Search.getFlips(K);
    Improved += Search.isImproved(K);
    PerPackage[C.Modules[M].Package].first += B.Sizes[M];
    PerPackage[C.Modules[M].Package].second += Search.getSize(K);
  }
  double Pct = percentChange(Heur, Best);
  C.log(formatv("search: {0} compiles; {1} of {2} modules improved; searched "
                "modules' .text {3:F2}% vs -Oz",
                Search.getTries(), Improved, Search.size(), Pct)
            .str());
  C.Record.Report +=
      formatv("- Search: {0} modules searched, {1} improved, {2} "
              "compiles; their .text went from {3} to {4} bytes "
              "({5:F2}% vs -Oz).\n",
              Search.size(), Improved, Search.getTries(), Heur, Best, Pct)
          .str();
  for (auto &[Pkg, V] : PerPackage)
    C.Record.Report +=
        formatv("  - {0}: {1} -> {2} bytes ({3:F2}%)\n", Pkg, V.first, V.second,
                percentChange(V.first, V.second))
            .str();
  return BestFlips;
}

Expected<learn::Dataset>
collect(Context &C, const Baseline &B,
        const std::vector<std::vector<uint32_t>> &BestFlips) {
  std::vector<size_t> Mods;
  std::vector<CompilePolicy> Policies;
  for (size_t M : B.Train) {
    if (B.HeuristicDecisions[M] == 0)
      continue;
    CompilePolicy P = CompilePolicy::heuristic();
    P.Flips = BestFlips[M];
    Mods.push_back(M);
    Policies.push_back(std::move(P));
  }
  C.log("imitate: logging " + Twine(Mods.size()) + " best trajectories");
  std::optional<learn::Dataset> D;
  if (Error E = C.logTrajectories(
          Mods, Policies,
          [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
            if (!D)
              D.emplace(C.featureNames());
            float W = Decision != Default ? C.Recipe.DepartureWeight : 1.0f;
            D->addRow(Row, Decision, W, int64_t(Mods[K]));
          }))
    return E;
  if (!D)
    return makeError("no training module makes an inlining decision");
  return std::move(*D);
}

} // namespace trainer
} // namespace mlgo
