//===- unittests/Tune/SpeedObjectiveTest.cpp - Speed as an objective ------===//
//
// The speed objective over made-up costs: every trial measured by the
// engine, its outcome the Measurement's Detail and its cost in tenths, an
// engine error made the trial's failure, delta the exact sum of the
// changed slots, apply and cost.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SpeedObjective.h"

#include "mlgo/Support/Error.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

/// Module 1 under any policy costs 700.3 and decided one site; module 2
/// fails to compile.
Expected<SpeedOutcome> madeUp(const Trial &T) {
  if (T.Module == 2)
    return makeError("c.c: the compiler crashed");
  SpeedOutcome C;
  C.Instructions = T.Module == 1 ? 700.3 : 90;
  C.FunctionCost["f"] = C.Instructions;
  C.Object = "m" + std::to_string(T.Module) + ".o";
  DecidedSite S;
  S.Site.Caller = "f";
  S.Site.Callee = "g";
  C.Sites.push_back(S);
  return C;
}

/// The objective's slots set to \p Costs (tenths), as the baselines do.
void setSlots(SpeedObjective &Obj, ArrayRef<uint64_t> Costs) {
  std::vector<CompileOutcome> Base(Costs.size());
  std::vector<SlotChange> Changes;
  for (size_t I = 0; I < Costs.size(); ++I) {
    Base[I].Ok = true;
    Base[I].TextSize = Costs[I];
    Changes.push_back({I, &Base[I]});
  }
  Obj.apply(0, Changes);
}

TEST(SpeedObjectiveTest, EveryTrialIsMeasuredWithItsOutcome) {
  unsigned Calls = 0;
  SpeedObjective Obj(
      [&](const Trial &T) {
        ++Calls;
        return madeUp(T);
      },
      3);
  Trial B;
  B.Module = 1;
  B.Baseline = true;
  Trial M;
  M.Module = 0;
  Expected<std::vector<Measurement>> R = Obj.measure({B, M}, "test");
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(Calls, 2u);
  ASSERT_EQ(R->size(), 2u);
  EXPECT_TRUE((*R)[0].Outcome.Ok);
  // Tenths of an instruction.
  EXPECT_EQ((*R)[0].getCost(), 7003u);
  ASSERT_EQ((*R)[0].Trajectory.size(), 1u);
  EXPECT_EQ((*R)[0].Trajectory[0].Site.Callee, "g");
  const SpeedOutcome &O = SpeedObjective::getOutcome((*R)[0]);
  EXPECT_EQ(O.Instructions, 700.3);
  EXPECT_EQ(O.FunctionCost.at("f"), 700.3);
  EXPECT_EQ(O.Object, "m1.o");
  EXPECT_EQ((*R)[1].getCost(), 900u);
  EXPECT_EQ(SpeedObjective::getOutcome((*R)[1]).Object, "m0.o");
}

TEST(SpeedObjectiveTest, CostsAreTenthsThatKeepTheOrder) {
  // The speed cache holds instructions to a tenth: two values that differ
  // there differ in the cost, in the same direction; equal ones are equal.
  EXPECT_EQ(getSpeedCost(0), 0u);
  EXPECT_EQ(getSpeedCost(0.1), 1u);
  EXPECT_EQ(getSpeedCost(178115.0), 1781150u);
  EXPECT_EQ(getSpeedCost(123456789.3), 1234567893u);
  EXPECT_LT(getSpeedCost(174062.9), getSpeedCost(174063.0));
  EXPECT_EQ(getSpeedCost(0.1 + 0.2), getSpeedCost(0.3));
}

TEST(SpeedObjectiveTest, AnEngineErrorIsTheTrialsFailure) {
  SpeedObjective Obj(madeUp, 3);
  Trial T;
  T.Module = 2;
  Expected<std::vector<Measurement>> R = Obj.measure({T}, "test");
  ASSERT_TRUE(bool(R));
  EXPECT_FALSE((*R)[0].Outcome.Ok);
  EXPECT_FALSE((*R)[0].Detail);
  EXPECT_EQ((*R)[0].Outcome.Error, "c.c: the compiler crashed");
}

TEST(SpeedObjectiveTest, WithoutTrajectoryNoSitesAreKept) {
  SpeedObjective Obj(madeUp, 3);
  Trial T;
  T.Module = 0;
  Expected<std::vector<Measurement>> R =
      Obj.measure({T}, "test", /*WithTrajectory=*/false);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ((*R)[0].getCost(), 900u);
  EXPECT_TRUE((*R)[0].Trajectory.empty());
  EXPECT_EQ(SpeedObjective::getOutcome((*R)[0]).Sites.size(), 1u);
}

TEST(SpeedObjectiveTest, DeltaIsTheSumOfTheChangedModulesCosts) {
  SpeedObjective Obj(madeUp, 3);
  EXPECT_EQ(Obj.cost(0), 0u);
  setSlots(Obj, {100, 800, 50});
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
