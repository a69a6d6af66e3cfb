//===- lib/TrainCore/TrainerPhases.cpp - Training phases over values ------===//
//
// The baseline's verdicts, the search budget, the flip candidates, the
// verdict and the choice, and report.md (see mlgo/TrainCore/TrainerPhases.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/TrainerPhases.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Percent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace mlgo {

BaselineResult measureBaseline(std::vector<std::string> Packages,
                               ArrayRef<CompileOutcome> Stock,
                               ArrayRef<CompileOutcome> Heuristic,
                               SizeMeasureKind Kind, TotalsKind Totals) {
  size_t N = Packages.size();
  assert(Stock.size() == N && Heuristic.size() == N &&
         "two compiles per module");
  BaselineResult B;
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

KeptModules keepMeasured(const BaselineResult &B, std::vector<size_t> Train,
                         std::vector<size_t> Validation) {
  KeptModules K;
  K.Train = std::move(Train);
  K.Validation = std::move(Validation);
  llvm::erase_if(K.Train, [&](size_t M) { return B.IsLeftOut[M]; });
  llvm::erase_if(K.Validation, [&](size_t M) { return B.IsLeftOut[M]; });
  for (size_t M : K.Train)
    K.MeanTrainingText += double(B.Baseline[M]) / K.Train.size();
  return K;
}

bool isSearchable(const TrainRecipe &Recipe, uint64_t BitcodeSize,
                  uint32_t Decisions) {
  return Decisions != 0 && Decisions <= Recipe.SearchMaxDecisions &&
         BitcodeSize <= Recipe.SearchMaxModuleBytes;
}

std::string describeSearched(const TrainRecipe &Recipe, ArrayRef<size_t> Train,
                             ArrayRef<uint32_t> HeuristicDecisions,
                             size_t Searched) {
  size_t NoDecision = 0;
  for (size_t M : Train)
    NoDecision += HeuristicDecisions[M] == 0;
  size_t Over = Train.size() - Searched - NoDecision;
  std::string S = (Twine(Searched) + " of " + Twine(Train.size()) +
                   " training modules are searched")
                      .str();
  if (NoDecision || Over)
    S += (Twine(" (") + Twine(NoDecision) + " make no inlining decision, " +
          Twine(Over) + " exceed the budget of " +
          Twine(Recipe.SearchMaxDecisions) + " decisions or " +
          Twine(Recipe.SearchMaxModuleBytes) + " bytes of bitcode)")
             .str();
  return S;
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
                                          uint64_t BitcodeSize,
                                          StringRef ContentHash,
                                          uint32_t Decisions) {
  uint32_t K = getSearchBudget(Recipe, BitcodeSize);
  std::vector<uint32_t> All(Decisions);
  for (uint32_t I = 0; I < Decisions; ++I)
    All[I] = I;
  if (Decisions <= K)
    return All;
  MD5::MD5Result H = MD5::hash(arrayRefFromStringRef(ContentHash));
  All = sampleSeeded(std::move(All), K, Recipe.Seed ^ H.low());
  llvm::sort(All);
  return All;
}

std::vector<uint32_t> getSearchOrder(const TrainRecipe &Recipe,
                                     uint64_t BitcodeSize,
                                     StringRef ContentHash,
                                     uint32_t Decisions) {
  std::vector<uint32_t> All(Decisions);
  for (uint32_t I = 0; I < Decisions; ++I)
    All[I] = I;
  if (Decisions <= getSearchBudget(Recipe, BitcodeSize))
    return All;
  // The whole shuffle: its first K draws are the ones a sample of K makes
  // (getSearchCandidates), as each draw depends only on those before it.
  MD5::MD5Result H = MD5::hash(arrayRefFromStringRef(ContentHash));
  return sampleSeeded(std::move(All), Decisions, Recipe.Seed ^ H.low());
}

InversionPlan planPredictedInversions(PredictedInversions Mode,
                                      ArrayRef<uint32_t> Order, size_t Budget,
                                      ArrayRef<float> Gains) {
  InversionPlan P;
  ArrayRef<uint32_t> Sample = Order.take_front(Budget);
  P.Sampled = Sample.size();
  auto Gain = [&](uint32_t I) {
    assert(I < Gains.size() && "a gain for every decision");
    return Gains[I];
  };
  if (Mode != PredictedInversions::Off)
    for (uint32_t I : Sample) {
      P.PredictedShrink += Gain(I) > 0;
      P.PredictedGrow += Gain(I) < 0;
    }
  switch (Mode) {
  case PredictedInversions::Off:
    P.Picks.assign(Sample.begin(), Sample.end());
    break;
  case PredictedInversions::Skip:
    for (uint32_t I : Sample)
      if (Gain(I) < 0)
        ++P.Skipped;
      else
        P.Picks.push_back(I);
    break;
  case PredictedInversions::Rank: {
    std::vector<uint32_t> Shrink, Rest;
    for (uint32_t I : Order)
      (Gain(I) > 0 ? Shrink : Rest).push_back(I);
    llvm::stable_sort(
        Shrink, [&](uint32_t A, uint32_t B) { return Gain(A) > Gain(B); });
    P.Picks = std::move(Shrink);
    llvm::append_range(P.Picks, Rest);
    P.Picks.resize(Sample.size());
    for (uint32_t I : P.Picks)
      P.Moved += !llvm::is_contained(Sample, I);
    break;
  }
  }
  llvm::sort(P.Picks);
  return P;
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
      Out.push_back(
          formatv("flip fraction {0} of {1} training decisions is "
                  "no decision, so it yields no candidate of its "
                  "own; {2} or more inverts at least one",
                  format("%g", F), NumDecisions,
                  format("%.3g", NumDecisions ? 1.0 / NumDecisions : 1.0))
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

std::string renderReport(const TrainRecipe &Recipe, const RunSummary &S) {
  const ChosenOutcome &O = S.Outcome;
  bool Linked = Recipe.getSelectionMeasure() == TotalsKind::Linked;
  std::string R;
  raw_string_ostream OS(R);
  OS << "# mlgo train report: " << Recipe.Name << "\n\n"
     << "- Mode: " << getName(Recipe.Mode) << ", seed " << Recipe.Seed
     << "; corpus " << S.CorpusDir << "; " << S.TrainModules << " training and "
     << S.ValidationModules << " validation modules; corpus fingerprint "
     << S.Fingerprint << ".\n"
     << (S.ValidationModules == 0 ? "- Warning: the recipe holds out no "
                                    "validation packages; the model was chosen "
                                    "on the modules it was trained on.\n"
                                  : "")
     << (Recipe.SizeMeasure == SizeMeasureKind::Package
             ? "- Size measure: package. A module's reward and an "
               "inversion's label count only the code the module adds to "
               "its package: not the C++ inline or template functions "
               "(COMDAT groups) another module of the package has at "
               "-Oz.\n"
             : "")
     << (Recipe.SizeMeasure == SizeMeasureKind::Amortized
             ? "- Size measure: amortized. A module's reward and an "
               "inversion's label count each C++ inline or template "
               "function (COMDAT group) divided by the number of the "
               "package's modules holding a copy.\n"
             : "")
     << (Linked ? "- Selection measure: package. Totals are of each package's "
                  "objects linked together, every C++ inline or template "
                  "function (COMDAT group) once, as a linker keeps it.\n"
                : "")
     << S.PhaseLines
     << formatv("- Chosen: {0} (on {1}{2}).\n", S.ChosenLabel, S.SelectionName,
                Recipe.LimitTrainingPackages && S.SelectionName == "validation"
                    ? ", no training package over the limit"
                    : "")
     << formatv("- Validation: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                O.Val.Policy, O.Val.Baseline, O.Val.pct(), O.Val.failedClause())
     << (O.ValOther
             ? formatv(
                   "- Validation, {0}: .text {1} bytes vs -Oz {2} "
                   "({3:F3}%).\n",
                   Linked ? "objects summed" : "each package linked together",
                   O.ValOther->Policy, O.ValOther->Baseline, O.ValOther->pct())
                   .str()
             : "")
     << formatv("- Training: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                O.Train.Policy, O.Train.Baseline, O.Train.pct(),
                O.Train.failedClause())
     << (O.TrainOver.empty()
             ? ""
             : formatv("- Warning: the chosen model makes training packages "
                       "larger than -Oz by more than {0}%, which selection "
                       "(on validation) cannot see: {1}.\n",
                       Recipe.MaxPackageRegression, O.TrainOver)
                   .str())
     << formatv("- Wall-clock time of this invocation: {0:F1} min (cached "
                "compiles are replayed, not redone).\n\n",
                S.Minutes);
  auto Table = [&](StringRef Title, const PackageSizes &Map) {
    OS << "## " << Title
       << "\n\n| package | -Oz .text | model .text | change |\n"
       << "|---|---:|---:|---:|\n";
    for (auto &[Pkg, V] : Map)
      OS << "| " << Pkg << " | " << V.first << " | " << V.second << " | "
         << formatv("{0:F2}%", percentChange(V.first, V.second)) << " |\n";
    OS << "\n";
  };
  Table("Validation packages", O.ValPkg);
  Table("Training packages", O.TrainPkg);
  if (!S.LeftOut.empty() || !O.Val.Failures.empty() ||
      !O.Train.Failures.empty()) {
    OS << "## Failed compiles\n\n"
       << "These modules are in neither column of the tables above. A "
          "timeout or a killed worker is not cached: rerunning the same "
          "command compiles them again.\n\n";
    auto List = [&](StringRef Prefix, ArrayRef<std::string> Errors) {
      for (const std::string &E : Errors)
        OS << "- " << Prefix << E << "\n";
    };
    List("left out, ", S.LeftOut);
    List("validation, chosen model: ", O.Val.Failures);
    List("training, chosen model: ", O.Train.Failures);
    OS << "\n";
  }
  return R;
}

} // namespace mlgo
