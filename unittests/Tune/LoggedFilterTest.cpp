//===- unittests/Tune/LoggedFilterTest.cpp - The logged filter ------------===//
//
// The logged gain of each kind of move, and the filter as a function from a
// plan to the plan it keeps, over made-up trajectories.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/LoggedFilter.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

using namespace llvm;
using namespace mlgo;

namespace {

DecidedSite site(const char *Caller, const char *Callee, uint32_t Ordinal,
                 bool Inline, float Logit) {
  DecidedSite S;
  S.Site = {Caller, Callee, Ordinal, Inline};
  S.Logit = Logit;
  return S;
}

std::vector<std::string> keys(const std::vector<TuneMove> &Moves) {
  std::vector<std::string> Out;
  for (const TuneMove &M : Moves)
    Out.push_back(M.getKey());
  return Out;
}

// Trajectory with logged size scores: f's first call of g saved 6 bytes,
// k's call of g grew the caller by 2, f's call of h grew it by 9; the
// calls not inlined logged 0.
std::vector<DecidedSite> scoredTrajectory() {
  std::vector<DecidedSite> T = {
      site("f", "g", 0, true, 3.0f), site("f", "h", 0, true, 2.0f),
      site("f", "g", 1, false, -1.0f), site("k", "g", 0, true, 1.0f),
      site("k", "m", 0, false, -2.0f)};
  const float Scores[] = {6.0f, -9.0f, 0.0f, -2.0f, 0.0f};
  for (size_t I = 0; I < T.size(); ++I)
    T[I].Score = Scores[I];
  return T;
}

std::vector<TuneMove> planned(const std::vector<DecidedSite> &T) {
  return planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true);
}

/// Every unguided move of \p T by its key, with its logged gain.
std::map<std::string, std::optional<double>>
loggedGains(const std::vector<DecidedSite> &T) {
  std::map<std::string, std::optional<double>> Gains;
  for (const TuneMove &M : planned(T))
    Gains[M.getKey()] = getLoggedGain(T, M);
  return Gains;
}

TEST(LoggedFilterTest, LoggedGainIsTheScoreAMoveTakesAway) {
  std::vector<DecidedSite> T = scoredTrajectory();
  std::map<std::string, std::optional<double>> Expected = {
      {"heuristic", std::nullopt},
      {"site f g 0 no-inline", -6.0},
      {"site f h 0 no-inline", 9.0},
      {"site f g 1 inline", std::nullopt},
      {"site k g 0 no-inline", 2.0},
      {"site k m 0 inline", std::nullopt},
      {"group g inline", std::nullopt},
      // g's inlined calls: f#0 (6) and k#0 (-2).
      {"group g no-inline", -4.0}};
  EXPECT_EQ(loggedGains(T), Expected);
  // Without scores (a compile not asked for them) the log says nothing.
  std::vector<DecidedSite> Unscored = T;
  for (DecidedSite &S : Unscored)
    S.Score = std::nanf("");
  TuneMove M;
  M.Entry = {"f", "g", 0, false};
  EXPECT_EQ(getLoggedGain(Unscored, M), std::nullopt);
  // An inlined site that logged 0 (the inlining did not happen) neither.
  T[0].Score = 0;
  EXPECT_EQ(getLoggedGain(T, M), std::nullopt);
  // Nor does a site move whose site the trajectory does not have.
  M.Entry = {"f", "q", 0, false};
  EXPECT_EQ(getLoggedGain(T, M), std::nullopt);
}

TEST(LoggedFilterTest, KeepsTheHeuristicAndTheMovesPredictedToShrink) {
  std::vector<DecidedSite> T = scoredTrajectory();
  std::vector<TuneMove> Plan = planned(T);
  std::vector<std::string> All = keys(Plan);
  ASSERT_EQ(All.size(), 8u);
  std::vector<LoggedBadMove> Bad;
  std::vector<TuneMove> Kept = filterByLoggedGain(T, Plan, Bad);
  // Left, in their planned order: the heuristic, f's call of h (+9) and
  // k's call of g (+2); out, in their order: the moves that grow (-6, -4)
  // and those the log says nothing of (the three that inline), gain NaN.
  std::vector<std::string> Left, Out;
  for (const std::string &K : All)
    (K == "heuristic" || K == "site f h 0 no-inline" ||
             K == "site k g 0 no-inline"
         ? Left
         : Out)
        .push_back(K);
  EXPECT_EQ(keys(Kept), Left);
  ASSERT_EQ(Bad.size(), 5u);
  std::map<std::string, double> Gains;
  for (size_t I = 0; I < Bad.size(); ++I) {
    EXPECT_EQ(Bad[I].Key, Out[I]);
    Gains[Bad[I].Key] = Bad[I].Gain;
  }
  EXPECT_EQ(Gains["site f g 0 no-inline"], -6.0);
  EXPECT_EQ(Gains["group g no-inline"], -4.0);
  EXPECT_TRUE(std::isnan(Gains["site f g 1 inline"]));
  EXPECT_TRUE(std::isnan(Gains["site k m 0 inline"]));
  EXPECT_TRUE(std::isnan(Gains["group g inline"]));
  // The records append: a second plan's moves follow the first's.
  filterByLoggedGain(T, planned(T), Bad);
  EXPECT_EQ(Bad.size(), 10u);
}

TEST(LoggedFilterTest, DeclinedSitesScoresGiveMovesThatInlineAGain) {
  // The scored trajectory, its declined sites scored too (the compile
  // asked for them): inlining f's second call of g would save 5 bytes,
  // k's call of m would grow k by 7.
  std::vector<DecidedSite> T = scoredTrajectory();
  T[2].Score = 5.0f;
  T[4].Score = -7.0f;
  std::map<std::string, std::optional<double>> Expected = {
      {"heuristic", std::nullopt},
      {"site f g 0 no-inline", -6.0},
      {"site f h 0 no-inline", 9.0},
      {"site f g 1 inline", 5.0},
      {"site k g 0 no-inline", 2.0},
      {"site k m 0 inline", -7.0},
      // g's declined call: f#1 (5); the inlined ones do not count.
      {"group g inline", 5.0},
      {"group g no-inline", -4.0}};
  EXPECT_EQ(loggedGains(T), Expected);
  // The filter now keeps the moves that inline f#1 and drops k's call of m.
  std::vector<LoggedBadMove> Bad;
  std::vector<std::string> Kept = keys(filterByLoggedGain(T, planned(T), Bad));
  std::sort(Kept.begin(), Kept.end());
  EXPECT_EQ(Kept, (std::vector<std::string>{
                      "group g inline", "heuristic", "site f g 1 inline",
                      "site f h 0 no-inline", "site k g 0 no-inline"}));
  ASSERT_EQ(Bad.size(), 3u);
  // A declined site without a score (NaN) gives its moves none.
  T[2].Score = std::nanf("");
  TuneMove M;
  M.Entry = {"f", "g", 1, true};
  EXPECT_EQ(getLoggedGain(T, M), std::nullopt);
  M.Entry = {"", "g", 0, true};
  EXPECT_EQ(getLoggedGain(T, M), std::nullopt);
}

TEST(LoggedFilterTest, AnEmptyPlanStaysEmpty) {
  std::vector<LoggedBadMove> Bad;
  EXPECT_TRUE(filterByLoggedGain(scoredTrajectory(), {}, Bad).empty());
  EXPECT_TRUE(Bad.empty());
}

} // namespace
