//===- unittests/Tune/WorkloadCheckTest.cpp - A tune's gains, measured ----===//

#include "mlgo/Tune/WorkloadCheck.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"

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

  Expected<speed::WorkloadMeasure> operator()(const std::vector<bool> &Tuned) {
    Asked.push_back(Tuned);
    int64_t C = int64_t(Untuned);
    for (size_t I = 0; I < Tuned.size(); ++I)
      if (Tuned[I])
        C += Delta[I];
    auto It = Extra.find(Tuned);
    if (It != Extra.end())
      C += It->second;
    speed::WorkloadMeasure M;
    M.Count = uint64_t(C);
    return M;
  }
};

std::vector<uint64_t> counts(const std::vector<speed::WorkloadMeasure> &Ms) {
  std::vector<uint64_t> C;
  for (const speed::WorkloadMeasure &M : Ms)
    C.push_back(M.Count);
  return C;
}

/// A program timed against the untuned one: the ratio's median and
/// interval of each variant asked for (the untuned one: 1 [1, 1]).
struct FakeTimes {
  std::map<std::vector<bool>, speed::RatioEstimate> Ratio;
  std::vector<std::vector<bool>> Asked;

  Expected<speed::WorkloadMeasure> operator()(const std::vector<bool> &Tuned) {
    Asked.push_back(Tuned);
    speed::WorkloadMeasure M;
    M.Ratio = speed::RatioEstimate();
    if (llvm::is_contained(Tuned, true)) {
      M.Ratio = Ratio.at(Tuned);
      M.Rounds = 10;
    }
    return M;
  }
};

speed::RatioEstimate ratio(double Median, double Low, double High) {
  speed::RatioEstimate E;
  E.Median = Median;
  E.CI = {Low, High};
  return E;
}

TEST(WorkloadCheck, RevertsTheModulesMeasuredWorse) {
  FakeProgram P;
  P.Delta = {-30, +5, -10};
  Expected<WorkloadVerdict> V =
      verifyByModule(3, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Untuned.Count, 1000u);
  EXPECT_EQ(V->AllTuned.Count, 965u);
  EXPECT_EQ(counts(V->Alone), (std::vector<uint64_t>{970, 1005, 990}));
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true, false}));
  EXPECT_EQ(V->Final.Count, 960u);
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
  EXPECT_EQ(V->AllTuned.Count, 1006u);
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true}));
  EXPECT_EQ(V->Final.Count, 997u);
}

TEST(WorkloadCheck, OneModuleIsMeasuredOnce) {
  FakeProgram P;
  P.Delta = {+2};
  Expected<WorkloadVerdict> V =
      verifyByModule(1, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Runs, 2u);
  EXPECT_EQ(V->Reverted, std::vector<bool>{true});
  EXPECT_EQ(V->Final.Count, 1000u);
}

TEST(WorkloadCheck, AMeasurementErrorStopsTheCheck) {
  Expected<WorkloadVerdict> V = verifyByModule(
      2, [&](const std::vector<bool> &T) -> Expected<speed::WorkloadMeasure> {
        if (T[0] && T[1])
          return makeError("w.sh failed");
        return speed::WorkloadMeasure();
      });
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()), "w.sh failed");
}

TEST(WorkloadCheck, ATieInCountIsKept) {
  FakeProgram P;
  P.Delta = {0};
  Expected<WorkloadVerdict> V =
      verifyByModule(1, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Reverted, std::vector<bool>{false});
}

TEST(WorkloadCheck, UnderTimeOnlyAnIntervalBelowOneIsKept) {
  FakeTimes P;
  // Faster, no measurable difference though its median is lower, slower.
  P.Ratio[{true, true, true}] = ratio(0.97, 0.95, 0.99);
  P.Ratio[{true, false, false}] = ratio(0.96, 0.94, 0.98);
  P.Ratio[{false, true, false}] = ratio(0.98, 0.95, 1.01);
  P.Ratio[{false, false, true}] = ratio(1.03, 1.01, 1.05);
  Expected<WorkloadVerdict> V =
      verifyByModule(3, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true, true}));
  // The final program is the first module alone, measured once already
  // and benched again as the file's program (its own bench decides).
  EXPECT_EQ(P.Asked.back(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(V->Runs, 6u);
  EXPECT_EQ(V->Final.Ratio->Median, 0.96);
}

TEST(WorkloadCheck, UnderTimeAFinalProgramNotFasterRevertsTheHighestMedian) {
  FakeTimes P;
  P.Ratio[{true, true}] = ratio(0.995, 0.98, 1.01);
  P.Ratio[{true, false}] = ratio(0.97, 0.96, 0.98);
  P.Ratio[{false, true}] = ratio(0.98, 0.97, 0.99);
  Expected<WorkloadVerdict> V =
      verifyByModule(2, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  // Both faster alone, together not: the one of the higher median goes.
  EXPECT_EQ(V->Reverted, (std::vector<bool>{false, true}));
  EXPECT_EQ(V->Final.Ratio->Median, 0.97);
  EXPECT_EQ(V->Runs, 5u);
}

TEST(WorkloadCheck, UnderTimeNothingFasterLeavesTheUntunedProgram) {
  FakeTimes P;
  P.Ratio[{true}] = ratio(0.99, 0.97, 1.002);
  Expected<WorkloadVerdict> V =
      verifyByModule(1, [&](const auto &T) { return P(T); });
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->Reverted, std::vector<bool>{true});
  EXPECT_EQ(V->Final.Rounds, 0u);
  EXPECT_EQ(V->Final.Ratio->Median, 1.0);
}

} // namespace
