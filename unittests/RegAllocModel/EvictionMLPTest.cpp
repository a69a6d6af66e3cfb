//===- unittests/RegAllocModel/EvictionMLPTest.cpp - Widened models -------===//
//
// mlgo/RegAllocModel/EvictionMLP.h on the shipped eviction model: widened
// into an MLP it must give every column the linear model's logit exactly
// (and so take the same decision), on random finite features; the searched
// parameters must round-trip and come in the documented order.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/EvictionMLP.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Model/SplitMix64.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::regalloc;

namespace {

Model loadShipped() {
  Expected<Model> M = Model::load(MLGO_EVICT_MODEL);
  EXPECT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  return std::move(*M);
}

/// Random buffers for every input of \p M: masks 0/1, other integers in
/// [0, 20), floats in [0, 40) with every seventh one 0 (the features of
/// columns that are not candidates).
struct Buffers {
  std::vector<std::vector<int64_t>> Ints;
  std::vector<std::vector<float>> Floats;
  std::vector<const void *> Pointers;
  Buffers(const Model &M, uint64_t &State) {
    for (const ModelInput &In : M.Inputs) {
      size_t N = In.Spec.getElementCount();
      if (In.Spec.type() == TensorType::Float) {
        Floats.emplace_back(N);
        for (size_t K = 0; K < N; ++K)
          Floats.back()[K] =
              splitMix64(State) % 7 == 0
                  ? 0.0f
                  : static_cast<float>(splitMix64(State) >> 40) * 0x1p-24f * 40;
        Pointers.push_back(Floats.back().data());
        continue;
      }
      EXPECT_EQ(In.Spec.type(), TensorType::Int64) << In.Spec.name();
      Ints.emplace_back(N);
      bool Mask = In.Spec.name() == "mask";
      for (size_t K = 0; K < N; ++K)
        Ints.back()[K] =
            static_cast<int64_t>(splitMix64(State) % (Mask ? 2 : 20));
      Pointers.push_back(Ints.back().data());
    }
  }
};

uint32_t bitsOf(float F) {
  uint32_t B;
  std::memcpy(&B, &F, sizeof B);
  return B;
}

} // namespace

TEST(EvictionMLPTest, WidenedModelGivesEveryColumnTheLinearLogit) {
  Model Linear = loadShipped();
  ASSERT_EQ(Linear.Layers.size(), 1u);
  Expected<Model> Wide = widenToMLP(Linear, 6, 7);
  ASSERT_TRUE(static_cast<bool>(Wide)) << toString(Wide.takeError());
  ASSERT_EQ(Wide->Layers.size(), 2u);
  EXPECT_EQ(Wide->Layers[0].Out, 8u);
  EXPECT_EQ(Wide->Layers[0].Act, Activation::Relu);
  EXPECT_EQ(Wide->Layers[1].In, 8u);
  EXPECT_EQ(Wide->Layers[1].Out, 1u);
  EXPECT_FALSE(static_cast<bool>(Wide->validate()));

  ModelEvaluator A(Linear), B(*Wide);
  uint64_t State = 3;
  size_t Differing = 0, Negative = 0, Positive = 0;
  for (int Round = 0; Round < 2000; ++Round) {
    Buffers In(Linear, State);
    for (size_t C = 0; C < Linear.Decision.Columns; ++C) {
      float L = A.evaluate(In.Pointers.data(), C);
      float W = B.evaluate(In.Pointers.data(), C);
      ASSERT_TRUE(std::isfinite(L));
      // +0 and -0 are one logit to the argmax; every other value to the bit.
      if (L == 0)
        EXPECT_EQ(W, 0.0f);
      else
        EXPECT_EQ(bitsOf(L), bitsOf(W)) << "round " << Round << " column " << C;
      Differing += L != W;
      (L < 0 ? Negative : Positive) += 1;
    }
  }
  EXPECT_EQ(Differing, 0u);
  // Both halves of relu(s) - relu(-s) were exercised.
  EXPECT_GT(Negative, 1000u);
  EXPECT_GT(Positive, 50u);
}

TEST(EvictionMLPTest, ExtraUnitsComeFromTheSeedAndCountForNothing) {
  Model Linear = loadShipped();
  Expected<Model> A = widenToMLP(Linear, 3, 11), B = widenToMLP(Linear, 3, 11),
                  C = widenToMLP(Linear, 3, 12);
  ASSERT_TRUE(A && B && C);
  EXPECT_EQ(A->Layers[0].Weights, B->Layers[0].Weights);
  EXPECT_NE(A->Layers[0].Weights, C->Layers[0].Weights);
  size_t In = Linear.Layers[0].In;
  float Range = 1 / std::sqrt(static_cast<float>(In));
  for (size_t K = 2 * In; K < A->Layers[0].Weights.size(); ++K) {
    EXPECT_GE(A->Layers[0].Weights[K], -Range);
    EXPECT_LT(A->Layers[0].Weights[K], Range);
  }
  EXPECT_EQ(A->Layers[1].Weights, (std::vector<float>{1, -1, 0, 0, 0}));
}

TEST(EvictionMLPTest, OnlyALinearPerColumnModelWidens) {
  Model Linear = loadShipped();
  Linear.Metadata.Name = "evict";
  Expected<Model> Wide = widenToMLP(Linear, 2, 1);
  ASSERT_TRUE(static_cast<bool>(Wide));
  Expected<Model> Again = widenToMLP(*Wide, 2, 1);
  ASSERT_FALSE(static_cast<bool>(Again));
  EXPECT_EQ(toString(Again.takeError()),
            "'evict': only a per-column model with one linear layer widens "
            "into an MLP (it has 2 layers)");
}

TEST(EvictionMLPTest, SearchedParametersRoundTripInOrder) {
  Model Linear = loadShipped();
  // One layer: its weights only, as the trainer always searched.
  std::vector<float> P = getSearchedParameters(Linear);
  EXPECT_EQ(P, Linear.Layers[0].Weights);

  Expected<Model> Wide = widenToMLP(Linear, 2, 5);
  ASSERT_TRUE(static_cast<bool>(Wide));
  size_t In = Linear.Layers[0].In;
  std::vector<float> Q = getSearchedParameters(*Wide);
  // Layer 0's 4 x In weights, layer 1's 4, then layer 0's 4 biases.
  ASSERT_EQ(Q.size(), 4 * In + 4 + 4);
  EXPECT_EQ(Q[4 * In], 1.0f);
  EXPECT_EQ(Q[4 * In + 1], -1.0f);
  EXPECT_EQ(Q[4 * In + 4], Linear.Layers[0].Bias[0]);
  EXPECT_EQ(Q[4 * In + 5], -Linear.Layers[0].Bias[0]);

  std::vector<float> Moved(Q.size());
  for (size_t K = 0; K < Q.size(); ++K)
    Moved[K] = static_cast<float>(K) * 0.5f;
  Model M = withSearchedParameters(*Wide, Moved);
  EXPECT_EQ(getSearchedParameters(M), Moved);
  EXPECT_EQ(M.Layers[0].Weights[1], 0.5f);
  EXPECT_EQ(M.Layers[0].Bias[3], static_cast<float>(4 * In + 4 + 3) * 0.5f);
  // The last layer's bias is not searched: it moves every column alike.
  EXPECT_EQ(M.Layers[1].Bias[0], Wide->Layers[1].Bias[0]);
}
