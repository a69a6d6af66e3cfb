//===- unittests/Learn/ClassifierTest.cpp - Training an MLP policy --------===//
//
// A separable problem is learned perfectly (linear and MLP, with a residual
// input), logistic regression recovers the weights that generated its data,
// and the exported model - run by the real interpreter - takes the trainer's
// decision on every training row.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Classifier.h"
#include "LearnTestUtil.h"
#include "mlgo/Model/PolicyRunner.h"

#include "gtest/gtest.h"

#include <cmath>
#include <memory>

using namespace mlgo;
using namespace mlgo::learn;
using namespace mlgo::learn::test;

namespace {

/// Integer features like the compiler's: label = (3a - 2b + 40 * dflt > 50),
/// keeping only rows at least 5 away from the boundary.
Dataset separableData() {
  Dataset D({"a", "b", "inlining_default"});
  Rng R(21);
  while (D.size() < 600) {
    float A = static_cast<float>(R.below(100));
    float B = static_cast<float>(R.below(100));
    float Dflt = static_cast<float>(R.below(2));
    double S = 3 * A - 2 * B + 40 * Dflt - 50;
    if (std::fabs(S) < 5)
      continue;
    D.addRow({A, B, Dflt}, S > 0 ? 1 : 0, 1.0f + static_cast<float>(R.below(3)),
             static_cast<int64_t>(D.size() % 10));
  }
  return D;
}

ClassifierOptions separableOptions(std::vector<size_t> Hidden) {
  ClassifierOptions O;
  O.Hidden = std::move(Hidden);
  O.Epochs = 150;
  O.BatchSize = 32;
  O.Optimizer.LearningRate = 0.02;
  O.Normalization.Log1p = false;
  O.ResidualFeature = "inlining_default";
  O.Seed = 3;
  O.Metadata.Name = "test-clf";
  O.Metadata.FeatureSet = "test-features";
  return O;
}

/// Feeds every row of \p D to the interpreted model and checks its decision
/// against the trainer's double-precision forward pass.
void expectInterpreterAgrees(const Dataset &D, const ClassifierTrainer &T,
                             const Model &M) {
  auto Shared = std::make_shared<Model>(M);
  auto Runner = unwrap(InterpretedRunner::create(Shared, M.getInputSpecs()));
  size_t Disagree = 0;
  for (size_t I = 0; I < D.size(); ++I) {
    for (size_t J = 0; J < D.getNumFeatures(); ++J)
      *Runner->getTensor<int64_t>(J) = static_cast<int64_t>(D.feature(I, J));
    int64_t Decision = Runner->evaluate<int64_t>();
    double Logit = T.predictLogit(D.row(I));
    EXPECT_NEAR(Runner->getLastLogit(), Logit, 1e-3 * (1 + std::fabs(Logit)));
    if (Decision != (Logit > 0 ? 1 : 0))
      ++Disagree;
  }
  EXPECT_EQ(Disagree, 0u);
}

TEST(ClassifierTest, SeparableProblemIsLearnedPerfectly) {
  Dataset D = separableData();
  for (std::vector<size_t> Hidden :
       {std::vector<size_t>{}, std::vector<size_t>{16, 8}}) {
    ClassifierOptions O = separableOptions(Hidden);
    std::vector<EpochStats> Seen;
    O.OnEpoch = [&](const EpochStats &S) { Seen.push_back(S); };
    auto T = unwrap(ClassifierTrainer::create(D, O));
    T->run();
    ASSERT_EQ(Seen.size(), 150u);
    EXPECT_EQ(Seen.front().Epoch, 1u);
    EXPECT_EQ(Seen.back().Epoch, 150u);
    EXPECT_LT(Seen.back().Loss, Seen.front().Loss);
    EXPECT_EQ(Seen.back().Accuracy, 1.0) << "hidden " << Hidden.size();

    Model M = unwrap(T->exportModel());
    EXPECT_EQ(M.Metadata.Name, "test-clf");
    EXPECT_EQ(M.Metadata.FeatureSet, "test-features");
    EXPECT_EQ(M.Metadata.Seed, 3u);
    EXPECT_EQ(M.Metadata.Recipe, describeRecipe(O));
    ASSERT_EQ(M.Inputs.size(), 3u);
    EXPECT_EQ(M.Inputs[2].Spec.name(), "inlining_default");
    ASSERT_EQ(M.Inputs[2].Pipelines.size(), 1u);
    EXPECT_TRUE(M.Inputs[2].Pipelines[0].empty());  // The residual, raw.
    EXPECT_EQ(M.Inputs[0].Pipelines[0].size(), 1u); // standardize only
    EXPECT_EQ(M.Layers.size(), Hidden.size() + 1);
    // The text form reads back to the same model.
    Model Back = unwrap(Model::parse(M.toJSONString(), "m.json"));
    EXPECT_EQ(Back.toJSONString(), M.toJSONString());
    expectInterpreterAgrees(D, *T, M);
  }
}

TEST(ClassifierTest, RecipeDescribesTheOptions) {
  ClassifierOptions O = separableOptions({32, 16});
  EXPECT_EQ(describeRecipe(O),
            "mlgo classifier: hidden=[32,16] activation=relu epochs=150 "
            "batch=32 optimizer=adam lr=0.02 l2=0 log1p=0 "
            "residual=inlining_default threshold=0 seed=3");
}

TEST(ClassifierTest, TrainingIsDeterministic) {
  Dataset D = separableData();
  ClassifierOptions O = separableOptions({8});
  O.Epochs = 5;
  O.L2 = 1e-3;
  std::string A = unwrap(trainClassifier(D, O)).toJSONString();
  std::string B = unwrap(trainClassifier(D, O)).toJSONString();
  EXPECT_EQ(A, B);
  O.Seed = 4;
  EXPECT_NE(unwrap(trainClassifier(D, O)).toJSONString(), A);
}

TEST(ClassifierTest, LogisticRegressionRecoversKnownWeights) {
  // y ~ Bernoulli(sigmoid(2 x0 - x1 - 5)), x ~ N((1, -3), (1, 2)): the
  // mean logit is 0, so both labels are common.
  Dataset D({"x0", "x1"});
  Rng R(8);
  for (int I = 0; I < 20000; ++I) {
    double X0 = 1 + R.normal(), X1 = -3 + 2 * R.normal();
    double P = 1 / (1 + std::exp(-(2 * X0 - X1 - 5)));
    D.addRow({static_cast<float>(X0), static_cast<float>(X1)},
             R.uniform() < P ? 1 : 0);
  }
  ClassifierOptions O;
  O.Epochs = 20;
  O.BatchSize = 128;
  O.Optimizer.LearningRate = 0.01;
  O.Normalization.Log1p = false;
  O.InputSpecs = {TensorSpec::createSpec<float>("x0", {1}),
                  TensorSpec::createSpec<float>("x1", {1})};
  auto T = unwrap(ClassifierTrainer::create(D, O));
  T->run();
  // Undo the standardization: logit = sum w_j (x_j - M_j) / S_j + b.
  const std::vector<double> &Theta = T->getParameters();
  ASSERT_EQ(Theta.size(), 3u);
  const std::vector<FeatureScaling> &S = T->getScalings();
  double W0 = Theta[0] / S[0].StdDev, W1 = Theta[1] / S[1].StdDev;
  double B = Theta[2] - W0 * S[0].Mean - W1 * S[1].Mean;
  EXPECT_NEAR(W0, 2.0, 0.15);
  EXPECT_NEAR(W1, -1.0, 0.08);
  EXPECT_NEAR(B, -5.0, 0.2);
  Model M = unwrap(T->exportModel());
  EXPECT_EQ(M.Inputs[0].Spec.type(), TensorType::Float);
}

TEST(ClassifierTest, BadOptionsAreErrors) {
  Dataset D = separableData();
  ClassifierOptions O;
  O.ResidualFeature = "nope";
  EXPECT_EQ(errorMessage(ClassifierTrainer::create(D, O)),
            "residual feature 'nope' is not a feature of the dataset");
  O.ResidualFeature.reset();
  O.InputSpecs = {TensorSpec::createSpec<int64_t>("a", {1})};
  EXPECT_EQ(errorMessage(ClassifierTrainer::create(D, O)),
            "got 1 input specs for 3 features");
  EXPECT_EQ(errorMessage(
                ClassifierTrainer::create(Dataset({"a"}), ClassifierOptions())),
            "cannot train a classifier on an empty dataset");
}

TEST(ClassifierTest, RegressionLossesFitRealTargets) {
  // t = 2a - b + 3 on a grid: a linear network (no hidden layer) recovers
  // it with either loss; the recipe names a non-default loss.
  Dataset D({"a", "b"});
  std::vector<double> Targets;
  for (int A = 0; A < 10; ++A)
    for (int B = 0; B < 10; ++B) {
      D.addRow({static_cast<float>(A), static_cast<float>(B)}, 0);
      Targets.push_back(2.0 * A - B + 3);
    }
  for (LossKind L : {LossKind::SquaredError, LossKind::AbsoluteError}) {
    ClassifierOptions O;
    O.Loss = L;
    O.Epochs = 400;
    O.BatchSize = 10;
    O.Optimizer.LearningRate = 0.05;
    O.Normalization.Log1p = false;
    auto T = unwrap(ClassifierTrainer::create(D, O, Targets));
    T->run();
    for (size_t I = 0; I < D.size(); ++I)
      EXPECT_NEAR(T->predictLogit(D.row(I)), Targets[I], 0.1)
          << toString(L).str() << " row " << I;
    EXPECT_LT(T->evaluate().Loss, 0.05) << toString(L).str();
    EXPECT_EQ(T->evaluate().Accuracy, 0.0);
    EXPECT_NE(describeRecipe(O).find(" loss=" + toString(L).str()),
              std::string::npos);
  }
  ClassifierOptions O;
  EXPECT_EQ(describeRecipe(O).find("loss="), std::string::npos);
  EXPECT_EQ(errorMessage(ClassifierTrainer::create(D, O, Targets)),
            "cross-entropy trains on the dataset's labels, not on targets");
  O.Loss = LossKind::SquaredError;
  EXPECT_EQ(errorMessage(ClassifierTrainer::create(D, O)),
            "a squared_error loss needs one target per row: got 0 for 100 "
            "rows");
}

TEST(ClassifierTest, EvaluatesOtherRows) {
  Dataset D = separableData();
  ClassifierOptions O = separableOptions({});
  O.Epochs = 50;
  auto T = unwrap(ClassifierTrainer::create(D, O));
  T->run();
  Dataset Held = D.filterByGroup([](int64_t G) { return G == 3; });
  EpochStats S = T->evaluate(Held);
  EXPECT_EQ(S.Epoch, 50u);
  EXPECT_EQ(S.Accuracy, 1.0);
}

} // namespace
