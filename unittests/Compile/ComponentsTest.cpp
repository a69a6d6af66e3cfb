//===- unittests/Compile/ComponentsTest.cpp - Independent decisions -------===//

#include "mlgo/Compile/Components.h"

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

} // namespace
