//===- mlgo/Train/Trainer.h - Training an inlining-for-size policy -*- C++
//-*-===//
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

#include "mlgo/TrainCore/Recipe.h"
#include "mlgo/TrainCore/SizeMeasure.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlgo {

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

} // namespace mlgo

#endif // MLGO_TRAIN_TRAINER_H
