//===- PolicyTest.cpp - The built-in serve policies -----------------------===//

#include "mlgo/Protocol/ServePolicy.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace llvm;
using namespace mlgo;

namespace {

/// A reader positioned on the first observation of a one-observation log
/// with the given features and values.
struct OneObservation {
  std::unique_ptr<LogReader> Reader;
  const LogRecord *Obs = nullptr;

  OneObservation(std::vector<TensorSpec> Features, TensorSpec Advice,
                 const std::vector<const void *> &Values) {
    std::string Bytes;
    {
      LogWriter W(std::make_unique<raw_string_ostream>(Bytes), Features,
                  std::nullopt, Advice);
      W.switchContext("f");
      W.logObservation(Values);
    }
    auto R = LogReader::create(
        createMemorySource(MemoryBuffer::getMemBufferCopy(Bytes)), "test");
    EXPECT_TRUE(!!R);
    Reader = std::move(*R);
    EXPECT_TRUE(!!Reader->next()); // The context.
    auto Rec = Reader->next();
    EXPECT_TRUE(!!Rec);
    Obs = &*Rec;
  }
};

// The protocol library alone knows the rule policies only; "model" is
// registered by the model library (unittests/Model/ModelPolicyTest.cpp).
TEST(PolicyTest, UnknownPolicyListsTheKnownOnes) {
  auto P = createPolicy("sometimes");
  ASSERT_FALSE(!!P);
  EXPECT_EQ(toString(P.takeError()),
            "unknown policy 'sometimes' (known: alternate, always, "
            "first-valid, never)");
  auto A = createPolicy("always=3");
  ASSERT_FALSE(!!A);
  EXPECT_EQ(toString(A.takeError()), "policy 'always' takes no argument");
}

TEST(PolicyTest, AdviceIsWrittenInTheAdviceType) {
  TensorSpec Advice = TensorSpec::createSpec<float>("a", {3});
  int64_t X = 0;
  OneObservation O({TensorSpec::createSpec<int64_t>("x", {1})}, Advice, {&X});
  auto P = createPolicy("always");
  ASSERT_TRUE(!!P);
  LogHeader H = O.Reader->getHeader();
  ASSERT_FALSE((*P)->begin(H));
  float Out[3] = {0, 0, 0};
  ASSERT_FALSE(
      (*P)->decide(H, *O.Obs, *O.Reader, reinterpret_cast<char *>(Out)));
  EXPECT_EQ(Out[0], 1.0f);
  EXPECT_EQ(Out[2], 1.0f);
}

TEST(PolicyTest, AlternateCountsAcrossTheRun) {
  int64_t X = 0;
  OneObservation O({TensorSpec::createSpec<int64_t>("x", {1})},
                   TensorSpec::createSpec<int64_t>("a", {1}), {&X});
  auto P = createPolicy("alternate");
  ASSERT_TRUE(!!P);
  LogHeader H = O.Reader->getHeader();
  std::vector<int64_t> Seen;
  for (int I = 0; I < 5; ++I) {
    int64_t Out = -1;
    ASSERT_FALSE(
        (*P)->decide(H, *O.Obs, *O.Reader, reinterpret_cast<char *>(&Out)));
    Seen.push_back(Out);
  }
  EXPECT_EQ(Seen, (std::vector<int64_t>{1, 0, 1, 0, 1}));
}

TEST(PolicyTest, FirstValidPicksTheFirstMaskedIndexElseTheCandidate) {
  TensorSpec Mask = TensorSpec::createSpec<int64_t>("mask", {1, 33});
  TensorSpec Other = TensorSpec::createSpec<float>("weight", {1, 33});
  TensorSpec Advice = TensorSpec::createSpec<int64_t>("index_to_evict", {1});
  auto P = createPolicy("first-valid");
  ASSERT_TRUE(!!P);
  for (auto [Set, Want] : {std::pair<int, int64_t>{5, 5}, {-1, 32}}) {
    int64_t M[33] = {};
    float F[33] = {};
    if (Set >= 0) {
      M[Set] = 1;
      M[Set + 3] = 1;
    }
    OneObservation O({Other, Mask}, Advice, {F, M});
    LogHeader H = O.Reader->getHeader();
    ASSERT_FALSE((*P)->begin(H));
    int64_t Out = -1;
    ASSERT_FALSE(
        (*P)->decide(H, *O.Obs, *O.Reader, reinterpret_cast<char *>(&Out)));
    EXPECT_EQ(Out, Want);
  }
}

TEST(PolicyTest, BeginRejectsAStreamWithoutAdvice) {
  LogHeader H;
  H.Features = {TensorSpec::createSpec<int64_t>("x", {1})};
  auto P = createPolicy("never");
  ASSERT_TRUE(!!P);
  EXPECT_EQ(toString((*P)->begin(H)),
            "the compiler's header declares no 'advice' tensor; is this an "
            "interactive stream?");
}

} // namespace
