//===- unittests/Support/LineFileTest.cpp - Files of checked lines --------===//
//
// LineFile's format (Support/LineFile.h) byte by byte: the checksum field,
// lines read back in order, an earlier version's line without the field, a
// torn last line cut off, and the exact errors for a changed line, a line
// the reader refuses and a file locked by another open.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/LineFile.h"

#include "mlgo/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace mlgo;

namespace {

void writeFile(StringRef Path, StringRef Contents) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Contents;
}

std::string readFile(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return "<" + toString(Buf.takeError()) + ">";
  return (*Buf)->getBuffer().str();
}

/// A reader that keeps every line with its location.
struct Collect {
  std::vector<std::string> Lines;
  Error operator()(StringRef Content, const LineLocation &Where) {
    Lines.push_back(
        (Twine(Where.Number) + "@" + Twine(Where.Offset) + ":" + Content)
            .str());
    return Error::success();
  }
};

TEST(LineFileTest, TheChecksumFieldIsCRC32InHex) {
  // zlib's CRC-32 of "abc" is 0x352441c2, of "" is 0.
  EXPECT_EQ(LineFile::withChecksum("abc"), "abc\t#352441c2\n");
  EXPECT_EQ(LineFile::withChecksum(""), "\t#00000000\n");
}

TEST(LineFileTest, AppendedLinesReadBackInOrder) {
  unittest::TempDir Dir("mlgo-linefile", /*Unique=*/true);
  std::string Path = Dir.path("cache.tsv").str().str();
  {
    LineFile F;
    Collect C;
    ASSERT_FALSE(errorToBool(F.open(
        Path, [&](StringRef L, const LineLocation &W) { return C(L, W); })));
    EXPECT_TRUE(C.Lines.empty());
    ASSERT_FALSE(errorToBool(F.append("k1\t1.5")));
    ASSERT_FALSE(errorToBool(F.append("k2\tx y")));
  }
  EXPECT_EQ(readFile(Path), LineFile::withChecksum("k1\t1.5") +
                                LineFile::withChecksum("k2\tx y"));
  LineFile F;
  Collect C;
  ASSERT_FALSE(errorToBool(F.open(
      Path, [&](StringRef L, const LineLocation &W) { return C(L, W); })));
  EXPECT_EQ(C.Lines, (std::vector<std::string>{"1@0:k1\t1.5", "2@17:k2\tx y"}));
}

TEST(LineFileTest, AnEarlierVersionsLineIsReadAsItIs) {
  std::string Text = "old\tline\n" + LineFile::withChecksum("new");
  Collect C;
  Expected<uint64_t> N =
      LineFile::parse(Text, "t.tsv", [&](StringRef L, const LineLocation &W) {
        return C(L, W);
      });
  ASSERT_TRUE(bool(N)) << toString(N.takeError());
  EXPECT_EQ(*N, Text.size());
  EXPECT_EQ(C.Lines, (std::vector<std::string>{"1@0:old\tline", "2@9:new"}));
}

TEST(LineFileTest, ATornLastLineIsCutOff) {
  unittest::TempDir Dir("mlgo-linefile", /*Unique=*/true);
  std::string Path = Dir.path("cache.tsv").str().str();
  std::string Whole = LineFile::withChecksum("a\t1");
  writeFile(Path, Whole + "b\t2\t#1234");
  Collect C;
  {
    LineFile F;
    ASSERT_FALSE(errorToBool(F.open(
        Path, [&](StringRef L, const LineLocation &W) { return C(L, W); })));
    EXPECT_EQ(C.Lines, (std::vector<std::string>{"1@0:a\t1"}));
    EXPECT_EQ(readFile(Path), Whole);
    ASSERT_FALSE(errorToBool(F.append("b\t2")));
  }
  EXPECT_EQ(readFile(Path), Whole + LineFile::withChecksum("b\t2"));
  // parse() counts the complete lines' bytes only.
  Expected<uint64_t> N = LineFile::parse(
      Whole + "torn", "t.tsv",
      [](StringRef, const LineLocation &) { return Error::success(); });
  ASSERT_TRUE(bool(N));
  EXPECT_EQ(*N, Whole.size());
}

TEST(LineFileTest, AChangedLineIsAnError) {
  std::string Good = LineFile::withChecksum("key\t41");
  std::string Changed = Good;
  Changed[5] = '2'; // "key\t42", the checksum of "key\t41"
  Expected<uint64_t> N = LineFile::parse(
      Good + Changed, "dir/scores.tsv",
      [](StringRef, const LineLocation &) { return Error::success(); });
  ASSERT_FALSE(bool(N));
  EXPECT_EQ(toString(N.takeError()),
            "dir/scores.tsv: line 2 (byte 17): checksum mismatch: the line "
            "changed after it was written; remove it to compile it again");
}

TEST(LineFileTest, ALineTheReaderRefusesNamesFileAndLine) {
  std::string Long(100, 'z');
  auto Refuse = [](StringRef L, const LineLocation &W) -> Error {
    if (L.starts_with("ok"))
      return Error::success();
    return W.malformed();
  };
  Expected<uint64_t> N = LineFile::parse(
      LineFile::withChecksum("ok") + "bad line\n", "w/c.tsv", Refuse);
  ASSERT_FALSE(bool(N));
  EXPECT_EQ(toString(N.takeError()),
            "w/c.tsv: line 2 (byte 13): malformed line 'bad line'");
  N = LineFile::parse(LineFile::withChecksum(Long), "w/c.tsv", Refuse);
  ASSERT_FALSE(bool(N));
  EXPECT_EQ(toString(N.takeError()), "w/c.tsv: line 1 (byte 0): malformed "
                                     "line '" +
                                         std::string(80, 'z') + "...'");
}

TEST(LineFileTest, ASecondOpenIsRefused) {
  unittest::TempDir Dir("mlgo-linefile", /*Unique=*/true);
  std::string Path = Dir.path("cache.tsv").str().str();
  auto Ignore = [](StringRef, const LineLocation &) {
    return Error::success();
  };
  LineFile First, Second;
  ASSERT_FALSE(errorToBool(First.open(Path, Ignore)));
  Error E = Second.open(Path, Ignore);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(toString(std::move(E)),
            Path + ": in use by another mlgo process (one run per work "
                   "directory at a time)");
}

TEST(LineFileTest, AMissingDirectoryIsNamed) {
  unittest::TempDir Dir("mlgo-linefile", /*Unique=*/true);
  std::string Path = Dir.path("no/such/cache.tsv").str().str();
  LineFile F;
  Error E = F.open(
      Path, [](StringRef, const LineLocation &) { return Error::success(); });
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(toString(std::move(E)), Path + ": No such file or directory");
}

} // namespace
