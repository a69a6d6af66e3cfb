//===- lib/Train/TrainerImpl.h - The trainer's phases -----------*- C++ -*-===//
//
// Private to lib/Train. runTraining (Trainer.cpp) runs the phases of
// mlgo/Train/Trainer.h as free functions over one trainer::Context, in the
// order its body shows, as mold runs its passes. The context holds what is
// fixed for the run - the recipe, the options, the modules and the
// corpus's fingerprint - and its services: the compile service (the cache,
// trajectory replay, the worker pool) and the run's record (report.md's
// phase lines and the learning curves, which phases append to and only
// writeReport reads). What a phase finds is its return value, and a later
// phase that needs it takes it as a parameter: baseline() returns the
// Baseline every later phase measures against, gatherRows() the Rows,
// trainRounds() the Rounds of scorers and candidates, select() the
// chosen candidate, saveChosen() its outcome for writeReport(). The
// decisions between compiles are functions over values in
// mlgo/TrainCore/TrainerPhases.h. The phases are implemented by file:
//
//   Trainer.cpp                compiles, the baseline, totals; the rows and
//                              the rounds of scorers; runTraining
//   TrainerSearch.cpp          the greedy search and its trajectories
//                              (modes search-imitate and bc)
//   TrainerCounterfactual.cpp  single inversions around the heuristic or a
//                              round's policy (mode counterfactual)
//   TrainerSelection.cpp       candidates, evolution strategies, selection
//                              on the held-out packages, the chosen model
//   TrainerReport.cpp          report.md and the learning curves
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LIB_TRAIN_TRAINERIMPL_H
#define MLGO_LIB_TRAIN_TRAINERIMPL_H

#include "mlgo/Compile/CompileService.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Learn/Dataset.h"
#include "mlgo/Learn/FlipPolicy.h"
#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/Support/Percent.h"
#include "mlgo/Train/CorpusSplit.h"
#include "mlgo/Train/Trainer.h"
#include "mlgo/TrainCore/SizeMeasure.h"
#include "mlgo/TrainCore/TrainerPhases.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlgo::trainer {

/// A model compiled on the validation packages in the selection phase.
struct Candidate {
  std::string Label;
  /// Its point on the selection curve: the threshold, or the inverted
  /// decisions per 10,000.
  double X;
  Model M;
  /// The classifier's threshold, or the flip policy's tau; none for the
  /// heuristic fallback.
  std::optional<float> Param;
  /// Index of the scorer (classifier) it was built from: its counterfactual
  /// round, from 0.
  size_t Scorer = 0;
  /// The fraction of the heuristic's inlines it refuses (refuse_fractions;
  /// 0 when Param is its only tau).
  double RefuseFraction = 0;
};

/// What a run writes down as it goes, for report.md and the learning
/// curves: phases append to it, and only writeReport reads it (imitate and
/// evolve also restore their curve from a checkpoint, with the state it
/// belongs to).
struct RunRecord {
  /// report.md's phase lines ("- Search: ...\n"), in order.
  std::string Report;
  learn::LearningCurve SearchCurve{
      "Search: training modules' .text vs -Oz",
      "search step",
      {"searched modules % of -Oz", "compiles (thousands)"}};
  learn::LearningCurve EpochCurve{"Imitation: classifier training",
                                  "epoch",
                                  {"loss", "accuracy %", "target recall %"}};
  learn::LearningCurve SelectCurve{
      "Selection: candidates on the held-out packages",
      "threshold or inverted decisions per 10000",
      {"% of -Oz .text", "worst package %"}};
  learn::LearningCurve ESCurve{
      "Evolution strategies: mean reward on each iteration's batch",
      "iteration",
      {"current parameters %", "best perturbation %"}};
};

/// One run of a recipe on a corpus: what is fixed for the run, and the
/// services every phase uses. No phase's result is kept here.
struct Context {
  const TrainRecipe &Recipe;
  const TrainOptions &Options;
  /// The modules of the run (excluded packages left out), their compiles
  /// and logs: the cache, replay and the worker pool.
  CompileService Service;
  const std::vector<CorpusModule> &Modules;
  /// The corpus as built (CorpusSplit::Fingerprint): the chosen model and
  /// the report name it.
  const std::string CorpusFingerprint;
  RunRecord Record;

  Context(const TrainRecipe &R, const TrainOptions &O, WorkerPool &P,
          std::vector<CorpusModule> Mods, std::string Fingerprint)
      : Recipe(R), Options(O), Service(std::move(Mods), P, O.Verbose),
        Modules(Service.modules()), CorpusFingerprint(std::move(Fingerprint)) {
    Service.setNeedGrouped(needGrouped());
  }

  void log(const llvm::Twine &Message) const {
    if (Options.Verbose)
      llvm::errs() << "mlgo train: " << Message << "\n";
  }

  /// Whether the recipe learns from counterfactual inversions (mode
  /// "counterfactual") rather than from the best trajectories.
  bool isCounterfactual() const {
    return Recipe.Mode == TrainMode::Counterfactual;
  }
  /// Whether module sizes discount the grouped sections other modules of
  /// the package share (size_measure "package" or "amortized").
  bool sharedMeasure() const {
    return Recipe.SizeMeasure != SizeMeasureKind::Module;
  }
  /// Whether selection and the report total a set of modules as packages
  /// linked together (selection_measure "package").
  bool linkedTotals() const {
    return Recipe.getSelectionMeasure() == TotalsKind::Linked;
  }
  /// Whether compiles must carry their grouped sections (either measure is
  /// not "module").
  bool needGrouped() const { return sharedMeasure() || linkedTotals(); }

  /// Whether a decision whose heuristic default is \p Default may be
  /// inverted.
  bool inScope(bool Default) const {
    return Recipe.FlipScope == learn::FlipScope::Both ||
           (Recipe.FlipScope == learn::FlipScope::InlineOnly) == Default;
  }

  /// The path of \p Name in the work directory.
  std::string workFile(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Options.WorkDir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }

  /// Writes \p Text to workFile(\p Name), atomically.
  llvm::Error writeWorkFile(llvm::StringRef Name, llvm::StringRef Text) const;

  /// Compiles (or looks up) module \p Modules[I] under each policy; the
  /// error: the compile cache could not be written.
  llvm::Expected<std::vector<CompileCache::Entry>>
  compile(llvm::ArrayRef<ModuleRequest> Requests, llvm::StringRef What) {
    return Service.compile(Requests, What);
  }

  /// Feature names of the logs (inlining_decision left out) and the column
  /// of inlining_default among them, known after the first
  /// logTrajectories().
  const std::vector<std::string> &featureNames() const {
    return Service.getFeatureNames();
  }
  size_t defaultColumn() const { return Service.getDefaultColumn(); }

  /// Compiles each module \p Mods[K] under \p Policies[K] with logging and
  /// calls \p OnRow(K, features, applied decision, heuristic's decision) for
  /// every decision, in order. With \p Scores: each decision's logged
  /// IR2Native score too (CompileService::logTrajectories).
  llvm::Error logTrajectories(
      llvm::ArrayRef<size_t> Mods, llvm::ArrayRef<CompilePolicy> Policies,
      llvm::function_ref<void(size_t, llvm::ArrayRef<float>, bool, bool)> OnRow,
      std::vector<std::vector<float>> *Scores = nullptr) {
    return Service.logTrajectories(Mods, Policies, OnRow, Scores);
  }

  /// Whether counterfactual rounds choose their inversions by the logged
  /// score (predicted_inversions rank or skip).
  bool predictsInversions() const {
    return Recipe.Predicted != PredictedInversions::Off;
  }

  /// The inversion CSVs (counterfactuals*.csv), for whoever wants to study
  /// them: the given leading columns, then the features at the decision.
  std::string inversionsHeader(llvm::StringRef Columns) const;
};

//===----------------------------------------------------------------------===//
// Trainer.cpp: compiles, the baseline, totals
//===----------------------------------------------------------------------===//

/// Phase 1's result, which every later phase measures against.
struct Baseline {
  /// The training and validation modules (indices into Context::Modules),
  /// those left out removed.
  std::vector<size_t> Train, Validation;
  /// The recipe's size measure over the -Oz objects.
  SizeMeasure Measure;
  /// Per module: stock -Oz size (the baseline), heuristic size, decisions.
  /// Sizes are in the recipe's size_measure (Measure).
  std::vector<uint64_t> Sizes, HeuristicSize;
  std::vector<uint32_t> HeuristicDecisions;
  /// Modules left out because their -Oz or heuristic compile failed: the
  /// errors, each naming its module.
  std::vector<std::string> LeftOut;
  /// The mean -Oz .text of the training modules.
  double MeanTrainingText = 0;

  /// The size of module \p M's compile \p E in the recipe's measure.
  uint64_t sizeOf(size_t M, const CompileCache::Entry &E) const {
    return Measure.sizeOf(M, E);
  }
  /// Where candidates are chosen: validation or, with no validation
  /// packages, training.
  llvm::ArrayRef<size_t> selectionSet() const {
    return Validation.empty() ? Train : Validation;
  }
  llvm::StringRef selectionName() const {
    return Validation.empty() ? "training" : "validation";
  }
};

/// Phase 1: every module under stock -Oz (Baseline::Sizes) and under the
/// heuristic through mlgo's advisor (HeuristicSize, HeuristicDecisions),
/// for the split's \p Train and \p Validation modules. A module that fails
/// either is left out of both sets (LeftOut).
llvm::Expected<Baseline> baseline(Context &C, std::vector<size_t> Train,
                                  std::vector<size_t> Validation);

/// Total .text of \p Set under \p P (\p Kind: each package's objects
/// linked together, or summed; by default the recipe's selection measure),
/// and the mean reward.
llvm::Expected<Totals> evaluate(Context &C, const Baseline &B,
                                llvm::ArrayRef<size_t> Set,
                                const CompilePolicy &P, llvm::StringRef What,
                                PackageSizes *PerPackage = nullptr);
llvm::Expected<Totals> evaluate(Context &C, const Baseline &B,
                                llvm::ArrayRef<size_t> Set,
                                const CompilePolicy &P, llvm::StringRef What,
                                PackageSizes *PerPackage, TotalsKind Kind);

/// Whether training module \p M is within the search budget.
inline bool isSearchable(const Context &C, const Baseline &B, size_t M) {
  return mlgo::isSearchable(C.Recipe, C.Modules[M].BitcodeSize,
                            B.HeuristicDecisions[M]);
}

/// "N of M training modules are searched" and why the others are not.
inline std::string describeSearched(const Context &C, const Baseline &B,
                                    size_t Searched) {
  return mlgo::describeSearched(C.Recipe, B.Train, B.HeuristicDecisions,
                                Searched);
}

/// How many decisions of module \p M the search may try.
inline uint32_t searchBudget(const Context &C, size_t M) {
  return getSearchBudget(C.Recipe, C.Modules[M].BitcodeSize);
}

/// Candidates for module \p M: indices of its heuristic trajectory, all
/// or a seeded sample of searchBudget(M), ascending.
inline std::vector<uint32_t> candidates(const Context &C, const Baseline &B,
                                        size_t M) {
  return getSearchCandidates(C.Recipe, C.Modules[M].BitcodeSize,
                             C.Modules[M].ContentHash, B.HeuristicDecisions[M]);
}

/// Every decision of module \p M's heuristic trajectory in the order the
/// search draws them (candidates() is the first searchBudget(M), sorted).
inline std::vector<uint32_t> searchOrder(const Context &C, const Baseline &B,
                                         size_t M) {
  return getSearchOrder(C.Recipe, C.Modules[M].BitcodeSize,
                        C.Modules[M].ContentHash, B.HeuristicDecisions[M]);
}

/// Row weight of an inversion that changed module \p M's .text by
/// \p Delta bytes (getFlipWeight).
inline float flipWeight(const Context &C, const Baseline &B, int64_t Delta,
                        size_t M) {
  return getFlipWeight(C.Recipe, Delta, B.Sizes[M], B.MeanTrainingText);
}

//===----------------------------------------------------------------------===//
// Trainer.cpp: the rows and the rounds of scorers
//===----------------------------------------------------------------------===//

/// What the scorers learn from, and (counterfactual) the trajectories
/// their candidates are ranked on.
struct Rows {
  learn::Dataset D;
  /// Counterfactual mode: every searchable training module's heuristic
  /// trajectory, one row per decision (kept for choosing tau), with the row
  /// width featureNames().size(). Empty in the other modes.
  std::map<size_t, std::vector<float>> Trajectories;
};

/// The rows round 1's scorer (or the classifier) learns from: the single
/// inversions of the heuristic (counterfactual), or the decisions of the
/// best trajectories the search found (search-imitate; bc: the
/// heuristic's own).
llvm::Expected<Rows> gatherRows(Context &C, const Baseline &B);

/// The scorers of every round and their candidates.
struct Rounds {
  /// The candidates of every round, the heuristic itself first.
  std::vector<Candidate> Candidates;
  /// The scorer (or classifier) of each round; a candidate names its round.
  std::vector<Model> Scorers;
};

/// Trains round 1's scorer on \p R's rows and adds its candidates, after
/// the heuristic itself; then each further counterfactual round (DAgger)
/// adds its rows to them, around the previous round's policy at
/// dagger_fraction (default: its largest flip fraction), retrains the
/// scorer from scratch and adds that round's candidates.
llvm::Expected<Rounds> trainRounds(Context &C, const Baseline &B, Rows &R);

/// Trains the classifier (or scorer) on \p D, checkpointing every epoch
/// to <work>/\p CheckpointName; \p EpochOffset (the epochs of earlier
/// counterfactual rounds) is added to the epoch on the imitation curve.
llvm::Expected<Model> imitate(Context &C, const learn::Dataset &D,
                              unsigned EpochOffset,
                              llvm::StringRef CheckpointName);

//===----------------------------------------------------------------------===//
// TrainerSearch.cpp: the greedy search (search-imitate, bc)
//===----------------------------------------------------------------------===//

/// Phase 2 of mode search-imitate: the greedy search on every searchable
/// training module, in lockstep. Returns the best flips per module (none
/// for every other module and mode).
llvm::Expected<std::vector<std::vector<uint32_t>>> search(Context &C,
                                                          const Baseline &B);

/// Replays the best trajectory (\p BestFlips) of every training module with
/// logging and turns its decisions into rows.
llvm::Expected<learn::Dataset>
collect(Context &C, const Baseline &B,
        const std::vector<std::vector<uint32_t>> &BestFlips);

//===----------------------------------------------------------------------===//
// TrainerCounterfactual.cpp: single inversions (counterfactual)
//===----------------------------------------------------------------------===//

/// Counterfactual mode. Inverts single decisions of the heuristic's
/// trajectory (a seeded sample per module, as the search does) and records
/// what each inversion did to .text: a row (the features at that decision)
/// labeled 1 if .text shrank, weighted by the change in bytes (capped).
/// Returns the rows and the heuristic's trajectories.
llvm::Expected<Rows> counterfactual(Context &C, const Baseline &B);

/// Counterfactual round \p Round > 1 (DAgger): inverts single decisions
/// of policy \p P's own trajectories on the searchable training modules and
/// appends a row per inversion to \p D, labeled as the first round's rows
/// are: 1 if, with P deciding everything else, taking the decision other
/// than the heuristic's gives the smaller .text. Where P already departs
/// from the heuristic the inversion goes back to it, so a departure that
/// costs bytes in P's context becomes a row that says so. Per module at
/// most searchBudget() decisions in scope are tried: P's departures first
/// (a seeded sample if they alone exceed half the budget), the rest a
/// seeded sample of its other decisions.
llvm::Error counterfactualAround(Context &C, const Baseline &B, const Model &P,
                                 llvm::StringRef PLabel, unsigned Round,
                                 learn::Dataset &D);

/// The scorer's float logit (as the shipped model computes it) on every
/// decision of \p Trajectories that may be inverted (or, with
/// \p HeuristicInlines, on every inline of the heuristic), sorted from the
/// highest.
llvm::Expected<std::vector<float>>
scoreTrajectories(const Context &C,
                  const std::map<size_t, std::vector<float>> &Trajectories,
                  const Model &G, bool HeuristicInlines = false);

//===----------------------------------------------------------------------===//
// TrainerSelection.cpp: candidates, evolution strategies, the choice
//===----------------------------------------------------------------------===//

/// The candidates of scorer \p G of round \p Round: the classifier at each
/// threshold, or (counterfactual) the heuristic inverted where the scorer
/// ranks a decision among the top fraction of the training decisions of
/// \p Trajectories. The last one has the largest flip fraction.
llvm::Expected<std::vector<Candidate>>
addCandidates(Context &C,
              const std::map<size_t, std::vector<float>> &Trajectories,
              const Model &G, unsigned Round);

/// Model selection: of the candidates of \p R that make no package of the
/// selection set worse than -Oz by more than max_package_regression
/// percent, the one with the smallest total .text. With es_iterations,
/// evolution strategies first tune the learned candidate with the
/// smallest .text (allowed or not), and the result competes too (it is
/// added to R.Candidates). With limit_training_packages, the winner must
/// also pass fitsTraining, or the next one is tried. Returns the index of
/// the chosen candidate.
llvm::Expected<size_t> select(Context &C, const Baseline &B, Rounds &R);

/// Evaluates the chosen model \p M on validation and training and writes
/// it to the output file, recording the corpus fingerprint in it.
llvm::Expected<ChosenOutcome> saveChosen(Context &C, const Baseline &B,
                                         Model &M);

//===----------------------------------------------------------------------===//
// TrainerReport.cpp
//===----------------------------------------------------------------------===//

/// Writes report.md (and, verbose, prints it) and the learning curves.
llvm::Error writeReport(Context &C, const Baseline &B,
                        llvm::StringRef ChosenLabel, const ChosenOutcome &O,
                        double Minutes);

} // namespace mlgo::trainer

#endif // MLGO_LIB_TRAIN_TRAINERIMPL_H
