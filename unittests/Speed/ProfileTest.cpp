//===- unittests/Speed/ProfileTest.cpp - Profile helpers ------------------===//
//
// The flags of a package's speed compiles, and the control-flow mismatches
// read back from a build log (clang's warnings, as `mlgo eval package
// --profile` reports them).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/Profile.h"

#include "gtest/gtest.h"

using namespace mlgo::speed;

namespace {

TEST(ProfileTest, PackageFlagsApplyTheProfileAndTheAddressMap) {
  EXPECT_EQ(speedPackageFlags("/w/p.profdata"),
            (std::vector<std::string>{
                "-fprofile-use=/w/p.profdata", "-fdebug-default-version=4",
                "-fbasic-block-address-map", "-mllvm",
                "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"}));
}

TEST(ProfileTest, MismatchesFromABuildLog) {
  const char *Log =
      "cc -O2 -c bzip2recover.c\n"
      "warning: bzip2recover.c: function control flow change detected (hash "
      "mismatch) main Hash = 786355726606074948 up to 175 count discarded "
      "[-Wbackend-plugin]\n"
      "1 warning generated.\n"
      "../src/xzdec.c: warning: xzdec.c: function control flow change "
      "detected (hash mismatch) uncompress Hash = 1 [-Wbackend-plugin]\n"
      "warning: bzip2recover.c: function control flow change detected (hash "
      "mismatch) main Hash = 786355726606074948 [-Wbackend-plugin]\n";
  EXPECT_EQ(findProfileMismatches(Log),
            (std::vector<std::string>{"bzip2recover.c: main",
                                      "xzdec.c: uncompress"}));
  EXPECT_TRUE(findProfileMismatches("make: Nothing to be done\n").empty());
}

} // namespace
