//===- mlgo/RegAllocTrain/EvictTrainer.h - Eviction training ----*- C++ -*-===//
//
// `mlgo regalloc train`: improves a per-column eviction model (Model.h,
// "masked_argmax") on LLVM's static register-allocation score (Score.h)
// of corpus modules, by evolution strategies over the weights of its one
// linear layer (or of every layer of an MLP, EvictionMLP.h). The objective of a
// model is the mean, over the training modules, of its score divided by stock
// llc-19's (LLVM's default eviction advisor) on the same module: below 1 is
// better than LLVM (with a speed reward, per package; with Aggregate, the
// worst or the smooth maximum instead of the mean).
//
// The loop (docs/regalloc.md, "Training"):
//   0. with FitTies, the tie-breaker (TieBreak.h) is fitted on the start
//      model's decisions on the training modules and added to the start;
//      with Hidden, the linear start is then widened into an MLP that
//      takes the same decisions (EvictionMLP.h), whose every layer the
//      search moves.
//   1. modules: the corpus's modules, outside the validation packages,
//      shuffled with the seed; the first TrainModules whose default score
//      is not 0 (functions that never spill have nothing to learn). Each
//      is optimized once, `opt-19 -O2`, into WORK/ir/.
//   2. every generation, with the shared learner (Learn/EvolutionStrategies.h;
//      the reward is the negated objective): Pairs antithetic perturbations
//      center +- Sigma * scale * eps, eps standard normal from the learner's
//      generator (Learn/Random.h) seeded with the seed, and the scale of a
//      weight its magnitude in the starting model, at least SigmaFloor
//      (relativeScales). Each candidate model (weights rounded to float) is
//      written to WORK/candidates/<id>.json and scored on every module with
//      `llc-19 -load=<plugin> -mlgo-evict-model=<file>
//      -stop-after=virtregrewriter` (EvictionScorer.h). The center moves by
//        Step * scale * sum_p (F-_p - F+_p) eps_p / (2 Pairs spread),
//      the spread being the standard deviation of the 2 Pairs objectives
//      (z-scored rewards, SGD with learning rate Step * Sigma), and is
//      scored too.
//   3. the best model evaluated (lowest training objective, the earliest
//      on ties) is written to the output and scored, with the starting
//      model and LLVM's default, on the validation packages' modules.
//
// Determinism and resumption: everything random comes from the seed; a
// candidate's id is the MD5 of its model text; every score is appended to
// WORK/scores.tsv (EvictionScorer.h's ScoreCache) as soon as it is known,
// and a rerun with the same options replays the same candidates and reads
// their scores back instead of compiling again. A run killed at any point
// resumes to the same bytes. WORK/curve.csv and WORK/report.md describe
// the run.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCTRAIN_EVICTTRAINER_H
#define MLGO_REGALLOCTRAIN_EVICTTRAINER_H

#include "mlgo/Model/Model.h"
#include "mlgo/RegAllocModel/TieBreak.h"
#include "mlgo/RegAllocTrain/EvictionScorer.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo::regalloc {

struct EvictTrainOptions {
  std::string CorpusDir;
  std::string WorkDir;
  /// Where the trained model goes.
  std::string OutputPath;
  /// The starting model (a per-column eviction model: one linear layer,
  /// or an MLP this trainer widened).
  std::string InitModelPath;
  /// Packages held out for validation.
  std::vector<std::string> ValidationPackages;
  size_t TrainModules = 40;
  size_t ValidationModules = 40;
  unsigned Generations = 10;
  unsigned Pairs = 4;
  /// Perturbations and steps are relative: weight K moves on the scale
  /// max(|start weight K|, SigmaFloor).
  double Sigma = 0.3;
  double SigmaFloor = 1e-5;
  /// Before the search, fit the tie-breaker (TieBreak.h) on the start
  /// model's decisions on the training modules, and start from the model
  /// with it. Logs go to WORK/logs/<start model id>/.
  bool FitTies = false;
  /// With N > 0, the linear start (after FitTies) is widened into an MLP
  /// with N ReLU units that takes its decisions (EvictionMLP.h: two units
  /// carry the linear score, N - 2 new ones start with no say), and the
  /// search moves every layer's weights and the hidden biases. 0 keeps
  /// the linear model; 1 is an error.
  unsigned Hidden = 0;
  double Step = 0.3;
  uint64_t Seed = 1;
  unsigned Jobs = 2;
  /// The plugin llc loads to evaluate candidates.
  std::string PluginPath;
  bool Quiet = false;
  /// Static: the mean per-module ratio of static scores. Speed: the
  /// per-package ratio of profile-weighted cycles, averaged over packages
  /// (evictionObjective).
  EvictionReward Reward = EvictionReward::Static;
  /// How the ratios of the packages (static: the modules) become the
  /// objective, on the training and the validation set alike: their mean,
  /// or their worst (max) or smooth maximum (softmax), so that a model is
  /// not kept that makes one package slower to win on others.
  RatioAggregate Aggregate;
  /// Speed rewards: the corpus's block counts where it has them
  /// (EvictionScorerOptions::UseBlockCounts).
  bool UseBlockCounts = true;
  /// Which model is kept: the best training candidate (false), or the
  /// generation center - the start included - with the lowest validation
  /// objective (true; needs validation packages). Selecting on validation
  /// stops the search from keeping what fits the training packages only;
  /// the validation packages then choose the model, and only packages
  /// outside both sets still measure it unseen.
  bool SelectOnValidation = false;
};

/// One evaluated set: the summed scores per package, and the mean ratio.
struct EvictSetResult {
  struct Package {
    std::string Name;
    double Default = 0, Start = 0, Trained = 0;
  };
  std::vector<Package> Packages;
  size_t Modules = 0;
  double StartRatio = 1, TrainedRatio = 1;
};

struct EvictTrainResult {
  Model Trained;
  /// Training objective per generation: center and best so far.
  std::vector<std::pair<double, double>> Curve;
  /// With SelectOnValidation: the validation objective of each
  /// generation's center, and the generation kept (0: the start).
  std::vector<double> ValidationCurve;
  size_t SelectedGeneration = 0;
  double StartObjective = 1, BestObjective = 1;
  EvictSetResult Validation;
  /// With FitTies: the fit the search started from.
  std::optional<TieBreakFit> TieBreak;
  /// With the speed reward: modules skipped, their package having no
  /// profile.
  size_t WithoutProfile = 0, NeverRun = 0;
  /// The scorer's getProfileMismatches().
  std::vector<std::string> Mismatched;
};

/// Runs the loop above; progress and a summary go to \p Log.
llvm::Expected<EvictTrainResult>
trainEvictionModel(const EvictTrainOptions &Options, llvm::raw_ostream &Log);

/// `mlgo eval regalloc`: a model against LLVM's default advisor on corpus
/// modules, with the trainer's scorer (EvictionScorer.h: WORK/ir,
/// WORK/scores.tsv; a rerun compiles nothing). Every module of the chosen
/// packages counts, also those LLVM allocates without cost (a model that
/// adds cost there shows).
struct EvictEvalOptions {
  std::string CorpusDir;
  std::string WorkDir;
  /// The model; empty: the shipped models/regalloc-evict/model.json.
  std::string ModelPath;
  /// Packages to evaluate; empty: all.
  std::vector<std::string> Packages;
  /// At most this many modules per package, in corpus order; 0: all.
  size_t ModulesPerPackage = 0;
  unsigned Jobs = 2;
  std::string PluginPath;
  bool Quiet = false;
  EvictionReward Reward = EvictionReward::Static;
  bool UseBlockCounts = true;
};

struct EvictEvalResult {
  struct Package {
    std::string Name;
    size_t Modules = 0;
    double Default = 0, Model = 0;
  };
  std::vector<Package> Packages;
  /// Modules scored, left out because their MIR does not read back, and
  /// (speed reward) skipped because their package has no profile.
  size_t Modules = 0, LeftOut = 0, WithoutProfile = 0, NeverRun = 0;
  /// The scorer's getProfileMismatches().
  std::vector<std::string> Mismatched;
  double Default = 0, Model = 0;
  /// Static: the mean of model / default over modules whose default is not
  /// 0. Speed: the per-package ratio of the sums, averaged over packages
  /// whose default is not 0 (evictionObjective).
  double MeanRatio = 1;
  /// Modules the model scores exactly as LLVM's advisor: with equal scores
  /// the allocations agree (or differ only where they cost the same). The
  /// agreement of the model with LLVM's eviction.
  size_t SameScore = 0;
};

llvm::Expected<EvictEvalResult>
evaluateEvictionModel(const EvictEvalOptions &Options, llvm::raw_ostream &Log);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCTRAIN_EVICTTRAINER_H
