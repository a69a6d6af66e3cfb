//===- mlgo/Learn/EvolutionStrategies.h - Blackbox ES trainer ---*- C++ -*-===//
//
// Evolution strategies in the style of ml-compiler-opt's blackbox learner
// (Salimans et al. 2017; Mania et al.'s ARS for the top-k variant): the
// policy is a flat parameter vector theta (Parameters.h), and each iteration
//
//  1. proposePerturbations() draws K directions eps_i ~ N(0, I) and returns
//     the 2K candidates theta + sigma s*eps_i and theta - sigma s*eps_i
//     (antithetic pairs; s*eps is element-wise, s the per-parameter scales
//     below);
//  2. the caller evaluates a reward for every candidate (the training loop
//     compiles modules with it) and
//  3. update() normalizes the 2K rewards, estimates the gradient of the
//     expected reward and takes an optimizer step (ascent).
//
// Scales (Options.Scales, all 1 when empty): the search runs in the
// coordinates u_j = theta_j / s_j. A policy whose parameters differ by
// orders of magnitude (the eviction model's main rule and its tie-breakers
// far below it) would lose its small terms to one common sigma, or never
// move its large ones; per-parameter scales perturb and move each on its
// own. relativeScales() gives the usual choice, s_j = max(|theta_j|, floor)
// at the start, the floor searching parameters that start at 0.
//
// Rewards are normalized together over all 2K values, either
//   ZScore:        r' = (r - mean) / std  (population std; if std is below
//                  1e-12 every r' is 0 and the step is skipped), or
//   CenteredRanks: r' = rank(r) / (2K - 1) - 1/2, ranks from 0, ties given
//                  their average rank (robust to outliers, scale-free).
// Top-k (TopDirections = k > 0, k < K): only the k directions with the
// largest max(r+_i, r-_i) are used (ties: lower i first).
// The estimate over the used set S is
//   g = sum_{i in S} (r'+_i - r'-_i) eps_i / (2 sigma |S|)
// (in the scaled coordinates u) and the optimizer (Optimizer.h; Adam by
// default) steps along -g, i.e. ascends the reward: u moves by the
// optimizer's step delta, theta_j by s_j delta_j. With ZScore and SGD of
// learning rate lr, theta moves by
//   lr s sum_{i in S} (r+_i - r-_i) eps_i / (2 sigma |S| std(r)),
// Salimans et al.'s step normalized by the spread of the rewards.
//
// Determinism: one Rng (Random.h) seeded with Options.Seed draws the
// directions, direction by direction, element by element; nothing else is
// random. Until update() is called, proposePerturbations() returns the same
// pending candidates again, and the pending directions are part of the
// checkpointed state, so a run killed between proposing and updating resumes
// with the same candidates.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_EVOLUTIONSTRATEGIES_H
#define MLGO_LEARN_EVOLUTIONSTRATEGIES_H

#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Learn/Optimizer.h"
#include "mlgo/Learn/Random.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlgo {
namespace learn {

struct ESOptions {
  enum class Normalization { ZScore, CenteredRanks };
  /// Standard deviation of the perturbations.
  double Sigma = 0.02;
  /// K, the number of antithetic pairs per iteration.
  size_t NumDirections = 8;
  /// k: use only the best k directions; 0 uses all K.
  size_t TopDirections = 0;
  Normalization RewardNormalization = Normalization::ZScore;
  OptimizerOptions Optimizer = {OptimizerOptions::Kind::Adam, 0.01, 0.9, 0.999,
                                1e-8};
  uint64_t Seed = 1;
  /// Per-parameter scales s, all positive, one per parameter; empty: all 1.
  std::vector<double> Scales;
};

/// The candidates of one iteration: Plus[i] = theta + sigma s*eps_i,
/// Minus[i] = theta - sigma s*eps_i.
struct ESCandidates {
  std::vector<std::vector<double>> Plus, Minus;
};

class EvolutionStrategies {
public:
  EvolutionStrategies(std::vector<double> Theta, const ESOptions &Options);

  /// Draws K directions (unless some are pending) and returns the 2K
  /// parameter vectors to evaluate.
  ESCandidates proposePerturbations();
  /// Takes the rewards of Plus[i] and Minus[i] (K each, finite) and steps.
  /// Fails, changing nothing, if no proposal is pending or a size or value
  /// is wrong.
  llvm::Error update(llvm::ArrayRef<double> RewardsPlus,
                     llvm::ArrayRef<double> RewardsMinus);

  const std::vector<double> &getTheta() const { return Theta; }
  /// Completed iterations (updates).
  uint64_t getIteration() const { return Iteration; }
  bool hasPendingProposal() const { return !Directions.empty(); }
  /// The gradient estimate g of the last update, in the scaled
  /// coordinates (empty before the first).
  const std::vector<double> &getLastGradient() const { return LastGradient; }
  const ESOptions &getOptions() const { return Options; }

  /// Stores / restores theta, the optimizer, the generator, the iteration
  /// and any pending directions under keys starting with \p Prefix.
  void saveState(Checkpoint &C, llvm::StringRef Prefix = "es.") const;
  llvm::Error loadState(const Checkpoint &C, llvm::StringRef Prefix = "es.");

  /// The normalized rewards (exposed for tests and docs): \p R holds all
  /// 2K rewards; returns r' in the same order.
  static std::vector<double> normalizeRewards(llvm::ArrayRef<double> R,
                                              ESOptions::Normalization N);

  /// Scales relative to \p Theta: s_j = max(|theta_j|, \p Floor), with
  /// \p Floor > 0.
  static std::vector<double> relativeScales(llvm::ArrayRef<double> Theta,
                                            double Floor);

private:
  ESOptions Options;
  std::vector<double> Theta;
  Optimizer Opt;
  Rng R;
  uint64_t Iteration = 0;
  std::vector<std::vector<double>> Directions; ///< Pending eps_i.
  std::vector<double> LastGradient;
};

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_EVOLUTIONSTRATEGIES_H
