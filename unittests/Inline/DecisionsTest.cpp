//===- unittests/Inline/DecisionsTest.cpp - Decisions files ---------------===//

#include "mlgo/Inline/Decisions.h"

#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

std::string parseError(StringRef Text) {
  Expected<DecisionsFile> F = DecisionsFile::parse(Text, "d.txt");
  if (F)
    return "parsed";
  return toString(F.takeError());
}

TEST(DecisionsTest, PrintsSortedAndReadsBack) {
  DecisionsFile F;
  F.setMeta("llvm", "19.1.7");
  F.setMeta("seed", "1");
  ModuleDecisions M;
  M.Module = "src/z.c";
  M.Sites = {{"main", "b", 1, false},
             {"main", "b", 0, true},
             {"", "log", 0, true},
             {"a b", "50%*", 2, false}};
  F.addModule(M);
  M.Module = "lib/a.c";
  M.Sites = {{"f", "g", 0, true}};
  F.addModule(M);
  const char *Want = "# mlgo inlining decisions (format: docs/decisions.md)\n"
                     "mlgo-decisions 1\n"
                     "meta llvm 19.1.7\n"
                     "meta seed 1\n"
                     "\n"
                     "module lib/a.c\n"
                     "inline f g 0\n"
                     "\n"
                     "module src/z.c\n"
                     "inline * log *\n"
                     "no-inline a%20b 50%25%2A 2\n"
                     "inline main b 0\n"
                     "no-inline main b 1\n";
  EXPECT_EQ(F.print(), Want);
  Expected<DecisionsFile> Back = DecisionsFile::parse(F.print(), "d.txt");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->print(), Want);
  EXPECT_EQ(Back->getMeta("seed"), "1");
  EXPECT_EQ(Back->Modules[1]->Sites[1].Caller, "a b");
  EXPECT_EQ(Back->Modules[1]->Sites[1].Callee, "50%*");
}

TEST(DecisionsTest, ModulesAreFoundByTheirPathsTail) {
  Expected<DecisionsFile> F = DecisionsFile::parse("mlgo-decisions 1\n"
                                                   "module a.c\n"
                                                   "module src/a.c\n"
                                                   "module lib/b.c\n",
                                                   "d.txt");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  EXPECT_EQ(F->find("/home/u/p/src/a.c")->Module, "src/a.c");
  EXPECT_EQ(F->find("../src/./a.c")->Module, "src/a.c");
  EXPECT_EQ(F->find("a.c")->Module, "a.c");
  EXPECT_EQ(F->find("/x/a.c")->Module, "a.c");
  EXPECT_EQ(F->find("lib/b.c")->Module, "lib/b.c");
  // Whole components only.
  EXPECT_EQ(F->find("/x/xlib/b.c"), nullptr);
  EXPECT_EQ(F->find("b.c"), nullptr);
}

// zstd compiles lib/compress/x.c as "compress/x.c" in lib/ and as
// "../lib/compress/x.c" in programs/: joined to the directory each compile
// ran in, both are the one source the key names.
TEST(DecisionsTest, RelativeSourcesResolveAgainstTheCompileDirectory) {
  EXPECT_EQ(resolveSourcePath("compress/x.c", "/p/lib"), "/p/lib/compress/x.c");
  EXPECT_EQ(resolveSourcePath("../lib/compress/x.c", "/p/programs"),
            "/p/lib/compress/x.c");
  EXPECT_EQ(resolveSourcePath("/abs/./y.c", "/p/lib"), "/abs/y.c");
  EXPECT_EQ(resolveSourcePath("../y.c", ""), "../y.c");
  Expected<DecisionsFile> F = DecisionsFile::parse(
      "mlgo-decisions 1\nmodule lib/compress/x.c\n", "d.txt");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  EXPECT_EQ(F->find("compress/x.c"), nullptr);
  for (auto [Source, Dir] :
       {std::pair<StringRef, StringRef>{"compress/x.c", "/q/lib"},
        {"../lib/compress/x.c", "/q/programs"}})
    EXPECT_EQ(F->find(resolveSourcePath(Source, Dir))->Module,
              "lib/compress/x.c");
}

TEST(DecisionsTest, SiteEntriesWinOverGroupsAndUseIsTracked) {
  auto M = std::make_shared<ModuleDecisions>();
  M->Sites = {{"", "g", 0, true}, {"f", "g", 1, false}, {"f", "h", 0, true}};
  DecisionTable T(M);
  EXPECT_EQ(T.lookup("f", "g", 0), std::optional<bool>(true));
  EXPECT_EQ(T.lookup("f", "g", 1), std::optional<bool>(false));
  EXPECT_EQ(T.lookup("f", "k", 0), std::nullopt);
  std::vector<SiteDecision> Unused = T.getUnused();
  ASSERT_EQ(Unused.size(), 1u);
  EXPECT_EQ(Unused[0].Callee, "h");
}

TEST(DecisionsTest, MalformedFilesNameTheLine) {
  EXPECT_EQ(parseError(""), "d.txt: empty; expected 'mlgo-decisions 1'");
  EXPECT_EQ(parseError("# c\nmodule a.c\n"),
            "d.txt:2: expected 'mlgo-decisions 1' (the first line of a "
            "decisions file), found 'module a.c'");
  EXPECT_EQ(parseError("mlgo-decisions 2\n"),
            "d.txt:1: format version '2' is not supported (this mlgo reads "
            "version 1)");
  EXPECT_EQ(parseError("mlgo-decisions 1\ninline f g 0\n"),
            "d.txt:2: a decision before the first 'module' line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\ninline f g\n"),
            "d.txt:3: expected 'inline <caller> <callee> <ordinal>' or "
            "'inline * <callee> *'");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\nno-inline f g x\n"),
            "d.txt:3: ordinal 'x' is not a number from 0 to 4294967295");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\ninline * g 0\n"),
            "d.txt:3: a group entry has '*' as both caller and ordinal");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\ninline f%4 g 0\n"),
            "d.txt:3: '%' must be followed by two hex digits in 'f%4'");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\ninline f g 0\n"
                       "\nno-inline f g 0\n"),
            "d.txt:5: call site 'f' -> 'g' #0 is decided twice (first on "
            "line 3)");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\nmodule a.c\n"),
            "d.txt:3: module 'a.c' is listed twice (first on line 2)");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\nmeta k v\n"),
            "d.txt:3: metadata must come before the first 'module' line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmaybe f g 0\n"),
            "d.txt:2: unknown line 'maybe'; expected meta, module, inline or "
            "no-inline");
}

} // namespace
