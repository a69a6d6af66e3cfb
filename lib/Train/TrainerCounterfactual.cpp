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

namespace {
/// What the logged score did to a round's inversions
/// (predicted_inversions), for the log and report.md.
struct PredictionTally {
  size_t Sampled = 0, Shrink = 0, Grow = 0, Skipped = 0, Moved = 0;
  SignAgreement Sign;

  void add(const InversionPlan &P) {
    Sampled += P.Sampled;
    Shrink += P.PredictedShrink;
    Grow += P.PredictedGrow;
    Skipped += P.Skipped;
    Moved += P.Moved;
  }

  std::string describe(PredictedInversions Mode) const {
    std::string S =
        formatv("predicted inversions ({0}): of the {1} inversions the "
                "sample makes, the logged score predicts {2} to shrink .text "
                "and {3} to grow it; ",
                getName(Mode), Sampled, Shrink, Grow)
            .str();
    if (Mode == PredictedInversions::Skip)
      S += formatv("{0} predicted to grow it were skipped", Skipped).str();
    else
      S += formatv("{0} predicted to shrink it from beyond the sample took "
                   "the place of as many",
                   Moved)
               .str();
    return S + formatv("; the predicted and the measured change agree in "
                       "sign on {0} of the {1} compiled inversions that "
                       "changed .text with a nonzero prediction",
                       Sign.Agree, Sign.Compared)
                   .str();
  }
};

/// The predicted gain of inverting each decision of a trajectory whose
/// applied decisions are \p Applied and logged scores \p Scores; the
/// error names \p Module when their counts differ from \p Count.
Expected<std::vector<float>> predictedGains(const std::vector<bool> &Applied,
                                            ArrayRef<float> Scores,
                                            size_t Count, StringRef Module) {
  if (Applied.size() != Count || Scores.size() != Count)
    return makeError(formatv("{0}: the scored log has {1} decisions and {2} "
                             "scores, not the {3} the compile took",
                             Module, Applied.size(), Scores.size(), Count)
                         .str());
  std::vector<float> Gains(Count);
  for (size_t I = 0; I < Count; ++I)
    Gains[I] = getPredictedInversionGain(Applied[I], Scores[I]);
  return Gains;
}
} // namespace

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
  std::vector<std::vector<float>> Scores;
  std::vector<std::vector<bool>> Applied(Mods.size());
  if (Error E = C.logTrajectories(
          Mods, Heur,
          [&](size_t K, ArrayRef<float> Row, bool Decision, bool) {
            llvm::append_range(Trajectories[Mods[K]], Row);
            Applied[K].push_back(Decision);
          },
          C.predictsInversions() ? &Scores : nullptr))
    return E;
  size_t Width = C.featureNames().size();

  std::vector<ModuleRequest> Req;
  std::vector<uint32_t> At;
  // Predicted gain of each request (predicted_inversions).
  std::vector<float> Predicted;
  PredictionTally Tally;
  for (size_t K = 0; K < Mods.size(); ++K) {
    size_t M = Mods[K];
    std::vector<uint32_t> Picks;
    std::vector<float> Gains;
    if (!C.predictsInversions()) {
      Picks = candidates(C, B, M);
    } else {
      Expected<std::vector<float>> G = predictedGains(
          Applied[K], Scores[K], B.HeuristicDecisions[M], C.Modules[M].Name);
      if (!G)
        return G.takeError();
      Gains = std::move(*G);
      // A decision outside flip_scope makes no row: the prediction neither
      // promotes nor skips it (it is compiled when sampled, as with off).
      std::vector<float> InScope = Gains;
      for (size_t I = 0; I < InScope.size(); ++I)
        if (!C.inScope(Applied[K][I]))
          InScope[I] = 0;
      InversionPlan Plan =
          planPredictedInversions(C.Recipe.Predicted, searchOrder(C, B, M),
                                  searchBudget(C, M), InScope);
      Tally.add(Plan);
      Picks = std::move(Plan.Picks);
    }
    for (uint32_t I : Picks) {
      CompilePolicy P = CompilePolicy::heuristic();
      P.Flips = {I};
      Req.push_back({M, std::move(P)});
      At.push_back(I);
      Predicted.push_back(Gains.empty() ? 0.0f : Gains[I]);
    }
  }
  Expected<std::vector<CompileCache::Entry>> Compiled =
      C.compile(Req, "counterfactual flips");
  if (!Compiled)
    return Compiled.takeError();
  const std::vector<CompileCache::Entry> &R = *Compiled;

  learn::Dataset D(C.featureNames());
  // Every inversion, for whoever wants to study them: module, decision
  // index, .text change in bytes, then the features at that decision.
  // With predicted_inversions, the predicted gain follows the change.
  std::string CSV = C.inversionsHeader(
      C.predictsInversions() ? "module,decision,text_delta,predicted_gain"
                             : "module,decision,text_delta");
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
    Tally.Sign.add(Predicted[K], Delta);
    float W = flipWeight(C, B, Delta, M);
    ArrayRef<float> Row(T.data() + At[K] * Width, Width);
    if (C.inScope(Row[C.defaultColumn()] != 0))
      D.addRow(Row, Delta < 0, W, int64_t(M));
    std::string Leading = C.Modules[M].Name + "," + std::to_string(At[K]) +
                          "," + std::to_string(Delta);
    if (C.predictsInversions())
      Leading += formatv(",{0:F1}", Predicted[K]).str();
    appendInversion(CSV, Leading, Row);
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
  if (C.predictsInversions()) {
    std::string Summary = Tally.describe(C.Recipe.Predicted);
    C.log("counterfactual: " + Summary);
    C.Record.Report += "- Counterfactuals, " + Summary + ".\n";
  }
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
  std::vector<std::vector<float>> Scores;
  if (Error E = C.logTrajectories(
          Mods, Pols,
          [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
            llvm::append_range(Traj[K].Rows, Row);
            Traj[K].Decisions.push_back(Decision);
            Traj[K].Defaults.push_back(Default);
          },
          C.predictsInversions() ? &Scores : nullptr))
    return E;
  std::vector<ModuleRequest> Req;
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
  std::vector<float> Predicted; // Per request (predicted_inversions).
  PredictionTally Tally;
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
    // Both shuffles whole: the sample is the departures' first
    // max(1, Budget / 2) and the others' first of what is left of the
    // budget; the order the prediction ranks goes on with the rest of
    // each.
    size_t NumDeparts = Departs.size(), NumAgrees = Agrees.size();
    std::vector<uint32_t> DepartOrder =
        sampleSeeded(std::move(Departs), NumDeparts, RoundSeed ^ H.low());
    std::vector<uint32_t> AgreeOrder =
        sampleSeeded(std::move(Agrees), NumAgrees, RoundSeed ^ H.high());
    size_t FromDeparts =
        std::min<size_t>(std::max<uint32_t>(1, Budget / 2), NumDeparts);
    size_t FromAgrees = std::min<size_t>(
        Budget - std::min<size_t>(Budget, FromDeparts), NumAgrees);
    std::vector<uint32_t> Order(DepartOrder.begin(),
                                DepartOrder.begin() + FromDeparts);
    Order.insert(Order.end(), AgreeOrder.begin(),
                 AgreeOrder.begin() + FromAgrees);
    Order.insert(Order.end(), DepartOrder.begin() + FromDeparts,
                 DepartOrder.end());
    Order.insert(Order.end(), AgreeOrder.begin() + FromAgrees,
                 AgreeOrder.end());
    std::vector<float> Gains;
    if (C.predictsInversions()) {
      Expected<std::vector<float>> G = predictedGains(
          T.Decisions, Scores[K], T.Decisions.size(), C.Modules[M].Name);
      if (!G)
        return G.takeError();
      Gains = std::move(*G);
    }
    InversionPlan Plan = planPredictedInversions(
        C.Recipe.Predicted, Order, FromDeparts + FromAgrees, Gains);
    Tally.add(Plan);
    for (uint32_t I : Plan.Picks) {
      CompilePolicy Q = Pol;
      Q.Flips = {I};
      Req.push_back({M, std::move(Q)});
      Who.push_back(K);
      At.push_back(I);
      Predicted.push_back(Gains.empty() ? 0.0f : Gains[I]);
    }
  }
  Expected<std::vector<CompileCache::Entry>> Compiled =
      C.compile(Req, ("round " + Twine(Round) + ": inversions").str());
  if (!Compiled)
    return Compiled.takeError();
  const std::vector<CompileCache::Entry> &R = *Compiled;

  size_t Width = C.featureNames().size();
  size_t Departures = 0, BadDepartures = 0, Shrank = 0, Failed = 0;
  std::string CSV = C.inversionsHeader(
      C.predictsInversions()
          ? "module,decision,policy_decision,text_delta,predicted_gain"
          : "module,decision,policy_decision,text_delta");
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
    Tally.Sign.add(Predicted[J], Delta);
    float W = flipWeight(C, B, Delta, M);
    ArrayRef<float> Row(T.Rows.data() + size_t(At[J]) * Width, Width);
    D.addRow(Row, Label, W, int64_t(M));
    std::string Leading = C.Modules[M].Name + "," + std::to_string(At[J]) +
                          "," + (T.Decisions[At[J]] ? "1" : "0") + "," +
                          std::to_string(Delta);
    if (C.predictsInversions())
      Leading += formatv(",{0:F1}", Predicted[J]).str();
    appendInversion(CSV, Leading, Row);
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
  if (C.predictsInversions()) {
    std::string Predictions = Tally.describe(C.Recipe.Predicted);
    C.log("round " + Twine(Round) + ": " + Predictions);
    C.Record.Report +=
        "- Round " + std::to_string(Round) + ", " + Predictions + ".\n";
  }
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
