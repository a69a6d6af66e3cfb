//===- unittests/Learn/FlipPolicyTest.cpp - d XOR (g > tau) as one MLP ----===//
//
// A trained scorer g and the flip policy built from it are both run by the
// real interpreter on a grid of inputs: the policy decides
// inlining_default XOR (g > tau) wherever g is not within float rounding of
// tau, tau = NeverFlip is the default decision everywhere, and scorers the
// construction cannot take are refused with a reason.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/FlipPolicy.h"
#include "LearnTestUtil.h"
#include "mlgo/Learn/Classifier.h"
#include "mlgo/Model/PolicyRunner.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <memory>

using namespace mlgo;
using namespace mlgo::learn;
using namespace mlgo::learn::test;

namespace {

/// A scorer over (a, b, inlining_default) with two hidden layers.
Model trainedScorer() {
  Dataset D({"a", "b", "inlining_default"});
  Rng R(5);
  for (int I = 0; I < 400; ++I) {
    float A = static_cast<float>(R.below(64));
    float B = static_cast<float>(R.below(64));
    float Dflt = static_cast<float>(R.below(2));
    bool Flip = Dflt != 0 ? A > 40 : B < 10;
    D.addRow({A, B, Dflt}, Flip, 1.0f, I % 7);
  }
  ClassifierOptions O;
  O.Hidden = {6, 5};
  O.Epochs = 20;
  O.Optimizer.LearningRate = 0.01;
  O.ResidualFeature = "inlining_default";
  O.Metadata.Name = "scorer";
  auto T = unwrap(ClassifierTrainer::create(D, O));
  T->run();
  return unwrap(T->exportModel());
}

struct Evaluated {
  int64_t Decision;
  float Logit;
};

Evaluated run(InterpretedRunner &R, int64_t A, int64_t B, int64_t Dflt) {
  *R.getTensor<int64_t>(0) = A;
  *R.getTensor<int64_t>(1) = B;
  *R.getTensor<int64_t>(2) = Dflt;
  int64_t Decision = R.evaluate<int64_t>();
  return {Decision, R.getLastLogit()};
}

std::unique_ptr<InterpretedRunner> runnerFor(const Model &M) {
  return unwrap(
      InterpretedRunner::create(std::make_shared<Model>(M), M.getInputSpecs()));
}

TEST(FlipPolicyTest, DecidesDefaultXorScoreAboveTau) {
  Model G = trainedScorer();
  auto GR = runnerFor(G);
  // Taus at the 0th, 10th, 50th and 90th percentile of the scorer's logits
  // on the grid, and above them all.
  std::vector<float> Logits;
  for (int64_t A = 0; A < 64; A += 3)
    for (int64_t B = 0; B < 64; B += 3)
      for (int64_t Dflt = 0; Dflt < 2; ++Dflt)
        Logits.push_back(run(*GR, A, B, Dflt).Logit);
  std::sort(Logits.begin(), Logits.end());
  std::vector<float> Taus;
  for (size_t Pct : {10, 50, 90})
    Taus.push_back(Logits[Logits.size() * Pct / 100] + 1e-2f);
  Taus.insert(Taus.begin(), Logits.front() - 1);
  Taus.push_back(Logits.back() + 1);
  for (size_t TI = 0; TI < Taus.size(); ++TI) {
    float Tau = Taus[TI];
    Model P = unwrap(buildFlipPolicy(G, Tau));
    auto PR = runnerFor(P);
    size_t Checked = 0, Flipped = 0, Kept = 0;
    for (int64_t A = 0; A < 64; A += 3)
      for (int64_t B = 0; B < 64; B += 3)
        for (int64_t Dflt = 0; Dflt < 2; ++Dflt) {
          float Logit = run(*GR, A, B, Dflt).Logit;
          Evaluated E = run(*PR, A, B, Dflt);
          // |L| = |g - tau| up to rounding of the two float sums.
          EXPECT_NEAR(std::fabs(E.Logit), std::fabs(Logit - Tau),
                      1e-4f * (1 + std::fabs(Logit)));
          if (std::fabs(Logit - Tau) < 1e-3f)
            continue;
          bool Flip = Logit > Tau;
          EXPECT_EQ(E.Decision, Flip ? 1 - Dflt : Dflt)
              << "a=" << A << " b=" << B << " d=" << Dflt << " tau=" << Tau;
          ++Checked;
          (Flip ? Flipped : Kept) += 1;
        }
    EXPECT_GT(Checked, 800u);
    // Below every logit all decisions flip, above all none do; the
    // percentiles exercise both branches.
    if (TI == 0)
      EXPECT_EQ(Kept, 0u);
    else if (TI + 1 == Taus.size())
      EXPECT_EQ(Flipped, 0u);
    else {
      EXPECT_GT(Flipped, 0u) << Tau;
      EXPECT_GT(Kept, 0u) << Tau;
    }
  }
}

TEST(FlipPolicyTest, ScopesInvertOneSideOnly) {
  Model G = trainedScorer();
  auto GR = runnerFor(G);
  // A tau below every logit: every decision in scope is inverted.
  float Tau = -1000;
  Model Inl = unwrap(
      buildFlipPolicy(G, Tau, "inlining_default", FlipScope::InlineOnly));
  Model NoInl = unwrap(
      buildFlipPolicy(G, Tau, "inlining_default", FlipScope::NoInlineOnly));
  auto IR = runnerFor(Inl), NR = runnerFor(NoInl);
  for (int64_t A = 0; A < 64; A += 5)
    for (int64_t B = 0; B < 64; B += 5) {
      ASSERT_GT(run(*GR, A, B, 0).Logit, Tau);
      ASSERT_GT(run(*GR, A, B, 1).Logit, Tau);
      // InlineOnly: "inline" becomes "no", "no" stays "no".
      EXPECT_EQ(run(*IR, A, B, 1).Decision, 0);
      EXPECT_EQ(run(*IR, A, B, 0).Decision, 0);
      // NoInlineOnly: "no" becomes "inline", "inline" stays.
      EXPECT_EQ(run(*NR, A, B, 0).Decision, 1);
      EXPECT_EQ(run(*NR, A, B, 1).Decision, 1);
    }
  // Above every logit, both are the heuristic.
  Model InlNever = unwrap(
      buildFlipPolicy(G, NeverFlip, "inlining_default", FlipScope::InlineOnly));
  Model NoInlNever = unwrap(buildFlipPolicy(G, NeverFlip, "inlining_default",
                                            FlipScope::NoInlineOnly));
  auto IN = runnerFor(InlNever), NN = runnerFor(NoInlNever);
  for (int64_t Dflt = 0; Dflt < 2; ++Dflt) {
    EXPECT_EQ(run(*IN, 7, 9, Dflt).Decision, Dflt);
    EXPECT_EQ(run(*NN, 7, 9, Dflt).Decision, Dflt);
  }
}

TEST(FlipPolicyTest, PerBranchTausInvertEachSideAtItsOwnTau) {
  Model G = trainedScorer();
  auto GR = runnerFor(G);
  // Taus near the median logit of each branch, so both taus matter.
  std::vector<float> L0, L1;
  for (int64_t A = 0; A < 64; A += 3)
    for (int64_t B = 0; B < 64; B += 3) {
      L0.push_back(run(*GR, A, B, 0).Logit);
      L1.push_back(run(*GR, A, B, 1).Logit);
    }
  llvm::sort(L0);
  llvm::sort(L1);
  // Midway between two distinct logits, so that no logit sits on a tau
  // (where the policy's float sum, ordered differently, may round the
  // other way).
  auto Midway = [](const std::vector<float> &L) {
    size_t I = L.size() / 2;
    while (I + 1 < L.size() && L[I + 1] - L[I] < 1e-3f)
      ++I;
    return (L[I] + L[I + 1]) / 2;
  };
  float Tau0 = Midway(L0), Tau1 = Midway(L1);
  ASSERT_NE(Tau0, Tau1);
  Model P = unwrap(buildFlipPolicyPerBranch(G, Tau0, Tau1));
  auto PR = runnerFor(P);
  unsigned Flips[2] = {0, 0};
  for (int64_t A = 0; A < 64; A += 3)
    for (int64_t B = 0; B < 64; B += 3)
      for (int64_t Dflt = 0; Dflt < 2; ++Dflt) {
        float Tau = Dflt ? Tau1 : Tau0;
        bool Flip = run(*GR, A, B, Dflt).Logit > Tau;
        EXPECT_EQ(run(*PR, A, B, Dflt).Decision, Flip ? 1 - Dflt : Dflt)
            << "a=" << A << " b=" << B << " d=" << Dflt;
        Flips[Dflt] += Flip;
      }
  EXPECT_GT(Flips[0], 0u);
  EXPECT_GT(Flips[1], 0u);
  // Equal taus give the single-tau model, weight for weight.
  EXPECT_EQ(unwrap(buildFlipPolicyPerBranch(G, Tau0, Tau0)).toJSONString(),
            unwrap(buildFlipPolicy(G, Tau0)).toJSONString());
  // NeverFlip on one branch keeps that branch the heuristic's.
  auto OnlyNo =
      runnerFor(unwrap(buildFlipPolicyPerBranch(G, -1000, NeverFlip)));
  auto OnlyYes =
      runnerFor(unwrap(buildFlipPolicyPerBranch(G, NeverFlip, -1000)));
  for (int64_t Dflt = 0; Dflt < 2; ++Dflt) {
    EXPECT_EQ(run(*OnlyNo, 7, 9, Dflt).Decision, 1);
    EXPECT_EQ(run(*OnlyYes, 7, 9, Dflt).Decision, 0);
  }
  EXPECT_EQ(errorMessage(buildFlipPolicyPerBranch(G, 0, 1e9f)),
            "flip policy: tau must lie in (-2^22, 2^22]");
}

TEST(FlipPolicyTest, NeverFlipIsTheDefault) {
  Model P = unwrap(buildFlipPolicy(trainedScorer(), NeverFlip));
  auto PR = runnerFor(P);
  for (int64_t A = 0; A < 1000; A += 37)
    for (int64_t B = 0; B < 1000; B += 41)
      for (int64_t Dflt = 0; Dflt < 2; ++Dflt)
        EXPECT_EQ(run(*PR, A, B, Dflt).Decision, Dflt);
}

TEST(FlipPolicyTest, RefusesScorersItCannotWrap) {
  Model G = trainedScorer();
  Model NoHidden = G;
  NoHidden.Layers.erase(NoHidden.Layers.begin(), NoHidden.Layers.end() - 1);
  NoHidden.Layers[0].In = G.getNumMLPInputs();
  NoHidden.Layers[0].Weights.assign(G.getNumMLPInputs(), 0.5f);
  EXPECT_EQ(errorMessage(buildFlipPolicy(NoHidden, 0)),
            "flip policy: the scorer needs a hidden layer");
  EXPECT_EQ(errorMessage(buildFlipPolicy(G, 0, "missing_feature")),
            "flip policy: the scorer does not read 'missing_feature'");
  EXPECT_EQ(errorMessage(buildFlipPolicy(G, 0, "a")),
            "flip policy: input 'a' must be one raw value (one empty "
            "pipeline)");
  EXPECT_EQ(errorMessage(buildFlipPolicy(G, 1e9f)),
            "flip policy: tau must lie in (-2^22, 2^22]");
  Model Sigmoid = G;
  Sigmoid.Layers.back().Act = Activation::Sigmoid;
  EXPECT_EQ(errorMessage(buildFlipPolicy(Sigmoid, 0)),
            "flip policy: the scorer's output layer must be linear");
}

} // namespace
