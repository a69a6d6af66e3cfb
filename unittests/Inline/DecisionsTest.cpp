//===- unittests/Inline/DecisionsTest.cpp - Decisions files ---------------===//

#include "mlgo/Inline/Decisions.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

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
                     "mlgo-decisions 2\n"
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
                     "no-inline main b 1\n"
                     "\n"
                     "end 5\n";
  EXPECT_EQ(F.print(), Want);
  Expected<DecisionsFile> Back = DecisionsFile::parse(F.print(), "d.txt");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->print(), Want);
  EXPECT_EQ(Back->getMeta("seed"), "1");
  EXPECT_EQ(Back->Modules[1]->Sites[1].Caller, "a b");
  EXPECT_EQ(Back->Modules[1]->Sites[1].Callee, "50%*");
}

TEST(DecisionsTest, ProgramEntriesComeFirstAndReadBack) {
  DecisionsFile F;
  F.Program = std::make_shared<ModuleDecisions>();
  F.Program->Sites = {{"_ZN1S3getEv", "_Z4leafi", 1, true},
                      {"_ZN1S3getEv", "_Z4leafi", 0, false}};
  ModuleDecisions M;
  M.Module = "a.cpp";
  M.Sites = {{"main", "_ZN1S3getEv", 0, true}};
  F.addModule(M);
  const char *Want = "# mlgo inlining decisions (format: docs/decisions.md)\n"
                     "mlgo-decisions 2\n"
                     "\n"
                     "program\n"
                     "no-inline _ZN1S3getEv _Z4leafi 0\n"
                     "inline _ZN1S3getEv _Z4leafi 1\n"
                     "\n"
                     "module a.cpp\n"
                     "inline main _ZN1S3getEv 0\n"
                     "\n"
                     "end 3\n";
  EXPECT_EQ(F.print(), Want);
  Expected<DecisionsFile> Back = DecisionsFile::parse(Want, "d.txt");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->print(), Want);
  ASSERT_TRUE(Back->Program);
  EXPECT_EQ(Back->Program->Sites.size(), 2u);
  ASSERT_EQ(Back->Modules.size(), 1u);
  EXPECT_EQ(Back->Modules[0]->Sites.size(), 1u);
}

TEST(DecisionsTest, MalformedProgramSectionsNameTheLine) {
  EXPECT_EQ(parseError("mlgo-decisions 1\nprogram\ninline * g *\n"),
            "d.txt:3: a group entry in the 'program' section; it holds site "
            "entries only");
  EXPECT_EQ(parseError("mlgo-decisions 1\nprogram\nprogram\n"),
            "d.txt:3: a second 'program' line (the first on line 2)");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\nprogram\n"),
            "d.txt:3: the 'program' entries must come before the first "
            "'module' line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nprogram x\n"),
            "d.txt:2: expected 'program' alone on its line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nprogram\nmeta k v\n"),
            "d.txt:3: metadata must come before the first 'module' or "
            "'program' line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmeta objective speed\nprogram\n"),
            "d.txt:3: a 'program' section in a file for speed; it holds "
            "inlining entries of files for size");
  EXPECT_EQ(parseError("mlgo-decisions 1\nprogram\ninline f g 0\n"
                       "inline f g 0\nmodule a.c\ninline f g 0\n"),
            "d.txt:4: call site 'f' -> 'g' #0 is decided twice (first on "
            "line 3)");
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
  std::vector<SiteDecision> Used = T.getUsed();
  ASSERT_EQ(Used.size(), 2u);
  EXPECT_EQ(Used[0], (SiteDecision{"", "g", 0, true}));
  EXPECT_EQ(Used[1], (SiteDecision{"f", "g", 1, false}));
}

// A link renames internal functions: ThinLTO's promotion appends
// ".llvm.<digits>", the IR linker ".<digits>" to a clashing name; entries
// name functions as their compile step did.
TEST(DecisionsTest, CompileStepNamesDropTheLinksSuffixes) {
  EXPECT_EQ(getCompileStepName("step"), "step");
  EXPECT_EQ(getCompileStepName("step.llvm.1234567890"), "step");
  EXPECT_EQ(getCompileStepName("step.2"), "step");
  EXPECT_EQ(getCompileStepName("step.llvm.12.3"), "step");
  EXPECT_EQ(getCompileStepName("step.cold"), "step.cold");
  EXPECT_EQ(getCompileStepName("step."), "step.");
  EXPECT_EQ(getCompileStepName(".1"), ".1");
  EXPECT_EQ(getCompileStepName("_ZN1a4stepEv"), "_ZN1a4stepEv");
}

// Version 2 ends with a line counting the entries: a file cut at a line
// boundary, edited, joined to another or in DOS line ends is an error
// naming the file and the line; version 1 (no end line) reads as before.
// The plugin's diagnostics name the line an entry or a metadata key was
// read from.
TEST(DecisionsTest, EntriesAndMetadataKeepTheirLines) {
  Expected<DecisionsFile> F = DecisionsFile::parse("mlgo-decisions 2\n"
                                                   "meta objective size\n"
                                                   "\n"
                                                   "module a.c\n"
                                                   "no-inline f g 1\n"
                                                   "inline * g *\n"
                                                   "\n"
                                                   "end 2\n",
                                                   "d.txt");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  EXPECT_EQ(F->getMetaLine("objective"), 2u);
  EXPECT_EQ(F->getMetaLine("model"), 0u);
  const auto &Sites = F->Modules[0]->Sites;
  ASSERT_EQ(Sites.size(), 2u);
  for (const SiteDecision &S : Sites)
    EXPECT_EQ(S.Line, S.isGroup() ? 6u : 5u) << S.Callee;
  // Not part of an entry's identity.
  SiteDecision Other = Sites[0];
  Other.Line = 0;
  EXPECT_EQ(Other, Sites[0]);
}

TEST(DecisionsTest, TheEndLineTellsACutFile) {
  const std::string Whole = "mlgo-decisions 2\n"
                            "module a.c\n"
                            "inline f g 0\n"
                            "no-inline f g 1\n"
                            "\n"
                            "end 2\n";
  Expected<DecisionsFile> F = DecisionsFile::parse(Whole, "d.txt");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  EXPECT_EQ(F->Modules[0]->Sites.size(), 2u);
  // Cut after each line but the last: every prefix is an error.
  EXPECT_EQ(parseError("mlgo-decisions 2\nmodule a.c\ninline f g 0\n"),
            "d.txt: no end line after its 1 entries: the file was cut short "
            "(a version 2 file ends with 'end <entries>')");
  EXPECT_EQ(parseError("mlgo-decisions 2\nmodule a.c\ninline f g 0\n"
                       "no-inline f g 1\n"),
            "d.txt: no end line after its 2 entries: the file was cut short "
            "(a version 2 file ends with 'end <entries>')");
  EXPECT_EQ(parseError("mlgo-decisions 2\nmodule a.c\ninline f g 0\n"
                       "end 2\n"),
            "d.txt:4: the end line counts 2 entries, the file has 1 (lines "
            "lost, or an edit: after an edit, make it 'end 1')");
  EXPECT_EQ(parseError(Whole + "module b.c\n"),
            "d.txt:7: a line after the end line (line 6; two files "
            "joined?)");
  EXPECT_EQ(parseError("mlgo-decisions 2\nend x\n"),
            "d.txt:2: expected 'end <entries>'");
  // Version 1 has no end line (and 'end' is no line of it).
  EXPECT_TRUE(bool(DecisionsFile::parse(
      "mlgo-decisions 1\nmodule a.c\ninline f g 0\n", "d.txt")));
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\nend 0\n"),
            "d.txt:3: unknown line 'end'; expected meta, program, module, "
            "inline, no-inline or evict");
}

TEST(DecisionsTest, DOSLineEndsAreNamed) {
  EXPECT_EQ(parseError("# c\r\nmlgo-decisions 1\r\nmodule a.c\r\n"),
            "d.txt:1: the line ends in CR LF (DOS line ends); decisions "
            "files have LF line ends (convert it with dos2unix)");
  EXPECT_EQ(parseError("mlgo-decisions 1\r\nmodule a.c\r\n"),
            "d.txt:1: the line ends in CR LF (DOS line ends); decisions "
            "files have LF line ends (convert it with dos2unix)");
}

TEST(DecisionsTest, MalformedFilesNameTheLine) {
  EXPECT_EQ(parseError(""), "d.txt: empty; expected 'mlgo-decisions 2'");
  EXPECT_EQ(parseError("# c\nmodule a.c\n"),
            "d.txt:2: expected 'mlgo-decisions 2' (the first line of a "
            "decisions file), found 'module a.c'");
  EXPECT_EQ(parseError("mlgo-decisions 3\n"),
            "d.txt:1: format version '3' is not supported (this mlgo reads "
            "versions 1 and 2)");
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
            "d.txt:3: metadata must come before the first 'module' or "
            "'program' line");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmaybe f g 0\n"),
            "d.txt:2: unknown line 'maybe'; expected meta, program, module, "
            "inline, no-inline or evict");
}

TEST(DecisionsTest, EvictionEntriesRoundTripInFilesForSpeed) {
  const char *Text = "# mlgo decisions for speed (format: docs/decisions.md)\n"
                     "mlgo-decisions 2\n"
                     "meta objective speed\n"
                     "\n"
                     "module a.c\n"
                     "evict f 0 00000000000000FF 32\n"
                     "evict f%20x 2 0123456789ABCDEF 3\n"
                     "\n"
                     "end 2\n";
  Expected<DecisionsFile> F = DecisionsFile::parse(Text, "d.txt");
  ASSERT_TRUE(!!F) << toString(F.takeError());
  EXPECT_TRUE(F->isForSpeed());
  ASSERT_EQ(F->Modules.size(), 1u);
  const ModuleDecisions &M = *F->Modules[0];
  ASSERT_EQ(M.Evictions.size(), 2u);
  EXPECT_EQ(M.Evictions[1],
            (EvictDecision{"f x", 2, 0x0123456789abcdefULL, 3}));
  EXPECT_EQ(F->print(), Text);
}

TEST(DecisionsTest, EvictionEntriesApplyOnlyWithTheirHash) {
  auto M = std::make_shared<ModuleDecisions>();
  M->Evictions = {{"f", 0, 7, 32}, {"f", 1, 8, 2}, {"g", 0, 9, 1}};
  EvictionTable T(M);
  EXPECT_EQ(T.lookup("f", 0, 7), std::optional<uint32_t>(32));
  // The decision's features changed: the entry is not applied.
  EXPECT_EQ(T.lookup("f", 1, 9), std::nullopt);
  EXPECT_EQ(T.lookup("h", 0, 9), std::nullopt);
  std::vector<EvictDecision> Unused = T.getUnused();
  ASSERT_EQ(Unused.size(), 2u);
  EXPECT_EQ(Unused[0].Function, "f");
  EXPECT_EQ(Unused[0].Ordinal, 1u);
  EXPECT_EQ(Unused[1].Function, "g");
}

TEST(DecisionsTest, EvictionEntriesNameTheirModel) {
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("evict", "json", Path));
  FileRemover Remove(Path);
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << "abc";
  }
  // MD5("abc").
  const std::string Digest = "900150983cd24fb0d6963f7d28e17f72";
  Expected<std::string> Meta = getEvictionModelMeta(Path);
  ASSERT_TRUE(!!Meta) << toString(Meta.takeError());
  EXPECT_EQ(*Meta, "file " + Path.str().str() + " (md5 " + Digest + ")");
  EXPECT_EQ(cantFail(getEvictionModelMeta("")), "embedded");
  std::string None = (Path + ".none").str();
  Expected<std::string> Missing = getEvictionModelMeta(None);
  ASSERT_FALSE(!!Missing);
  EXPECT_NE(toString(Missing.takeError()).find(None), std::string::npos);

  // The embedded model's MD5 as mlgo/Config.h would give it.
  const std::string Embedded = "0123456789abcdef0123456789abcdef";
  auto Check = [&](StringRef ModelMeta, bool Entries, StringRef Model,
                   StringRef EmbeddedMD5) {
    DecisionsFile F;
    F.setMeta("objective", "speed");
    if (!ModelMeta.empty())
      F.setMeta("model", ModelMeta);
    ModuleDecisions M;
    M.Module = "a.c";
    if (Entries)
      M.Evictions = {{"f", 0, 7, 32}};
    F.addModule(std::move(M));
    Error E = checkDecisionsModel(F, "d.txt", Model, EmbeddedMD5);
    return E ? toString(std::move(E)) : std::string("ok");
  };
  const std::string Tuned = "file m.json (md5 " + Digest + ")";
  // The same bytes under another path is the same model.
  EXPECT_EQ(Check(Tuned, true, Path, Embedded), "ok");
  EXPECT_EQ(Check("embedded", true, "", Embedded), "ok");
  EXPECT_EQ(Check("", true, "", Embedded), "ok");
  // Without eviction entries any model applies.
  EXPECT_EQ(Check(Tuned, false, "", Embedded), "ok");
  // A file with the embedded model's bytes is the embedded model.
  EXPECT_EQ(Check(Tuned, true, "", Digest), "ok");
  EXPECT_EQ(Check("embedded", true, Path, Digest), "ok");
  EXPECT_EQ(Check(Tuned, true, "", Embedded),
            "d.txt: eviction entries tuned on the eviction model m.json (md5 " +
                Digest +
                ") cannot apply with the embedded eviction model (md5 " +
                Embedded + "); build with -mlgo-evict-model=m.json");
  EXPECT_EQ(Check("embedded", true, Path, Embedded),
            "d.txt: eviction entries tuned on the embedded eviction model "
            "(md5 " +
                Embedded + ") cannot apply with the eviction model " +
                Path.str().str() + " (md5 " + Digest +
                "); build without -mlgo-evict-model");
  EXPECT_EQ(Check("file m.json (md5 00000000000000000000000000000000)", true,
                  Path, Embedded),
            "d.txt: eviction entries tuned on the eviction model m.json (md5 "
            "00000000000000000000000000000000) cannot apply with the eviction "
            "model " +
                Path.str().str() + " (md5 " + Digest + ")");
  EXPECT_EQ(getEmbeddedEvictionModelMD5().size(), 32u);
}

TEST(DecisionsTest, MalformedEvictionEntriesNameTheLine) {
  const std::string Speed = "mlgo-decisions 1\nmeta objective speed\n"
                            "module a.c\n";
  EXPECT_EQ(parseError("mlgo-decisions 1\nmodule a.c\n"
                       "evict f 0 00000000000000FF 32\n"),
            "d.txt:3: an eviction entry in a file for size; eviction entries "
            "belong to files for speed ('meta objective speed')");
  EXPECT_EQ(parseError("mlgo-decisions 1\nmeta objective fast\n"),
            "d.txt:2: objective 'fast' is neither 'size' nor 'speed'");
  EXPECT_EQ(parseError(Speed + "evict f 0 FF 32\n"),
            "d.txt:4: hash 'FF' is not 16 hex digits");
  EXPECT_EQ(parseError(Speed + "evict f 0 00000000000000FF 33\n"),
            "d.txt:4: column '33' is not a number from 0 to 32");
  EXPECT_EQ(parseError(Speed + "evict f x 00000000000000FF 3\n"),
            "d.txt:4: ordinal 'x' is not a number from 0 to 4294967295");
  EXPECT_EQ(parseError(Speed + "evict f 0 00000000000000FF\n"),
            "d.txt:4: expected 'evict <function> <ordinal> <hash> <column>'");
  EXPECT_EQ(parseError(Speed + "evict f 0 00000000000000FF 3\n"
                               "evict f 0 00000000000000FE 2\n"),
            "d.txt:5: eviction decision 0 of 'f' is decided twice (first on "
            "line 4)");
}

} // namespace
