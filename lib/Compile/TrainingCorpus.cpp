//===- lib/Compile/TrainingCorpus.cpp - Corpus modules for training
//---------===//

#include "mlgo/Compile/TrainingCorpus.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
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

/// The directory the compiler ran in, as clang's driver records it in
/// the cc1 command (-fdebug-compilation-dir=DIR, which it always passes);
/// empty if it is not there.
static std::string getCompileDir(ArrayRef<std::string> CC1Args) {
  for (StringRef A : CC1Args)
    if (A.consume_front("-fdebug-compilation-dir="))
      return A.str();
  return "";
}

Expected<std::unique_ptr<Module>> readLazyModule(const CorpusModule &M,
                                                 LLVMContext &Ctx) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(M.BitcodePath);
  if (!Buf)
    return Buf.takeError();
  Expected<std::unique_ptr<Module>> Mod =
      getOwningLazyBitcodeModule(std::move(*Buf), Ctx);
  if (!Mod)
    return makeError(M.BitcodePath + ": " + toString(Mod.takeError()));
  return Mod;
}

Expected<std::string> readSourceFileName(const CorpusModule &M) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> Mod = readLazyModule(M, Ctx);
  if (!Mod)
    return Mod.takeError();
  return (*Mod)->getSourceFileName();
}

/// The module's source as the plugin resolves it in the build
/// (resolveSourcePath): its source_filename joined to the directory it was
/// compiled in.
Expected<std::string> getSourceFileName(const CorpusModule &M) {
  Expected<std::string> Name = readSourceFileName(M);
  if (!Name)
    return Name.takeError();
  return resolveSourcePath(*Name, getCompileDir(M.CC1Args));
}

Expected<std::string> getSourceFileNameHere(const CorpusModule &M) {
  Expected<std::string> Name = readSourceFileName(M);
  if (!Name)
    return Name.takeError();
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    Cwd.clear();
  return resolveSourcePath(*Name, Cwd);
}

} // namespace mlgo
