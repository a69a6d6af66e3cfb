//===- lib/Train/TrainerCounterfactual.cpp - Single inversions ------------===//
//
// Mode counterfactual (the shipped model's): single inversions of the
// heuristic's decisions and, in later rounds (DAgger), of a round's own
// policy, each a row labelled by whether it shrank .text and weighted by
// the bytes; the inversion CSVs; the scorer's ranking that sets tau.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"

#include <cmath>

using namespace llvm;

namespace mlgo {
namespace trainer {

/// Appends a line of an inversion CSV: \p Leading, then the features at the
/// decision, \p Row, as integers.
static void appendInversion(std::string &CSV, StringRef Leading,
                            ArrayRef<float> Row) {
  CSV += Leading;
  for (float V : Row)
    CSV += "," + std::to_string(int64_t(V));
  CSV += "\n";
}

Expected<Rows> counterfactual(Context &C, const Baseline &B) {
  std::map<size_t, std::vector<float>> Trajectories;
  std::vector<size_t> Mods;
  uint64_t SearchedBaseline = 0;
  for (size_t M : B.Train)
    if (isSearchable(C, B, M)) {
      Mods.push_back(M);
      SearchedBaseline += B.Sizes[M];
    }
  if (Mods.empty())
    return makeError("no training module is within the search budget");
  C.log("counterfactual: " + describeSearched(C, B, Mods.size()));
  std::vector<CompilePolicy> Heur(Mods.size(), CompilePolicy::heuristic());
  if (Error E = C.logTrajectories(
          Mods, Heur, [&](size_t K, ArrayRef<float> Row, bool, bool) {
            llvm::append_range(Trajectories[Mods[K]], Row);
          }))
    return E;
  size_t Width = C.featureNames().size();

  std::vector<CompileRequest> Req;
  std::vector<uint32_t> At;
  for (size_t M : Mods)
    for (uint32_t I : candidates(C, B, M)) {
      CompilePolicy P = CompilePolicy::heuristic();
      P.Flips = {I};
      Req.push_back({M, std::move(P)});
      At.push_back(I);
    }
  Expected<std::vector<CompileCache::Entry>> Compiled =
      C.compile(Req, "counterfactual flips");
  if (!Compiled)
    return Compiled.takeError();
  const std::vector<CompileCache::Entry> &R = *Compiled;

  learn::Dataset D(C.featureNames());
  // Every inversion, for whoever wants to study them: module, decision
  // index, .text change in bytes, then the features at that decision.
  std::string CSV = C.inversionsHeader("module,decision,text_delta");
  size_t Shrank = 0, Grew = 0, Same = 0, Failed = 0;
  std::map<size_t, int64_t> BestGain; // Per module: its best single flip.
  for (size_t K = 0; K < Req.size(); ++K) {
    size_t M = Req[K].first;
    const std::vector<float> &T = Trajectories[M];
    if (!R[K].Ok) {
      ++Failed;
      C.log("counterfactual: flip " + Twine(At[K]) + " of " +
            C.Modules[M].Name + " failed: " + R[K].Error);
      continue;
    }
    if (size_t(At[K]) * Width >= T.size())
      return makeError("counterfactual: " + C.Modules[M].Name +
                       " logged fewer decisions than it reported");
    int64_t Delta = int64_t(B.sizeOf(M, R[K])) - int64_t(B.HeuristicSize[M]);
    (Delta < 0 ? Shrank : Delta > 0 ? Grew : Same) += 1;
    if (Delta < 0)
      BestGain[M] = std::min(BestGain[M], Delta);
    float W = flipWeight(C, B, Delta, M);
    ArrayRef<float> Row(T.data() + At[K] * Width, Width);
    if (C.inScope(Row[C.defaultColumn()] != 0))
      D.addRow(Row, Delta < 0, W, int64_t(M));
    appendInversion(CSV,
                    C.Modules[M].Name + "," + std::to_string(At[K]) + "," +
                        std::to_string(Delta),
                    Row);
  }
  if (Error E = C.writeWorkFile("counterfactuals.csv", CSV))
    return E;
  int64_t Oracle = 0;
  for (auto &[M, G] : BestGain)
    Oracle += G;
  double OraclePct = SearchedBaseline ? 100.0 * Oracle / SearchedBaseline : 0;
  C.log(formatv("counterfactual: {0} single inversions: {1} shrank .text, {2} "
                "grew it, {3} left it, {4} failed; the best one per module "
                "would give {5:F2}% vs -Oz",
                Req.size(), Shrank, Grew, Same, Failed, OraclePct)
            .str());
  C.Record.Report +=
      formatv("- Counterfactuals: {0} modules, {1} single inversions "
              "of the heuristic: {2} shrank .text, {3} grew it, {4} "
              "left it, {5} failed. The best inversion per module "
              "alone would give {6:F2}% vs -Oz on these modules.\n",
              Mods.size(), Req.size(), Shrank, Grew, Same, Failed, OraclePct)
          .str();
  return Rows{std::move(D), std::move(Trajectories)};
}

Error counterfactualAround(Context &C, const Baseline &B, const Model &P,
                           StringRef PLabel, unsigned Round,
                           learn::Dataset &D) {
  std::vector<size_t> Mods;
  for (size_t M : B.Train)
    if (isSearchable(C, B, M))
      Mods.push_back(M);
  CompilePolicy Pol = CompilePolicy::model(P.toJSONString());
  struct Trajectory {
    std::vector<float> Rows;
    std::vector<bool> Decisions, Defaults;
  };
  std::vector<Trajectory> Traj(Mods.size());
  std::vector<CompilePolicy> Pols(Mods.size(), Pol);
  if (Error E = C.logTrajectories(
          Mods, Pols,
          [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
            llvm::append_range(Traj[K].Rows, Row);
            Traj[K].Decisions.push_back(Decision);
            Traj[K].Defaults.push_back(Default);
          }))
    return E;
  std::vector<CompileRequest> Req;
  for (size_t M : Mods)
    Req.push_back({M, Pol});
  Expected<std::vector<CompileCache::Entry>> OwnCompiled =
      C.compile(Req, ("round " + Twine(Round) + ": policy").str());
  if (!OwnCompiled)
    return OwnCompiled.takeError();
  const std::vector<CompileCache::Entry> &Own = *OwnCompiled;

  Req.clear();
  std::vector<size_t> Who; // Index into Mods.
  std::vector<uint32_t> At;
  uint64_t RoundSeed = C.Recipe.Seed ^ (0xd1b54a32d192ed03ULL * Round);
  for (size_t K = 0; K < Mods.size(); ++K) {
    size_t M = Mods[K];
    if (!Own[K].Ok) {
      C.log("round " + Twine(Round) + ": " + C.Modules[M].Name +
            " failed under the policy: " + Own[K].Error);
      continue;
    }
    const Trajectory &T = Traj[K];
    std::vector<uint32_t> Departs, Agrees;
    for (uint32_t I = 0; I < T.Decisions.size(); ++I)
      if (C.inScope(T.Defaults[I]))
        (T.Decisions[I] != T.Defaults[I] ? Departs : Agrees).push_back(I);
    uint32_t Budget = searchBudget(C, M);
    MD5::MD5Result H =
        MD5::hash(arrayRefFromStringRef(C.Modules[M].ContentHash));
    std::vector<uint32_t> Pick =
        sampleSeeded(std::move(Departs), std::max<uint32_t>(1, Budget / 2),
                     RoundSeed ^ H.low());
    std::vector<uint32_t> Rest = sampleSeeded(
        std::move(Agrees), Budget - std::min<size_t>(Budget, Pick.size()),
        RoundSeed ^ H.high());
    llvm::append_range(Pick, Rest);
    llvm::sort(Pick);
    for (uint32_t I : Pick) {
      CompilePolicy Q = Pol;
      Q.Flips = {I};
      Req.push_back({M, std::move(Q)});
      Who.push_back(K);
      At.push_back(I);
    }
  }
  Expected<std::vector<CompileCache::Entry>> Compiled =
      C.compile(Req, ("round " + Twine(Round) + ": inversions").str());
  if (!Compiled)
    return Compiled.takeError();
  const std::vector<CompileCache::Entry> &R = *Compiled;

  size_t Width = C.featureNames().size();
  size_t Departures = 0, BadDepartures = 0, Shrank = 0, Failed = 0;
  std::string CSV =
      C.inversionsHeader("module,decision,policy_decision,text_delta");
  for (size_t J = 0; J < Req.size(); ++J) {
    size_t K = Who[J], M = Mods[K];
    const Trajectory &T = Traj[K];
    if (!R[J].Ok) {
      ++Failed;
      C.log("round " + Twine(Round) + ": flip " + Twine(At[J]) + " of " +
            C.Modules[M].Name + " failed: " + R[J].Error);
      continue;
    }
    int64_t Delta = int64_t(B.sizeOf(M, R[J])) - int64_t(B.sizeOf(M, Own[K]));
    bool Departs = T.Decisions[At[J]] != T.Defaults[At[J]];
    bool Label = labelInversion(Departs, Delta);
    Departures += Departs;
    BadDepartures += Departs && Delta < 0;
    Shrank += Delta < 0;
    float W = flipWeight(C, B, Delta, M);
    ArrayRef<float> Row(T.Rows.data() + size_t(At[J]) * Width, Width);
    D.addRow(Row, Label, W, int64_t(M));
    appendInversion(CSV,
                    C.Modules[M].Name + "," + std::to_string(At[J]) + "," +
                        (T.Decisions[At[J]] ? "1" : "0") + "," +
                        std::to_string(Delta),
                    Row);
  }
  if (Error E = C.writeWorkFile(
          ("counterfactuals-round" + Twine(Round) + ".csv").str(), CSV))
    return E;
  std::string Summary = formatv(
      "{0} single inversions of the trajectories of '{1}' on {2} "
      "modules: {3} shrank .text, {4} failed; {5} of them undid a departure "
      "from the heuristic, and {6} of those shrank .text (a departure that "
      "cost bytes)",
      Req.size(), PLabel, Mods.size(), Shrank, Failed, Departures,
      BadDepartures);
  C.log("round " + Twine(Round) + ": " + Summary);
  C.Record.Report +=
      "- Round " + std::to_string(Round) + ": " + Summary + ".\n";
  return Error::success();
}

Expected<std::vector<float>>
scoreTrajectories(const Context &C,
                  const std::map<size_t, std::vector<float>> &Trajectories,
                  const Model &G, bool HeuristicInlines) {
  size_t Width = C.featureNames().size();
  std::vector<size_t> Column;
  for (const ModelInput &In : G.Inputs) {
    auto It = llvm::find(C.featureNames(), In.Spec.name());
    if (It == C.featureNames().end())
      return makeError("the scorer reads '" + In.Spec.name() +
                       "', which the logs do not have");
    Column.push_back(It - C.featureNames().begin());
  }
  ModelEvaluator E(G);
  std::vector<int64_t> Values(Column.size());
  std::vector<const void *> Ptrs;
  for (int64_t &V : Values)
    Ptrs.push_back(&V);
  std::vector<float> Scores;
  for (auto &[M, T] : Trajectories)
    for (size_t R = 0; R + Width <= T.size(); R += Width) {
      bool Default = T[R + C.defaultColumn()] != 0;
      if (HeuristicInlines ? !Default : !C.inScope(Default))
        continue;
      for (size_t K = 0; K < Column.size(); ++K)
        Values[K] = int64_t(T[R + Column[K]]);
      Scores.push_back(E.evaluate(Ptrs.data()));
    }
  if (Scores.empty())
    return makeError("no training decisions to rank");
  llvm::sort(Scores, std::greater<float>());
  return Scores;
}

std::string Context::inversionsHeader(StringRef Columns) const {
  std::string CSV = Columns.str();
  for (const std::string &F : featureNames())
    CSV += "," + F;
  return CSV + "\n";
}

} // namespace trainer
} // namespace mlgo
