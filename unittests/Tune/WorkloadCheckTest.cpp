//===- unittests/Tune/WorkloadCheckTest.cpp - A tune's gains, measured ----===//

#include "mlgo/Tune/WorkloadCheck.h"

#include "mlgo/Support/Error.h"

#include "gtest/gtest.h"

#include <map>

using namespace llvm;
using namespace mlgo;

namespace {

/// A program of additive modules: the untuned count, plus each tuned
/// module's delta, plus an interaction for pairs listed.
struct FakeProgram {
  uint64_t Untuned = 1000;
  std::vector<int64_t> Delta;
  std::map<std::vector<bool>, int64_t> Extra;
  std::vector<std::vector<bool>> Asked;

  Expected<uint64_t> operator()(const std::vector<bool> &Tuned) {
    Asked.push_back(Tuned);
    int64_t C = int64_t(Untuned);
    for (size_t I = 0; I < Tuned.size(); ++I)
      if (Tuned[I])
        C += Delta[I];
    auto It = Extra.find(Tuned);
    if (It != Extra.end())
      C += It->second;
    return uint64_t(C);
  }
};

TEST(WorkloadCheck, RevertsTheModulesMeasuredWorse) {
  FakeProgram P;
  P.Delta = {-30, +5, -10};
  Expected<WorkloadVerdict> V =
      verifyByModule(3, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Untuned, 1000u);
  EXPECT_EQ(V->AllTuned, 965u);
  EXPECT_EQ(V->Alone, (std::vector<uint64_t>{970, 1005, 990}));
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(V->Final, 960u);
  // Untuned, all, three alone, the final program.
  EXPECT_EQ(V->Runs, 6u);
  EXPECT_EQ(P.Asked.back(), (std::vector<bool>{true, false, true}));
}

TEST(WorkloadCheck, InteractionRevertsTheWorstAloneUntilNotWorse) {
  FakeProgram P;
  P.Delta = {-3, -1};
  // Together they are worse than the untuned program.
  P.Extra[{true, true}] = +10;
  Expected<WorkloadVerdict> V =
      verifyByModule(2, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->AllTuned, 1006u);
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true}));
  EXPECT_EQ(V->Final, 997u);
}

TEST(WorkloadCheck, OneModuleIsMeasuredOnce) {
  FakeProgram P;
  P.Delta = {+2};
  Expected<WorkloadVerdict> V =
      verifyByModule(1, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Runs, 2u);
  EXPECT_EQ(V->Reverted, std::vector<bool>{true});
  EXPECT_EQ(V->Final, 1000u);
}

TEST(WorkloadCheck, AMeasurementErrorStopsTheCheck) {
  Expected<WorkloadVerdict> V =
      verifyByModule(2, [&](const std::vector<bool> &T) -> Expected<uint64_t> {
        if (T[0] && T[1])
          return makeError("w.sh failed");
        return 7;
      });
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()), "w.sh failed");
}

} // namespace
