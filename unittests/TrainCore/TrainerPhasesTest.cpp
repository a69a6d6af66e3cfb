//===- unittests/TrainCore/TrainerPhasesTest.cpp --------------------------===//
//
// The trainer's phases between compiles, on made-up modules and compile
// results: the baseline's verdicts, the search budget, the candidates, the
// verdict and the choice, the report (the corpus split is
// unittests/Train/CorpusSplitTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/TrainerPhases.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

CompileOutcome object(uint64_t Text, uint32_t Decisions = 0) {
  CompileOutcome E;
  E.Ok = true;
  E.TextSize = Text;
  E.Decisions = Decisions;
  return E;
}

TEST(TrainerPhasesTest, BaselineLeavesOutFailuresAndCountsMismatches) {
  std::vector<std::string> Packages = {"p", "p", "p"};
  CompileOutcome Crash;
  Crash.Error = "p/c.o: the compiler crashed";
  std::vector<CompileOutcome> Stock = {object(100), object(50), Crash};
  std::vector<CompileOutcome> Heur = {object(100, 7), object(52, 3),
                                      object(10, 1)};
  BaselineResult B = measureBaseline(
      Packages, Stock, Heur, SizeMeasureKind::Module, TotalsKind::Objects);
  EXPECT_EQ(B.Baseline, (std::vector<uint64_t>{100, 50, 0}));
  EXPECT_EQ(B.HeuristicSize, (std::vector<uint64_t>{100, 52, 0}));
  EXPECT_EQ(B.HeuristicDecisions, (std::vector<uint32_t>{7, 3, 0}));
  EXPECT_EQ(B.IsLeftOut, (std::vector<bool>{false, false, true}));
  EXPECT_EQ(B.LeftOut,
            std::vector<std::string>{"-Oz: p/c.o: the compiler crashed"});
  EXPECT_EQ(B.Mismatch, 1u);
  EXPECT_FALSE(B.Measure.needsGrouped());
  // Linked totals keep the -Oz objects.
  BaselineResult L = measureBaseline(
      Packages, Stock, Heur, SizeMeasureKind::Module, TotalsKind::Linked);
  EXPECT_TRUE(L.Measure.needsGrouped());
  EXPECT_EQ(L.Measure.getStockText(1), 50u);
}

TEST(TrainerPhasesTest, KeepsTheModulesTheBaselineMeasured) {
  // Module 1 (training) and 3 (validation) failed at -Oz.
  BaselineResult B;
  B.Baseline = {100, 0, 51, 0, 70};
  B.IsLeftOut = {false, true, false, true, false};
  KeptModules K = keepMeasured(B, {0, 1, 2}, {3, 4});
  EXPECT_EQ(K.Train, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(K.Validation, std::vector<size_t>{4});
  EXPECT_DOUBLE_EQ(K.MeanTrainingText, 75.5);
  KeptModules None = keepMeasured(B, {1}, {});
  EXPECT_TRUE(None.Train.empty());
  EXPECT_EQ(None.MeanTrainingText, 0.0);
}

TEST(TrainerPhasesTest, SaysWhyModulesAreNotSearched) {
  TrainRecipe R;
  R.SearchMaxDecisions = 100;
  R.SearchMaxModuleBytes = 5000;
  std::vector<uint32_t> Decisions = {7, 0, 300, 5};
  EXPECT_EQ(describeSearched(R, {0, 3}, Decisions, 2),
            "2 of 2 training modules are searched");
  EXPECT_EQ(describeSearched(R, {0, 1, 2, 3}, Decisions, 2),
            "2 of 4 training modules are searched (1 make no inlining "
            "decision, 1 exceed the budget of 100 decisions or 5000 bytes "
            "of bitcode)");
}

TEST(TrainerPhasesTest, SearchBudget) {
  TrainRecipe R;
  R.SearchCandidates = 4;
  R.SearchMaxDecisions = 100;
  R.SearchMaxModuleBytes = 5000;
  EXPECT_TRUE(isSearchable(R, 5000, 100));
  EXPECT_FALSE(isSearchable(R, 5001, 10));
  EXPECT_FALSE(isSearchable(R, 10, 101));
  EXPECT_FALSE(isSearchable(R, 10, 0)) << "nothing to invert";
  EXPECT_EQ(getSearchBudget(R, 1000), 4u);
  R.SearchBudgetBytes = 2500;
  EXPECT_EQ(getSearchBudget(R, 1000), 2u);
  EXPECT_EQ(getSearchBudget(R, 9000), 1u) << "at least one";

  // A module of 1000 bytes ("p/a.o").
  StringRef Hash = "hash-of-p/a.o";
  EXPECT_EQ(getSearchCandidates(R, 1000, Hash, 2),
            (std::vector<uint32_t>{0, 1}));
  std::vector<uint32_t> Sample = getSearchCandidates(R, 1000, Hash, 50);
  ASSERT_EQ(Sample.size(), 2u);
  EXPECT_TRUE(std::is_sorted(Sample.begin(), Sample.end()));
  EXPECT_LT(Sample.back(), 50u);
  // Seeded: the same recipe and module draw the same sample, another seed
  // (almost surely) another.
  EXPECT_EQ(getSearchCandidates(R, 1000, Hash, 50), Sample);
  // The search order's first budget's worth, sorted, is the sample.
  std::vector<uint32_t> Order = getSearchOrder(R, 1000, Hash, 50);
  ASSERT_EQ(Order.size(), 50u);
  std::vector<uint32_t> Head(Order.begin(), Order.begin() + 2);
  llvm::sort(Head);
  EXPECT_EQ(Head, Sample);
  std::vector<uint32_t> All = Order;
  llvm::sort(All);
  EXPECT_EQ(All.front(), 0u);
  EXPECT_EQ(All.back(), 49u);
  EXPECT_TRUE(std::adjacent_find(All.begin(), All.end()) == All.end())
      << "every decision once";
  EXPECT_EQ(getSearchOrder(R, 1000, Hash, 2), (std::vector<uint32_t>{0, 1}));
  R.Seed = 2;
  EXPECT_NE(getSearchCandidates(R, 1000, Hash, 50), Sample);
}

TEST(TrainerPhasesTest, PredictedGainOfAnInversion) {
  EXPECT_EQ(getPredictedInversionGain(/*Inlined=*/true, 12.0f), -12.0f)
      << "undoing an inlining that saved 12 bytes costs them";
  EXPECT_EQ(getPredictedInversionGain(/*Inlined=*/false, 3.5f), 3.5f);
  EXPECT_EQ(getPredictedInversionGain(/*Inlined=*/false, -7.0f), -7.0f);
}

TEST(TrainerPhasesTest, PlansPredictedInversions) {
  // Eight decisions in the order the round draws them; the sample is the
  // first three (4, 1, 7). Gains by decision index.
  std::vector<uint32_t> Order = {4, 1, 7, 0, 3, 5, 2, 6};
  std::vector<float> Gains = {-2, 5, 0, 9, -1, 9, -3, 0};

  InversionPlan Off =
      planPredictedInversions(PredictedInversions::Off, Order, 3, {});
  EXPECT_EQ(Off.Picks, (std::vector<uint32_t>{1, 4, 7}));
  EXPECT_EQ(Off.Sampled, 3u);
  EXPECT_EQ(Off.PredictedShrink + Off.PredictedGrow + Off.Skipped + Off.Moved,
            0u);

  // Skip: 4 is predicted to grow .text (gain -1); 7's 0 is no prediction
  // either way and stays.
  InversionPlan Skip =
      planPredictedInversions(PredictedInversions::Skip, Order, 3, Gains);
  EXPECT_EQ(Skip.Picks, (std::vector<uint32_t>{1, 7}));
  EXPECT_EQ(Skip.Sampled, 3u);
  EXPECT_EQ(Skip.PredictedShrink, 1u);
  EXPECT_EQ(Skip.PredictedGrow, 1u);
  EXPECT_EQ(Skip.Skipped, 1u);
  EXPECT_EQ(Skip.Moved, 0u);

  // Rank: the predicted shrinkers of the whole order, largest first (3 and
  // 5 tie at 9: the order's first, 3, first), then 1; the budget is full.
  InversionPlan Rank =
      planPredictedInversions(PredictedInversions::Rank, Order, 3, Gains);
  EXPECT_EQ(Rank.Picks, (std::vector<uint32_t>{1, 3, 5}));
  EXPECT_EQ(Rank.PredictedShrink, 1u);
  EXPECT_EQ(Rank.PredictedGrow, 1u);
  EXPECT_EQ(Rank.Moved, 2u) << "3 and 5 took the place of 4 and 7";
  EXPECT_EQ(Rank.Skipped, 0u);
  // A budget of two: only the two 9s.
  EXPECT_EQ(
      planPredictedInversions(PredictedInversions::Rank, Order, 2, Gains).Picks,
      (std::vector<uint32_t>{3, 5}));
  // A budget of five: the three shrinkers, then the order's first two
  // others (4, 7).
  InversionPlan Five =
      planPredictedInversions(PredictedInversions::Rank, Order, 5, Gains);
  EXPECT_EQ(Five.Picks, (std::vector<uint32_t>{1, 3, 4, 5, 7}));
  EXPECT_EQ(Five.Moved, 1u) << "5 took the place of 0 in the sample of five";
  // Nothing predicted to shrink: rank is the sample.
  std::vector<float> Worse = {-1, -1, -1, -1, -1, -1, -1, -1};
  EXPECT_EQ(
      planPredictedInversions(PredictedInversions::Rank, Order, 3, Worse).Picks,
      Off.Picks);
  // A budget beyond the order takes every decision.
  EXPECT_EQ(planPredictedInversions(PredictedInversions::Rank, Order, 20, Gains)
                .Picks.size(),
            8u);
}

TEST(TrainerPhasesTest, CountsSignAgreement) {
  SignAgreement S;
  S.add(5, -10); // Predicted to shrink, shrank.
  S.add(-3, -1); // Predicted to grow, shrank.
  S.add(-2, 4);  // Predicted to grow, grew.
  S.add(0, -5);  // No prediction.
  S.add(4, 0);   // No change.
  EXPECT_EQ(S.Agree, 2u);
  EXPECT_EQ(S.Compared, 3u);
}

} // namespace

namespace {

TEST(TrainerPhasesTest, VerdictNamesTheWorstPackage) {
  Totals T;
  PackageSizes P = {{"a", {1000, 990}}, {"b", {1000, 1004}}};
  Verdict V = judgeTotals(T, P, 0.5);
  EXPECT_EQ(V.WorstPackage, "b");
  EXPECT_DOUBLE_EQ(V.WorstPct, 0.4);
  EXPECT_TRUE(V.Allowed);
  EXPECT_FALSE(judgeTotals(T, P, 0.3).Allowed) << "b grows past 0.3%";
  T.Failures = {"a/x.o: crashed"};
  EXPECT_FALSE(judgeTotals(T, P, 0.5).Allowed) << "a failed compile";
  Verdict None = judgeTotals(T, {}, 0.5);
  EXPECT_EQ(None.WorstPackage, "none");
  EXPECT_EQ(None.WorstPct, 0);
}

TEST(TrainerPhasesTest, ChoosesTheSmallestAllowedFirstOfEquals) {
  EXPECT_EQ(chooseSmallest({30, 10, 10, 5}, {true, true, true, false}),
            std::optional<size_t>(1));
  EXPECT_EQ(chooseSmallest({30, 10}, {false, false}), std::nullopt);
  EXPECT_EQ(chooseSmallest({}, {}), std::nullopt);
}

TEST(TrainerPhasesTest, PassesOverWinnersThatFailTheCheck) {
  // Sizes 30, 10, 20, 5 (the last not allowed): 10 is checked first and
  // fails, then 20, which passes; 30 is never checked.
  std::vector<size_t> Checked;
  auto FailsOne = [&](size_t C) -> Expected<bool> {
    Checked.push_back(C);
    return C != 1;
  };
  Expected<std::optional<size_t>> Best = chooseSmallestPassing(
      {30, 10, 20, 5}, {true, true, true, false}, FailsOne);
  ASSERT_TRUE(bool(Best)) << toString(Best.takeError());
  EXPECT_EQ(*Best, std::optional<size_t>(2));
  EXPECT_EQ(Checked, (std::vector<size_t>{1, 2}));

  Checked.clear();
  auto FailsAll = [&](size_t C) -> Expected<bool> {
    Checked.push_back(C);
    return false;
  };
  Best = chooseSmallestPassing({30, 10}, {true, true}, FailsAll);
  ASSERT_TRUE(bool(Best)) << toString(Best.takeError());
  EXPECT_EQ(*Best, std::nullopt);
  EXPECT_EQ(Checked, (std::vector<size_t>{1, 0}));

  auto Breaks = [](size_t) -> Expected<bool> {
    return createStringError(inconvertibleErrorCode(), "compile cache lost");
  };
  Best = chooseSmallestPassing({30}, {true}, Breaks);
  ASSERT_FALSE(bool(Best));
  EXPECT_EQ(toString(Best.takeError()), "compile cache lost");
}

} // namespace

namespace {

TEST(TrainerPhasesTest, FlipWeights) {
  TrainRecipe R;
  R.FlipWeightCap = 64;
  EXPECT_EQ(getFlipWeight(R, 0, 1000, 500), ZeroFlipWeight);
  EXPECT_EQ(getFlipWeight(R, -12, 1000, 500), 12.0f);
  EXPECT_EQ(getFlipWeight(R, 100, 1000, 500), 64.0f) << "capped";
  R.FlipWeight = FlipWeighting::ModuleRelative;
  // 12 bytes of a module half the mean size weigh 24.
  EXPECT_EQ(getFlipWeight(R, -12, 250, 500), 24.0f);
  EXPECT_EQ(getFlipWeight(R, -12, 0, 500), 64.0f) << "an empty module";
}

TEST(TrainerPhasesTest, InversionLabels) {
  EXPECT_TRUE(labelInversion(/*Departs=*/false, -3));
  EXPECT_FALSE(labelInversion(false, 0));
  EXPECT_FALSE(labelInversion(false, 5));
  EXPECT_TRUE(labelInversion(/*Departs=*/true, 5)) << "the departure paid";
  EXPECT_FALSE(labelInversion(true, -5)) << "the departure cost bytes";
}

} // namespace

namespace {

// report.md of a made-up run: every line a reader relies on, byte for
// byte.
TEST(TrainerPhasesTest, RendersTheReport) {
  TrainRecipe R;
  R.Name = "demo";
  R.Mode = TrainMode::Counterfactual;
  R.SizeMeasure = SizeMeasureKind::Package;
  RunSummary S;
  S.CorpusDir = "corpus";
  S.Fingerprint = "f00d";
  S.TrainModules = 3;
  S.ValidationModules = 1;
  S.PhaseLines = "- Counterfactuals: made up.\n";
  S.ChosenLabel = "top 1% inverted";
  S.SelectionName = "validation";
  S.Outcome.Val.Policy = 990;
  S.Outcome.Val.Baseline = 1000;
  S.Outcome.Train.Policy = 2010;
  S.Outcome.Train.Baseline = 2000;
  S.Outcome.Train.Failures = {"p/x.o: crashed"};
  S.Outcome.ValPkg = {{"v", {1000, 990}}};
  S.Outcome.TrainPkg = {{"p", {2000, 2010}}};
  S.Outcome.TrainOver = "p (+0.50%)";
  S.Minutes = 1.25;
  EXPECT_EQ(
      renderReport(R, S),
      "# mlgo train report: demo\n\n"
      "- Mode: counterfactual, seed 1; corpus corpus; 3 training and 1 "
      "validation modules; corpus fingerprint f00d.\n"
      "- Size measure: package. A module's reward and an inversion's label "
      "count only the code the module adds to its package: not the C++ "
      "inline or template functions (COMDAT groups) another module of the "
      "package has at -Oz.\n"
      "- Selection measure: package. Totals are of each package's objects "
      "linked together, every C++ inline or template function (COMDAT "
      "group) once, as a linker keeps it.\n"
      "- Counterfactuals: made up.\n"
      "- Chosen: top 1% inverted (on validation).\n"
      "- Validation: .text 990 bytes vs -Oz 1000 (-1.000%).\n"
      "- Training: .text 2010 bytes vs -Oz 2000 (0.500%); 1 module failed "
      "to compile and is left out of both totals.\n"
      "- Warning: the chosen model makes training packages larger than -Oz "
      "by more than 0.50%, which selection (on validation) cannot see: p "
      "(+0.50%).\n"
      "- Wall-clock time of this invocation: 1.2 min (cached compiles are "
      "replayed, not redone).\n\n"
      "## Validation packages\n\n"
      "| package | -Oz .text | model .text | change |\n"
      "|---|---:|---:|---:|\n"
      "| v | 1000 | 990 | -1.00% |\n\n"
      "## Training packages\n\n"
      "| package | -Oz .text | model .text | change |\n"
      "|---|---:|---:|---:|\n"
      "| p | 2000 | 2010 | 0.50% |\n\n"
      "## Failed compiles\n\n"
      "These modules are in neither column of the tables above. A timeout "
      "or a killed worker is not cached: rerunning the same command "
      "compiles them again.\n\n"
      "- training, chosen model: p/x.o: crashed\n\n");
}

} // namespace

namespace {

TEST(TrainerPhasesTest, PlansFlipCandidates) {
  TrainRecipe R;
  R.FlipFractions = {0.001, 0.2, 0.5};
  R.RefuseFractions = {0.5};
  // Ten decisions in scope and four inlines, sorted from the highest.
  std::vector<float> Scores = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
  std::vector<float> Inlines = {3, 2, 1, 0};
  std::vector<FlipCandidatePlan> P = planFlipCandidates(R, 1, Scores, Inlines);
  std::vector<std::string> Labels;
  for (const FlipCandidatePlan &C : P)
    Labels.push_back(C.Label);
  // 0.1% of ten decisions is none: no candidate of its own (the heuristic
  // is one already), but a row of the refuse grid.
  EXPECT_EQ(Labels, (std::vector<std::string>{
                        "top 20.00% inverted", "top 50.00% inverted",
                        "top 50.00% of inlines refused",
                        "top 0.10% inverted, top 50.00% of inlines refused",
                        "top 20.00% inverted, top 50.00% of inlines refused",
                        "top 50.00% inverted, top 50.00% of inlines refused"}));
  EXPECT_EQ(P[0].Tau, 7.0f) << "the top 2 of 10 pass above the third";
  EXPECT_EQ(P[0].TauInline, learn::NeverFlip);
  EXPECT_EQ(P[1].Tau, 4.0f);
  EXPECT_EQ(P[2].Tau, learn::NeverFlip);
  EXPECT_EQ(P[2].TauInline, 1.0f);
  EXPECT_EQ(P[3].Tau, learn::NeverFlip) << "0.1% of ten is no decision";
  EXPECT_EQ(describeEmptyFlipFractions(R, Scores.size()),
            (std::vector<std::string>{
                "flip fraction 0.001 of 10 training decisions is no "
                "decision, so it yields no candidate of its own; 0.1 or more "
                "inverts at least one"}));
  EXPECT_EQ(P[0].RecipeNote, ", inverting the heuristic where the scorer "
                             "exceeds 7.00 (top 20.00% of training decisions)");
  // A second round names itself.
  R.CounterfactualRounds = 2;
  R.RefuseFractions.clear();
  P = planFlipCandidates(R, 2, Scores, {});
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Label, "round 2: top 20.00% inverted");
  EXPECT_EQ(P[0].RecipeNote,
            ", inverting the heuristic where the scorer exceeds 7.00 (top "
            "20.00% of training decisions), scorer of counterfactual round 2");
}

} // namespace
