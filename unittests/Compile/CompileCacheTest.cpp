//===- unittests/Compile/CompileCacheTest.cpp - compiles.tsv
//----------------===//

#include "mlgo/Compile/CompileCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace mlgo;

namespace {

class CompileCacheTest : public ::testing::Test {
protected:
  void SetUp() override { File = Dir.path("compiles.tsv").str().str(); }

  std::string read() {
    auto Buf = MemoryBuffer::getFile(File);
    return Buf ? (*Buf)->getBuffer().str() : "<unreadable>";
  }
  void write(StringRef Text) {
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

  unittest::TempDir Dir{"mlgo-cache", /*Unique=*/true};
  std::string File;
};

const char KeyA[] = "0123456789abcdef0123456789abcdef";
const char KeyB[] = "fedcba9876543210fedcba9876543210";
const char KeyC[] = "00000000000000000000000000000000";

TEST_F(CompileCacheTest, WritesEachResultAsOneLineAndReadsItBack) {
  {
    CompileCache C;
    ASSERT_FALSE(bool(C.open(File)));
    CompileCache::Entry Ok;
    Ok.Ok = true;
    Ok.TextSize = 1234;
    Ok.Decisions = 17;
    Ok.Seconds = 0.25;
    Ok.Grouped = {{0x1f, 40}, {0xabcdef0123456789, 8}};
    ASSERT_FALSE(bool(C.insert(KeyA, Ok)));
    CompileCache::Entry Failed;
    Failed.Error = "fatal error:\tbad\ninput";
    ASSERT_FALSE(bool(C.insert(KeyB, Failed)));
    CompileCache::Entry Timeout;
    Timeout.Error = "timed out";
    Timeout.Transient = true;
    ASSERT_FALSE(bool(C.insert(KeyC, Timeout)));
    EXPECT_EQ(C.size(), 3u);
    ASSERT_NE(C.lookup(KeyC), nullptr);
  }
  // The transient result is not written; the message loses its tab and
  // newline. Each line ends with the CRC-32 of the rest (zlib's crc32).
  EXPECT_EQ(read(), std::string(KeyA) +
                        "\t1234\t17\t0.2500\t000000000000001f:40,"
                        "abcdef0123456789:8\t#dd36e900\n" +
                        KeyB + "\terror\tfatal error: bad input\t#65fb59bf\n");

  CompileCache C;
  ASSERT_FALSE(bool(C.open(File)));
  EXPECT_EQ(C.size(), 2u);
  EXPECT_EQ(C.lookup(KeyC), nullptr);
  const CompileCache::Entry *A = C.lookup(KeyA);
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(A->Ok);
  EXPECT_EQ(A->TextSize, 1234u);
  EXPECT_EQ(A->Decisions, 17u);
  EXPECT_EQ(A->Seconds, 0.25);
  EXPECT_TRUE(A->GroupedKnown);
  EXPECT_EQ(A->Grouped,
            (std::vector<GroupedSection>{{0x1f, 40}, {0xabcdef0123456789, 8}}));
  const CompileCache::Entry *B = C.lookup(KeyB);
  ASSERT_NE(B, nullptr);
  EXPECT_FALSE(B->Ok);
  EXPECT_EQ(B->Error, "fatal error: bad input");
}

TEST_F(CompileCacheTest, TornLastLineIsCutSoTheNextResultStartsClean) {
  write(std::string(KeyA) + "\t10\t1\t0.1000\t-\n" + KeyB + "\t2");
  {
    CompileCache C;
    ASSERT_FALSE(bool(C.open(File)));
    EXPECT_EQ(C.size(), 1u);
    EXPECT_EQ(C.lookup(KeyB), nullptr);
    ASSERT_NE(C.lookup(KeyA), nullptr);
    EXPECT_TRUE(C.lookup(KeyA)->Grouped.empty());
    // The next result replaces the torn line, so that a later run (resumed
    // again) reads both.
    CompileCache::Entry E;
    E.Ok = true;
    E.TextSize = 7;
    ASSERT_FALSE(bool(C.insert(KeyC, E)));
    EXPECT_EQ(read(), std::string(KeyA) + "\t10\t1\t0.1000\t-\n" + KeyC +
                          "\t7\t0\t0.0000\t-\t#f9f71704\n");
  }
  CompileCache Again;
  ASSERT_FALSE(bool(Again.open(File)));
  EXPECT_EQ(Again.size(), 2u);
}

TEST_F(CompileCacheTest, LinesWithoutGroupedSectionsAreOlderVersions) {
  write(std::string(KeyA) + "\t10\t1\t0.1000\n");
  CompileCache C;
  ASSERT_FALSE(bool(C.open(File)));
  const CompileCache::Entry *A = C.lookup(KeyA);
  ASSERT_NE(A, nullptr);
  EXPECT_TRUE(A->Ok);
  EXPECT_FALSE(A->GroupedKnown);
}

TEST_F(CompileCacheTest, MalformedLineIsAnErrorNamingFileAndLine) {
  // The error of opening a cache whose only line is \p Line.
  auto OpenError = [&](const std::string &Line) {
    write(Line + "\n");
    CompileCache C;
    Error E = C.open(File);
    return E ? toString(std::move(E)) : "<no error>";
  };
  auto Expect = [&](const std::string &Where, const std::string &Shown) {
    return File + ": " + Where + ": malformed line '" + Shown + "'";
  };
  std::string Bad = std::string(KeyA) + "\t10\tmany\t0.1000\t-";
  EXPECT_EQ(OpenError(Bad), Expect("line 1 (byte 0)", Bad));
  // A key that is not an MD5: what a torn line with the next result
  // appended to it would look like.
  Bad = std::string("0123") + KeyA + "\t10\t1\t0.1000\t-";
  EXPECT_EQ(OpenError(Bad), Expect("line 1 (byte 0)", Bad));
  Bad = std::string(KeyA) + "\t10\t1\t0.1000\tzz:4";
  EXPECT_EQ(OpenError(Bad), Expect("line 1 (byte 0)", Bad));
  // The line and byte of a malformed line after good ones; a long line is
  // shown by its first 80 bytes.
  std::string Good = std::string(KeyA) + "\t10\t1\t0.1000\t-";
  Bad = std::string(KeyA) + "\t" + std::string(100, '9');
  EXPECT_EQ(OpenError(Good + "\n" + Bad),
            Expect("line 2 (byte " + std::to_string(Good.size() + 1) + ")",
                   Bad.substr(0, 80) + "..."));
}

} // namespace

namespace {

TEST_F(CompileCacheTest, OneRunPerWorkDirectory) {
  {
    CompileCache First;
    ASSERT_FALSE(bool(First.open(File)));
    CompileCache Second;
    EXPECT_EQ(toString(Second.open(File)),
              File + ": in use by another mlgo process (one run per work "
                     "directory at a time)");
  }
  // Released with the first (as by kill -9: the lock goes with the
  // descriptor).
  CompileCache Third;
  EXPECT_FALSE(bool(Third.open(File)));
}

TEST_F(CompileCacheTest, AChangedLineIsAChecksumMismatch) {
  // Written as a result of 1234 bytes; one digit changed on disk.
  write(std::string(KeyA) +
        "\t1234\t17\t0.2500\t000000000000001f:40,"
        "abcdef0123456789:8\t#dd36e900\n" +
        KeyB + "\t1\t0\t0.0000\t-\n" + KeyA +
        "\t1235\t17\t0.2500\t000000000000001f:40,"
        "abcdef0123456789:8\t#dd36e900\n");
  CompileCache C;
  EXPECT_EQ(toString(C.open(File)),
            File + ": line 3 (byte 143): checksum mismatch: the line "
                   "changed after it was written; remove it to compile it "
                   "again");
}

TEST_F(CompileCacheTest, SitesKeepTheirLoggedScoreWhenTheyHaveOne) {
  {
    SiteCache C;
    ASSERT_FALSE(bool(C.open(File)));
    DecidedSite Scored;
    Scored.Site = {"f", "g", 1, true};
    Scored.Logit = 0.5f;
    Scored.Score = -2.25f;
    DecidedSite Plain;
    Plain.Site = {"f", "h", 0, false};
    Plain.Logit = -1.0f;
    ASSERT_FALSE(bool(C.insert(KeyA, {Scored})));
    ASSERT_FALSE(bool(C.insert(KeyB, {Plain})));
  }
  // A score is a sixth field, only when there is one: files written
  // without scores are read as before.
  std::string Text = read();
  EXPECT_NE(Text.find(std::string(KeyA) + "\t1\tf g 1 1 0x1p-1 -0x1.2p+1\t"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find(std::string(KeyB) + "\t1\tf h 0 0 -0x1p+0\t"),
            std::string::npos)
      << Text;
  SiteCache C;
  ASSERT_FALSE(bool(C.open(File)));
  const std::vector<DecidedSite> *A = C.lookup(KeyA);
  ASSERT_TRUE(A && A->size() == 1);
  EXPECT_EQ((*A)[0].Score, -2.25f);
  EXPECT_EQ((*A)[0].Logit, 0.5f);
  const std::vector<DecidedSite> *B = C.lookup(KeyB);
  ASSERT_TRUE(B && B->size() == 1);
  EXPECT_TRUE(std::isnan((*B)[0].Score));
}

} // namespace
