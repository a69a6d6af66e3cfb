//===- unittests/Corpus/CorpusCheckTest.cpp - mlgo corpus check's work ----===//
//
// checkCorpus replays modules of a corpus extracted from real clang-19
// objects: a faithful corpus has no problem; a recorded size that differs,
// or a module the extraction report does not know, is named.
//
//===----------------------------------------------------------------------===//

#include "CorpusTestUtil.h"

#include "mlgo/Corpus/CorpusCheck.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

const std::map<std::string, std::string> Sources = {
    {"a.c", "int g(int);\nint h(int y) { return g(y) * 2 + g(y + 1); }\n"},
    {"b.c", "int k(int z) { return z - 3; }\n"},
};

TEST(CorpusCheckTest, AFaithfulCorpusReplaysToItsOriginalSizes) {
  TempDir T;
  ExtractResult R = makeClangCorpus(T, Sources);
  ASSERT_EQ(R.Modules.size(), 2u);
  size_t Calls = 0;
  CorpusCheckOptions O;
  O.Threads = 2;
  O.Progress = [&](size_t Done, size_t Total) {
    EXPECT_EQ(Done, ++Calls);
    EXPECT_EQ(Total, 2u);
  };
  Expected<std::vector<ModuleCheck>> C = checkCorpus(T.sub("corpus"), O);
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  ASSERT_EQ(C->size(), 2u);
  EXPECT_EQ((*C)[0].Module, "a.c.o");
  EXPECT_EQ((*C)[0].Problem, "");
  EXPECT_EQ((*C)[1].Module, "b.c.o");
  EXPECT_EQ((*C)[1].Problem, "");
  EXPECT_EQ(Calls, 2u);
}

TEST(CorpusCheckTest, NamesASizeMismatchAndAnUnknownModule) {
  TempDir T;
  ExtractResult R = makeClangCorpus(T, Sources);
  ASSERT_EQ(R.Modules.size(), 2u);
  // Rewrite the report: a.c.o's original .text 1 byte larger, b.c.o gone.
  std::string Report = T.sub("corpus/extraction_report.json");
  auto Buf = MemoryBuffer::getFile(Report);
  ASSERT_TRUE(bool(Buf));
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  json::Array *Modules = V->getAsObject()->getArray("modules");
  ASSERT_TRUE(Modules && Modules->size() == 2);
  json::Object A = *(*Modules)[0].getAsObject();
  ASSERT_EQ(A.getString("module"), "a.c.o");
  uint64_t Original = *A.getInteger("text_size");
  A["text_size"] = int64_t(Original + 1);
  *Modules = json::Array{std::move(A)};
  writeFile(Report, formatv("{0:2}", *V).str());

  Expected<std::vector<ModuleCheck>> C = checkCorpus(T.sub("corpus"));
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  ASSERT_EQ(C->size(), 2u);
  EXPECT_EQ(
      (*C)[0].Problem,
      formatv(".text size {0}, original {1}", Original, Original + 1).str());
  EXPECT_EQ((*C)[1].Problem, "not in extraction_report.json");
}

TEST(CorpusCheckTest, ACorpusWithoutAReportFails) {
  TempDir T;
  CorpusDescription D;
  D.Modules = {"x.o"};
  makeCorpus(T.path(), D);
  Expected<std::vector<ModuleCheck>> C = checkCorpus(T.path());
  EXPECT_NE(errorMessage(std::move(C)), "<success>");
}

} // namespace
