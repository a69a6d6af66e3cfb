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

TEST(ProgramDecisionsTest, ThePerModuleFormIsCheckedOnlyWhenTheWholeLoses) {
  // Made-up sizes: searched 39,000, model 39,797.
  EXPECT_FALSE(mustCheckPerModule(true, 39000, 39000, 39797));
  EXPECT_FALSE(mustCheckPerModule(true, 38990, 39000, 39797));
  EXPECT_TRUE(mustCheckPerModule(true, 39001, 39000, 39797));
  // lzip under ThinLTO: the search at -930, the whole-program file +108.
  EXPECT_TRUE(mustCheckPerModule(true, 39905, 38867, 39797));
  // Without program entries the per-module form is the same file.
  EXPECT_FALSE(mustCheckPerModule(false, 39905, 38867, 39797));
  // A search that ended above the model (its start is the model's build).
  EXPECT_TRUE(mustCheckPerModule(true, 39798, 39800, 39797));
}

TEST(ProgramDecisionsTest, TheSmallestFormIsWrittenAndNeverAboveTheModel) {
  using Choice = std::pair<FileForm, uint64_t>;
  // The whole-program file keeps its gain: written as before.
  EXPECT_EQ(chooseFileForm(38867, std::nullopt, 39797),
            Choice(FileForm::WholeProgram, 38867));
  EXPECT_EQ(chooseFileForm(38867, 38867, 39797),
            Choice(FileForm::WholeProgram, 38867));
  // The collapse loses and the per-module entries keep the gain.
  EXPECT_EQ(chooseFileForm(39905, 38867, 39797),
            Choice(FileForm::PerModule, 38867));
  // The collapse loses a part of the gain: still the smaller file.
  EXPECT_EQ(chooseFileForm(39500, 39600, 39797),
            Choice(FileForm::WholeProgram, 39500));
  // Both forms measure above the model: no entries, the model's build.
  EXPECT_EQ(chooseFileForm(39905, 39800, 39797),
            Choice(FileForm::NoEntries, 39797));
  EXPECT_EQ(chooseFileForm(39905, std::nullopt, 39797),
            Choice(FileForm::NoEntries, 39797));
  // Equal to the model: the entries are kept (the search's file).
  EXPECT_EQ(chooseFileForm(39797, 39797, 39797),
            Choice(FileForm::WholeProgram, 39797));
  EXPECT_EQ(chooseFileForm(39900, 39797, 39797),
            Choice(FileForm::PerModule, 39797));
}

} // namespace
