//===- ModelRunnerTest.cpp - The model runner contract --------------------===//

#include "mlgo/Runner/ModelRunner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace mlgo;

namespace {

/// A model that knows only input 1 ("b", two floats) and returns their sum
/// as int64; input 0 is offered by the compiler but unknown to the model.
class SumRunner final : public ModelRunner {
public:
  SumRunner(std::vector<TensorSpec> Inputs)
      : ModelRunner(Kind::Custom, std::move(Inputs)) {
    setUpBufferForTensor(0, InputSpecs[0], nullptr);
    setUpBufferForTensor(1, InputSpecs[1], Known);
  }
  void *evaluateUntyped() override {
    Out = static_cast<int64_t>(Known[0] + Known[1]);
    return &Out;
  }
  float Known[2] = {0, 0};
  int64_t Out = 0;
};

std::vector<TensorSpec> specs() {
  return {TensorSpec::createSpec<int64_t>("a", {3}),
          TensorSpec::createSpec<float>("b", {2})};
}

TEST(ModelRunnerTest, ModelBuffersAreTheModelsOwn) {
  SumRunner R(specs());
  float *B = R.getTensor<float>(1);
  EXPECT_EQ(B, R.Known);
  B[0] = 1.5f;
  B[1] = 2.5f;
  EXPECT_EQ(R.evaluate<int64_t>(), 4);
}

TEST(ModelRunnerTest, UnknownInputsGetStableZeroedScratch) {
  SumRunner R(specs());
  int64_t *A = R.getTensor<int64_t>(0);
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(A[0], 0);
  EXPECT_EQ(A[2], 0);
  // Alignment suits the element type; writes are harmless to the model.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A) % alignof(int64_t), 0u);
  A[0] = A[1] = A[2] = -1;
  R.getTensor<float>(1)[0] = 3;
  EXPECT_EQ(R.evaluate<int64_t>(), 3);
  // Buffers don't move and evaluate() leaves inputs alone.
  EXPECT_EQ(R.getTensor<int64_t>(0), A);
  EXPECT_EQ(A[2], -1);
  EXPECT_EQ(R.getTensor<float>(1)[0], 3.0f);
}

TEST(ModelRunnerTest, NoInferenceHoldsFeatures) {
  NoInferenceRunner R(specs());
  ASSERT_EQ(R.getNumInputs(), 2u);
  EXPECT_EQ(R.getKind(), ModelRunner::Kind::NoInference);
  int64_t *A = R.getTensor<int64_t>(0);
  float *B = R.getTensor<float>(1);
  A[0] = 7;
  A[2] = 9;
  B[1] = 0.5f;
  EXPECT_EQ(R.getTensor<int64_t>(0)[0], 7);
  EXPECT_EQ(R.getTensor<int64_t>(0)[2], 9);
  EXPECT_EQ(R.getTensor<float>(1)[1], 0.5f);
  EXPECT_NE(static_cast<void *>(A), static_cast<void *>(B));
}

TEST(ModelRunnerDeathTest, NoInferenceMustNeverEvaluate) {
  NoInferenceRunner R(specs());
  EXPECT_DEATH(R.evaluate<int64_t>(), "must never be evaluated");
}

TEST(ModelRunnerTest, ModelSelectorIsMD5HighLow) {
  TensorSpec S = getModelSelectorSpec();
  EXPECT_EQ(S.toJSONString(), "{\"name\":\"_model_selector\",\"type\":"
                              "\"uint64_t\",\"port\":0,\"shape\":[2]}");
  uint64_t Buf[2];
  writeModelSelector("inline-oz", Buf);
  MD5::MD5Result H = MD5::hash(arrayRefFromStringRef("inline-oz"));
  EXPECT_EQ(Buf[0], H.high());
  EXPECT_EQ(Buf[1], H.low());
  // MD5("") = d41d8cd98f00b204e9800998ecf8427e; LLVM's high() and low() read
  // the digest's two halves as little-endian words.
  writeModelSelector("", Buf);
  EXPECT_EQ(Buf[0], 0x7e42f8ec980980e9ull);
  EXPECT_EQ(Buf[1], 0x04b2008fd98c1dd4ull);
}

} // namespace
