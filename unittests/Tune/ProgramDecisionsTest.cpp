//===- unittests/Tune/ProgramDecisionsTest.cpp - linkonce_odr hoisting ----===//

#include "mlgo/Tune/ProgramDecisions.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

DecidedSite site(StringRef Caller, StringRef Callee, uint32_t Ordinal,
                 bool Inline) {
  DecidedSite S;
  S.Site = {Caller.str(), Callee.str(), Ordinal, Inline};
  return S;
}

ProgramModule module(StringRef Key, std::vector<DecidedSite> T,
                     std::vector<std::string> LinkOnce, bool Tuned) {
  ProgramModule M;
  M.Entries.Module = Key.str();
  if (Tuned)
    for (const DecidedSite &S : T)
      M.Entries.Sites.push_back(S.Site);
  M.Entries.sort();
  M.Trajectory = std::move(T);
  for (const std::string &F : LinkOnce)
    M.LinkOnceODR.insert(F);
  M.Exact = true;
  return M;
}

TEST(ProgramDecisionsTest, TheFirstCopyDecidesAndOthersKeepTheirDifferences) {
  // f is inline in both modules; a.cpp's copy comes first in link order.
  std::vector<ProgramModule> Mods = {
      module("a.cpp",
             {site("f", "g", 0, true), site("f", "h", 0, false),
              site("main", "f", 0, false)},
             {"f"}, /*Tuned=*/true),
      module("b.cpp",
             {site("f", "g", 0, true), site("f", "h", 0, true),
              site("f", "k", 0, false), site("run", "f", 0, true)},
             {"f"}, /*Tuned=*/true),
      // Untuned: no entries; its copy took another decision at f -> g.
      module("c.cpp", {site("f", "g", 0, false), site("f", "h", 0, false)},
             {"f"}, /*Tuned=*/false)};
  HoistStats Stats;
  ModuleDecisions Program = hoistLinkOnceDecisions(Mods, &Stats);
  EXPECT_EQ(Program.printSites(), "inline f g 0\nno-inline f h 0\n");
  EXPECT_EQ(Mods[0].Entries.printSites(), "no-inline main f 0\n");
  EXPECT_EQ(Mods[1].Entries.printSites(),
            "inline f h 0\nno-inline f k 0\ninline run f 0\n");
  EXPECT_EQ(Mods[2].Entries.printSites(), "no-inline f g 0\n");
  EXPECT_EQ(Stats.Functions, 1u);
  EXPECT_EQ(Stats.ProgramEntries, 2u);
  EXPECT_EQ(Stats.Removed, 3u);
  EXPECT_EQ(Stats.Added, 1u);
  // What the plugin applies in each module fixes its trajectory's sites
  // as they were.
  for (const ProgramModule &M : Mods) {
    ModuleDecisions E = expandForModule(M.Entries, Program, M.LinkOnceODR);
    for (const DecidedSite &S : M.Trajectory) {
      bool Found = false;
      for (const SiteDecision &D : E.Sites)
        if (D.Caller == S.Site.Caller && D.Callee == S.Site.Callee &&
            D.Ordinal == S.Site.Ordinal) {
          EXPECT_EQ(D.Inline, S.Site.Inline) << M.Entries.Module;
          Found = true;
        }
      // c.cpp's model decided f -> h; the program's entry decides the same.
      EXPECT_TRUE(Found || M.Entries.Module == "c.cpp")
          << M.Entries.Module << " " << S.Site.Caller;
    }
  }
}

TEST(ProgramDecisionsTest, AnInexactCopyKeepsItsFunctionPerModule) {
  std::vector<ProgramModule> Mods = {
      module("a.cpp", {site("f", "g", 0, true)}, {"f"}, true),
      module("b.cpp", {site("f", "g", 0, false)}, {"f"}, true)};
  Mods[1].Exact = false;
  ModuleDecisions Program = hoistLinkOnceDecisions(Mods);
  EXPECT_TRUE(Program.Sites.empty());
  EXPECT_EQ(Mods[0].Entries.printSites(), "inline f g 0\n");
  EXPECT_EQ(Mods[1].Entries.printSites(), "no-inline f g 0\n");
}

TEST(ProgramDecisionsTest, AFunctionNoModuleFixesIsLeftToTheModel) {
  std::vector<ProgramModule> Mods = {
      module("a.cpp", {site("f", "g", 0, true)}, {"f"}, false),
      module("b.cpp", {site("f", "g", 0, false), site("main", "f", 0, true)},
             {"f"}, false)};
  Mods[1].Entries.Sites = {{"main", "f", 0, true}};
  ModuleDecisions Program = hoistLinkOnceDecisions(Mods);
  EXPECT_TRUE(Program.Sites.empty());
  EXPECT_TRUE(Mods[0].Entries.Sites.empty());
  EXPECT_EQ(Mods[1].Entries.printSites(), "inline main f 0\n");
}

TEST(ProgramDecisionsTest, OnlyLinkOnceCallersAndNoGroupsAreExpanded) {
  ModuleDecisions Program;
  Program.Sites = {{"f", "g", 0, true}, {"f", "h", 0, true}};
  ModuleDecisions Own;
  Own.Module = "b.cpp";
  Own.Sites = {{"", "h", 0, false}};
  StringSet<> LinkOnce;
  EXPECT_EQ(expandForModule(Own, Program, LinkOnce).printSites(),
            "no-inline * h *\n");
  LinkOnce.insert("f");
  EXPECT_EQ(expandForModule(Own, Program, LinkOnce).printSites(),
            "no-inline * h *\ninline f g 0\n");
}

} // namespace
