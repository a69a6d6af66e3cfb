//===- EvolutionStrategies.cpp - Blackbox ES trainer ----------------------===//
//
// See mlgo/Learn/EvolutionStrategies.h for the estimator.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/EvolutionStrategies.h"

#include "mlgo/Support/Error.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace mlgo {
namespace learn {

EvolutionStrategies::EvolutionStrategies(std::vector<double> Theta,
                                         const ESOptions &Options)
    : Options(Options), Theta(std::move(Theta)),
      Opt(this->Theta.size(), Options.Optimizer), R(Options.Seed) {
  assert(Options.NumDirections > 0 && "ES needs at least one direction");
  assert(Options.Sigma > 0 && "sigma must be positive");
  assert(
      (Options.Scales.empty() || Options.Scales.size() == this->Theta.size()) &&
      "one scale per parameter");
}

std::vector<double> EvolutionStrategies::relativeScales(ArrayRef<double> Theta,
                                                        double Floor) {
  assert(Floor > 0 && "a scale floor must be positive");
  std::vector<double> S(Theta.size());
  for (size_t J = 0; J < Theta.size(); ++J)
    S[J] = std::max(std::fabs(Theta[J]), Floor);
  return S;
}

ESCandidates EvolutionStrategies::proposePerturbations() {
  if (Directions.empty()) {
    Directions.resize(Options.NumDirections);
    for (std::vector<double> &Eps : Directions) {
      Eps.resize(Theta.size());
      for (double &E : Eps)
        E = R.normal();
    }
  }
  ESCandidates C;
  const std::vector<double> &Scales = Options.Scales;
  for (const std::vector<double> &Eps : Directions) {
    std::vector<double> Plus(Theta.size()), Minus(Theta.size());
    for (size_t J = 0; J < Theta.size(); ++J) {
      double S = Scales.empty() ? Options.Sigma : Options.Sigma * Scales[J];
      Plus[J] = Theta[J] + S * Eps[J];
      Minus[J] = Theta[J] - S * Eps[J];
    }
    C.Plus.push_back(std::move(Plus));
    C.Minus.push_back(std::move(Minus));
  }
  return C;
}

std::vector<double>
EvolutionStrategies::normalizeRewards(ArrayRef<double> Rw,
                                      ESOptions::Normalization N) {
  size_t M = Rw.size();
  std::vector<double> Out(M, 0.0);
  if (M == 0)
    return Out;
  if (N == ESOptions::Normalization::ZScore) {
    double Sum = 0;
    for (double V : Rw)
      Sum += V;
    double Mean = Sum / static_cast<double>(M);
    double SumSq = 0;
    for (double V : Rw)
      SumSq += (V - Mean) * (V - Mean);
    double Std = std::sqrt(SumSq / static_cast<double>(M));
    if (!(Std >= 1e-12))
      return Out;
    for (size_t I = 0; I < M; ++I)
      Out[I] = (Rw[I] - Mean) / Std;
    return Out;
  }
  if (M == 1)
    return Out;
  // Centered ranks with ties averaged.
  std::vector<size_t> Idx(M);
  std::iota(Idx.begin(), Idx.end(), size_t(0));
  std::stable_sort(Idx.begin(), Idx.end(),
                   [&](size_t A, size_t B) { return Rw[A] < Rw[B]; });
  for (size_t Lo = 0; Lo < M;) {
    size_t Hi = Lo + 1;
    while (Hi < M && Rw[Idx[Hi]] == Rw[Idx[Lo]])
      ++Hi;
    double Rank = static_cast<double>(Lo + Hi - 1) / 2.0;
    for (size_t K = Lo; K < Hi; ++K)
      Out[Idx[K]] = Rank / static_cast<double>(M - 1) - 0.5;
    Lo = Hi;
  }
  return Out;
}

Error EvolutionStrategies::update(ArrayRef<double> RewardsPlus,
                                  ArrayRef<double> RewardsMinus) {
  size_t K = Directions.size();
  if (K == 0)
    return makeError("ES update without a pending proposal");
  if (RewardsPlus.size() != K || RewardsMinus.size() != K)
    return makeError("ES update got " + Twine(RewardsPlus.size()) + " + " +
                     Twine(RewardsMinus.size()) + " rewards for " + Twine(K) +
                     " directions");
  for (size_t I = 0; I < K; ++I)
    if (!std::isfinite(RewardsPlus[I]) || !std::isfinite(RewardsMinus[I]))
      return makeError("ES reward of direction " + Twine(I) + " is not finite");

  // Normalize all 2K rewards together: plus first, then minus.
  std::vector<double> All(RewardsPlus.begin(), RewardsPlus.end());
  All.insert(All.end(), RewardsMinus.begin(), RewardsMinus.end());
  std::vector<double> Norm = normalizeRewards(All, Options.RewardNormalization);

  std::vector<size_t> Used(K);
  std::iota(Used.begin(), Used.end(), size_t(0));
  size_t TopK = Options.TopDirections;
  if (TopK > 0 && TopK < K) {
    auto Score = [&](size_t I) {
      return std::max(RewardsPlus[I], RewardsMinus[I]);
    };
    std::stable_sort(Used.begin(), Used.end(),
                     [&](size_t A, size_t B) { return Score(A) > Score(B); });
    Used.resize(TopK);
    std::sort(Used.begin(), Used.end()); // Sum in direction order.
  }

  std::vector<double> G(Theta.size(), 0.0);
  for (size_t I : Used) {
    double D = Norm[I] - Norm[K + I];
    const std::vector<double> &Eps = Directions[I];
    for (size_t J = 0; J < G.size(); ++J)
      G[J] += D * Eps[J];
  }
  double Scale = 1.0 / (2.0 * Options.Sigma * static_cast<double>(Used.size()));
  std::vector<double> NegG(G.size());
  for (size_t J = 0; J < G.size(); ++J) {
    G[J] *= Scale;
    NegG[J] = -G[J];
  }
  if (Options.Scales.empty()) {
    Opt.step(Theta, NegG);
  } else {
    // The step in u = theta / s, carried to theta.
    std::vector<double> Delta(Theta.size(), 0.0);
    Opt.step(Delta, NegG);
    for (size_t J = 0; J < Theta.size(); ++J)
      Theta[J] += Options.Scales[J] * Delta[J];
  }
  LastGradient = std::move(G);
  Directions.clear();
  ++Iteration;
  return Error::success();
}

void EvolutionStrategies::saveState(Checkpoint &C, StringRef Prefix) const {
  C.setF64s((Prefix + "theta").str(), Theta);
  C.setU64((Prefix + "iteration").str(), Iteration);
  Opt.saveState(C, (Prefix + "opt.").str());
  saveRng(C, Prefix, R);
  std::vector<double> Flat;
  for (const std::vector<double> &Eps : Directions)
    Flat.insert(Flat.end(), Eps.begin(), Eps.end());
  C.setF64s((Prefix + "pending").str(), Flat);
  C.setF64s((Prefix + "last_gradient").str(), LastGradient);
}

Error EvolutionStrategies::loadState(const Checkpoint &C, StringRef Prefix) {
  Expected<std::vector<double>> NewTheta = C.getF64s((Prefix + "theta").str());
  if (!NewTheta)
    return NewTheta.takeError();
  if (NewTheta->size() != Theta.size())
    return makeError("checkpoint ES state '" + Prefix + "' has " +
                     Twine(NewTheta->size()) + " parameters, expected " +
                     Twine(Theta.size()));
  Expected<uint64_t> NewIter = C.getU64((Prefix + "iteration").str());
  if (!NewIter)
    return NewIter.takeError();
  Expected<std::vector<double>> Flat = C.getF64s((Prefix + "pending").str());
  if (!Flat)
    return Flat.takeError();
  size_t P = Theta.size();
  if (!Flat->empty() && Flat->size() != P * Options.NumDirections)
    return makeError("checkpoint ES state '" + Prefix +
                     "' has pending directions of another shape");
  Expected<std::vector<double>> LastG =
      C.getF64s((Prefix + "last_gradient").str());
  if (!LastG)
    return LastG.takeError();
  if (Error E = Opt.loadState(C, (Prefix + "opt.").str()))
    return E;
  if (Error E = loadRng(C, Prefix, R))
    return E;
  Theta = std::move(*NewTheta);
  Iteration = *NewIter;
  Directions.clear();
  if (!Flat->empty())
    for (size_t I = 0; I < Options.NumDirections; ++I)
      Directions.emplace_back(Flat->begin() + I * P,
                              Flat->begin() + (I + 1) * P);
  LastGradient = std::move(*LastG);
  return Error::success();
}

} // namespace learn
} // namespace mlgo
