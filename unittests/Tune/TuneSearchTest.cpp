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

TEST(TuneSearchTest, HotMovesComeHottestFirstAndColdOnesNever) {
  // hot calls g twice, warm calls g and k, cold calls h.
  const std::vector<DecidedSite> T = {
      site("hot", "g", 0, false, 1.0f), site("warm", "k", 0, false, 1.0f),
      site("cold", "h", 0, false, 1.0f), site("hot", "g", 1, true, 1.0f),
      site("warm", "g", 0, false, 1.0f)};
  StringMap<double> Heat;
  Heat["hot"] = 100;
  Heat["warm"] = 10;
  StringSet<> Tried;
  Tried.insert("site hot g 1 no-inline");
  std::vector<std::string> K = keys(planHotMoves(T, Heat, 1, Tried));
  // Heat 100: hot's site move left untried, and g's group moves (its
  // hottest caller is hot); the seed orders the tie. Heat 10: warm's
  // sites. h's site is cold, and k's and h's callees have one site each.
  ASSERT_EQ(K.size(), 5u);
  std::vector<std::string> Hot(K.begin(), K.begin() + 3);
  llvm::sort(Hot);
  EXPECT_EQ(Hot,
            (std::vector<std::string>{"group g inline", "group g no-inline",
                                      "site hot g 0 inline"}));
  std::vector<std::string> Warm(K.begin() + 3, K.end());
  llvm::sort(Warm);
  EXPECT_EQ(Warm, (std::vector<std::string>{"site warm g 0 inline",
                                            "site warm k 0 inline"}));
  // The same seed, the same order; the order of planMoves' guided one.
  EXPECT_EQ(keys(planHotMoves(T, Heat, 1, Tried)), K);
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
