//===- unittests/RegAllocTrain/EvictionScorerTest.cpp - The score cache ---===//
//
// ScoreCache, WORK/scores.tsv of the eviction trainer and `mlgo eval
// regalloc`: scores read back bit for bit, its lines in LineFile's checked
// form, a torn last line cut off, and a malformed or changed line an error
// naming the file and the line instead of a line skipped.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/EvictionScorer.h"

#include "mlgo/Support/Files.h"
#include "mlgo/Support/LineFile.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::regalloc;

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

std::string openError(ScoreCache &C, StringRef Path) {
  Error E = C.open(Path);
  return E ? toString(std::move(E)) : "success";
}

TEST(ScoreCacheTest, ScoresReadBackBitForBit) {
  unittest::TempDir Dir("mlgo-scores", /*Unique=*/true);
  std::string Path = Dir.path("scores.tsv").str().str();
  const double Third = 1.0 / 3.0;
  {
    ScoreCache C;
    ASSERT_EQ(openError(C, Path), "success");
    EXPECT_FALSE(C.find("llvm-default", "pkg/a.o").has_value());
    ASSERT_FALSE(errorToBool(C.add("llvm-default", "pkg/a.o", 1234.5)));
    ASSERT_FALSE(errorToBool(C.add("0123456789abcdef", "pkg/a.o", Third)));
  }
  EXPECT_EQ(readFile(Path),
            LineFile::withChecksum("llvm-default\tpkg/a.o\t"
                                   "1.23450000000000000e+03") +
                LineFile::withChecksum("0123456789abcdef\tpkg/a.o\t"
                                       "3.33333333333333315e-01"));
  ScoreCache C;
  ASSERT_EQ(openError(C, Path), "success");
  EXPECT_EQ(C.size(), 2u);
  EXPECT_EQ(C.find("llvm-default", "pkg/a.o"), 1234.5);
  std::optional<double> T = C.find("0123456789abcdef", "pkg/a.o");
  ASSERT_TRUE(T.has_value());
  EXPECT_EQ(std::memcmp(&*T, &Third, sizeof(double)), 0);
  EXPECT_FALSE(C.find("0123456789abcdef", "pkg/b.o").has_value());
}

TEST(ScoreCacheTest, ATornLastLineIsCutOffAndScoredAgain) {
  unittest::TempDir Dir("mlgo-scores", /*Unique=*/true);
  std::string Path = Dir.path("scores.tsv").str().str();
  std::string Whole = LineFile::withChecksum("id\tm1\t2.0");
  writeFile(Path, Whole + "id\tm2\t3.0\t#12");
  ScoreCache C;
  ASSERT_EQ(openError(C, Path), "success");
  EXPECT_EQ(C.size(), 1u);
  EXPECT_FALSE(C.find("id", "m2").has_value());
  EXPECT_EQ(readFile(Path), Whole);
  ASSERT_FALSE(errorToBool(C.add("id", "m2", 3.0)));
  EXPECT_EQ(readFile(Path),
            Whole + LineFile::withChecksum("id\tm2\t3.00000000000000000e+00"));
}

TEST(ScoreCacheTest, AMalformedLineIsAnErrorNotSkipped) {
  unittest::TempDir Dir("mlgo-scores", /*Unique=*/true);
  std::string Path = Dir.path("scores.tsv").str().str();
  std::string First = LineFile::withChecksum("id\tm1\t2.0");
  writeFile(Path, First + LineFile::withChecksum("id\tm2\tnot-a-number"));
  ScoreCache C;
  EXPECT_EQ(openError(C, Path), Path + ": line 2 (byte " +
                                    std::to_string(First.size()) +
                                    "): malformed line 'id\tm2\tnot-a-number'");
  // An earlier version's line without a checksum, with a missing field.
  writeFile(Path, "id\tm1\n");
  ScoreCache D;
  EXPECT_EQ(openError(D, Path),
            Path + ": line 1 (byte 0): malformed line 'id\tm1'");
  // A line changed after it was written.
  std::string Changed = First;
  Changed[6] = '3'; // "id\tm1\t3.0" under the checksum of "id\tm1\t2.0"
  writeFile(Path, Changed);
  ScoreCache E;
  EXPECT_EQ(openError(E, Path),
            Path + ": line 1 (byte 0): checksum mismatch: the line changed "
                   "after it was written; remove it to compile it again");
}

TEST(ScoreCacheTest, OneRunPerWorkDirectory) {
  unittest::TempDir Dir("mlgo-scores", /*Unique=*/true);
  std::string Path = Dir.path("scores.tsv").str().str();
  ScoreCache First, Second;
  ASSERT_EQ(openError(First, Path), "success");
  EXPECT_EQ(openError(Second, Path),
            Path + ": in use by another mlgo process (one run per work "
                   "directory at a time)");
}

} // namespace
