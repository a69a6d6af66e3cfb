//===- unittests/Tune/ComponentsTest.cpp - Independent decisions ----------===//

#include "mlgo/Tune/Components.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

DecidedSite site(const char *Caller, const char *Callee, uint32_t Ordinal,
                 bool Inline) {
  DecidedSite S;
  S.Site = {Caller, Callee, Ordinal, Inline};
  return S;
}

// main calls a and b; a calls x; b calls y; c calls x; d calls z.
const std::vector<DecidedSite> Trajectory = {
    site("a", "x", 0, true), site("b", "y", 0, false), site("c", "x", 0, false),
    site("d", "z", 0, true), site("b", "y", 1, true)};

TEST(ComponentsTest, SitesJoinTheirEnds) {
  // a and c share their callee x; b's two sites share y.
  EXPECT_EQ(partitionSites(Trajectory, {}),
            (std::vector<std::vector<size_t>>{{0, 2}, {1, 4}, {3}}));
}

TEST(ComponentsTest, ReferencesJoinComponents) {
  // d refers to b (say, takes its address): their components are one.
  EXPECT_EQ(partitionSites(Trajectory, {{"d", "b"}}),
            (std::vector<std::vector<size_t>>{{0, 2}, {1, 3, 4}}));
  // An edge between functions that have no site changes nothing.
  EXPECT_EQ(partitionSites(Trajectory, {{"p", "q"}}),
            partitionSites(Trajectory, {}));
}

TEST(ComponentsTest, ConfigsAreExhaustiveUpToTheBound) {
  EXPECT_EQ(getConfigs(2, 6), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(getConfigs(3, 2), (std::vector<uint64_t>{}));
  EXPECT_EQ(getConfigs(0, 6), (std::vector<uint64_t>{}));
  EXPECT_EQ(getConfigs(6, 6).size(), 63u);
}

TEST(ComponentsTest, ConfigureFixesEverySite) {
  // Component {1, 4} with mask 0b10: its second site (b -> y #1) inverted.
  ModuleDecisions D = configure("m.c", Trajectory, {{{1, 4}, 2}});
  EXPECT_EQ(D.Module, "m.c");
  EXPECT_EQ(D.printSites(), "inline a x 0\n"
                            "no-inline b y 0\n"
                            "no-inline b y 1\n"
                            "no-inline c x 0\n"
                            "inline d z 0\n");
  EXPECT_EQ(countInverted({{{1, 4}, 2}, {{0, 2}, 3}}), 3u);
  // No choice: the trajectory as it is.
  EXPECT_EQ(configure("m.c", Trajectory, {}).printSites(),
            "inline a x 0\nno-inline b y 0\ninline b y 1\n"
            "no-inline c x 0\ninline d z 0\n");
}

} // namespace
