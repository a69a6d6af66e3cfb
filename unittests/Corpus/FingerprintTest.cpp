//===- unittests/Corpus/FingerprintTest.cpp - Content hash, fingerprint ---===//

#include "mlgo/Corpus/Fingerprint.h"

#include "gtest/gtest.h"

#include <vector>

using namespace mlgo;

namespace {

// The fingerprint is the MD5 of "name\0contenthash" for every module in
// order; the expected values are md5sum of those bytes.
TEST(FingerprintTest, FingerprintHashesNamesAndContentInOrder) {
  ModuleContent A{"zlib/a.o", "00112233445566778899aabbccddeeff"};
  ModuleContent B{"zlib/b.o", "ffeeddccbbaa99887766554433221100"};
  EXPECT_EQ(getCorpusFingerprint({A, B}), "3b67cea269215a4e0809f6b5605b7ed7");
  EXPECT_EQ(getCorpusFingerprint({B, A}), "99f59a0e58ba6fe00a4e00832289ee25");
  EXPECT_EQ(getCorpusFingerprint({}), "d41d8cd98f00b204e9800998ecf8427e");
}

// A corpus without profiles keeps the fingerprint it always had (the
// values above); a profile is hashed after the modules:
//   printf 'zlib/a.o\0<hash A>profile\0zlib\0<profile hash>' | md5sum
TEST(FingerprintTest, ProfilesAreHashedAfterModulesAndOnlyWhenPresent) {
  ModuleContent A{"zlib/a.o", "00112233445566778899aabbccddeeff"};
  ModuleContent B{"zlib/b.o", "ffeeddccbbaa99887766554433221100"};
  EXPECT_EQ(getCorpusFingerprint({A, B}, {}),
            "3b67cea269215a4e0809f6b5605b7ed7");
  ProfileContent P{"zlib", "0123456789abcdef0123456789abcdef"};
  EXPECT_EQ(getCorpusFingerprint({A}, {P}), "3668ae30f23d4265331317816aa0ed2f");
  ProfileContent Q{"zlib", "0123456789abcdef0123456789abcdee"};
  EXPECT_NE(getCorpusFingerprint({A}, {P}), getCorpusFingerprint({A}, {Q}));
}

TEST(FingerprintTest, FingerprintSeparatesNameFromContent) {
  // Without the NUL after the name these two would hash the same bytes.
  ModuleContent A{"zlib/a.o", "0123"};
  ModuleContent B{"zlib/a.o0", "123"};
  EXPECT_NE(getCorpusFingerprint({A}), getCorpusFingerprint({B}));
}

// MD5 of the bitcode bytes followed by the NUL-terminated arguments:
//   printf 'BC\0\xc0\xde-cc1\0-Oz\0' | md5sum
TEST(FingerprintTest, ContentHashCoversBitcodeThenArguments) {
  std::string Bitcode("BC\0\xc0\xde", 5);
  EXPECT_EQ(getModuleContentHash(Bitcode, {"-cc1", "-Oz"}),
            "e95ba8f61fe3616758a7b99965d4cbd2");
  EXPECT_NE(getModuleContentHash(Bitcode, {"-cc1", "-O2"}),
            getModuleContentHash(Bitcode, {"-cc1", "-Oz"}));
}

} // namespace
