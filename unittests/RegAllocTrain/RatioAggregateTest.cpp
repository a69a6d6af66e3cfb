//===- unittests/RegAllocTrain/RatioAggregateTest.cpp - Worst-case goal ---===//
//
// RatioAggregate, how `mlgo regalloc train --aggregate` turns the ratios
// model / LLVM's advisor of the packages into one objective: the mean (what
// every earlier model was trained on, bit for bit), the worst package, or
// the smooth maximum between them, with exact values, the limits of the
// temperature, and the packages summed before they are aggregated.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/EvictionScorer.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

#include <cmath>
#include <vector>

using namespace llvm;
using namespace mlgo::regalloc;

namespace {

using Kind = RatioAggregate::Kind;

RatioAggregate agg(Kind K, double T = 0.01) { return {K, T}; }

TEST(RatioAggregateTest, MeanMaxAndSoftmaxOfThreeRatios) {
  std::vector<double> R = {0.98, 1.0, 1.02};
  EXPECT_EQ(aggregateRatios(R, agg(Kind::Mean)), (0.98 + 1.0 + 1.02) / 3);
  EXPECT_EQ(aggregateRatios(R, agg(Kind::Max)), 1.02);
  // 1.02 + 0.01 log((e^-4 + e^-2 + 1) / 3), computed apart.
  EXPECT_NEAR(aggregateRatios(R, agg(Kind::Softmax)), 1.010443193398318, 1e-15);
}

TEST(RatioAggregateTest, SoftmaxOfEqualRatiosIsTheRatio) {
  std::vector<double> R = {0.99, 0.99, 0.99, 0.99};
  EXPECT_EQ(aggregateRatios(R, agg(Kind::Softmax)), 0.99);
  EXPECT_EQ(aggregateRatios(R, agg(Kind::Softmax, 1e-9)), 0.99);
}

TEST(RatioAggregateTest, SoftmaxGoesFromTheMeanToTheMax) {
  std::vector<double> R = {0.97, 1.001, 0.99, 0.995};
  double Mean = aggregateRatios(R, agg(Kind::Mean));
  EXPECT_NEAR(aggregateRatios(R, agg(Kind::Softmax, 1e6)), Mean, 1e-9);
  // Between max - T log(n) and max, whatever the temperature; at a tiny
  // one no exponent overflows.
  for (double T : {1.0, 0.01, 1e-4, 1e-300}) {
    double S = aggregateRatios(R, agg(Kind::Softmax, T));
    EXPECT_LE(S, 1.001) << T;
    EXPECT_GE(S, 1.001 - T * std::log(4.0)) << T;
    EXPECT_GE(S, Mean) << T;
  }
}

TEST(RatioAggregateTest, APackageIsItsSumsBeforeTheAggregate) {
  // a: 90/100 and 110/100 make 1.0 (not the mean of 0.9 and 1.1 twice);
  // b: 0.99; c: 1.03; d's default is 0: not counted.
  std::vector<ScoredModule> Set(5);
  const char *Pkg[] = {"a", "c", "b", "a", "d"};
  double Default[] = {100, 100, 100, 100, 0};
  std::vector<double> Scores = {90, 103, 99, 110, 5};
  for (size_t I = 0; I < Set.size(); ++I) {
    Set[I].Package = Pkg[I];
    Set[I].Default = Default[I];
  }
  for (EvictionReward Speed :
       {EvictionReward::Speed, EvictionReward::Instructions}) {
    EXPECT_EQ(evictionObjective(Scores, Set, Speed), (1.0 + 0.99 + 1.03) / 3);
    EXPECT_EQ(evictionObjective(Scores, Set, Speed, agg(Kind::Max)), 1.03);
    EXPECT_NEAR(evictionObjective(Scores, Set, Speed, agg(Kind::Softmax)),
                1.0196727161508932, 1e-15);
  }
  // An empty set is LLVM's advisor itself.
  EXPECT_EQ(evictionObjective({}, {}, EvictionReward::Speed, agg(Kind::Max)),
            1.0);
}

TEST(RatioAggregateTest, NamesParseAndPrint) {
  for (Kind K : {Kind::Mean, Kind::Max, Kind::Softmax}) {
    Expected<Kind> P = parseRatioAggregate(getRatioAggregateName(K));
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    EXPECT_EQ(*P, K);
  }
  EXPECT_EQ(getRatioAggregateName(Kind::Softmax), "softmax");
  Expected<Kind> Bad = parseRatioAggregate("worst");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "unknown aggregate 'worst' (mean, max or softmax)");
}

} // namespace
