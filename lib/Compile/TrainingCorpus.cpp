//===- lib/Compile/TrainingCorpus.cpp - Corpus modules for training
//---------===//

#include "mlgo/Compile/TrainingCorpus.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Support/Files.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace mlgo {

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
    Expected<std::vector<std::string>> Args = readModuleCC1Args(Dir, *D, Name);
    if (!Args)
      return Args.takeError();
    M.CC1Args = std::move(*Args);
    Expected<std::unique_ptr<MemoryBuffer>> Bc = readWholeFile(M.BitcodePath);
    if (!Bc)
      return Bc.takeError();
    M.BitcodeSize = (*Bc)->getBufferSize();
    M.ContentHash = getModuleContentHash((*Bc)->getBuffer(), M.CC1Args);
    Modules.push_back(std::move(M));
  }
  return Modules;
}

std::string getCorpusFingerprint(ArrayRef<CorpusModule> Modules) {
  std::vector<ModuleContent> Contents;
  Contents.reserve(Modules.size());
  for (const CorpusModule &M : Modules)
    Contents.push_back({M.Name, M.ContentHash});
  return getCorpusFingerprint(Contents);
}

} // namespace mlgo
