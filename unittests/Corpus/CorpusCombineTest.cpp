//===- unittests/Corpus/CorpusCombineTest.cpp - mlgo corpus combine's work ===//

#include "CorpusTestUtil.h"

#include "mlgo/Corpus/CorpusCombine.h"
#include "mlgo/Corpus/Extract.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

/// An extraction report recording \p Module with .text size \p Text.
std::string reportOf(StringRef Module, int Text) {
  return (R"({"modules": [{"module": ")" + Module + R"(", "object": "/o/)" +
          Module + R"(", "text_size": )" + Twine(Text) +
          R"(, "bitcode_size": 2}], "skipped": [], "dropped": []})")
      .str();
}

// The reports follow the modules: each module keeps its original size
// under its combined name, whether the input was copied ("b") or lies
// inside the output ("out/pkgs/a").
TEST(CorpusCombineTest, CombinesModulesAndTheirExtractionReports) {
  TempDir T;
  CorpusDescription A, B;
  A.Modules = {"x.c.o"};
  B.Modules = {"x.c.o", "sub/y.c.o"};
  makeCorpus(T.sub("out/pkgs/a"), A);
  makeCorpus(T.sub("b"), B);
  writeFile(T.sub("out/pkgs/a/extraction_report.json"), reportOf("x.c.o", 10));
  writeFile(T.sub("b/extraction_report.json"),
            R"({"modules": [{"module": "x.c.o", "object": "/o/x.o",
                             "text_size": 20, "bitcode_size": 2},
                            {"module": "sub/y.c.o", "object": "/o/y.o",
                             "text_size": 30, "bitcode_size": 2}],
                "skipped": [], "dropped": []})");
  Expected<CombinedCorpus> C =
      combineCorpus({T.sub("out/pkgs/a"), T.sub("b")}, T.sub("out"));
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(
      C->Description.Modules,
      (std::vector<std::string>{"pkgs/a/x.c.o", "b/x.c.o", "b/sub/y.c.o"}));
  EXPECT_TRUE(C->HasExtractionReport);
  Expected<std::vector<ExtractedModule>> R = readExtractionReport(T.sub("out"));
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_EQ(R->size(), 3u);
  EXPECT_EQ((*R)[0].Module, "pkgs/a/x.c.o");
  EXPECT_EQ((*R)[0].TextSize, 10u);
  EXPECT_EQ((*R)[1].Module, "b/x.c.o");
  EXPECT_EQ((*R)[1].TextSize, 20u);
  EXPECT_EQ((*R)[2].Module, "b/sub/y.c.o");
  EXPECT_EQ((*R)[2].TextSize, 30u);
}

TEST(CorpusCombineTest, NoReportWhenAnInputHasNone) {
  TempDir T;
  CorpusDescription A, B;
  A.Modules = {"x.c.o"};
  B.Modules = {"y.c.o"};
  makeCorpus(T.sub("a"), A);
  makeCorpus(T.sub("b"), B);
  writeFile(T.sub("a/extraction_report.json"), reportOf("x.c.o", 10));
  Expected<CombinedCorpus> C =
      combineCorpus({T.sub("a"), T.sub("b")}, T.sub("c"));
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(C->Description.Modules,
            (std::vector<std::string>{"a/x.c.o", "b/y.c.o"}));
  EXPECT_FALSE(C->HasExtractionReport);
  EXPECT_FALSE(sys::fs::exists(T.sub("c/extraction_report.json")));
}

TEST(CorpusCombineTest, RefusesWhatCombineCorporaRefuses) {
  TempDir T;
  CorpusDescription A, B;
  A.Modules = {"x.c.o"};
  B.Modules = {"y.c.o"};
  B.HasThinLTO = true;
  makeCorpus(T.sub("a"), A);
  makeCorpus(T.sub("b"), B);
  EXPECT_EQ(errorMessage(combineCorpus({T.sub("a"), T.sub("b")}, T.sub("c"))),
            "cannot combine '" + T.sub("b") + "' with '" + T.sub("a") +
                "': they differ in 'has_thinlto' (true vs false); corpora "
                "may differ only in their modules");
}

} // namespace
