//===- unittests/Tune/TuneSearchTest.cpp - The moves of tuning ------------===//

#include "mlgo/Tune/TuneSearch.h"

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

// f calls g twice (inlined, not inlined) and h once (not inlined).
const std::vector<DecidedSite> Trajectory = {site("f", "g", 0, true, 3.0f),
                                             site("f", "h", 0, false, -0.5f),
                                             site("f", "g", 1, false, -1.0f)};

TEST(TuneSearchTest, UnguidedFollowsTheTrajectory) {
  StringSet<> Tried;
  EXPECT_EQ(
      keys(planMoves(Trajectory, TuneOrder::Unguided, 1, Tried, true)),
      (std::vector<std::string>{"heuristic", "site f g 0 no-inline",
                                "group g inline", "group g no-inline",
                                "site f h 0 inline", "site f g 1 inline"}));
}

TEST(TuneSearchTest, GuidedTriesTheLeastCertainFirst) {
  StringSet<> Tried;
  Tried.insert("group g no-inline");
  // |logit|: h 0.5, g#1 1.0, group g inline (changes g#1 only) 1.0, g#0 3.
  // The tie between g#1 and the group is broken by the seed.
  std::vector<std::string> K =
      keys(planMoves(Trajectory, TuneOrder::Guided, 1, Tried, false));
  ASSERT_EQ(K.size(), 4u);
  EXPECT_EQ(K[0], "site f h 0 inline");
  EXPECT_EQ(K[3], "site f g 0 no-inline");
  std::vector<std::string> Mid = {K[1], K[2]};
  llvm::sort(Mid);
  EXPECT_EQ(Mid,
            (std::vector<std::string>{"group g inline", "site f g 1 inline"}));
  // The same seed, the same order.
  EXPECT_EQ(K, keys(planMoves(Trajectory, TuneOrder::Guided, 1, Tried, false)));
}

TEST(TuneSearchTest, MovesCarryWhatThePlannerKnew) {
  StringSet<> Tried;
  std::vector<TuneMove> M =
      planMoves(Trajectory, TuneOrder::Unguided, 1, Tried, false);
  ASSERT_EQ(keys(M),
            (std::vector<std::string>{"site f g 0 no-inline", "group g inline",
                                      "group g no-inline", "site f h 0 inline",
                                      "site f g 1 inline"}));
  auto Check = [](const MoveFeatures &F, double Logit, uint32_t Changed,
                  uint32_t CalleeSites, uint32_t Position) {
    EXPECT_EQ(F.Logit, Logit);
    EXPECT_EQ(F.Changed, Changed);
    EXPECT_EQ(F.CalleeSites, CalleeSites);
    EXPECT_EQ(F.Position, Position);
  };
  Check(M[0].Features, 3.0, 1, 2, 0);
  // Inline every call of g changes g#1 only; inline none changes g#0.
  Check(M[1].Features, -1.0, 1, 2, 2);
  Check(M[2].Features, 3.0, 1, 2, 0);
  Check(M[3].Features, -0.5, 1, 1, 1);
  Check(M[4].Features, -1.0, 1, 2, 2);
}

TEST(TuneSearchTest, SitesWithoutALogitComeLast) {
  std::vector<DecidedSite> T = {site("f", "a", 0, true, std::nanf("")),
                                site("f", "b", 0, true, 8.0f)};
  StringSet<> Tried;
  EXPECT_EQ(keys(planMoves(T, TuneOrder::Guided, 1, Tried, false)),
            (std::vector<std::string>{"site f b 0 no-inline",
                                      "site f a 0 no-inline"}));
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

/// Every unguided move of \p T by its key, with its logged gain.
static std::map<std::string, std::optional<double>>
loggedGains(const std::vector<DecidedSite> &T) {
  std::map<std::string, std::optional<double>> Gains;
  for (const TuneMove &M :
       planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true))
    Gains[M.getKey()] = getLoggedGain(T, M);
  return Gains;
}

TEST(TuneSearchTest, LoggedGainIsTheScoreAMoveTakesAway) {
  std::vector<DecidedSite> T = scoredTrajectory();
  std::map<std::string, std::optional<double>> Gains = loggedGains(T);
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
  EXPECT_EQ(Gains, Expected);
  // Without scores (a compile not asked for them) the log says nothing.
  TuneMove M;
  M.Entry = {"f", "g", 0, false};
  EXPECT_EQ(getLoggedGain(Trajectory, M), std::nullopt);
  // An inlined site that logged 0 (the inlining did not happen) neither.
  T[0].Score = 0;
  EXPECT_EQ(getLoggedGain(T, M), std::nullopt);
}

TEST(TuneSearchTest, LoggedFilterSkipsOrRanksLastTheMovesThatGrow) {
  std::vector<DecidedSite> T = scoredTrajectory();
  std::vector<TuneMove> Planned =
      planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true);
  std::vector<std::string> All = keys(Planned);
  std::vector<TuneMove> Skip = Planned;
  std::vector<LoggedBadMove> Bad = filterByLoggedGain(T, Skip, /*Rank=*/false);
  ASSERT_EQ(Bad.size(), 2u);
  EXPECT_EQ(Bad[0].Key, "site f g 0 no-inline");
  EXPECT_EQ(Bad[0].Gain, -6.0);
  EXPECT_EQ(Bad[1].Key, "group g no-inline");
  EXPECT_EQ(Bad[1].Gain, -4.0);
  std::vector<std::string> Kept;
  for (const std::string &K : All)
    if (K != "site f g 0 no-inline" && K != "group g no-inline")
      Kept.push_back(K);
  EXPECT_EQ(keys(Skip), Kept);
  std::vector<TuneMove> Rank = Planned;
  EXPECT_EQ(filterByLoggedGain(T, Rank, /*Rank=*/true).size(), 2u);
  Kept.push_back("site f g 0 no-inline");
  Kept.push_back("group g no-inline");
  // Both in their planned order: the site's move comes first.
  ASSERT_LT(llvm::find(All, "site f g 0 no-inline") - All.begin(),
            llvm::find(All, "group g no-inline") - All.begin());
  EXPECT_EQ(keys(Rank), Kept);
  // Promote: skip, and the moves that gain first (after the heuristic),
  // f's call of h (9 bytes) before k's call of g (2).
  std::vector<TuneMove> Promote = Planned;
  EXPECT_EQ(
      filterByLoggedGain(T, Promote, /*Rank=*/false, /*Promote=*/true).size(),
      2u);
  std::vector<std::string> P = keys(Promote);
  ASSERT_EQ(P.size(), All.size() - 2);
  EXPECT_EQ(P[0], "heuristic");
  EXPECT_EQ(P[1], "site f h 0 no-inline");
  EXPECT_EQ(P[2], "site k g 0 no-inline");
  std::vector<std::string> Rest;
  for (const std::string &K : keys(Skip))
    if (K != "heuristic" && K != "site f h 0 no-inline" &&
        K != "site k g 0 no-inline")
      Rest.push_back(K);
  EXPECT_EQ(std::vector<std::string>(P.begin() + 3, P.end()), Rest);
}

TEST(TuneSearchTest, LoggedFilterOnlyLeavesTheMovesPredictedToShrink) {
  std::vector<DecidedSite> T = scoredTrajectory();
  std::vector<TuneMove> Planned =
      planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true);
  std::vector<std::string> All = keys(Planned);
  ASSERT_EQ(All.size(), 8u);
  std::vector<TuneMove> Only = Planned;
  std::vector<LoggedBadMove> Bad = filterByLoggedGain(
      T, Only, /*Rank=*/false, /*Promote=*/false, /*Only=*/true);
  // Left, in their planned order: the heuristic, f's call of h (+9) and
  // k's call of g (+2); out: the moves that grow (-6, -4) and those the
  // log says nothing of (the three that inline), their gain NaN.
  std::vector<std::string> Kept, Out;
  for (const std::string &K : All)
    (K == "heuristic" || K == "site f h 0 no-inline" ||
             K == "site k g 0 no-inline"
         ? Kept
         : Out)
        .push_back(K);
  EXPECT_EQ(keys(Only), Kept);
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
}

TEST(TuneSearchTest, DeclinedSitesScoresGiveMovesThatInlineAGain) {
  // The scored trajectory, its declined sites scored too (the compile
  // asked for them): inlining f's second call of g would save 5 bytes,
  // k's call of m would grow k by 7.
  std::vector<DecidedSite> T = scoredTrajectory();
  T[2].Score = 5.0f;
  T[4].Score = -7.0f;
  std::map<std::string, std::optional<double>> Gains = loggedGains(T);
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
  EXPECT_EQ(Gains, Expected);
  // `only` now keeps the move that inlines f#1 and drops k's call of m.
  std::vector<TuneMove> Only =
      planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true);
  std::vector<LoggedBadMove> Bad = filterByLoggedGain(
      T, Only, /*Rank=*/false, /*Promote=*/false, /*Only=*/true);
  std::vector<std::string> Kept = keys(Only);
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

TEST(TuneSearchTest, LoggedFilterPredictLeavesTheFirstMovesThatInline) {
  // The logged filter `predict`: `only`, and the first N moves that inline
  // whose logged gain is not positive stay, in their planned order, for
  // the prediction to judge. With the declined sites scored (f#1 +5, k's
  // call of m -7): "site f g 1 inline" and "group g inline" stay by their
  // gain, "site k m 0 inline" (-7) only as one of the first N.
  std::vector<DecidedSite> T = scoredTrajectory();
  std::vector<TuneMove> Planned =
      planMoves(T, TuneOrder::Unguided, 1, StringSet<>(), true);
  std::vector<std::string> All = keys(Planned);
  std::vector<std::string> Inline;
  for (const std::string &K : All)
    if (StringRef(K).ends_with(" inline"))
      Inline.push_back(K);
  ASSERT_EQ(Inline.size(), 3u);
  // Without scores for the declined sites, all three say nothing: N = 2
  // keeps the first two, in plan order, and takes out the third.
  std::vector<TuneMove> Two = Planned;
  std::vector<LoggedBadMove> Bad =
      filterByLoggedGain(T, Two, /*Rank=*/false, /*Promote=*/false,
                         /*Only=*/true, /*PredictInline=*/2);
  std::vector<std::string> Kept;
  for (const std::string &K : All)
    if (K == "heuristic" || K == "site f h 0 no-inline" ||
        K == "site k g 0 no-inline" || K == Inline[0] || K == Inline[1])
      Kept.push_back(K);
  EXPECT_EQ(keys(Two), Kept);
  ASSERT_EQ(Bad.size(), 3u);
  std::vector<std::string> Out;
  for (const LoggedBadMove &B : Bad)
    Out.push_back(B.Key);
  std::vector<std::string> ExpectedOut;
  for (const std::string &K : All)
    if (K == "site f g 0 no-inline" || K == "group g no-inline" ||
        K == Inline[2])
      ExpectedOut.push_back(K);
  EXPECT_EQ(Out, ExpectedOut);
  // With them, a move that inlines with a positive gain stays by its gain
  // and does not use up N: N = 1 keeps k's call of m (-7) as well.
  T[2].Score = 5.0f;
  T[4].Score = -7.0f;
  std::vector<TuneMove> One = Planned;
  EXPECT_EQ(filterByLoggedGain(T, One, /*Rank=*/false, /*Promote=*/false,
                               /*Only=*/true, /*PredictInline=*/1)
                .size(),
            2u);
  std::vector<std::string> K1 = keys(One);
  std::sort(K1.begin(), K1.end());
  EXPECT_EQ(K1, (std::vector<std::string>{
                    "group g inline", "heuristic", "site f g 1 inline",
                    "site f h 0 no-inline", "site k g 0 no-inline",
                    "site k m 0 inline"}));
  // N = 0 is `only`.
  std::vector<TuneMove> Zero = Planned, Only = Planned;
  filterByLoggedGain(T, Zero, false, false, true, 0);
  filterByLoggedGain(T, Only, false, false, true);
  EXPECT_EQ(keys(Zero), keys(Only));
}

TEST(TuneSearchTest, GroupMovesReplaceTheCalleesSiteEntries) {
  ModuleDecisions Fixed;
  Fixed.Module = "m.c";
  Fixed.Sites = {{"f", "g", 0, true}, {"f", "h", 0, false}};
  TuneMove Group;
  Group.Entry = {"", "g", 0, false};
  ModuleDecisions After = applyMove(Fixed, Group);
  EXPECT_EQ(After.printSites(), "no-inline * g *\nno-inline f h 0\n");
  TuneMove Site;
  Site.Entry = {"f", "h", 0, true};
  EXPECT_EQ(applyMove(After, Site).printSites(),
            "no-inline * g *\ninline f h 0\n");
  EXPECT_EQ(fixAll("m.c", Trajectory).printSites(),
            "inline f g 0\nno-inline f g 1\nno-inline f h 0\n");
}

// Three copies of the inline function f: its site (f, g, 0) decided
// not-inline by all three, inlined by the first alone at (f, h, 0), and
// (f, k, 0) in one copy only.
TEST(TuneSearchTest, ProgramMovesChangeAtLeastTwoCopies) {
  std::vector<std::vector<DecidedSite>> Copies = {
      {site("f", "g", 0, false, -0.5f), site("f", "h", 0, true, 1.0f),
       site("f", "k", 0, false, -0.1f)},
      {site("f", "g", 0, false, -2.0f), site("f", "h", 0, false, -1.0f)},
      {site("f", "h", 0, false, -3.0f), site("f", "g", 0, false, -2.0f)}};
  StringSet<> Tried;
  std::vector<ProgramMove> Moves =
      planProgramMoves(Copies, TuneOrder::Unguided, 1, Tried);
  // (f, g, 0) inlined in every copy, (f, h, 0) in the two that do not;
  // not inlining (f, h, 0) would change the first copy only (a move of
  // its module), and (f, k, 0) has one copy.
  ASSERT_EQ(Moves.size(), 2u);
  EXPECT_EQ(Moves[0].getKey(), "program site f g 0 inline");
  EXPECT_EQ(Moves[0].Copies, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(Moves[1].getKey(), "program site f h 0 inline");
  EXPECT_EQ(Moves[1].Copies, (std::vector<size_t>{1, 2}));
  // The features are the first changed copy's.
  EXPECT_FLOAT_EQ(Moves[1].Move.Features.Logit, -1.0f);
  // Guided without a score: the least certain first; tried moves left out.
  Moves = planProgramMoves(Copies, TuneOrder::Guided, 1, Tried);
  ASSERT_EQ(Moves.size(), 2u);
  EXPECT_EQ(Moves[0].getKey(), "program site f g 0 inline");
  Tried.insert("program site f g 0 inline");
  Moves = planProgramMoves(Copies, TuneOrder::Guided, 1, Tried);
  ASSERT_EQ(Moves.size(), 1u);
  EXPECT_EQ(Moves[0].getKey(), "program site f h 0 inline");
}

TEST(TuneSearchTest, KeysDoNotDependOnTheBuildDirectory) {
  EXPECT_EQ(getSourceKeys({"/home/u/p/src/a.c", "/home/u/p/lib/b.c",
                           "/home/u/p/src/./c.c"}),
            (std::vector<std::string>{"src/a.c", "lib/b.c", "src/c.c"}));
  EXPECT_EQ(getSourceKeys({"/x/p/a.c"}), (std::vector<std::string>{"a.c"}));
  EXPECT_EQ(getSourceKeys({"a.c", "../x/b.c", "/abs/c.c"}),
            (std::vector<std::string>{"a.c", "../x/b.c", "c.c"}));
  // A test suite's googletest compiled from Debian's /usr/src: the
  // program's own sources still lose their build directory (yaml-cpp's
  // keys once began with the tuning work directory's path).
  EXPECT_EQ(getSourceKeys({"/usr/src/googletest/googletest/src/gtest-all.cc",
                           "/w/build/src/src/binary.cpp",
                           "/w/build/src/test/node_test.cpp"}),
            (std::vector<std::string>{
                "usr/src/googletest/googletest/src/gtest-all.cc",
                "src/binary.cpp", "test/node_test.cpp"}));
  EXPECT_EQ(getSourceKeys({"/usr/src/a/x.c", "/usr/src/b/y.c"}),
            (std::vector<std::string>{"a/x.c", "b/y.c"}));
}

} // namespace
