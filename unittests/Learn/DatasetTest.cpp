//===- unittests/Learn/DatasetTest.cpp - Dataset and its file -------------===//

#include "mlgo/Learn/Dataset.h"
#include "LearnTestUtil.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlgo::learn;
using namespace mlgo::learn::test;
using namespace llvm;

namespace {

Dataset makeSmall() {
  Dataset D({"a", "bb"});
  D.addRow({1.5f, -2.0f}, 1, 0.5f, 7);
  D.addRow({-0.0f, 3e9f}, 0);
  return D;
}

TEST(DatasetTest, HoldsRows) {
  Dataset D = makeSmall();
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D.getNumFeatures(), 2u);
  EXPECT_EQ(D.getFeatureIndex("bb"), 1);
  EXPECT_EQ(D.getFeatureIndex("c"), -1);
  EXPECT_EQ(D.feature(0, 1), -2.0f);
  EXPECT_EQ(D.label(0), 1);
  EXPECT_EQ(D.weight(0), 0.5f);
  EXPECT_EQ(D.group(0), 7);
  EXPECT_EQ(D.group(1), Dataset::NoGroup);
  EXPECT_EQ(D.weight(1), 1.0f);
  Dataset G = D.filterByGroup([](int64_t G) { return G == 7; });
  ASSERT_EQ(G.size(), 1u);
  EXPECT_EQ(G.row(0)[0], 1.5f);
}

TEST(DatasetTest, SerializedLayoutIsAsDocumented) {
  std::vector<uint8_t> B = makeSmall().serialize();
  // Header 24, names 4+1 + 4+2, 2 rows * (8 + 1 + 4 + 8), CRC 4.
  ASSERT_EQ(B.size(), 24u + 11u + 42u + 4u);
  EXPECT_EQ(std::string(B.begin(), B.begin() + 8), "MLGODSET");
  EXPECT_EQ(B[8], 1);  // version
  EXPECT_EQ(B[12], 2); // F
  EXPECT_EQ(B[16], 2); // N
  EXPECT_EQ(B[24], 1); // len("a")
  EXPECT_EQ(B[28], 'a');
  // First feature value, 1.5f = 0x3fc00000, little-endian.
  EXPECT_EQ(B[35], 0x00);
  EXPECT_EQ(B[37], 0xc0);
  EXPECT_EQ(B[38], 0x3f);
  // Labels follow the 16 feature bytes.
  EXPECT_EQ(B[51], 1);
  EXPECT_EQ(B[52], 0);
}

TEST(DatasetTest, SaveLoadIsBitExact) {
  Dataset D = makeSmall();
  std::string P = tempPath("d.bin");
  ASSERT_EQ(errorMessage(D.save(P)), "<success>");
  Dataset L = unwrap(Dataset::load(P));
  EXPECT_TRUE(L == D);
  EXPECT_TRUE(std::signbit(L.feature(1, 0))); // -0.0 kept
  EXPECT_FALSE(L == Dataset({"a", "bb"}));
}

TEST(DatasetTest, BadFilesAreNamedErrors) {
  std::vector<uint8_t> B = makeSmall().serialize();
  std::vector<uint8_t> Short(B.begin(), B.end() - 10);
  EXPECT_EQ(errorMessage(Dataset::parse(Short, "d.bin")),
            ("d.bin: truncated dataset (expected 81 bytes, "
             "found 71)"));
  std::vector<uint8_t> Flipped = B;
  Flipped[40] ^= 1;
  EXPECT_EQ(errorMessage(Dataset::parse(Flipped, "d.bin")),
            ("d.bin: checksum mismatch (file "
             "corrupt)"));
  std::vector<uint8_t> Magic = B;
  Magic[0] = 'X';
  EXPECT_EQ(errorMessage(Dataset::parse(Magic, "d.bin")),
            ("d.bin: not an mlgo dataset (bad "
             "magic)"));
  EXPECT_EQ(errorMessage(Dataset::load("/nonexistent/d.bin")),
            ("/nonexistent/d.bin: No such file "
             "or directory"));
}

} // namespace
