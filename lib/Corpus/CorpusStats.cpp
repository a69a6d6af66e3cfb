//===- lib/Corpus/CorpusStats.cpp - What a corpus holds -------------------===//

#include "mlgo/Corpus/CorpusStats.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Support/Files.h"

#include "llvm/Support/MemoryBuffer.h"

#include <map>

using namespace llvm;

namespace mlgo {

size_t CorpusStats::getUnreadableCount() const {
  return llvm::count_if(Modules, [](const auto &S) { return !S; });
}

Expected<CorpusStats> computeCorpusStats(StringRef Dir, unsigned Threads,
                                         const ProgressCallback &Progress) {
  Expected<CorpusDescription> D = CorpusDescription::read(Dir);
  if (!D)
    return D.takeError();
  CorpusStats S;
  S.Description = std::move(*D);
  const std::vector<std::string> &Names = S.Description.Modules;
  size_t N = Names.size();
  S.Modules.resize(N);
  S.Errors.resize(N);
  // The content hash of each module, or why it has none.
  std::vector<std::string> Hashes(N), HashErrors(N);
  runJobs(
      N, Threads,
      [&](size_t I) {
        std::string Path = getModuleFile(Dir, Names[I], ".bc");
        Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
        if (!Buf) {
          S.Errors[I] = toString(Buf.takeError());
          HashErrors[I] = S.Errors[I];
          return;
        }
        if (Expected<ModuleStats> M =
                computeModuleStats((*Buf)->getMemBufferRef()))
          S.Modules[I] = *M;
        else
          S.Errors[I] = toString(M.takeError());
        Expected<std::vector<std::string>> Args =
            readModuleCC1Args(Dir, S.Description, Names[I]);
        if (!Args)
          HashErrors[I] = toString(Args.takeError());
        else
          Hashes[I] = getModuleContentHash((*Buf)->getBuffer(), *Args);
      },
      Progress);

  std::map<std::string, PackageStats> Packages;
  for (size_t I = 0; I < N; ++I) {
    PackageStats &P = Packages[getModulePackage(Names[I]).str()];
    ++P.Modules;
    if (!S.Modules[I])
      continue;
    const ModuleStats &M = *S.Modules[I];
    S.Total.Functions += M.Functions;
    S.Total.Declarations += M.Declarations;
    S.Total.Instructions += M.Instructions;
    S.Total.CallSites += M.CallSites;
    S.Total.BitcodeBytes += M.BitcodeBytes;
    P.Instructions += M.Instructions;
  }
  for (auto &[Name, P] : Packages) {
    P.Package = Name;
    S.Packages.push_back(std::move(P));
  }

  std::vector<ModuleContent> Contents;
  for (size_t I = 0; I < N; ++I) {
    if (!HashErrors[I].empty()) {
      S.FingerprintError = HashErrors[I];
      return S;
    }
    Contents.push_back({Names[I], Hashes[I]});
  }
  Expected<std::vector<std::string>> ProfileHashes =
      hashCorpusProfiles(Dir, S.Description);
  if (!ProfileHashes) {
    S.FingerprintError = toString(ProfileHashes.takeError());
    return S;
  }
  S.Fingerprint = getCorpusFingerprint(Contents, S.Description, *ProfileHashes);
  return S;
}

} // namespace mlgo
