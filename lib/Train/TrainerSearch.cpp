//===- lib/Train/TrainerSearch.cpp - The greedy search --------------------===//
//
// Modes search-imitate and bc (mlgo/Train/Trainer.h, phases 2 and 3): the
// greedy search over each training module's decision trajectory, and the
// best trajectories replayed with logging as the classifier's rows.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/Train/DecisionLog.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"

using namespace llvm;

namespace mlgo {

void Trainer::search() {
  size_t N = Modules.size();
  BestFlips.assign(N, {});
  BestSize = HeuristicSize;
  if (Recipe.Mode != TrainMode::SearchImitate)
    return;
  struct State {
    size_t M;
    std::vector<uint32_t> Cand;
    size_t Next = 0;
    uint32_t Decisions;
  };
  std::vector<State> Active;
  uint64_t SearchedBaseline = 0;
  for (size_t M : Train) {
    if (!isSearchable(M))
      continue;
    Active.push_back({M, candidates(M), 0, HeuristicDecisions[M]});
    SearchedBaseline += Baseline[M];
  }
  log("search: " + Twine(Active.size()) + " of " + Twine(Train.size()) +
      " training modules within the budget");
  std::vector<State *> Searched;
  std::vector<State> All = Active;
  size_t Compiles = 0;
  for (unsigned Step = 0;; ++Step) {
    std::vector<CompileRequest> Req;
    std::vector<State *> Who;
    for (State &S : All) {
      while (S.Next < S.Cand.size() && S.Cand[S.Next] >= S.Decisions)
        ++S.Next;
      if (S.Next >= S.Cand.size())
        continue;
      CompilePolicy P = CompilePolicy::heuristic();
      P.Flips = BestFlips[S.M];
      P.Flips.push_back(S.Cand[S.Next]);
      Req.push_back({S.M, std::move(P)});
      Who.push_back(&S);
    }
    if (Req.empty())
      break;
    std::vector<CompileCache::Entry> R =
        compile(Req, ("search step " + Twine(Step)).str());
    Compiles += Req.size();
    for (size_t K = 0; K < Req.size(); ++K) {
      State &S = *Who[K];
      ++S.Next;
      if (!R[K].Ok || sizeOf(S.M, R[K]) >= BestSize[S.M])
        continue;
      BestFlips[S.M] = Req[K].second.Flips;
      BestSize[S.M] = sizeOf(S.M, R[K]);
      S.Decisions = R[K].Decisions;
    }
    uint64_t Best = 0;
    for (State &S : All)
      Best += BestSize[S.M];
    double Pct = SearchedBaseline ? 100.0 * Best / SearchedBaseline : 100;
    SearchCurve.addPoint(Step, {Pct, Compiles / 1000.0});
  }
  uint64_t Best = 0, Heur = 0;
  size_t Improved = 0;
  for (State &S : All) {
    Best += BestSize[S.M];
    Heur += Baseline[S.M];
    Improved += BestSize[S.M] < HeuristicSize[S.M];
  }
  double Pct = percentChange(Heur, Best);
  log(formatv("search: {0} compiles; {1} of {2} modules improved; searched "
              "modules' .text {3:F2}% vs -Oz",
              Compiles, Improved, All.size(), Pct)
          .str());
  Report += formatv("- Search: {0} modules searched, {1} improved, {2} "
                    "compiles; their .text went from {3} to {4} bytes "
                    "({5:F2}% vs -Oz).\n",
                    All.size(), Improved, Compiles, Heur, Best, Pct)
                .str();
  // Where the search found room: -Oz and best .text of the searched
  // modules, by package.
  PackageSizes PerPackage;
  for (State &S : All) {
    PerPackage[Modules[S.M].Package].first += Baseline[S.M];
    PerPackage[Modules[S.M].Package].second += BestSize[S.M];
  }
  for (auto &[Pkg, V] : PerPackage)
    Report += formatv("  - {0}: {1} -> {2} bytes ({3:F2}%)\n", Pkg, V.first,
                      V.second, percentChange(V.first, V.second))
                  .str();
}

Expected<learn::Dataset> Trainer::collect() {
  std::vector<size_t> Mods;
  std::vector<CompilePolicy> Policies;
  for (size_t M : Train) {
    if (HeuristicDecisions[M] == 0)
      continue;
    CompilePolicy P = CompilePolicy::heuristic();
    P.Flips = BestFlips[M];
    Mods.push_back(M);
    Policies.push_back(std::move(P));
  }
  log("imitate: logging " + Twine(Mods.size()) + " best trajectories");
  std::optional<learn::Dataset> D;
  if (Error E = logTrajectories(
          Mods, Policies,
          [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
            if (!D)
              D.emplace(featureNames());
            float W = Decision != Default ? Recipe.DepartureWeight : 1.0f;
            D->addRow(Row, Decision, W, int64_t(Mods[K]));
          }))
    return E;
  if (!D)
    return makeError("no training module makes an inlining decision");
  return std::move(*D);
}

} // namespace mlgo
