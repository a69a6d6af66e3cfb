//===- unittests/TrainCore/GreedySearchTest.cpp ---------------------------===//
//
// The greedy search's bookkeeping on made-up compile outcomes.
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/GreedySearch.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

using Flips = std::vector<uint32_t>;
using Outcome = std::optional<GreedySearch::Outcome>;

TEST(GreedySearchTest, KeepsWhatShrinksAndTriesTheRestOnTop) {
  GreedySearch S;
  S.addModule(7, {0, 1, 2}, 100, 3);
  std::vector<GreedySearch::Try> T = S.nextStep();
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Module, 7u);
  EXPECT_EQ(T[0].Flips, Flips{0});
  S.record({GreedySearch::Outcome{90, 3}}); // kept
  T = S.nextStep();
  EXPECT_EQ(T[0].Flips, (Flips{0, 1}));
  S.record({GreedySearch::Outcome{90, 3}}); // no smaller: dropped
  T = S.nextStep();
  EXPECT_EQ(T[0].Flips, (Flips{0, 2}));
  S.record({Outcome()}); // failed: dropped
  EXPECT_TRUE(S.nextStep().empty());
  EXPECT_EQ(S.getFlips(0), Flips{0});
  EXPECT_EQ(S.getSize(0), 90u);
  EXPECT_TRUE(S.isImproved(0));
  EXPECT_EQ(S.getTries(), 3u);
}

TEST(GreedySearchTest, ModulesAdvanceInLockstep) {
  GreedySearch S;
  S.addModule(0, {0, 1}, 50, 2);
  S.addModule(1, {4}, 70, 9);
  S.addModule(2, {}, 10, 0);
  std::vector<GreedySearch::Try> T = S.nextStep();
  ASSERT_EQ(T.size(), 2u);
  EXPECT_EQ(T[0].Module, 0u);
  EXPECT_EQ(T[1].Module, 1u);
  S.record({Outcome(), GreedySearch::Outcome{60, 9}});
  T = S.nextStep();
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Module, 0u);
  EXPECT_EQ(T[0].Flips, Flips{1});
  S.record({Outcome()});
  EXPECT_TRUE(S.nextStep().empty());
  EXPECT_EQ(S.getTotalSize(), 50u + 60u + 10u);
  EXPECT_FALSE(S.isImproved(0));
  EXPECT_TRUE(S.isImproved(1));
}

// A kept inversion that makes the module take fewer decisions leaves later
// candidates without a decision to invert: they are skipped.
TEST(GreedySearchTest, SkipsCandidatesPastTheDecisionCount) {
  GreedySearch S;
  S.addModule(0, {1, 5, 6, 8}, 100, 10);
  S.nextStep();
  S.record({GreedySearch::Outcome{80, 6}}); // now 6 decisions
  std::vector<GreedySearch::Try> T = S.nextStep();
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Flips, (Flips{1, 5}));
  S.record({Outcome()});
  EXPECT_TRUE(S.nextStep().empty()) << "6 and 8 are past the 6 decisions";
  EXPECT_EQ(S.getTries(), 2u);
}

} // namespace
