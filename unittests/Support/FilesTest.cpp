//===- unittests/Support/FilesTest.cpp - Whole-file reads -----------------===//
//
// readWholeFile and readJSONFile: the contents, and errors that lead with
// the file's path.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <sys/resource.h>

using namespace llvm;
using namespace mlgo;

namespace {

void writeFile(StringRef Path, StringRef Contents) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Contents;
}

TEST(FilesTest, ReadsAWholeFile) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("a.txt").str().str();
  writeFile(Path, std::string("one\ntwo\0three", 13));
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  ASSERT_TRUE(bool(Buf)) << toString(Buf.takeError());
  EXPECT_EQ((*Buf)->getBuffer(), StringRef("one\ntwo\0three", 13));
}

TEST(FilesTest, AMissingFileIsNamed) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("missing.json").str().str();
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  ASSERT_FALSE(bool(Buf));
  EXPECT_EQ(toString(Buf.takeError()), Path + ": No such file or directory");
  Expected<json::Value> V = readJSONFile(Path);
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()), Path + ": No such file or directory");
}

TEST(FilesTest, ParsesJSON) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("r.json").str().str();
  writeFile(Path, R"({"a": [1, 2], "b": "x"})");
  Expected<json::Value> V = readJSONFile(Path);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(*V,
            json::Value(json::Object{{"a", json::Array{1, 2}}, {"b", "x"}}));
}

TEST(FilesTest, BadJSONIsLocated) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("r.json").str().str();
  writeFile(Path, "{\"a\": 1,\n \"b\" 2}");
  Expected<json::Value> V = readJSONFile(Path);
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()),
            Path + ": invalid JSON: [2:6, byte=15]: Expected : after "
                   "object key");
}

TEST(FilesTest, DeepJSONIsAnErrorNotAStackOverflow) {
  // llvm::json::parse recurses per level: 40000 levels overflowed the
  // stack of an ASan build (fuzz/regressions/model/), a million that of
  // `mlgo model check`.
  Expected<json::Value> V = parseJSON("{\"a\":\n" + std::string(1000000, '['));
  ASSERT_FALSE(bool(V));
  EXPECT_EQ(toString(V.takeError()),
            "[2:999, byte=1005]: nested deeper than 1000 levels");
  // 1000 levels are fine; brackets in strings, escaped quotes included,
  // are not levels.
  std::string Deep = std::string(1000, '[') + std::string(1000, ']');
  EXPECT_TRUE(bool(parseJSON(Deep)));
  V = parseJSON("[\"" + std::string(2000, '[') + "\\\"" +
                std::string(2000, '{') + "\"]");
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  EXPECT_EQ(V->getAsArray()->size(), 1u);
}

TEST(FilesTest, WritesAFileWholeAndReplacesIt) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("m.json").str().str();
  ASSERT_FALSE(bool(writeFileAtomically(Path, "old\n")));
  ASSERT_FALSE(bool(writeFileAtomically(Path, "new\n")));
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  ASSERT_TRUE(bool(Buf)) << toString(Buf.takeError());
  EXPECT_EQ((*Buf)->getBuffer(), "new\n");
  EXPECT_FALSE(sys::fs::exists(Path + ".tmp"));
}

TEST(FilesTest, AFailedWriteNamesTheFileAndKeepsTheOldOne) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string Path = Dir.path("m.json").str().str();
  ASSERT_FALSE(bool(writeFileAtomically(Path, "old\n")));
  // The temporary file cannot be created.
  ASSERT_FALSE(sys::fs::create_directory(Path + ".tmp"));
  Error E = writeFileAtomically(Path, "new\n");
  EXPECT_EQ(toString(std::move(E)),
            "cannot write '" + Path + "': Is a directory");
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  ASSERT_TRUE(bool(Buf)) << toString(Buf.takeError());
  EXPECT_EQ((*Buf)->getBuffer(), "old\n");

  std::string Missing = Dir.path("no/such/dir/m.json").str().str();
  EXPECT_EQ(toString(writeFileAtomically(Missing, "x")),
            "cannot write '" + Missing + "': No such file or directory");
}

// Under a file size limit, a file cut at it (a child's log) is named, and
// so is a log that says a child met it; with no limit and room, nothing.
TEST(FilesTest, NoRoomNamesTheFileCutAtTheSizeLimit) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  std::string D = Dir.path().str();
  writeFile(Dir.path("small.log"), std::string(100, 'x'));
  EXPECT_EQ(describeNoRoom(D, "clang-19: error: File size limit exceeded"), "");
  struct rlimit Old;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &Old), 0);
  struct rlimit Limit = Old;
  Limit.rlim_cur = 1000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &Limit), 0);
  std::string Why = " File too large (the file size limit, ulimit -f, is "
                    "1000 bytes)";
  EXPECT_EQ(describeNoRoom(D, "the log of a child that stopped"), "");
  EXPECT_EQ(describeNoRoom(D, "clang-19: error: unable to execute command: "
                              "File size limit exceeded"),
            "'" + D + "':" + Why);
  writeFile(Dir.path("cut.log"), std::string(1000, 'x'));
  EXPECT_EQ(describeNoRoom(D, ""), "'" + D + "/cut.log':" + Why);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &Old), 0);
}

TEST(FilesTest, ReadsTheLastLinesOfALog) {
  unittest::TempDir Dir("mlgo-files", /*Unique=*/true);
  writeFile(Dir.path("a.log"), "one\ntwo\nthree\n\n");
  EXPECT_EQ(readTail(Dir.path("a.log"), 2), "two\nthree");
  EXPECT_EQ(readTail(Dir.path("a.log"), 1), "three");
  EXPECT_EQ(readTail(Dir.path("a.log"), 10), "one\ntwo\nthree");
  EXPECT_EQ(readTail(Dir.path("a.log"), 0), "");
  EXPECT_EQ(readTail(Dir.path("missing.log"), 10), "");
}

} // namespace
