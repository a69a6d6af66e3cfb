//===- mlgo/Train/Recipe.h - A training recipe ---------------*- C++ -*-===//
//
// What `mlgo train --recipe R` reads: every choice that shapes a trained
// model (mode, seed, held-out packages, budgets, network, fractions,
// rounds), as a JSON object whose keys docs/training.md lists. Unknown keys
// and values out of range are errors naming the file and the key. toJSON
// writes every key, defaults included, and fromJSON reads it back to the
// same recipe: `mlgo train` keeps that as <work>/recipe.json.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAIN_RECIPE_H
#define MLGO_TRAIN_RECIPE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

struct TrainRecipe {
  std::string Name = "inline-oz";
  std::string Description;
  /// "search-imitate" (default), "counterfactual" or "bc".
  std::string Mode = "search-imitate";
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
  std::string FlipScope = "both";
  /// Counterfactual mode: a row's weight is the inversion's .text change in
  /// bytes ("bytes"), or those bytes times the mean training module's -Oz
  /// .text over its own module's ("module-relative": a 1% change weighs the
  /// same in a small C file as in a large C++ one).
  std::string FlipWeight = "bytes";
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
  /// Counterfactual mode: a flip's row weight is its .text change in bytes,
  /// capped here (a flip that changes nothing weighs ZeroFlipWeight).
  double FlipWeightCap = 64;
  /// Model selection: a candidate that makes any validation package larger
  /// than -Oz by more than this many percent is not chosen.
  double MaxPackageRegression = 0.5;
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
  /// together: the object's code minus its C++ inline and template
  /// functions (COMDAT groups) of which some other module of the package
  /// has a copy at -Oz, since a linker keeps one copy per program
  /// (docs/training.md); or "amortized", the object's code with each of
  /// its COMDAT groups counted as its bytes divided by the number of the
  /// package's modules holding a copy (so that the package's modules,
  /// making the same decision in a shared function, add up to its change
  /// once, as in the linked program).
  std::string SizeMeasure = "module";
  /// How selection totals a candidate on the held-out packages (and so
  /// which candidate is chosen, and which packages the per-package limit
  /// sees), and the report's totals: "module" (objects summed) or
  /// "package" (each package's objects linked together, each C++ inline
  /// function once). Empty in a recipe that does not set it: the same as
  /// SizeMeasure, with "amortized" totalled as "package"
  /// (getSelectionMeasure()).
  std::string SelectionMeasure;
  llvm::StringRef getSelectionMeasure() const {
    if (!SelectionMeasure.empty())
      return SelectionMeasure;
    return SizeMeasure == "module" ? "module" : "package";
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

#endif // MLGO_TRAIN_RECIPE_H
