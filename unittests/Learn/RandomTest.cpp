//===- unittests/Learn/RandomTest.cpp - The reproducible generator --------===//
//
// The generator's outputs are pinned to an independent (Python) computation
// of xoshiro256** seeded by splitmix64; the distributions are checked for
// range, shape and exact state save/restore.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Random.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlgo::learn;

namespace {

TEST(RandomTest, MatchesReferenceXoshiro256StarStar) {
  Rng R(1);
  EXPECT_EQ(R.next(), 0xb3f2af6d0fc710c5ULL);
  EXPECT_EQ(R.next(), 0x853b559647364ceaULL);
  EXPECT_EQ(R.next(), 0x92f89756082a4514ULL);
}

TEST(RandomTest, UniformIsTopBitsScaled) {
  Rng A(1), B(1);
  uint64_t X = A.next();
  EXPECT_EQ(B.uniform(), static_cast<double>(X >> 11) * 0x1p-53);
  for (int I = 0; I < 10000; ++I) {
    double U = A.uniform(), V = A.uniformOpenZero();
    EXPECT_TRUE(U >= 0 && U < 1);
    EXPECT_TRUE(V > 0 && V <= 1);
  }
}

TEST(RandomTest, NormalHasUnitMomentsAndPairsUp) {
  Rng R(42);
  const int N = 200000;
  double Sum = 0, SumSq = 0;
  for (int I = 0; I < N; ++I) {
    double X = R.normal();
    Sum += X;
    SumSq += X * X;
  }
  EXPECT_NEAR(Sum / N, 0.0, 0.01);
  EXPECT_NEAR(SumSq / N, 1.0, 0.01);

  // Two normals cost exactly two 64-bit draws (Box-Muller's pair).
  Rng A(7), B(7);
  A.normal();
  A.normal();
  B.next();
  B.next();
  EXPECT_EQ(A.next(), B.next());
}

TEST(RandomTest, StateRoundTripsIncludingTheSpareNormal) {
  Rng A(3);
  A.normal(); // Leaves a spare.
  RngState S = A.getState();
  EXPECT_TRUE(S.HasSpare);
  std::vector<double> First;
  for (int I = 0; I < 5; ++I)
    First.push_back(A.normal());
  Rng B(999);
  B.setState(S);
  for (int I = 0; I < 5; ++I)
    EXPECT_EQ(B.normal(), First[I]);
  EXPECT_TRUE(A.getState() == B.getState());
}

TEST(RandomTest, BelowIsInRangeAndShuffleIsAPermutation) {
  Rng R(5);
  std::vector<int> Counts(3);
  for (int I = 0; I < 30000; ++I)
    ++Counts[R.below(3)];
  for (int C : Counts)
    EXPECT_NEAR(C, 10000, 400);

  std::vector<int> V(100);
  std::iota(V.begin(), V.end(), 0);
  Rng S1(9), S2(9);
  std::vector<int> A = V, B = V;
  S1.shuffle(A);
  S2.shuffle(B);
  EXPECT_EQ(A, B);
  EXPECT_NE(A, V);
  std::sort(A.begin(), A.end());
  EXPECT_EQ(A, V);
}

} // namespace
