//===- unittests/Tune/SearchStateTest.cpp - The search's plain steps ------===//
//
// Which tries a step makes within the budget, and what keeping a move does
// to a unit, over made-up states: no compiler.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SearchState.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

TuneMove siteMove(const char *Caller, const char *Callee, bool Inline) {
  TuneMove M;
  M.Entry = {Caller, Callee, 0, Inline};
  return M;
}

TuneMove heuristic() {
  TuneMove M;
  M.Heuristic = true;
  return M;
}

/// A state of \p Units units of one module each; unit U's plan holds
/// Moves[U] site moves, after LLVM's heuristic where Heuristic[U].
SearchState makeState(std::vector<size_t> Moves, std::vector<bool> Heuristic,
                      std::vector<size_t> Mods = {}) {
  SearchState S;
  for (size_t U = 0; U < Moves.size(); ++U) {
    Unit &Un = S.Units.emplace_back();
    Un.Key = "m" + std::to_string(U) + ".c";
    size_t N = Mods.empty() ? 1 : Mods[U];
    for (size_t K = 0; K < N; ++K) {
      Un.Mods.push_back(U * 10 + K);
      Un.Slots.push_back(K);
    }
    UnitState &St = S.States.emplace_back();
    St.Current.resize(N);
    if (Heuristic[U])
      St.Moves.push_back(heuristic());
    for (size_t K = 0; K < Moves[U]; ++K)
      St.Moves.push_back(
          siteMove("f", ("g" + std::to_string(K)).c_str(), true));
  }
  return S;
}

std::vector<std::pair<size_t, size_t>> tries(const StepPlan &P) {
  std::vector<std::pair<size_t, size_t>> Out;
  for (const PlannedTry &T : P.Tries)
    Out.push_back({T.Unit, T.Move});
  return Out;
}

TEST(SearchStateTest, TriesPerUnitFillAStep) {
  EXPECT_EQ(getTriesPerUnit(0), 1u);
  EXPECT_EQ(getTriesPerUnit(1), 8u);
  EXPECT_EQ(getTriesPerUnit(3), 3u);
  EXPECT_EQ(getTriesPerUnit(8), 1u);
  EXPECT_EQ(getTriesPerUnit(100), 1u);
}

TEST(SearchStateTest, AStepTriesEachUnitsNextMovesInOrder) {
  // Two units with moves left: four tries each (8 per step); the third
  // unit has none left.
  SearchState S = makeState({6, 2, 1}, {false, false, false});
  S.States[2].Next = 1;
  StepPlan P = planStep(S, {0, 0});
  EXPECT_EQ(tries(P), (std::vector<std::pair<size_t, size_t>>{
                          {0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}}));
  EXPECT_EQ(P.Compiles, 6u);
  EXPECT_FALSE(P.Full);
  // A unit's plan is tried from its Next move on.
  S.States[0].Next = 4;
  EXPECT_EQ(tries(planStep(S, {0, 0})), (std::vector<std::pair<size_t, size_t>>{
                                            {0, 4}, {0, 5}, {1, 0}, {1, 1}}));
}

TEST(SearchStateTest, HeuristicsComeFirstAndReserveTheirKeepingCompiles) {
  // Unit 0 offers LLVM's heuristic, then moves; unit 1 moves only. The
  // heuristic is free, but the budget holds the two compiles keeping it
  // takes, so with a budget of 4 after 1 compile made: the heuristic
  // (reserving 2), then one move of unit 0 (4 of 4), and no other fits.
  SearchState S = makeState({3, 3}, {true, false});
  S.Compiles = 1;
  StepPlan P = planStep(S, {4, 0});
  ASSERT_EQ(P.Tries.size(), 2u);
  EXPECT_TRUE(P.Tries[0].Free);
  EXPECT_EQ(tries(P), (std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 1}}));
  EXPECT_EQ(P.Compiles, 1u);
  EXPECT_TRUE(P.Full);
  // With no limit, unit 1's tries follow: up to 4 per unit.
  P = planStep(S, {0, 0});
  EXPECT_EQ(tries(P),
            (std::vector<std::pair<size_t, size_t>>{
                {0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}}));
  EXPECT_EQ(P.Compiles, 6u);
}

TEST(SearchStateTest, AUnitOfSeveralModulesChargesEachModule) {
  SearchState S = makeState({2}, {false}, {3});
  StepPlan P = planStep(S, {0, 0});
  EXPECT_EQ(P.Tries.size(), 2u);
  EXPECT_EQ(P.Compiles, 6u);
  // A budget that holds one try of three compiles.
  P = planStep(S, {5, 0});
  EXPECT_EQ(P.Tries.size(), 1u);
  EXPECT_TRUE(P.Full);
  // None fits: the search stops, by the budget.
  P = planStep(S, {2, 0});
  EXPECT_TRUE(P.Tries.empty());
  EXPECT_TRUE(P.Full);
}

TEST(SearchStateTest, NoMovesLeftIsAnEmptyStepNotAFullOne) {
  SearchState S = makeState({0, 0}, {false, false});
  StepPlan P = planStep(S, {10, 0});
  EXPECT_TRUE(P.Tries.empty());
  EXPECT_FALSE(P.Full);
}

TEST(SearchStateTest, TheBudgetSaysWhenTheTimeIsUpAndWhatIsLeft) {
  SearchBudget None;
  EXPECT_FALSE(None.isTimeUp(1e9));
  // No limit: what the plans still hold.
  EXPECT_EQ(None.getGoal(10, 5, 3.0), 15u);
  SearchBudget Compiles{100, 0};
  EXPECT_EQ(Compiles.getGoal(10, 5, 3.0), 100u);
  // A minute: 10 compiles in 20 s make 30 by then, or what is left.
  SearchBudget Minute{0, 1};
  EXPECT_FALSE(Minute.isTimeUp(59.9));
  EXPECT_TRUE(Minute.isTimeUp(60));
  EXPECT_EQ(Minute.getGoal(10, 100, 20.0), 30u);
  EXPECT_EQ(Minute.getGoal(10, 5, 20.0), 15u);
  // Never below what was made.
  EXPECT_EQ(Compiles.getGoal(120, 0, 3.0), 120u);
}

TEST(SearchStateTest, KeepingAMoveTakesItsObjectsAndFixesItsDecision) {
  UnitState St;
  St.Fixed.Module = "a.c";
  St.Current.resize(1);
  St.Current[0].TextSize = 100;
  CompileOutcome New;
  New.Ok = true;
  New.TextSize = 90;
  keepMove(St, siteMove("f", "g", false), -10, {New});
  EXPECT_EQ(St.getText(), 90u);
  ASSERT_EQ(St.Kept.size(), 1u);
  EXPECT_EQ(St.Kept[0], "do not inline g into f #0 (-10 bytes)");
  ASSERT_EQ(St.Fixed.Sites.size(), 1u);
  EXPECT_EQ(St.Fixed.Sites[0].Callee, "g");
  EXPECT_FALSE(St.Fixed.Sites[0].Inline);
  // A kept heuristic fixes nothing here: its decisions come from its own
  // compile.
  New.TextSize = 80;
  keepMove(St, heuristic(), -10, {New});
  EXPECT_EQ(St.getText(), 80u);
  EXPECT_EQ(St.Kept.back(), "LLVM's heuristic (-10 bytes)");
  EXPECT_EQ(St.Fixed.Sites.size(), 1u);
}

} // namespace
