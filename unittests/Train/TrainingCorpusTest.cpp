//===- unittests/Train/TrainingCorpusTest.cpp -----------------------------===//

#include "mlgo/Train/TrainingCorpus.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

CorpusModule makeModule(std::string Name, std::string ContentHash) {
  CorpusModule M;
  M.Name = std::move(Name);
  M.ContentHash = std::move(ContentHash);
  return M;
}

// The fingerprint is the MD5 of "name\0contenthash" for every module in
// order; the expected values are md5sum of those bytes.
TEST(TrainingCorpusTest, FingerprintHashesNamesAndContentInOrder) {
  CorpusModule A = makeModule("zlib/a.o", "00112233445566778899aabbccddeeff");
  CorpusModule B = makeModule("zlib/b.o", "ffeeddccbbaa99887766554433221100");
  EXPECT_EQ(getCorpusFingerprint({A, B}), "3b67cea269215a4e0809f6b5605b7ed7");
  EXPECT_EQ(getCorpusFingerprint({B, A}), "99f59a0e58ba6fe00a4e00832289ee25");
  EXPECT_EQ(getCorpusFingerprint({}), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(TrainingCorpusTest, FingerprintSeparatesNameFromContent) {
  // Without the NUL after the name these two would hash the same bytes.
  CorpusModule A = makeModule("zlib/a.o", "0123");
  CorpusModule B = makeModule("zlib/a.o0", "123");
  EXPECT_NE(getCorpusFingerprint({A}), getCorpusFingerprint({B}));
}

TEST(TrainingCorpusTest, ModulePackageIsTheFirstPathComponent) {
  EXPECT_EQ(getModulePackage("zlib/CMakeFiles/z.dir/adler32.c.o"), "zlib");
  EXPECT_EQ(getModulePackage("adler32.o"), "");
}

} // namespace
