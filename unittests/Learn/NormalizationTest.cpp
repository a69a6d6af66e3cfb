//===- unittests/Learn/NormalizationTest.cpp - Fitted preprocessing -------===//
//
// The statistics are checked against hand-computed values, and the trainer's
// normalized inputs against the model interpreter's (InterpretedRunner) bit
// for bit, on awkward values: negatives, zeros of both signs, large counts.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Normalization.h"
#include "LearnTestUtil.h"
#include "mlgo/Learn/Random.h"
#include "mlgo/Model/PolicyRunner.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <memory>

using namespace mlgo;
using namespace mlgo::learn;
using namespace mlgo::learn::test;

namespace {

TEST(NormalizationTest, FitsMeanAndPopulationStdDev) {
  Dataset D({"x", "const", "raw"});
  for (float V : {1.0f, 2.0f, 3.0f, 4.0f})
    D.addRow({V, 5.0f, V}, 0);
  NormalizationOptions O;
  O.Log1p = false;
  O.RawFeatures = {2};
  std::vector<FeatureScaling> S = fitNormalization(D, O);
  ASSERT_EQ(S.size(), 3u);
  EXPECT_EQ(S[0].Mean, 2.5);
  EXPECT_EQ(S[0].StdDev, std::sqrt(1.25));
  EXPECT_FALSE(S[0].Raw);
  // A constant feature: S = 1, so it becomes V - M.
  EXPECT_EQ(S[1].Mean, 5.0);
  EXPECT_EQ(S[1].StdDev, 1.0);
  EXPECT_EQ(S[1].apply(7.0), 2.0f);
  EXPECT_TRUE(S[2].Raw);
  EXPECT_TRUE(S[2].toPipeline().empty());
  EXPECT_EQ(S[2].apply(1.0), 1.0f);

  Pipeline P = S[0].toPipeline();
  ASSERT_EQ(P.size(), 1u);
  EXPECT_EQ(P[0].TheOp, PreprocessStep::Op::Standardize);
  EXPECT_EQ(P[0].Mean, 2.5);
}

TEST(NormalizationTest, Log1pIsSymmetricAndPrecedesStandardize) {
  Dataset D({"x"});
  D.addRow({-3.0f}, 0);
  D.addRow({3.0f}, 1);
  std::vector<FeatureScaling> S = fitNormalization(D, NormalizationOptions());
  EXPECT_TRUE(S[0].Log1p);
  EXPECT_EQ(S[0].Mean, 0.0);
  EXPECT_EQ(S[0].StdDev, std::log1p(3.0));
  EXPECT_EQ(S[0].apply(3.0), 1.0f);
  EXPECT_EQ(S[0].apply(-3.0), -1.0f);
  Pipeline P = S[0].toPipeline();
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].TheOp, PreprocessStep::Op::Log1p);
  EXPECT_EQ(P[1].TheOp, PreprocessStep::Op::Standardize);
}

static uint32_t bitsOf(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

/// The interpreter's MLP input for feature \p J: a one-input model whose
/// layer computes -0 + 1 * X, which is X exactly (including its sign).
TEST(NormalizationTest, TrainerValuesEqualInterpreterValuesToTheBit) {
  // Integer-valued features like LLVM's, plus one float feature.
  std::vector<std::string> Names{"callee_users", "cost_estimate",
                                 "nr_ctant",     "weird",
                                 "is_default",   "f32_feature"};
  Dataset D(Names);
  Rng R(11);
  std::vector<std::vector<float>> Probe;
  for (int I = 0; I < 500; ++I) {
    float A = static_cast<float>(R.below(1000));
    float B =
        static_cast<float>(static_cast<int64_t>(R.below(2000000)) - 100000);
    float C = static_cast<float>(R.below(3));
    float W = static_cast<float>((I % 7 == 0) ? 16777216 + 2 * I : -I);
    float Dflt = static_cast<float>(R.below(2));
    float Fl = static_cast<float>(R.normal() * 1e3);
    D.addRow({A, B, C, W, Dflt, Fl}, I % 2);
    Probe.push_back({A, B, C, W, Dflt, Fl});
  }
  Probe.push_back({0, -0.0f, 1, -1, 1, -0.0f});
  Probe.push_back({1e7f, -1e7f, 16777216, -16777216, 0, 3.25e-5f});
  NormalizationOptions O;
  O.RawFeatures = {4};
  std::vector<FeatureScaling> S = fitNormalization(D, O);

  std::vector<TensorSpec> Specs;
  for (size_t J = 0; J + 1 < Names.size(); ++J)
    Specs.push_back(TensorSpec::createSpec<int64_t>(Names[J], {1}));
  Specs.push_back(TensorSpec::createSpec<float>(Names.back(), {1}));
  std::vector<ModelInput> Inputs = makeModelInputs(Specs, S);

  std::vector<double> Mine(Names.size());
  for (size_t J = 0; J < Names.size(); ++J) {
    auto M = std::make_shared<Model>();
    M->Metadata.Name = "probe";
    M->Inputs = {Inputs[J]};
    DenseLayer L;
    L.In = 1;
    L.Out = 1;
    L.Weights = {1.0f};
    L.Bias = {-0.0f};
    M->Layers = {L};
    ASSERT_EQ(errorMessage(M->validate()), "<success>");
    // The compiler offers every feature; the model reads one.
    auto Runner = unwrap(InterpretedRunner::create(M, Specs));
    for (const std::vector<float> &Row : Probe) {
      for (size_t K = 0; K + 1 < Names.size(); ++K)
        *Runner->getTensor<int64_t>(K) = static_cast<int64_t>(Row[K]);
      *Runner->getTensor<float>(Names.size() - 1) = Row.back();
      Runner->evaluate<int64_t>();
      normalizeRow(S, Row, Mine.data());
      float Expected = static_cast<float>(Mine[J]);
      EXPECT_EQ(bitsOf(Runner->getLastLogit()), bitsOf(Expected))
          << Names[J] << " raw " << Row[J];
    }
  }
}

} // namespace
