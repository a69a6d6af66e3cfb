//===- lib/Train/TrainerPhases.cpp - Training phases over values ----------===//
//
// The corpus split, the baseline's verdicts and the search budget (see
// mlgo/Train/TrainerPhases.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/TrainerPhases.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Percent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

#include <cstdlib>

using namespace llvm;

namespace mlgo {

Expected<CorpusSplit> splitCorpus(std::vector<CorpusModule> All,
                                  const TrainRecipe &Recipe,
                                  StringRef CorpusDir) {
  if (All.empty())
    return makeError("the corpus at '" + CorpusDir +
                     "' has no modules: its corpus_description.json lists "
                     "none");
  CorpusSplit S;
  S.Fingerprint = getCorpusFingerprint(All);
  StringSet<> Val(Recipe.ValidationPackages), Excl(Recipe.ExcludedPackages),
      Seen;
  for (CorpusModule &Mod : All) {
    if (Seen.insert(Mod.Package).second)
      S.Packages.push_back(describePackage(Mod.Package));
    if (Excl.contains(Mod.Package))
      continue;
    (Val.contains(Mod.Package) ? S.Validation : S.Train)
        .push_back(S.Modules.size());
    S.Modules.push_back(std::move(Mod));
  }
  llvm::sort(S.Packages);
  for (const std::string &P : Recipe.ValidationPackages)
    if (!Seen.contains(P))
      return makeError("validation package '" + P +
                       "' is not in the corpus at '" + CorpusDir + "'");
  if (S.Train.empty())
    return makeError("no training modules: every package of '" + CorpusDir +
                     "' is held out or excluded");
  return S;
}

BaselineResult measureBaseline(ArrayRef<CorpusModule> Modules,
                               ArrayRef<CompileCache::Entry> Stock,
                               ArrayRef<CompileCache::Entry> Heuristic,
                               SizeMeasureKind Kind, TotalsKind Totals) {
  size_t N = Modules.size();
  assert(Stock.size() == N && Heuristic.size() == N &&
         "two compiles per module");
  BaselineResult B;
  std::vector<std::string> Packages;
  for (const CorpusModule &M : Modules)
    Packages.push_back(M.Package);
  B.Measure = SizeMeasure(Kind, Totals == TotalsKind::Linked,
                          std::move(Packages), Stock);
  B.Baseline.resize(N);
  B.HeuristicSize.resize(N);
  B.HeuristicDecisions.resize(N);
  B.IsLeftOut.resize(N);
  for (size_t I = 0; I < N; ++I) {
    // A module that fails either way has no baseline to measure against:
    // it is left out of training and evaluation, and named in the report.
    if (!Stock[I].Ok || !Heuristic[I].Ok) {
      B.IsLeftOut[I] = true;
      B.LeftOut.push_back(!Stock[I].Ok ? "-Oz: " + Stock[I].Error
                                       : "heuristic: " + Heuristic[I].Error);
      continue;
    }
    B.Baseline[I] = B.Measure.sizeOf(I, Stock[I]);
    B.HeuristicSize[I] = B.Measure.sizeOf(I, Heuristic[I]);
    B.HeuristicDecisions[I] = Heuristic[I].Decisions;
    B.Mismatch += Stock[I].TextSize != Heuristic[I].TextSize;
  }
  return B;
}

bool isSearchable(const TrainRecipe &Recipe, uint64_t BitcodeSize,
                  uint32_t Decisions) {
  return Decisions != 0 && Decisions <= Recipe.SearchMaxDecisions &&
         BitcodeSize <= Recipe.SearchMaxModuleBytes;
}

uint32_t getSearchBudget(const TrainRecipe &Recipe, uint64_t BitcodeSize) {
  uint64_t K = Recipe.SearchCandidates;
  if (Recipe.SearchBudgetBytes)
    K = std::min<uint64_t>(
        K, std::max<uint64_t>(1, Recipe.SearchBudgetBytes /
                                     std::max<uint64_t>(1, BitcodeSize)));
  return uint32_t(K);
}

std::vector<uint32_t> getSearchCandidates(const TrainRecipe &Recipe,
                                          const CorpusModule &M,
                                          uint32_t Decisions) {
  uint32_t K = getSearchBudget(Recipe, M.BitcodeSize);
  std::vector<uint32_t> All(Decisions);
  for (uint32_t I = 0; I < Decisions; ++I)
    All[I] = I;
  if (Decisions <= K)
    return All;
  MD5::MD5Result H = MD5::hash(arrayRefFromStringRef(M.ContentHash));
  All = sampleSeeded(std::move(All), K, Recipe.Seed ^ H.low());
  llvm::sort(All);
  return All;
}

float getFlipWeight(const TrainRecipe &Recipe, int64_t Delta,
                    uint64_t ModuleBaseline, double MeanTrainingText) {
  if (Delta == 0)
    return ZeroFlipWeight;
  double W = double(std::abs(Delta));
  if (Recipe.FlipWeight == FlipWeighting::ModuleRelative)
    W *= MeanTrainingText / double(std::max<uint64_t>(ModuleBaseline, 1));
  return float(std::min(W, Recipe.FlipWeightCap));
}

std::vector<std::string> describeEmptyFlipFractions(const TrainRecipe &Recipe,
                                                    size_t NumDecisions) {
  std::vector<std::string> Out;
  for (double F : Recipe.FlipFractions)
    if (size_t(F * NumDecisions) == 0)
      Out.push_back(formatv("flip fraction {0} of {1} training decisions is "
                            "no decision, so it yields no candidate of its "
                            "own; {2} or more inverts at least one",
                            format("%g", F), NumDecisions,
                            format("%.3g", NumDecisions ? 1.0 / NumDecisions
                                                        : 1.0))
                        .str());
  return Out;
}

std::vector<FlipCandidatePlan>
planFlipCandidates(const TrainRecipe &Recipe, unsigned Round,
                   ArrayRef<float> Scores, ArrayRef<float> InlineScores) {
  assert(!Scores.empty() && "no training decisions to rank");
  std::string Prefix = Recipe.CounterfactualRounds > 1
                           ? formatv("round {0}: ", Round).str()
                           : "";
  // The tau that lets the top fraction F of the sorted scores S through.
  auto TauAt = [](ArrayRef<float> S, double F) {
    return S[std::min(size_t(F * S.size()), S.size() - 1)];
  };
  std::vector<FlipCandidatePlan> Plans;
  auto Add = [&](double F, double RF) {
    FlipCandidatePlan P;
    P.Fraction = F;
    P.RefuseFraction = RF;
    // A flip fraction that is no decision at all inverts none.
    P.Tau =
        size_t(F * Scores.size()) == 0 ? learn::NeverFlip : TauAt(Scores, F);
    P.TauInline = RF ? TauAt(InlineScores, RF) : learn::NeverFlip;
    P.RecipeNote =
        RF ? formatv(", inlining where the heuristic refuses and the scorer "
                     "exceeds {0} (top {1}% of its training refusals), and "
                     "refusing where it inlines and the scorer exceeds {2} "
                     "(top {3}% of its training inlines)",
                     P.Tau, 100 * F, P.TauInline, 100 * RF)
                 .str()
           : formatv(", inverting the heuristic where the scorer exceeds "
                     "{0} (top {1}% of training decisions)",
                     P.Tau, 100 * F)
                 .str();
    if (Round > 1)
      P.RecipeNote +=
          formatv(", scorer of counterfactual round {0}", Round).str();
    P.Label =
        !RF ? formatv("{0}top {1}% inverted", Prefix, 100 * F).str()
        : F ? formatv("{0}top {1}% inverted, top {2}% of inlines refused",
                      Prefix, 100 * F, 100 * RF)
                  .str()
            : formatv("{0}top {1}% of inlines refused", Prefix, 100 * RF).str();
    Plans.push_back(std::move(P));
  };
  for (double F : Recipe.FlipFractions)
    if (size_t(F * Scores.size()) != 0) // 0: the heuristic, already one.
      Add(F, 0);
  // The grid: each flip fraction (and none) with each fraction of the
  // heuristic's inlines refused, ranked by the same scorer.
  std::vector<double> Fractions = {0};
  llvm::append_range(Fractions, Recipe.FlipFractions);
  for (double F : Fractions)
    for (double RF : Recipe.RefuseFractions)
      Add(F, RF);
  return Plans;
}

Verdict judgeTotals(const Totals &T, const PackageSizes &PerPackage,
                    double LimitPct) {
  Verdict V;
  V.WorstPct = -100;
  for (auto &[Pkg, Sizes] : PerPackage) {
    double Pct = percentChange(Sizes.first, Sizes.second);
    if (Pct > V.WorstPct) {
      V.WorstPct = Pct;
      V.WorstPackage = Pkg;
    }
  }
  if (PerPackage.empty()) {
    // Every module failed: there is no package to name.
    V.WorstPct = 0;
    V.WorstPackage = "none";
  }
  V.Allowed = T.Failures.empty() && V.WorstPct <= LimitPct;
  return V;
}

std::optional<size_t> chooseSmallest(ArrayRef<uint64_t> Sizes,
                                     const std::vector<bool> &Allowed) {
  std::optional<size_t> Best;
  for (size_t I = 0; I < Sizes.size(); ++I)
    if (Allowed[I] && (!Best || Sizes[I] < Sizes[*Best]))
      Best = I;
  return Best;
}

Expected<std::optional<size_t>>
chooseSmallestPassing(ArrayRef<uint64_t> Sizes, std::vector<bool> Allowed,
                      function_ref<Expected<bool>(size_t)> Check) {
  while (std::optional<size_t> Best = chooseSmallest(Sizes, Allowed)) {
    Expected<bool> Passes = Check(*Best);
    if (!Passes)
      return Passes.takeError();
    if (*Passes)
      return Best;
    Allowed[*Best] = false;
  }
  return std::nullopt;
}

} // namespace mlgo
