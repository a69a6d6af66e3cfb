//===- lib/Train/TrainingCorpus.cpp - Corpus modules for training ---------===//

#include "mlgo/Train/TrainingCorpus.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlgo {

std::string getModulePackage(StringRef Module) {
  auto [First, Rest] = Module.split('/');
  return Rest.empty() ? "" : First.str();
}

std::string describePackage(StringRef Package) {
  return Package.empty() ? "(modules without a directory)" : Package.str();
}

CompileJob CorpusModule::makeJob(CompilePolicy P, bool WantLog) const {
  CompileJob J;
  J.Module = Name;
  J.BitcodePath = BitcodePath;
  J.CC1Args = CC1Args;
  J.ThePolicy = std::move(P);
  J.WantLog = WantLog;
  return J;
}

Expected<std::vector<CorpusModule>> loadTrainingCorpus(StringRef Dir) {
  Expected<CorpusDescription> D = CorpusDescription::read(Dir);
  if (!D)
    return D.takeError();
  std::vector<CorpusModule> Modules;
  Modules.reserve(D->Modules.size());
  for (const std::string &Name : D->Modules) {
    CorpusModule M;
    M.Name = Name;
    M.Package = getModulePackage(Name);
    M.BitcodePath = getModuleFile(Dir, Name, ".bc");
    Expected<std::vector<std::string>> Args =
        readModuleCC1Args(Dir, *D, Name);
    if (!Args)
      return Args.takeError();
    M.CC1Args = std::move(*Args);
    Expected<std::unique_ptr<MemoryBuffer>> Bc = readWholeFile(M.BitcodePath);
    if (!Bc)
      return Bc.takeError();
    MD5 Hash;
    Hash.update((*Bc)->getBuffer());
    M.BitcodeSize = (*Bc)->getBufferSize();
    Hash.update(joinCommandSection(M.CC1Args));
    MD5::MD5Result R;
    Hash.final(R);
    M.ContentHash = std::string(R.digest());
    Modules.push_back(std::move(M));
  }
  return Modules;
}

std::string getCorpusFingerprint(ArrayRef<CorpusModule> Modules) {
  MD5 Hash;
  for (const CorpusModule &M : Modules) {
    // NUL-terminated, so ("ab", "c") and ("a", "bc") hash differently.
    Hash.update(M.Name);
    Hash.update(ArrayRef<uint8_t>{0});
    Hash.update(M.ContentHash);
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

std::string getDefaultPluginPath() {
  // On Linux this reads /proc/self/exe.
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable("mlgo", &Anchor);
  SmallString<256> P(sys::path::parent_path(sys::path::parent_path(Exe)));
  sys::path::append(P, "lib", "MLGOInliner.so");
  return std::string(P);
}

} // namespace mlgo
