//===- unittests/Speed/BenchStatsTest.cpp - Statistics of timed runs ------===//
//
// The statistics of `mlgo bench` over made-up timings: medians, paired
// ratios, the seeded bootstrap interval (exact values, computed by hand
// from splitMix64's draws), verdicts, the stopping rule and the order of
// the builds in a round.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/BenchStats.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlgo::speed;

namespace {

TEST(BenchStatsTest, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
  // An outlier moves a mean, not the median.
  EXPECT_EQ(median({1, 1, 1, 1000}), 1);
}

TEST(BenchStatsTest, RatiosPairRounds) {
  EXPECT_EQ(pairedRatios({2, 3, 1}, {1, 3, 4}),
            (std::vector<double>{2, 1, 0.25}));
  std::vector<double> Zero = pairedRatios({0, 1}, {0, 0});
  EXPECT_EQ(Zero[0], 1);
  EXPECT_EQ(Zero[1], std::numeric_limits<double>::infinity());
}

TEST(BenchStatsTest, BootstrapIntervalIsExact) {
  // Five rounds; the 50th and 1949th of 2000 sorted resample medians.
  RatioEstimate E = bootstrapMedian({1.0, 1.25, 0.75, 1.5, 0.5}, 1);
  EXPECT_EQ(E.Median, 1.0);
  EXPECT_EQ(E.CI.Low, 0.5);
  EXPECT_EQ(E.CI.High, 1.5);
  // An even count: medians are means of two values.
  E = bootstrapMedian({1.0, 1.25, 0.75, 1.5, 0.5, 2.0}, 7);
  EXPECT_EQ(E.Median, 1.125);
  EXPECT_EQ(E.CI.Low, 0.625);
  EXPECT_EQ(E.CI.High, 1.75);
  // 100 resamples: the 3rd and 96th (round(100 x 0.025) = 3, 0-based).
  E = bootstrapMedian({2.0, 2.5, 3.0, 3.5, 4.0, 3.0, 3.0}, 1, 100);
  EXPECT_EQ(E.Median, 3.0);
  EXPECT_EQ(E.CI.Low, 2.5);
  EXPECT_EQ(E.CI.High, 3.5);
}

TEST(BenchStatsTest, BootstrapIsAFunctionOfTimingsAndSeed) {
  std::vector<double> Ratios;
  for (int I = 0; I < 40; ++I)
    Ratios.push_back(1 + 0.01 * ((I * 7) % 11) - 0.05);
  RatioEstimate A = bootstrapMedian(Ratios, 5), B = bootstrapMedian(Ratios, 5);
  EXPECT_EQ(A.CI.Low, B.CI.Low);
  EXPECT_EQ(A.CI.High, B.CI.High);
  // The interval holds the median; identical ratios give a point.
  EXPECT_LE(A.CI.Low, A.Median);
  EXPECT_GE(A.CI.High, A.Median);
  RatioEstimate Same = bootstrapMedian({1.5, 1.5, 1.5}, 3);
  EXPECT_EQ(Same.CI.Low, 1.5);
  EXPECT_EQ(Same.CI.High, 1.5);
  EXPECT_EQ(Same.CI.width(), 0);
}

TEST(BenchStatsTest, ADifferenceIsCalledOnlyOutsideTheInterval) {
  EXPECT_EQ(judge({1.01, 1.02}), Verdict::Slower);
  EXPECT_EQ(judge({0.9, 0.99}), Verdict::Faster);
  EXPECT_EQ(judge({0.9, 1.0}), Verdict::NoMeasurableDifference);
  EXPECT_EQ(judge({1.0, 3.0}), Verdict::NoMeasurableDifference);
  EXPECT_STREQ(describe(Verdict::NoMeasurableDifference),
               "no measurable difference");
  EXPECT_STREQ(describe(Verdict::Slower), "slower");
  EXPECT_STREQ(describe(Verdict::Faster), "faster");
}

TEST(BenchStatsTest, StopsWhenNarrowOrAtACap) {
  StoppingRule Rule;
  Rule.CIWidth = 0.02;
  Rule.MinRounds = 5;
  Rule.MaxRounds = 10;
  Rule.MaxSeconds = 60;
  RatioEstimate Narrow{1.0, {0.995, 1.005}}, Wide{1.0, {0.9, 1.1}};
  // Narrow enough, but too few rounds.
  EXPECT_EQ(shouldStop(Rule, 4, 1, {Narrow}), StopReason::KeepGoing);
  EXPECT_EQ(shouldStop(Rule, 5, 1, {Narrow}), StopReason::Converged);
  // Every build must be narrow.
  EXPECT_EQ(shouldStop(Rule, 5, 1, {Narrow, Wide}), StopReason::KeepGoing);
  EXPECT_EQ(shouldStop(Rule, 10, 1, {Narrow, Wide}), StopReason::MaxRounds);
  EXPECT_EQ(shouldStop(Rule, 6, 60, {Wide}), StopReason::MaxSeconds);
  // Converging on the last allowed round is converging.
  EXPECT_EQ(shouldStop(Rule, 10, 60, {Narrow}), StopReason::Converged);
  // No caps: only the width stops it.
  Rule.MaxRounds = 0;
  Rule.MaxSeconds = 0;
  EXPECT_EQ(shouldStop(Rule, 1000, 1e6, {Wide}), StopReason::KeepGoing);
  EXPECT_EQ(describe(StopReason::Converged, Rule),
            "every interval narrower than 0.02");
  Rule.MaxRounds = 10;
  EXPECT_EQ(describe(StopReason::MaxRounds, Rule), "at the cap of 10 rounds");
}

TEST(BenchStatsTest, RoundOrderIsASeededPermutation) {
  uint64_t State = 1;
  EXPECT_EQ(roundOrder(3, State), (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(roundOrder(3, State), (std::vector<unsigned>{2, 1, 0}));
  State = 42;
  EXPECT_EQ(roundOrder(4, State), (std::vector<unsigned>{2, 0, 3, 1}));
  // Over many rounds each build runs first about as often as the other.
  State = 9;
  unsigned First[2] = {0, 0};
  for (int I = 0; I < 1000; ++I)
    ++First[roundOrder(2, State)[0]];
  EXPECT_EQ(First[0], 479u);
  EXPECT_EQ(First[1], 521u);
}

} // namespace
