//===- unittests/Tune/SpeedObjectiveTest.cpp - Speed as an objective ------===//
//
// The speed objective over made-up costs: baseline trials answered from
// the stock costs without a measurement, an engine error made the trial's
// failure, delta the exact sum of the changed slots, apply and cost.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SpeedObjective.h"

#include "mlgo/Support/Error.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

/// Module 1 under any policy costs 700 and decided one site; module 2
/// fails to compile.
Expected<SpeedCost> madeUp(const Trial &T) {
  if (T.Module == 2)
    return makeError("c.c: the compiler crashed");
  SpeedCost C;
  C.Instructions = T.Module == 1 ? 700 : 90;
  DecidedSite S;
  S.Site.Caller = "f";
  S.Site.Callee = "g";
  C.Sites.push_back(S);
  return C;
}

TEST(SpeedObjectiveTest, BaselineTrialsAreAnsweredWithoutAMeasurement) {
  unsigned Calls = 0;
  SpeedObjective Obj(
      [&](const Trial &T) {
        ++Calls;
        return madeUp(T);
      },
      {100, 800, 50});
  Trial B;
  B.Module = 1;
  B.Baseline = true;
  Trial M;
  M.Module = 1;
  Expected<std::vector<Measurement>> R = Obj.measure({B, M}, "test");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(Calls, 1u);
  ASSERT_EQ(R->size(), 2u);
  EXPECT_TRUE((*R)[0].Outcome.Ok);
  EXPECT_EQ((*R)[0].getCost(), 800u);
  EXPECT_TRUE((*R)[0].Trajectory.empty());
  EXPECT_TRUE((*R)[1].Outcome.Ok);
  EXPECT_EQ((*R)[1].getCost(), 700u);
  ASSERT_EQ((*R)[1].Trajectory.size(), 1u);
  EXPECT_EQ((*R)[1].Trajectory[0].Site.Callee, "g");
}

TEST(SpeedObjectiveTest, AnEngineErrorIsTheTrialsFailure) {
  SpeedObjective Obj(madeUp, {100, 800, 50});
  Trial T;
  T.Module = 2;
  Expected<std::vector<Measurement>> R = Obj.measure({T}, "test");
  ASSERT_TRUE(bool(R));
  EXPECT_FALSE((*R)[0].Outcome.Ok);
  EXPECT_EQ((*R)[0].Outcome.Error, "c.c: the compiler crashed");
}

TEST(SpeedObjectiveTest, WithoutTrajectoryNoSitesAreKept) {
  SpeedObjective Obj(madeUp, {100, 800, 50});
  Trial T;
  T.Module = 0;
  Expected<std::vector<Measurement>> R =
      Obj.measure({T}, "test", /*WithTrajectory=*/false);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ((*R)[0].getCost(), 90u);
  EXPECT_TRUE((*R)[0].Trajectory.empty());
}

TEST(SpeedObjectiveTest, DeltaIsTheSumOfTheChangedModulesCosts) {
  SpeedObjective Obj(madeUp, {100, 800, 50});
  EXPECT_EQ(Obj.cost(0), 950u);
  CompileOutcome Faster, Slower;
  Faster.Ok = Slower.Ok = true;
  Faster.TextSize = 700; // module 1: -100
  Slower.TextSize = 130; // module 0: +30
  EXPECT_EQ(Obj.delta(0, {{1, &Faster}}), -100);
  EXPECT_EQ(Obj.delta(0, {{1, &Faster}, {0, &Slower}}), -70);
  // Delta changes nothing.
  EXPECT_EQ(Obj.cost(0), 950u);
  Obj.apply(0, {{1, &Faster}});
  EXPECT_EQ(Obj.cost(0), 850u);
  EXPECT_EQ(Obj.total(1), 850u);
  // Judged against the slots as they are now.
  EXPECT_EQ(Obj.delta(0, {{1, &Faster}}), 0);
  EXPECT_EQ(Obj.delta(0, {{0, &Slower}}), 30);
}

} // namespace
