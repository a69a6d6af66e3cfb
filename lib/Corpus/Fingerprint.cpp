//===- lib/Corpus/Fingerprint.cpp - What a corpus is, in 32 digits --------===//

#include "mlgo/Corpus/Fingerprint.h"

#include "mlgo/Corpus/CompileCommand.h"

#include "llvm/Support/MD5.h"

using namespace llvm;

namespace mlgo {

std::string getModuleContentHash(StringRef Bitcode,
                                 ArrayRef<std::string> CC1Args) {
  MD5 Hash;
  Hash.update(Bitcode);
  Hash.update(joinCommandSection(CC1Args));
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

std::string getCorpusFingerprint(ArrayRef<ModuleContent> Modules) {
  MD5 Hash;
  for (const ModuleContent &M : Modules) {
    // NUL-terminated, so ("ab", "c") and ("a", "bc") hash differently.
    Hash.update(M.Name);
    Hash.update(ArrayRef<uint8_t>{0});
    Hash.update(M.ContentHash);
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

} // namespace mlgo
