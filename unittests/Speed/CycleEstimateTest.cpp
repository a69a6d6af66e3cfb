//===- unittests/Speed/CycleEstimateTest.cpp - Cycles from simulation -----===//
//
// Reading callgrind's simulated events and weighting them into cycles, over
// made-up event lines (the runs themselves are lit tests, test/Speed).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/CycleEstimate.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo::speed;

namespace {

const char *AllEvents = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim";

TEST(CycleEstimateTest, ReadsEveryEvent) {
  Expected<SimulatedEvents> E = parseSimulatedEvents(
      AllEvents, "379038 75850 100702 162 50 45 162 30 44 25675 146 31 17");
  ASSERT_TRUE(bool(E)) << toString(E.takeError());
  EXPECT_EQ(E->Ir, 379038u);
  EXPECT_EQ(E->Dr, 75850u);
  EXPECT_EQ(E->Dw, 100702u);
  EXPECT_EQ(E->l1Misses(), 162u + 50 + 45);
  EXPECT_EQ(E->llMisses(), 162u + 30 + 44);
  EXPECT_EQ(E->Bc, 25675u);
  EXPECT_EQ(E->mispredicts(), 146u + 17);
  // 379038 + 10 x 257 + 100 x 236 + 15 x 163
  EXPECT_EQ(estimateCycles(*E), 379038u + 2570 + 23600 + 2445);
}

TEST(CycleEstimateTest, MissingTrailingCountsAreZero) {
  // Callgrind leaves trailing zeros out; without the simulation only Ir.
  Expected<SimulatedEvents> E = parseSimulatedEvents(AllEvents, "100 20 10");
  ASSERT_TRUE(bool(E)) << toString(E.takeError());
  EXPECT_EQ(E->Ir, 100u);
  EXPECT_EQ(E->Bim, 0u);
  EXPECT_EQ(estimateCycles(*E), 100u);
  E = parseSimulatedEvents("Ir", "12345");
  ASSERT_TRUE(bool(E)) << toString(E.takeError());
  EXPECT_EQ(estimateCycles(*E), 12345u);
}

TEST(CycleEstimateTest, SumsProcesses) {
  SimulatedEvents A, B;
  A.Ir = 10;
  A.DLmr = 1;
  B.Ir = 5;
  B.Bcm = 2;
  A += B;
  EXPECT_EQ(A.Ir, 15u);
  // 15 + 10 x 1 (an LL miss is an L1 miss too) + 100 x 1 + 15 x 2
  A.D1mr = 1;
  EXPECT_EQ(estimateCycles(A), 15u + 10 + 100 + 30);
}

TEST(CycleEstimateTest, NamesBadLines) {
  Expected<SimulatedEvents> E = parseSimulatedEvents("Ir Dr", "1 x");
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(toString(E.takeError()), "'x' is not the count of event Dr");
  E = parseSimulatedEvents("Ir", "1 2");
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(toString(E.takeError()), "2 counts for 1 events");
  E = parseSimulatedEvents("Dr Dw", "1 2");
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(toString(E.takeError()),
            "no Ir event (instructions executed) among 'Dr Dw'");
}

} // namespace
