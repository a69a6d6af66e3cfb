//===- unittests/Train/CorpusSplitTest.cpp --------------------------------===//
//
// The corpus split by a recipe's packages, on made-up modules.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/CorpusSplit.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

CorpusModule module(std::string Name, uint64_t BitcodeSize = 1000) {
  CorpusModule M;
  M.Name = Name;
  M.Package = getModulePackage(Name);
  M.ContentHash = "hash-of-" + Name;
  M.BitcodeSize = BitcodeSize;
  return M;
}

/// The message of \p E's error ("" if it holds a value).
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  return E ? "" : llvm::toString(E.takeError());
}

std::vector<CorpusModule> corpus() {
  return {module("zlib/a.o"), module("zlib/b.o"), module("expat/c.o"),
          module("junk/d.o"), module("e.o")};
}

TEST(CorpusSplitTest, SplitsByPackage) {
  TrainRecipe R;
  R.ValidationPackages = {"expat"};
  R.ExcludedPackages = {"junk"};
  llvm::Expected<CorpusSplit> S = splitCorpus(corpus(), R, "/c");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  ASSERT_EQ(S->Modules.size(), 4u);
  EXPECT_EQ(S->Modules[3].Name, "e.o");
  EXPECT_EQ(S->Train, (std::vector<size_t>{0, 1, 3}));
  EXPECT_EQ(S->Validation, std::vector<size_t>{2});
  // The fingerprint names the corpus as built, excluded packages included.
  EXPECT_EQ(S->Fingerprint, getCorpusFingerprint(corpus()));
  EXPECT_EQ(S->Packages,
            (std::vector<std::string>{"(modules without a directory)", "expat",
                                      "junk", "zlib"}));
}

TEST(CorpusSplitTest, SplitErrors) {
  TrainRecipe R;
  R.ValidationPackages = {"lua"};
  EXPECT_EQ(errorOf(splitCorpus(corpus(), R, "/c")),
            "validation package 'lua' is not in the corpus at '/c'");
  R.ValidationPackages = {"zlib", "expat"};
  R.ExcludedPackages = {"junk", ""};
  EXPECT_EQ(errorOf(splitCorpus(corpus(), R, "/c")),
            "no training modules: every package of '/c' is held out or "
            "excluded");
}

TEST(CorpusSplitTest, AnEmptyCorpusSaysSo) {
  EXPECT_EQ(errorOf(splitCorpus({}, TrainRecipe(), "/c")),
            "the corpus at '/c' has no modules: its corpus_description.json "
            "lists none");
}

} // namespace
