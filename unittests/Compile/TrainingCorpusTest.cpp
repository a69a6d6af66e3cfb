//===- unittests/Compile/TrainingCorpusTest.cpp
//-----------------------------===//

#include "mlgo/Compile/TrainingCorpus.h"

#include "mlgo/Corpus/Fingerprint.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

CorpusModule makeModule(std::string Name, std::string ContentHash) {
  CorpusModule M;
  M.Name = std::move(Name);
  M.ContentHash = std::move(ContentHash);
  return M;
}

// Training's fingerprint is the corpus library's (whose exact values
// unittests/Corpus/FingerprintTest.cpp pins) over names and content hashes.
TEST(TrainingCorpusTest, FingerprintIsTheCorpusFingerprint) {
  CorpusModule A = makeModule("zlib/a.o", "00112233445566778899aabbccddeeff");
  CorpusModule B = makeModule("zlib/b.o", "ffeeddccbbaa99887766554433221100");
  EXPECT_EQ(getCorpusFingerprint(std::vector<CorpusModule>{A, B}),
            "3b67cea269215a4e0809f6b5605b7ed7");
  EXPECT_EQ(getCorpusFingerprint(std::vector<CorpusModule>{B, A}),
            getCorpusFingerprint(std::vector<ModuleContent>{
                {B.Name, B.ContentHash}, {A.Name, A.ContentHash}}));
}

} // namespace
