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

std::string getCorpusFingerprint(ArrayRef<ModuleContent> Modules,
                                 ArrayRef<ProfileContent> Profiles) {
  MD5 Hash;
  for (const ModuleContent &M : Modules) {
    // NUL-terminated, so ("ab", "c") and ("a", "bc") hash differently.
    Hash.update(M.Name);
    Hash.update(ArrayRef<uint8_t>{0});
    Hash.update(M.ContentHash);
  }
  for (const ProfileContent &P : Profiles) {
    Hash.update("profile");
    Hash.update(ArrayRef<uint8_t>{0});
    Hash.update(P.Package);
    Hash.update(ArrayRef<uint8_t>{0});
    Hash.update(P.ContentHash);
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

Expected<std::vector<std::string>>
hashCorpusProfiles(StringRef Dir, const CorpusDescription &Description) {
  // std::map: in package order.
  std::vector<std::string> Hashes;
  for (const auto &Entry : Description.Profiles) {
    Expected<std::unique_ptr<MemoryBuffer>> P =
        readWholeFile(getModuleFile(Dir, Entry.second, ""));
    if (!P)
      return P.takeError();
    MD5 Hash;
    Hash.update((*P)->getBuffer());
    // The block counts are part of the package's profile: a reward that
    // reads them changes with them. A package without has the hash of its
    // profile alone, as before there were counts.
    if (std::optional<std::string> Counts =
            Description.getBlockCountsPath(Dir, Entry.first)) {
      Expected<std::unique_ptr<MemoryBuffer>> C = readWholeFile(*Counts);
      if (!C)
        return C.takeError();
      Hash.update(StringRef("\0block counts\0", 14));
      Hash.update((*C)->getBuffer());
    }
    MD5::MD5Result R;
    Hash.final(R);
    Hashes.push_back(std::string(R.digest()));
  }
  return Hashes;
}

std::string getCorpusFingerprint(ArrayRef<ModuleContent> Modules,
                                 const CorpusDescription &Description,
                                 ArrayRef<std::string> ProfileHashes) {
  assert(ProfileHashes.size() == Description.Profiles.size() &&
         "one hash per profile");
  std::vector<ProfileContent> Profiles;
  size_t I = 0;
  for (const auto &Entry : Description.Profiles)
    Profiles.push_back({Entry.first, ProfileHashes[I++]});
  return getCorpusFingerprint(Modules, Profiles);
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
  Expected<std::vector<std::string>> ProfileHashes =
      hashCorpusProfiles(Dir, Description);
  if (!ProfileHashes)
    return ProfileHashes.takeError();
  return getCorpusFingerprint(Contents, Description, *ProfileHashes);
}

} // namespace mlgo
