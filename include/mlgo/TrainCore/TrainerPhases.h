//===- mlgo/TrainCore/TrainerPhases.h - Phases over values ------*- C++ -*-===//
//
// The decisions a training run takes between compiles, as functions from
// values to values: what the baseline says about each module, which
// modules the search may afford and which of their decisions it tries, the
// candidates a scorer yields, the verdict on a candidate, the choice, and
// the report. The trainer (lib/Train/Trainer*.cpp) calls them in the order
// mlgo/Train/Trainer.h describes and passes their results on; each is
// unit-tested on made-up modules and compile results
// (unittests/TrainCore/TrainerPhasesTest.cpp) without compiling anything.
// Which modules train and which validate is mlgo/Train/CorpusSplit.h: it
// needs the corpus as loaded for compiling.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAINCORE_TRAINERPHASES_H
#define MLGO_TRAINCORE_TRAINERPHASES_H

#include "mlgo/Model/SplitMix64.h"
#include "mlgo/TrainCore/CompileOutcome.h"
#include "mlgo/TrainCore/Recipe.h"
#include "mlgo/TrainCore/SizeMeasure.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// What phase 1 learns about every module of a split.
struct BaselineResult {
  /// The recipe's size measure over the -Oz objects.
  SizeMeasure Measure;
  /// Per module, in the measure: its -Oz size and its size under the
  /// heuristic through mlgo's advisor; and the heuristic's decision count.
  std::vector<uint64_t> Baseline, HeuristicSize;
  std::vector<uint32_t> HeuristicDecisions;
  /// Per module: whether its -Oz or heuristic compile failed; the errors
  /// of those that did ("-Oz: ..." or "heuristic: ..."), in module order.
  std::vector<bool> IsLeftOut;
  std::vector<std::string> LeftOut;
  /// Modules whose .text differs between stock -Oz and the heuristic
  /// through mlgo's advisor (parity says: none).
  size_t Mismatch = 0;
};

/// Phase 1 from its compiles: \p Stock[M] and \p Heuristic[M] are module
/// M's compiles under stock -Oz and under the heuristic, \p Packages[M] its
/// package. The -Oz objects are kept for linked totals when \p Totals is
/// Linked.
BaselineResult measureBaseline(std::vector<std::string> Packages,
                               llvm::ArrayRef<CompileOutcome> Stock,
                               llvm::ArrayRef<CompileOutcome> Heuristic,
                               SizeMeasureKind Kind, TotalsKind Totals);

/// The modules the later phases work on: those of \p Train and
/// \p Validation (indices into the baseline's modules) that phase 1 did
/// not leave out, in order, and the mean -Oz size of the training ones.
struct KeptModules {
  std::vector<size_t> Train, Validation;
  double MeanTrainingText = 0;
};
KeptModules keepMeasured(const BaselineResult &B, std::vector<size_t> Train,
                         std::vector<size_t> Validation);

/// Whether a module of \p BitcodeSize bytes whose heuristic trajectory has
/// \p Decisions decisions is within the recipe's search budget.
bool isSearchable(const TrainRecipe &Recipe, uint64_t BitcodeSize,
                  uint32_t Decisions);

/// "N of M training modules are searched" for the \p Searched of the
/// training modules \p Train, and, when some are not, why: how many make
/// no decision (\p HeuristicDecisions, per module) and how many exceed the
/// recipe's budget.
std::string describeSearched(const TrainRecipe &Recipe,
                             llvm::ArrayRef<size_t> Train,
                             llvm::ArrayRef<uint32_t> HeuristicDecisions,
                             size_t Searched);

/// How many of a module's decisions the search may try: search_candidates,
/// or fewer for a large module under search_budget_bytes.
uint32_t getSearchBudget(const TrainRecipe &Recipe, uint64_t BitcodeSize);

/// The decisions of a module of \p BitcodeSize bytes with content hash
/// \p ContentHash (a trajectory of \p Decisions) the search tries: all, or
/// a sample of getSearchBudget() seeded by the recipe's seed and the
/// module's content, ascending.
std::vector<uint32_t> getSearchCandidates(const TrainRecipe &Recipe,
                                          uint64_t BitcodeSize,
                                          llvm::StringRef ContentHash,
                                          uint32_t Decisions);

/// Every decision of such a module in the order the search draws them:
/// getSearchCandidates() is its first getSearchBudget() decisions, sorted
/// (all decisions in index order when the budget covers them).
std::vector<uint32_t> getSearchOrder(const TrainRecipe &Recipe,
                                     uint64_t BitcodeSize,
                                     llvm::StringRef ContentHash,
                                     uint32_t Decisions);

/// The predicted .text saving of inverting a decision whose trajectory
/// logged IR2Native score \p Score (docs/ir2native.md, "In the plugin"):
/// undoing an inlining (\p Inlined) saves minus the bytes it saved;
/// inlining a declined site saves its declined score.
inline float getPredictedInversionGain(bool Inlined, float Score) {
  return Inlined ? -Score : Score;
}

/// The inversions a counterfactual round compiles in one module, and what
/// the prediction did to them (predicted_inversions).
struct InversionPlan {
  /// The decisions to invert, ascending.
  std::vector<uint32_t> Picks;
  /// The sample the round takes without prediction (the first Budget of
  /// the order), and how many of it are predicted to shrink .text (gain >
  /// 0) and to grow it (gain < 0).
  size_t Sampled = 0, PredictedShrink = 0, PredictedGrow = 0;
  /// Skip: the sample's inversions predicted to grow .text, not compiled.
  size_t Skipped = 0;
  /// Rank: inversions predicted to shrink .text from beyond the sample
  /// that took the place of as many of the sample's.
  size_t Moved = 0;
};

/// Plans one module's inversions: \p Order is every decision that may be
/// tried, in the round's order without prediction (its first \p Budget are
/// the sample), \p Gains the predicted gain of inverting each decision, by
/// decision index (empty with PredictedInversions::Off). Off: the sample.
/// Rank: the decisions of Order predicted to shrink .text, largest gain
/// first (equal gains in Order's order), then the rest in Order's order,
/// cut at Budget. Skip: the sample without those predicted to grow it.
InversionPlan planPredictedInversions(PredictedInversions Mode,
                                      llvm::ArrayRef<uint32_t> Order,
                                      size_t Budget,
                                      llvm::ArrayRef<float> Gains);

/// How the predictions of the compiled inversions compare with what they
/// measured: of those that changed .text and have a nonzero prediction,
/// how many agree in sign (a positive gain and a smaller .text).
struct SignAgreement {
  size_t Agree = 0, Compared = 0;
  void add(float Gain, int64_t Delta) {
    if (Delta == 0 || !(Gain > 0 || Gain < 0))
      return;
    ++Compared;
    Agree += (Gain > 0) == (Delta < 0);
  }
};

/// Weight of a counterfactual row whose inversion left .text unchanged.
inline constexpr float ZeroFlipWeight = 0.5f;

/// The row weight of an inversion that changed a module's .text by
/// \p Delta bytes: the bytes, or (flip_weight module-relative) the bytes
/// scaled by \p MeanTrainingText (the mean -Oz .text of the training
/// modules) over the module's own \p ModuleBaseline, so that every module's
/// relative change counts alike whatever its size; capped at
/// flip_weight_cap. An inversion that changed nothing weighs
/// ZeroFlipWeight.
float getFlipWeight(const TrainRecipe &Recipe, int64_t Delta,
                    uint64_t ModuleBaseline, double MeanTrainingText);

/// The label of a counterfactual row around a policy: whether the
/// non-default decision is the smaller one. Inverting a decision that
/// agrees with the heuristic (\p Departs false) and shrinking .text
/// (\p Delta < 0) says so; inverting a departure back to the heuristic and
/// growing .text says so too.
inline bool labelInversion(bool Departs, int64_t Delta) {
  return Departs ? Delta > 0 : Delta < 0;
}

/// One candidate a counterfactual round's scorer yields: the heuristic
/// inverted where the scorer ranks a decision among the top Fraction of the
/// training decisions in scope, and (RefuseFraction > 0) refusing the top
/// RefuseFraction of the heuristic's inlines.
struct FlipCandidatePlan {
  double Fraction = 0, RefuseFraction = 0;
  /// The scorer thresholds those fractions come to (learn::NeverFlip:
  /// nothing).
  float Tau = 0, TauInline = 0;
  /// The candidate's name in the report and the candidates/ directory.
  std::string Label;
  /// What the model's metadata.recipe gains.
  std::string RecipeNote;
};

/// Why some of the recipe's flip_fractions yield no candidate of their own:
/// a fraction of \p NumDecisions training decisions that is less than one
/// decision inverts none (the heuristic, already a candidate). One message
/// per such fraction, naming the smallest fraction that would.
std::vector<std::string> describeEmptyFlipFractions(const TrainRecipe &Recipe,
                                                    size_t NumDecisions);

/// The flip candidates of counterfactual round \p Round: each of the
/// recipe's flip_fractions that is at least one decision, then the grid of
/// every flip fraction (and none) with every refuse fraction. \p Scores
/// and \p InlineScores are the scorer's logits on the training decisions
/// in scope and on the heuristic's inlines, sorted from the highest
/// (InlineScores may be empty without refuse_fractions).
std::vector<FlipCandidatePlan>
planFlipCandidates(const TrainRecipe &Recipe, unsigned Round,
                   llvm::ArrayRef<float> Scores,
                   llvm::ArrayRef<float> InlineScores);

/// A candidate's standing on the selection set: its worst package and
/// whether the per-package limit lets it be chosen.
struct Verdict {
  /// The package it grows most (or shrinks least) against -Oz, and by how
  /// many percent; "none" and 0 when no module compiled.
  std::string WorstPackage;
  double WorstPct = 0;
  /// No compile failed and no package grew by more than the limit.
  bool Allowed = false;
};

/// The verdict on totals \p T, per package \p PerPackage, under the
/// recipe's max_package_regression \p LimitPct.
Verdict judgeTotals(const Totals &T, const PackageSizes &PerPackage,
                    double LimitPct);

/// Selection's choice: the index of the smallest of \p Sizes whose
/// \p Allowed is set (the first of equals), if any.
std::optional<size_t> chooseSmallest(llvm::ArrayRef<uint64_t> Sizes,
                                     const std::vector<bool> &Allowed);

/// chooseSmallest, where the winner must also pass \p Check (a further
/// test that costs compiles, so only winners take it): one that fails is
/// passed over for the next smallest allowed one. None if none passes;
/// \p Check's error ends the choice.
llvm::Expected<std::optional<size_t>>
chooseSmallestPassing(llvm::ArrayRef<uint64_t> Sizes, std::vector<bool> Allowed,
                      llvm::function_ref<llvm::Expected<bool>(size_t)> Check);

/// The chosen model on the validation and the training packages.
struct ChosenOutcome {
  Totals Val, Train;
  PackageSizes ValPkg, TrainPkg;
  /// Validation in the other way of counting (objects summed, or linked),
  /// when the compiles carry what it needs.
  std::optional<Totals> ValOther;
  /// Training packages over the per-package limit, as the report names
  /// them.
  std::string TrainOver;
};

/// Everything report.md says about a run of a recipe.
struct RunSummary {
  std::string CorpusDir, Fingerprint;
  size_t TrainModules = 0, ValidationModules = 0;
  /// The phases' own report lines ("- Search: ...\n"), in order.
  std::string PhaseLines;
  std::string ChosenLabel;
  /// Where candidates were chosen: "validation" or "training".
  std::string SelectionName;
  ChosenOutcome Outcome;
  /// Modules left out by the baseline (their errors).
  std::vector<std::string> LeftOut;
  double Minutes = 0;
};

/// report.md of a run of \p Recipe.
std::string renderReport(const TrainRecipe &Recipe, const RunSummary &S);

/// The first min(K, Items.size()) elements of a seeded partial Fisher-Yates
/// shuffle of \p Items (splitmix64 from \p State), in drawing order.
template <typename T>
std::vector<T> sampleSeeded(std::vector<T> Items, size_t K, uint64_t State) {
  K = std::min(K, Items.size());
  for (size_t I = 0; I < K; ++I)
    std::swap(Items[I], Items[I + splitMix64(State) % (Items.size() - I)]);
  Items.resize(K);
  return Items;
}

} // namespace mlgo

#endif // MLGO_TRAINCORE_TRAINERPHASES_H
