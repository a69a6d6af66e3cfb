//===- lib/Train/TrainerImpl.h - Trainer's state and phases -----*- C++ -*-===//
//
// Private to lib/Train. runTraining (Trainer.cpp) runs the phases of
// mlgo/Train/Trainer.h as methods of one Trainer, which holds what they share:
// the corpus split, the compile cache and its replay, the baseline sizes,
// the rows and scorers of each round, the candidates and the learning
// curves. The methods are implemented by phase:
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

#include "mlgo/Learn/Dataset.h"
#include "mlgo/Learn/FlipPolicy.h"
#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/Support/Percent.h"
#include "mlgo/Train/CompileService.h"
#include "mlgo/Train/CorpusSplit.h"
#include "mlgo/Train/Trainer.h"
#include "mlgo/Train/TrainingCorpus.h"
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

namespace mlgo {

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

/// One run of a recipe on a corpus: the state the phases share, and the
/// phases. runTraining calls them in order (loadCorpus, baseline,
/// gatherRows, trainRounds, select, saveChosen, writeReport).
struct Trainer {
  const TrainRecipe &Recipe;
  const TrainOptions &Options;
  /// The modules of the run (excluded packages left out), their compiles
  /// and logs: the cache, replay and the worker pool.
  CompileService Service;
  const std::vector<CorpusModule> &Modules;
  std::vector<size_t> Train, Validation;
  /// Per module: stock -Oz size (the baseline), heuristic size, decisions.
  /// Sizes are in the recipe's size_measure (Measure).
  std::vector<uint64_t> Baseline, HeuristicSize;
  std::vector<uint32_t> HeuristicDecisions;
  /// The recipe's size measure over the -Oz objects (set by baseline()).
  SizeMeasure Measure;
  /// Modules left out because their -Oz or heuristic compile failed: the
  /// errors, each naming its module.
  std::vector<std::string> LeftOut;
  /// Per module: the best flips found by the search.
  std::vector<std::vector<uint32_t>> BestFlips;
  std::vector<uint64_t> BestSize;
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
  std::string Report;
  std::string CorpusFingerprint;

  Trainer(const TrainRecipe &R, const TrainOptions &O, WorkerPool &P,
          CorpusSplit Split)
      : Recipe(R), Options(O), Service(std::move(Split.Modules), P, O.Verbose),
        Modules(Service.modules()), Train(std::move(Split.Train)),
        Validation(std::move(Split.Validation)),
        CorpusFingerprint(std::move(Split.Fingerprint)) {
    Service.setNeedGrouped(needGrouped());
  }

  void log(const llvm::Twine &Message) {
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

  //===--------------------------------------------------------------------===//
  // Trainer.cpp: compiles, the baseline, totals
  //===--------------------------------------------------------------------===//

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
  compile(llvm::ArrayRef<CompileRequest> Requests, llvm::StringRef What) {
    return Service.compile(Requests, What);
  }
  /// Phase 1: every module under stock -Oz (Baseline) and under the
  /// heuristic through mlgo's advisor (HeuristicSize, HeuristicDecisions).
  /// A module that fails either is left out of both sets (LeftOut).
  llvm::Error baseline();

  /// The size of module \p M's compile \p E in the recipe's measure.
  uint64_t sizeOf(size_t M, const CompileCache::Entry &E) const {
    return Measure.sizeOf(M, E);
  }

  /// Total .text of \p Set under \p P (\p Kind: each package's objects
  /// linked together, or summed; by default the recipe's selection
  /// measure), and the mean reward.
  llvm::Expected<Totals> evaluate(llvm::ArrayRef<size_t> Set,
                                  const CompilePolicy &P, llvm::StringRef What,
                                  PackageSizes *PerPackage = nullptr);
  llvm::Expected<Totals> evaluate(llvm::ArrayRef<size_t> Set,
                                  const CompilePolicy &P, llvm::StringRef What,
                                  PackageSizes *PerPackage, TotalsKind Kind);

  //===--------------------------------------------------------------------===//
  // Trainer.cpp: the rows and the rounds of scorers
  //===--------------------------------------------------------------------===//

  /// The rows round 1's scorer (or the classifier) learns from: the single
  /// inversions of the heuristic (counterfactual), or the decisions of the
  /// best trajectories the search found (search-imitate; bc: the
  /// heuristic's own).
  llvm::Expected<learn::Dataset> gatherRows();

  /// The candidates of every round, the heuristic itself first.
  std::vector<Candidate> Candidates;
  /// The scorer (or classifier) of each round; a candidate names its round.
  std::vector<Model> Scorers;

  /// Trains round 1's scorer on \p D and adds its candidates, after the
  /// heuristic itself; then each further counterfactual round (DAgger)
  /// adds its rows to \p D, around the previous round's policy at
  /// dagger_fraction (default: its largest flip fraction), retrains the
  /// scorer from scratch and adds that round's candidates.
  llvm::Error trainRounds(learn::Dataset &D);

  /// Trains the classifier (or scorer) on \p D, checkpointing every epoch
  /// to <work>/\p CheckpointName.
  llvm::Expected<Model>
  imitate(const learn::Dataset &D,
          llvm::StringRef CheckpointName = "classifier.ckpt");

  //===--------------------------------------------------------------------===//
  // TrainerSearch.cpp: the greedy search (search-imitate, bc)
  //===--------------------------------------------------------------------===//

  /// Whether training module \p M is within the search budget.
  bool isSearchable(size_t M) const {
    return mlgo::isSearchable(Recipe, Modules[M].BitcodeSize,
                              HeuristicDecisions[M]);
  }

  /// "N of M training modules are searched" and why the others are not.
  std::string describeSearched(size_t Searched) const {
    size_t NoDecision = 0;
    for (size_t M : Train)
      NoDecision += HeuristicDecisions[M] == 0;
    size_t Over = Train.size() - Searched - NoDecision;
    std::string S = (llvm::Twine(Searched) + " of " + llvm::Twine(Train.size()) +
                     " training modules are searched")
                        .str();
    if (NoDecision || Over)
      S += (llvm::Twine(" (") + llvm::Twine(NoDecision) +
            " make no inlining decision, " + llvm::Twine(Over) +
            " exceed the budget of " + llvm::Twine(Recipe.SearchMaxDecisions) +
            " decisions or " + llvm::Twine(Recipe.SearchMaxModuleBytes) +
            " bytes of bitcode)")
               .str();
    return S;
  }

  /// How many decisions of module \p M the search may try.
  uint32_t searchBudget(size_t M) const {
    return getSearchBudget(Recipe, Modules[M].BitcodeSize);
  }

  /// Candidates for module \p M: indices of its heuristic trajectory, all
  /// or a seeded sample of searchBudget(M), ascending.
  std::vector<uint32_t> candidates(size_t M) const {
    return getSearchCandidates(Recipe, Modules[M].BitcodeSize,
                               Modules[M].ContentHash, HeuristicDecisions[M]);
  }
  /// Phase 2 of mode search-imitate: the greedy search on every searchable
  /// training module, in lockstep; sets BestFlips and BestSize (the
  /// heuristic's own for every other module and mode).
  llvm::Error search();

  /// Feature names of the logs (inlining_decision left out) and the column
  /// of inlining_default among them, known after the first
  /// logTrajectories().
  const std::vector<std::string> &featureNames() const {
    return Service.getFeatureNames();
  }
  size_t defaultColumn() const { return Service.getDefaultColumn(); }

  /// Compiles each module \p Mods[K] under \p Policies[K] with logging and
  /// calls \p OnRow(K, features, applied decision, heuristic's decision) for
  /// every decision, in order.
  llvm::Error logTrajectories(
      llvm::ArrayRef<size_t> Mods, llvm::ArrayRef<CompilePolicy> Policies,
      llvm::function_ref<void(size_t, llvm::ArrayRef<float>, bool, bool)>
          OnRow) {
    return Service.logTrajectories(Mods, Policies, OnRow);
  }

  /// Replays the best trajectory of every training module with logging and
  /// turns its decisions into rows.
  llvm::Expected<learn::Dataset> collect();

  //===--------------------------------------------------------------------===//
  // TrainerCounterfactual.cpp: single inversions (counterfactual)
  //===--------------------------------------------------------------------===//

  /// Counterfactual mode. Every searchable training module's heuristic
  /// trajectory, one row per decision (kept for choosing tau), with the row
  /// width FeatureNames.size().
  std::map<size_t, std::vector<float>> Trajectories;

  /// Inverts single decisions of the heuristic's trajectory (a seeded sample
  /// per module, as the search does) and records what each inversion did to
  /// .text: a row (the features at that decision) labeled 1 if .text shrank,
  /// weighted by the change in bytes (capped).
  llvm::Expected<learn::Dataset> counterfactual();

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
  llvm::Error counterfactualAround(const Model &P, llvm::StringRef PLabel,
                                   unsigned Round, learn::Dataset &D);

  /// Whether a decision whose heuristic default is \p Default may be
  /// inverted.
  bool inScope(bool Default) const {
    return Recipe.FlipScope == learn::FlipScope::Both ||
           (Recipe.FlipScope == learn::FlipScope::InlineOnly) == Default;
  }

  /// The scorer's float logit (as the shipped model computes it) on every
  /// decision of Trajectories that may be inverted (or, with
  /// \p HeuristicInlines, on every inline of the heuristic), sorted from the
  /// highest.
  llvm::Expected<std::vector<float>>
  scoreTrajectories(const Model &G, bool HeuristicInlines = false);

  /// Added to the epoch on the imitation curve (the epochs of earlier
  /// counterfactual rounds).
  unsigned EpochOffset = 0;

  /// Row weight of an inversion that changed module \p M's .text by
  /// \p Delta bytes (getFlipWeight).
  float flipWeight(int64_t Delta, size_t M) const {
    return getFlipWeight(Recipe, Delta, Baseline[M], MeanTrainingText);
  }
  /// The mean -Oz .text of the training modules (set by baseline()).
  double MeanTrainingText = 0;

  /// The inversion CSVs (counterfactuals*.csv), for whoever wants to study
  /// them: the given leading columns, then the features at the decision.
  std::string inversionsHeader(llvm::StringRef Columns) const;

  //===--------------------------------------------------------------------===//
  // TrainerSelection.cpp: candidates, evolution strategies, the choice
  //===--------------------------------------------------------------------===//

  /// Adds the candidates of the latest scorer, round Scorers.size(): the
  /// classifier at each threshold, or (counterfactual) the heuristic
  /// inverted where the scorer ranks a decision among the top fraction of
  /// the training decisions. The last one added has the largest flip
  /// fraction.
  llvm::Error addCandidates();

  /// The policy a parameter vector of classifier \p Base stands for: the
  /// classifier at threshold \p Param, or (counterfactual) the flip policy
  /// with tau \p Param.
  llvm::Expected<Model>
  policyFor(const Model &Base, llvm::ArrayRef<double> Theta, float Param) const;

  /// Evolution strategies from \p Start's classifier parameters (the
  /// classifier \p Base with Start's threshold or tau). Every iteration
  /// compiles a seeded batch of ESBatchModules searchable training modules
  /// under the current parameters and the 2K perturbed ones; a candidate's
  /// reward is its mean per-module reward. The state is checkpointed after
  /// every iteration (es.ckpt) and the compiles are cached, so a rerun
  /// resumes where it stopped.
  llvm::Expected<Candidate> evolve(const Model &Base, const Candidate &Start);

  /// Where candidates are chosen: validation or, with no validation
  /// packages, training.
  llvm::ArrayRef<size_t> selectionSet() const {
    return Validation.empty() ? Train : Validation;
  }
  llvm::StringRef selectionName() const {
    return Validation.empty() ? "training" : "validation";
  }

  /// Compiles \p Cand on the selection set, keeps it in <work>/candidates/
  /// (named after its label, so that any candidate can be evaluated or
  /// shipped by hand), logs and reports it, and says whether the
  /// per-package limit allows it. Sets \p Tot to its totals.
  llvm::Expected<bool> judge(const Candidate &Cand, Totals &Tot);

  /// Model selection: of the candidates that make no package of the
  /// selection set worse than -Oz by more than max_package_regression
  /// percent, the one with the smallest total .text. With es_iterations,
  /// evolution strategies first tune the learned candidate with the
  /// smallest .text (allowed or not), and the result competes too. With
  /// limit_training_packages, the winner must also pass fitsTraining, or
  /// the next one is tried. Returns the index of the chosen candidate.
  llvm::Expected<size_t> select();

  /// limit_training_packages: compiles \p Cand on the training packages,
  /// logs and reports it, and says whether it compiles every module and
  /// grows no package by more than max_package_regression percent.
  llvm::Expected<bool> fitsTraining(const Candidate &Cand);

  /// The chosen model on the validation and the training packages.
  using Outcome = ChosenOutcome;

  /// Evaluates the chosen model \p M on validation and training and writes
  /// it to the output file, recording the corpus fingerprint in it.
  llvm::Expected<Outcome> saveChosen(Model &M);

  //===--------------------------------------------------------------------===//
  // TrainerReport.cpp
  //===--------------------------------------------------------------------===//

  /// Writes report.md (and, verbose, prints it) and the learning curves.
  llvm::Error writeReport(llvm::StringRef ChosenLabel, const Outcome &O,
                          double Minutes);
};

} // namespace mlgo

#endif // MLGO_LIB_TRAIN_TRAINERIMPL_H
