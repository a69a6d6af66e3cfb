//===- unittests/Support/BytesTest.cpp - Little-endian byte buffers -------===//
//
// ByteWriter's exact bytes, and ByteReader over both kinds of buffer: it
// reads back what the writer wrote and refuses, consuming nothing, to read
// past the end.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Bytes.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

TEST(BytesTest, WritesLittleEndian) {
  ByteWriter W;
  W.putU8(0xAB);
  W.putU32(0x01020304);
  W.putU64(0x0102030405060708);
  W.putF32(0.5f);
  W.putString("hi");
  static const char Expected[] = "\xAB"
                                 "\x04\x03\x02\x01"
                                 "\x08\x07\x06\x05\x04\x03\x02\x01"
                                 "\x00\x00\x00\x3F"
                                 "\x02\x00\x00\x00"
                                 "hi";
  EXPECT_EQ(toStringRef(W.Bytes), StringRef(Expected, sizeof(Expected) - 1));
}

TEST(BytesTest, ReadsFromAStringRef) {
  ByteWriter W;
  W.putU32(7);
  W.putF64(-1.25);
  W.putString("module.o");
  W.putI64(-3);
  std::string Buffer = toStringRef(W.Bytes).str();

  ByteReader R{StringRef(Buffer)};
  uint32_t U = 0;
  double D = 0;
  std::string S;
  int64_t I = 0;
  ASSERT_TRUE(R.getU32(U));
  ASSERT_TRUE(R.getF64(D));
  ASSERT_TRUE(R.getString(S));
  ASSERT_TRUE(R.getI64(I));
  EXPECT_EQ(U, 7u);
  EXPECT_EQ(D, -1.25);
  EXPECT_EQ(S, "module.o");
  EXPECT_EQ(I, -3);
  EXPECT_EQ(R.remaining(), 0u);
  uint8_t B = 0;
  EXPECT_FALSE(R.getU8(B));
}

TEST(BytesTest, TruncatedReadsConsumeNothing) {
  ByteWriter W;
  W.putString("abcdef");
  std::string Buffer = toStringRef(W.Bytes).str();
  // The length says 6 bytes, 3 are there.
  ByteReader R{StringRef(Buffer).drop_back(3)};
  std::string S;
  EXPECT_FALSE(R.getString(S));
  EXPECT_EQ(R.getPos(), 0u);
  uint64_t V = 0;
  EXPECT_FALSE(R.getU64(V));
  EXPECT_EQ(R.getPos(), 0u);
  uint32_t N = 0;
  ASSERT_TRUE(R.getU32(N));
  EXPECT_EQ(N, 6u);
  EXPECT_EQ(R.remaining(), 3u);
}

} // namespace
