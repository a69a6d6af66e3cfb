//===- unittests/RegAllocModel/InvertEvictionTest.cpp - Inverted ----------===//
//
// invertEviction (mlgo/RegAllocModel/EvictionFeatures.h), the answer the
// -mlgo-evict-flips research option gives instead of the model's: never a
// column LLVM's mask forbids.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/EvictionFeatures.h"

#include "gtest/gtest.h"

#include <array>

using namespace mlgo;

namespace {

using Mask = std::array<int64_t, EvictionColumns>;

Mask allowing(std::initializer_list<int> Columns) {
  Mask M{};
  for (int C : Columns)
    M[C] = 1;
  return M;
}

TEST(InvertEvictionTest, AnEvictionBecomesEvictNothing) {
  Mask M = allowing({3, 7, 32});
  EXPECT_EQ(invertEviction(M.data(), 7), 32);
  EXPECT_EQ(invertEviction(M.data(), 3), 32);
}

TEST(InvertEvictionTest, EvictNothingBecomesTheFirstAllowedRegister) {
  Mask M = allowing({5, 9, 32});
  EXPECT_EQ(invertEviction(M.data(), 32), 5);
}

TEST(InvertEvictionTest, AnUnspillableRangeEvictsAnotherRegister) {
  // Column 32 is masked when the live range cannot be spilled: the other
  // answer is another register, never "evict nothing".
  Mask M = allowing({2, 4});
  EXPECT_EQ(invertEviction(M.data(), 2), 4);
  EXPECT_EQ(invertEviction(M.data(), 4), 2);
}

TEST(InvertEvictionTest, TheOnlyAllowedAnswerStays) {
  EXPECT_EQ(invertEviction(allowing({6}).data(), 6), 6);
  EXPECT_EQ(invertEviction(allowing({32}).data(), 32), 32);
}

} // namespace
