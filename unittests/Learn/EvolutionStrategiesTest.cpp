//===- unittests/Learn/EvolutionStrategiesTest.cpp - ES -------------------===//

#include "mlgo/Learn/EvolutionStrategies.h"
#include "LearnTestUtil.h"
#include "mlgo/Learn/Parameters.h"
#include "mlgo/Model/ModelSynth.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlgo;
using namespace mlgo::learn;
using namespace mlgo::learn::test;

namespace {

const std::vector<double> Target = {1.0, -2.0, 0.5, 3.0};

double reward(const std::vector<double> &T) {
  double S = 0;
  for (size_t I = 0; I < T.size(); ++I)
    S += (T[I] - Target[I]) * (T[I] - Target[I]);
  return -S;
}

std::vector<double> runES(const ESOptions &O, unsigned Iterations) {
  EvolutionStrategies ES(std::vector<double>(4, 0.0), O);
  for (unsigned I = 0; I < Iterations; ++I) {
    ESCandidates C = ES.proposePerturbations();
    EXPECT_EQ(C.Plus.size(), O.NumDirections);
    std::vector<double> RP, RM;
    for (size_t K = 0; K < C.Plus.size(); ++K) {
      RP.push_back(reward(C.Plus[K]));
      RM.push_back(reward(C.Minus[K]));
    }
    EXPECT_EQ(errorMessage(ES.update(RP, RM)), "<success>");
  }
  EXPECT_EQ(ES.getIteration(), Iterations);
  return ES.getTheta();
}

ESOptions baseOptions() {
  ESOptions O;
  O.Sigma = 0.1;
  O.NumDirections = 8;
  O.Seed = 5;
  O.Optimizer.LearningRate = 0.05;
  return O;
}

TEST(EvolutionStrategiesTest, MaximizesAQuadratic) {
  for (ESOptions::Normalization N : {ESOptions::Normalization::ZScore,
                                     ESOptions::Normalization::CenteredRanks})
    for (size_t TopK : {size_t(0), size_t(4)}) {
      ESOptions O = baseOptions();
      O.RewardNormalization = N;
      O.TopDirections = TopK;
      std::vector<double> T = runES(O, 300);
      EXPECT_GT(reward(T), -0.01)
          << "normalization " << int(N) << " top " << TopK;
      // Deterministic: a second run gives the same doubles.
      EXPECT_EQ(runES(O, 300), T);
    }
}

TEST(EvolutionStrategiesTest, SGDStepIsTheDocumentedEstimate) {
  ESOptions O;
  O.Sigma = 0.5;
  O.NumDirections = 2;
  O.Optimizer.TheKind = OptimizerOptions::Kind::SGD;
  O.Optimizer.LearningRate = 0.25;
  EvolutionStrategies ES({1.0, 2.0}, O);
  ESCandidates C = ES.proposePerturbations();
  // The same proposal until update().
  ESCandidates Again = ES.proposePerturbations();
  EXPECT_EQ(Again.Plus, C.Plus);
  std::vector<double> Eps0 = {(C.Plus[0][0] - 1.0) / 0.5,
                              (C.Plus[0][1] - 2.0) / 0.5};
  std::vector<double> Eps1 = {(C.Plus[1][0] - 1.0) / 0.5,
                              (C.Plus[1][1] - 2.0) / 0.5};
  // Rewards 3, 1 (direction 0) and 2, 2 (direction 1): z-scores over
  // {3, 2, 1, 2}: mean 2, std sqrt(0.5).
  ASSERT_EQ(errorMessage(ES.update({3, 2}, {1, 2})), "<success>");
  double Z = 1 / std::sqrt(0.5);
  // g = ((Z - -Z) eps0 + 0 eps1) / (2 * 0.5 * 2)
  for (size_t J = 0; J < 2; ++J) {
    double G = (2 * Z * Eps0[J] + 0 * Eps1[J]) / 2.0;
    EXPECT_NEAR(ES.getLastGradient()[J], G, 1e-12);
    EXPECT_NEAR(ES.getTheta()[J], (J ? 2.0 : 1.0) + 0.25 * G, 1e-12);
  }
  EXPECT_EQ(errorMessage(ES.update({3, 2}, {1, 2})),
            "ES update without a pending proposal");
  ES.proposePerturbations();
  EXPECT_EQ(errorMessage(ES.update({3}, {1, 2})),
            "ES update got 1 + 2 rewards for 2 directions");
  EXPECT_EQ(errorMessage(ES.update({3, NAN}, {1, 2})),
            "ES reward of direction 1 is not finite");
}

TEST(EvolutionStrategiesTest, ScalesPerturbAndMoveEachParameterOnItsOwn) {
  // Parameters 100 and 0.001: sigma 0.5 on scales 100 and 0.01 (the floor).
  std::vector<double> Theta = {100.0, 0.001};
  std::vector<double> S = EvolutionStrategies::relativeScales(Theta, 0.01);
  EXPECT_EQ(S, (std::vector<double>{100.0, 0.01}));
  EXPECT_EQ(EvolutionStrategies::relativeScales({-3.0, 0.0}, 0.5),
            (std::vector<double>{3.0, 0.5}));
  ESOptions O;
  O.Sigma = 0.5;
  O.NumDirections = 2;
  O.Optimizer.TheKind = OptimizerOptions::Kind::SGD;
  O.Optimizer.LearningRate = 0.25;
  O.Scales = S;
  EvolutionStrategies ES(Theta, O);
  ESCandidates C = ES.proposePerturbations();
  // The same generator as unscaled: the directions are the unscaled run's.
  ESOptions Unscaled = O;
  Unscaled.Scales.clear();
  EvolutionStrategies Plain({0.0, 0.0}, Unscaled);
  ESCandidates P = Plain.proposePerturbations();
  std::vector<std::vector<double>> Eps(2, std::vector<double>(2));
  for (size_t I = 0; I < 2; ++I)
    for (size_t J = 0; J < 2; ++J) {
      Eps[I][J] = P.Plus[I][J] / 0.5;
      EXPECT_EQ(C.Plus[I][J], Theta[J] + 0.5 * S[J] * Eps[I][J]);
      EXPECT_EQ(C.Minus[I][J], Theta[J] - 0.5 * S[J] * Eps[I][J]);
    }
  // Rewards 3, 1 (direction 0) and 2, 2 (direction 1), as above: in u,
  // g = 2 Z eps0 / 2; theta_j moves by s_j * 0.25 * g_j.
  ASSERT_EQ(errorMessage(ES.update({3, 2}, {1, 2})), "<success>");
  double Z = 1 / std::sqrt(0.5);
  for (size_t J = 0; J < 2; ++J) {
    double G = 2 * Z * Eps[0][J] / 2.0;
    EXPECT_NEAR(ES.getLastGradient()[J], G, 1e-12);
    EXPECT_NEAR(ES.getTheta()[J], Theta[J] + S[J] * 0.25 * G, 1e-12 * S[J]);
  }
  // Which is the eviction trainer's documented step: lr = Step * sigma
  // moves theta by Step * s * sum (r+ - r-) eps / (2 K std).
  double Std = std::sqrt(0.5);
  for (size_t J = 0; J < 2; ++J)
    EXPECT_NEAR(ES.getTheta()[J],
                Theta[J] + (0.25 / 0.5) * S[J] * (3.0 - 1.0) * Eps[0][J] /
                               (2.0 * 2.0 * Std),
                1e-12 * S[J]);
}

TEST(EvolutionStrategiesTest, RewardNormalizations) {
  std::vector<double> R = {10, 0, 5, 5};
  std::vector<double> Ranks = EvolutionStrategies::normalizeRewards(
      R, ESOptions::Normalization::CenteredRanks);
  // Sorted: 0 (rank 0), 5, 5 (ranks 1, 2 -> 1.5), 10 (rank 3); / 3 - 0.5.
  EXPECT_EQ(Ranks, (std::vector<double>{0.5, -0.5, 0.0, 0.0}));
  std::vector<double> Z = EvolutionStrategies::normalizeRewards(
      {4, 4, 4}, ESOptions::Normalization::ZScore);
  EXPECT_EQ(Z, (std::vector<double>{0, 0, 0}));
}

TEST(ParametersTest, FlatVectorRoundTripsThroughAModel) {
  ModelSynthOptions SO;
  SO.Inputs = {TensorSpec::createSpec<int64_t>("a", {1}),
               TensorSpec::createSpec<int64_t>("b", {1})};
  SO.Hidden = {3};
  Model M = synthesizeModel(SO);
  std::vector<double> T = getModelParameters(M);
  ASSERT_EQ(T.size(), M.getNumParameters());
  // Order: layer 0 weights row-major, layer 0 bias, layer 1 ...
  EXPECT_EQ(T[1], M.Layers[0].weight(0, 1));
  EXPECT_EQ(T[M.Layers[0].In * 3], M.Layers[0].Bias[0]);
  EXPECT_EQ(T.back(), M.Layers[1].Bias[0]);
  for (double &V : T)
    V = V * 2 + 0.1;
  ASSERT_EQ(errorMessage(setModelParameters(M, T)), "<success>");
  EXPECT_EQ(M.Layers[1].Bias[0], static_cast<float>(T.back()));
  EXPECT_EQ(errorMessage(setModelParameters(M, {1.0})),
            "model 'synthetic' has " + std::to_string(T.size()) +
                " parameters, got 1");
  T[2] = 1e300;
  EXPECT_EQ(errorMessage(setModelParameters(M, T)),
            "parameter 2 is not a finite float");
}

} // namespace
