//===- unittests/Train/TrainerTest.cpp - The trainer's report helpers -----===//

#include "mlgo/Train/Trainer.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

TEST(TrainerTest, PackagesOverLimitNamesOnlyThoseAboveIt) {
  PackageSizes S;
  S["bzip2"] = {49503, 52443};      // +5.94%
  S["fmtlib"] = {2708090, 2732328}; // +0.895%
  S["lua5.4"] = {1000, 1005};       // +0.50%: at the limit, not above
  S["zlib"] = {48930, 48930};       // 0
  S["snappy"] = {59534, 58157};     // smaller
  EXPECT_EQ(packagesOverLimit(S, 0.5), "bzip2 (+5.94%), fmtlib (+0.90%)");
  EXPECT_EQ(packagesOverLimit(S, 1.0), "bzip2 (+5.94%)");
  EXPECT_EQ(packagesOverLimit(S, 10.0), "");
  EXPECT_EQ(packagesOverLimit({}, 0.5), "");
  // A package with no -Oz bytes counts as unchanged.
  EXPECT_EQ(packagesOverLimit({{"empty", {0, 10}}}, 0.5), "");
}

} // namespace
