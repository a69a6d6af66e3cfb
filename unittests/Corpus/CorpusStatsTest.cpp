//===- unittests/Corpus/CorpusStatsTest.cpp - mlgo corpus stats's work ----===//
//
// computeCorpusStats on a corpus extracted from real clang-19 objects: the
// counts per module and in total, the packages, the fingerprint, and a
// module that cannot be read.
//
//===----------------------------------------------------------------------===//

#include "CorpusTestUtil.h"

#include "mlgo/Corpus/CorpusStats.h"
#include "mlgo/Corpus/Fingerprint.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

// a.c: two defined functions (f, h), one declaration (g), two calls.
// b.c: one defined function, no calls.
const std::map<std::string, std::string> Sources = {
    {"a.c", "int g(int);\n"
            "static int f(int x) { return g(x) + 1; }\n"
            "int h(int y) { return f(y) * 2; }\n"},
    {"b.c", "int k(int z) { return z - 3; }\n"},
};

/// The fingerprint of the corpus at \p Dir computed from its files, as
/// training computes it.
std::string fingerprintOf(StringRef Dir, const CorpusDescription &D) {
  std::vector<std::string> Hashes;
  for (const std::string &M : D.Modules) {
    auto Bc = MemoryBuffer::getFile(getModuleFile(Dir, M, ".bc"));
    auto Args = readModuleCC1Args(Dir, D, M);
    if (!Bc || !Args) {
      consumeError(Args.takeError());
      return "(unreadable)";
    }
    Hashes.push_back(getModuleContentHash((*Bc)->getBuffer(), *Args));
  }
  std::vector<ModuleContent> Contents;
  for (size_t I = 0; I < D.Modules.size(); ++I)
    Contents.push_back({D.Modules[I], Hashes[I]});
  return getCorpusFingerprint(Contents);
}

TEST(CorpusStatsTest, CountsModulesPackagesAndFingerprint) {
  TempDir T;
  makeClangCorpus(T, Sources);
  std::vector<std::pair<size_t, size_t>> Progress;
  Expected<CorpusStats> S =
      computeCorpusStats(T.sub("corpus"), 2, [&](size_t Done, size_t Total) {
        Progress.push_back({Done, Total});
      });
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(Progress, (std::vector<std::pair<size_t, size_t>>{{1, 2}, {2, 2}}));
  ASSERT_EQ(S->Description.Modules,
            (std::vector<std::string>{"a.c.o", "b.c.o"}));
  ASSERT_TRUE(S->Modules[0] && S->Modules[1]);
  EXPECT_EQ(S->Modules[0]->Functions, 2u);
  EXPECT_EQ(S->Modules[0]->Declarations, 1u);
  EXPECT_EQ(S->Modules[0]->CallSites, 2u);
  EXPECT_EQ(S->Modules[1]->Functions, 1u);
  EXPECT_EQ(S->Modules[1]->CallSites, 0u);
  EXPECT_GT(S->Modules[1]->Instructions, 0u);
  EXPECT_EQ(S->Total.Functions, 3u);
  EXPECT_EQ(S->Total.Instructions,
            S->Modules[0]->Instructions + S->Modules[1]->Instructions);
  EXPECT_EQ(S->Total.BitcodeBytes,
            S->Modules[0]->BitcodeBytes + S->Modules[1]->BitcodeBytes);
  // Both modules are at the top: one package, the empty one.
  ASSERT_EQ(S->Packages.size(), 1u);
  EXPECT_EQ(S->Packages[0].Package, "");
  EXPECT_EQ(S->Packages[0].Modules, 2u);
  EXPECT_EQ(S->Packages[0].Instructions, S->Total.Instructions);
  EXPECT_EQ(S->getUnreadableCount(), 0u);
  EXPECT_EQ(S->FingerprintError, "");
  EXPECT_EQ(S->Fingerprint, fingerprintOf(T.sub("corpus"), S->Description));
  EXPECT_EQ(S->Fingerprint.size(), 32u);
}

TEST(CorpusStatsTest, AnUnreadableModuleIsReportedNotSkipped) {
  TempDir T;
  CorpusDescription D;
  D.Modules = {"zlib/a.o", "zlib/b.o", "bzip2/c.o"};
  makeCorpus(T.sub("c"), D); // Every .bc is "BC": not bitcode.
  ASSERT_FALSE(sys::fs::remove(T.sub("c/zlib/b.o.bc")));
  Expected<CorpusStats> S = computeCorpusStats(T.sub("c"), 1);
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(S->getUnreadableCount(), 3u);
  EXPECT_NE(S->Errors[0].find(T.sub("c/zlib/a.o.bc")), std::string::npos)
      << S->Errors[0];
  EXPECT_EQ(S->Errors[1],
            T.sub("c/zlib/b.o.bc") + ": No such file or directory");
  // Packages are counted whether their modules can be read or not.
  ASSERT_EQ(S->Packages.size(), 2u);
  EXPECT_EQ(S->Packages[0].Package, "bzip2");
  EXPECT_EQ(S->Packages[0].Modules, 1u);
  EXPECT_EQ(S->Packages[1].Package, "zlib");
  EXPECT_EQ(S->Packages[1].Modules, 2u);
  EXPECT_EQ(S->Packages[1].Instructions, 0u);
  // a.o's .bc and .cmd can be read (hashed), b.o's .bc cannot.
  EXPECT_EQ(S->Fingerprint, "");
  EXPECT_EQ(S->FingerprintError, S->Errors[1]);
}

TEST(CorpusStatsTest, AMissingDescriptionFails) {
  TempDir T;
  EXPECT_NE(errorMessage(computeCorpusStats(T.sub("none"))), "<success>");
}

} // namespace
