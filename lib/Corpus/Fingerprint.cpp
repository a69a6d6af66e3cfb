//===- lib/Corpus/Fingerprint.cpp - What a corpus is, in 32 digits --------===//

#include "mlgo/Corpus/Fingerprint.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Support/Files.h"

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

Expected<std::string>
computeCorpusFingerprint(StringRef Dir, const CorpusDescription &Description) {
  std::vector<std::string> Hashes;
  Hashes.reserve(Description.Modules.size());
  for (const std::string &Name : Description.Modules) {
    Expected<std::vector<std::string>> Args =
        readModuleCC1Args(Dir, Description, Name);
    if (!Args)
      return Args.takeError();
    Expected<std::unique_ptr<MemoryBuffer>> Bc =
        readWholeFile(getModuleFile(Dir, Name, ".bc"));
    if (!Bc)
      return Bc.takeError();
    Hashes.push_back(getModuleContentHash((*Bc)->getBuffer(), *Args));
  }
  std::vector<ModuleContent> Contents;
  for (size_t I = 0; I < Hashes.size(); ++I)
    Contents.push_back({Description.Modules[I], Hashes[I]});
  return getCorpusFingerprint(Contents);
}

} // namespace mlgo
