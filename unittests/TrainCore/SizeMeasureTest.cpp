//===- unittests/TrainCore/SizeMeasureTest.cpp ----------------------------===//
//
// The three size measures and the two totals on made-up compile results:
// two packages, "p" with modules a and b sharing the inline function f
// (hash 1), "q" with module c alone.
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/SizeMeasure.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

CompileOutcome object(uint64_t Text, std::vector<GroupedSection> Grouped = {}) {
  CompileOutcome E;
  E.Ok = true;
  E.TextSize = Text;
  E.Grouped = std::move(Grouped);
  return E;
}

CompileOutcome failed(std::string Error) {
  CompileOutcome E;
  E.Error = std::move(Error);
  return E;
}

// -Oz: a = 100 bytes with f (30), b = 50 bytes with f (30), c = 40 bytes.
struct Corpus {
  std::vector<std::string> Packages = {"p", "p", "q"};
  std::vector<CompileOutcome> Stock = {object(100, {{1, 30}}),
                                       object(50, {{1, 30}}), object(40)};
};

TEST(SizeMeasureTest, ModuleCountsTheObject) {
  Corpus C;
  SizeMeasure M(SizeMeasureKind::Module, false, C.Packages, C.Stock);
  EXPECT_FALSE(M.needsGrouped());
  EXPECT_EQ(M.sizeOf(0, C.Stock[0]), 100u);
}

TEST(SizeMeasureTest, PackageDropsCopiesOthersKeep) {
  Corpus C;
  SizeMeasure M(SizeMeasureKind::Package, false, C.Packages, C.Stock);
  EXPECT_TRUE(M.needsGrouped());
  // b keeps f at -Oz, so a's copy costs the package nothing.
  EXPECT_EQ(M.sizeOf(0, C.Stock[0]), 70u);
  // a new copy of f in c counts: no other module of q has it.
  EXPECT_EQ(M.sizeOf(2, object(70, {{1, 30}})), 70u);
  // a compile of a that inlined f away (and grew by 10) is 110 either way.
  EXPECT_EQ(M.sizeOf(0, object(110)), 110u);
}

TEST(SizeMeasureTest, AmortizedSharesCopiesAmongHolders) {
  Corpus C;
  SizeMeasure M(SizeMeasureKind::Amortized, false, C.Packages, C.Stock);
  // f's 30 bytes split between a and b: 15 each.
  EXPECT_EQ(M.sizeOf(0, C.Stock[0]), 85u);
  EXPECT_EQ(M.sizeOf(1, C.Stock[1]), 35u);
  // 31 bytes among two holders round to 16.
  EXPECT_EQ(M.sizeOf(0, object(101, {{1, 31}})), 86u);
}

TEST(SizeMeasureTest, FailedStockHoldsNoCopy) {
  Corpus C;
  C.Stock[1] = failed("p/b.o: boom");
  SizeMeasure M(SizeMeasureKind::Package, false, C.Packages, C.Stock);
  // Nobody else has f at -Oz any more: a's copy counts.
  EXPECT_EQ(M.sizeOf(0, C.Stock[0]), 100u);
}

TEST(SizeMeasureTest, TotalsSummedAndLinked) {
  Corpus C;
  SizeMeasure M(SizeMeasureKind::Module, /*KeepStock=*/true, C.Packages,
                C.Stock);
  std::vector<uint64_t> Baseline = {100, 50, 40};
  // The policy inlines f in a (a: 120, no f) and fails on c.
  std::vector<CompileOutcome> R = {object(120), object(50, {{1, 30}}),
                                   failed("q/c.o: crashed")};
  std::vector<size_t> Set = {0, 1, 2};
  PackageSizes Objects, Linked;
  Totals S = totalSizes(Set, R, M, Baseline, 0, TotalsKind::Objects, &Objects);
  EXPECT_EQ(S.Baseline, 150u);
  EXPECT_EQ(S.Policy, 170u);
  EXPECT_EQ(S.Failures, std::vector<std::string>{"q/c.o: crashed"});
  EXPECT_EQ(S.failedClause(), "; 1 module failed to compile and is left out "
                              "of both totals");
  // Mean over the three modules, the failed one included: (-0.2 + 0) / 3.
  EXPECT_DOUBLE_EQ(S.MeanReward, -0.2 / 3);
  EXPECT_EQ(Objects, (PackageSizes{{"p", {150, 170}}}));
  Totals L = totalSizes(Set, R, M, Baseline, 0, TotalsKind::Linked, &Linked);
  // Linked, p at -Oz keeps one f: 150 - 30; under the policy b's f stays.
  EXPECT_EQ(L.Baseline, 120u);
  EXPECT_EQ(L.Policy, 170u);
  EXPECT_EQ(Linked, (PackageSizes{{"p", {120, 170}}}));
  EXPECT_EQ(packagesOverLimit(Linked, 0.5), "p (+41.67%)");
}

TEST(SizeMeasureTest, Reward) {
  EXPECT_DOUBLE_EQ(getReward(90, 100, 0), 0.1);
  EXPECT_DOUBLE_EQ(getReward(90, 100, 100), 1.0 - 190.0 / 200.0);
  EXPECT_EQ(getReward(0, 0, 0), 0.0);
  EXPECT_EQ(getReward(5, 0, 0), -1.0);
}

} // namespace
