//===- mlgo/Train/Trainer.h - Training an inlining-for-size policy -*- C++ -*-===//
//
// `mlgo train --recipe R` in library form. A run has five phases, all
// deterministic for a given recipe, corpus and LLVM:
//
//  1. baseline   every module compiled with stock clang -Oz (the reward's
//                baseline) and with mlgo's advisor letting LLVM's heuristic
//                decide (its decision count; parity with stock is checked);
//  2. search     on the training modules, a greedy search over the decision
//                trajectory as ml-compiler-opt's BC-Max does: try inverting
//                one decision at a time (in trajectory order, a seeded
//                sample of at most SearchCandidates per module) and keep each
//                inversion that makes the module's .text smaller;
//                or ("counterfactual" mode, the shipped model's) single
//                inversions of the heuristic's decisions, each a row
//                labelled by whether it shrank .text, and optionally more
//                rounds of single inversions around the learned policy's
//                own trajectories (DAgger, CounterfactualRounds);
//  3. imitate    the best trajectories are replayed with logging; every
//                decision becomes a row (features, inlining_default) ->
//                applied decision, and a classifier is trained on them
//                ("bc" mode skips the search: pure behavioral cloning of the
//                heuristic, the warm start);
//  4. select     the classifier is exported at each candidate threshold and
//                compiled on the validation packages; the smallest total
//                .text wins (never chosen on training modules);
//  5. report     model, learning curve (CSV + SVG), report.md.
//
// Every compile result is appended to <work>/compiles.tsv as soon as it is
// known, and the phases replay from it: after `kill -9`, rerunning the same
// command redoes no compile that had finished and reaches the same model.
// The classifier's state is checkpointed after every epoch.
//
// Reward (ml-compiler-opt, inlining for size): per module
// 1 - (policy + delta) / (baseline + delta); totals are reported as % of the
// -Oz .text size.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAIN_TRAINER_H
#define MLGO_TRAIN_TRAINER_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
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
  /// (docs/training.md).
  std::string SizeMeasure = "module";
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

struct TrainOptions {
  std::string CorpusDir;
  std::string WorkDir;
  /// Where the chosen model is written.
  std::string OutputModel;
  /// Print progress to stderr.
  bool Verbose = true;
};

/// Runs the recipe. The model goes to Options.OutputModel; the work
/// directory gets compiles.tsv, curve.csv, curve.svg and report.md.
llvm::Error runTraining(const TrainRecipe &Recipe, const TrainOptions &Options);

/// Per package: (-Oz .text, policy .text), in package order.
using PackageSizes = std::map<std::string, std::pair<uint64_t, uint64_t>>;

/// The packages of \p Sizes that the policy makes larger than -Oz by more
/// than \p LimitPct percent, as "pkg (+1.23%)" joined by ", "; empty if
/// none. The report warns with it about the training packages, which
/// selection never looks at.
std::string packagesOverLimit(const PackageSizes &Sizes, double LimitPct);

} // namespace mlgo

#endif // MLGO_TRAIN_TRAINER_H
