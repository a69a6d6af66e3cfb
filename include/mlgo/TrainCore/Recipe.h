//===- mlgo/TrainCore/Recipe.h - A training recipe --------------*- C++ -*-===//
//
// What `mlgo train --recipe R` reads: every choice that shapes a trained
// model (mode, seed, held-out packages, budgets, network, fractions,
// rounds), as a JSON object whose keys docs/training.md lists. Unknown keys
// and values out of range are errors naming the file and the key. toJSON
// writes every key, defaults included, and fromJSON reads it back to the
// same recipe: `mlgo train` keeps that as <work>/recipe.json.
//
// The recipe's words (modes, measures, scopes) are parsed into enums here,
// once; the trainer never compares strings. getName() gives each value's
// word back, as the recipe spells it.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAINCORE_RECIPE_H
#define MLGO_TRAINCORE_RECIPE_H

#include "mlgo/Learn/FlipPolicy.h"
#include "mlgo/TrainCore/SizeMeasure.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// What a run learns from (the recipe's "mode").
enum class TrainMode : uint8_t {
  /// The greedy search's best trajectories, imitated ("search-imitate").
  SearchImitate,
  /// Single inversions of the heuristic, each labelled by whether it shrank
  /// .text ("counterfactual"; the shipped model's).
  Counterfactual,
  /// The heuristic's own decisions, imitated ("bc": behavioural cloning).
  BehaviouralCloning,
};

/// How a counterfactual row is weighted (the recipe's "flip_weight").
enum class FlipWeighting : uint8_t {
  /// The inversion's .text change in bytes ("bytes").
  Bytes,
  /// Those bytes scaled by the mean training module's -Oz .text over the
  /// row's own module's ("module-relative").
  ModuleRelative,
};

/// How counterfactual rounds use the logged IR2Native score to choose the
/// inversions they compile (the recipe's "predicted_inversions";
/// docs/training.md).
enum class PredictedInversions : uint8_t {
  /// Today's seeded sample, no score logged ("off", the default).
  Off,
  /// The inversions predicted to shrink .text first, largest first, then
  /// the rest in the sample's order, within the same budget ("rank").
  Rank,
  /// The sample without the inversions predicted to grow .text ("skip").
  Skip,
};

/// The recipe's word for each value ("search-imitate", "package"...).
llvm::StringRef getName(TrainMode M);
llvm::StringRef getName(FlipWeighting W);
llvm::StringRef getName(learn::FlipScope S);
llvm::StringRef getName(SizeMeasureKind K);
/// "module" for objects summed, "package" for linked.
llvm::StringRef getName(TotalsKind K);
llvm::StringRef getName(PredictedInversions P);

struct TrainRecipe {
  /// Every key at its default (out of line: GCC 12 reports a false
  /// -Wdangling-pointer where the vector defaults below are inlined).
  TrainRecipe();

  std::string Name = "inline-oz";
  std::string Description;
  TrainMode Mode = TrainMode::SearchImitate;
  uint64_t Seed = 1;
  /// Packages held out for model selection and reporting.
  std::vector<std::string> ValidationPackages;
  /// Packages not used at all (with the reason in Notes).
  std::vector<std::string> ExcludedPackages;
  std::string Notes;
  /// Search budget.
  unsigned SearchCandidates = 48;
  unsigned SearchMaxDecisions = 1500;
  /// Modules with a larger .bc are not searched (bitcode size stands in for
  /// compile cost: a measured time would make the run depend on load).
  uint64_t SearchMaxModuleBytes = 2000000;
  /// Per-module search budget: a module of B bytes of bitcode gets at most
  /// max(1, SearchBudgetBytes / B) candidates (0: no such limit).
  uint64_t SearchBudgetBytes = 0;
  /// Counterfactual mode: the fractions of the training decisions the policy
  /// may invert, tried on validation (0, the heuristic itself, always is).
  std::vector<double> FlipFractions = {0.001, 0.002, 0.005, 0.01, 0.02};
  /// Counterfactual mode with flip_scope "no-inline-only": fractions of the
  /// heuristic's *inlines* (ranked by the same scorer, with their own tau)
  /// the policy refuses on top of each flip fraction (and of none); each
  /// pair is a candidate. Empty: no candidate refuses an inline.
  std::vector<double> RefuseFractions;
  /// Counterfactual mode: which of the heuristic's decisions may be
  /// inverted: "both", "inline-only" (only "inline" becomes "do not
  /// inline") or "no-inline-only".
  learn::FlipScope FlipScope = learn::FlipScope::Both;
  /// Counterfactual mode: a row's weight is the inversion's .text change in
  /// bytes, or those bytes times the mean training module's -Oz .text over
  /// its own module's (module-relative: a 1% change weighs the same in a
  /// small C file as in a large C++ one).
  FlipWeighting FlipWeight = FlipWeighting::Bytes;
  /// Counterfactual mode: rounds of counterfactuals (1: around the
  /// heuristic only). Round R > 1 inverts single decisions of the
  /// trajectories of round R-1's policy at DaggerFraction (as
  /// DAgger collects data under the learner's own policy), adds those rows to
  /// the data and retrains the scorer; the candidates of every round compete
  /// in selection.
  unsigned CounterfactualRounds = 1;
  /// Counterfactual mode: the flip fraction whose policy round R > 1 runs
  /// around (one of FlipFractions; 0: the largest).
  double DaggerFraction = 0;
  /// Counterfactual mode: whether every round's trajectory compiles log
  /// the IR2Native per-decision score (inlined and declined sites) and
  /// rank or skip the candidate inversions by it. Off: written to
  /// toJSON() only when set, so that a recipe without it keeps its bytes.
  PredictedInversions Predicted = PredictedInversions::Off;
  /// Counterfactual mode: a flip's row weight is its .text change in bytes,
  /// capped here (a flip that changes nothing weighs ZeroFlipWeight).
  double FlipWeightCap = 64;
  /// Model selection: a candidate that makes any validation package larger
  /// than -Oz by more than this many percent is not chosen.
  double MaxPackageRegression = 0.5;
  /// Model selection: the limit holds for the training packages too. The
  /// candidates are still ranked on validation; the best is then compiled
  /// on the training packages and passed over if one of them grows by more
  /// than the limit.
  bool LimitTrainingPackages = false;
  /// Classifier.
  std::vector<size_t> Hidden = {32};
  unsigned Epochs = 20;
  double LearningRate = 1e-3;
  double L2 = 1e-5;
  size_t BatchSize = 256;
  /// Weight of rows where the best trajectory departs from the heuristic.
  float DepartureWeight = 4.0f;
  /// Decision thresholds tried on validation.
  std::vector<float> Thresholds = {0.0f};
  /// Evolution strategies after the supervised phase (0 iterations: none):
  /// antithetic perturbations of the classifier's (or scorer's) parameters,
  /// each candidate scored by its mean reward on a seeded batch of training
  /// modules; the result is kept only if it wins on validation.
  unsigned ESIterations = 0;
  unsigned ESDirections = 4;
  double ESSigma = 0.02;
  double ESLearningRate = 0.01;
  unsigned ESBatchModules = 32;
  /// What a module's size is (the reward, the inversions' labels and
  /// weights, selection and the report): "module", the object's executable
  /// code; or "package", the code the module adds to its package linked
  /// together; or "amortized" (mlgo/TrainCore/SizeMeasure.h).
  SizeMeasureKind SizeMeasure = SizeMeasureKind::Module;
  /// How selection totals a candidate on the held-out packages (and so
  /// which candidate is chosen, and which packages the per-package limit
  /// sees), and the report's totals: "module" (objects summed) or
  /// "package" (each package's objects linked together, each C++ inline
  /// function once). Unset in a recipe that does not set it: the same as
  /// SizeMeasure, with "amortized" totalled as "package"
  /// (getSelectionMeasure()).
  std::optional<TotalsKind> SelectionMeasure;
  TotalsKind getSelectionMeasure() const {
    if (SelectionMeasure)
      return *SelectionMeasure;
    return SizeMeasure == SizeMeasureKind::Module ? TotalsKind::Objects
                                                  : TotalsKind::Linked;
  }
  /// Reward smoothing, in bytes.
  double Delta = 0;
  /// Compile parallelism (0: one per core) and limit per compile.
  unsigned Workers = 0;
  unsigned TimeoutSeconds = 300;

  static llvm::Expected<TrainRecipe> fromJSON(const llvm::json::Value &V,
                                              llvm::StringRef FileName);
  static llvm::Expected<TrainRecipe> load(llvm::StringRef Path);
  llvm::json::Value toJSON() const;
};

} // namespace mlgo

#endif // MLGO_TRAINCORE_RECIPE_H
