//===- unittests/Corpus/PackageTest.cpp - The package of a module ---------===//

#include "mlgo/Corpus/Package.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

TEST(PackageTest, ModulePackageIsTheFirstPathComponent) {
  EXPECT_EQ(getModulePackage("zlib/CMakeFiles/z.dir/adler32.c.o"), "zlib");
  EXPECT_EQ(getModulePackage("zlib/x/y.o"), "zlib");
}

// One answer for training, `corpus stats` and `eval corpus` alike (they
// disagreed: "" and "."); shown as one phrase everywhere.
TEST(PackageTest, ModuleWithoutADirectoryHasNoPackage) {
  EXPECT_EQ(getModulePackage("adler32.o"), "");
  EXPECT_EQ(getModulePackage("/adler32.o"), "");
  EXPECT_EQ(describePackage(""), "(modules without a directory)");
  EXPECT_EQ(describePackage("zlib"), "zlib");
}

} // namespace
