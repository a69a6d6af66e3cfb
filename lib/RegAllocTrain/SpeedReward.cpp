//===- SpeedReward.cpp - The profile-weighted reward of an allocation -----===//
//
// Applying a profile with clang-19's own pipeline, and compiling the result
// twice with llc-19 (MIR for the scores, an object for the cost); see
// mlgo/RegAllocTrain/SpeedReward.h for why it is done this way.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/SpeedReward.h"

#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace mlgo::regalloc {

/// The first line of the file at \p Path that starts with "error: ", or
/// else its first non-blank line; trimmed.
static std::string firstErrorOf(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  std::string First;
  StringRef Rest = (*Buf)->getBuffer();
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    Line = Line.trim();
    if (Line.starts_with("error: "))
      return Line.str();
    if (First.empty())
      First = Line.str();
  }
  return First;
}

Error applyProfile(StringRef IRPath, StringRef Profile, StringRef OutPath,
                   unsigned TimeoutSeconds, ProfileMatch Match,
                   std::vector<std::string> *Mismatches) {
  if (Expected<speed::ProfileInfo> Info = speed::readProfileInfo(Profile);
      !Info)
    return Info.takeError();
  if (!sys::fs::exists(IRPath))
    return makeError(IRPath + ": No such file or directory");
  SmallString<128> ErrPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-profile-use", "err", ErrPath))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveErr(ErrPath);
  std::string Tmp = (OutPath + ".tmp").str();
  std::vector<std::string> Argv = {"clang-19", "-O2"};
  // A package's profile: only -fprofile-use, so that clang says nothing
  // of functions the profile does not know and warns of mismatches.
  if (Match == ProfileMatch::Package)
    Argv.push_back(("-fprofile-use=" + Profile).str());
  else
    for (std::string &Flag : speed::speedCompileFlags(Profile))
      Argv.push_back(std::move(Flag));
  Argv.insert(Argv.end(),
              {"-x", "ir", IRPath.str(), "-emit-llvm", "-c", "-o", Tmp});
  RunOptions Run;
  Run.Stdin = "/dev/null";
  Run.Stdout = "/dev/null";
  Run.Stderr = ErrPath.str().str();
  Run.TimeoutSeconds = TimeoutSeconds;
  ProcessResult R = runProcess(Argv, Run);
  if (!R.succeeded()) {
    sys::fs::remove(Tmp);
    std::string Line = firstErrorOf(ErrPath);
    // clang's profile diagnostics, turned into errors by speedCompileFlags.
    if (StringRef(Line).contains("[-Werror,-Wbackend-plugin]"))
      return makeError(Profile + ": does not match " + IRPath + ": " + Line);
    return makeError(Profile + ": clang-19 -fprofile-use on " + IRPath + " " +
                     R.describe() + (Line.empty() ? "" : ": " + Line));
  }
  if (Mismatches)
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Log =
            MemoryBuffer::getFile(ErrPath))
      for (std::string &M : speed::findProfileMismatches((*Log)->getBuffer()))
        Mismatches->push_back(std::move(M));
  if (std::error_code EC = sys::fs::rename(Tmp, OutPath))
    return makeError("cannot rename '" + Tmp + "': " + EC.message());
  return Error::success();
}

Expected<bool> hasProfileCounts(StringRef ProfiledIR) {
  LLVMContext Context;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseIRFile(ProfiledIR, Diag, Context);
  if (!M)
    return makeError(ProfiledIR + ": " + Diag.getMessage());
  for (const Function &F : *M)
    if (!F.isDeclaration() && F.getEntryCount())
      return true;
  return false;
}

LLCOptions withAddressMap(LLCOptions Options) {
  Options.ExtraArgs.insert(Options.ExtraArgs.begin(),
                           std::begin(speed::AddressMapLLCFlags),
                           std::end(speed::AddressMapLLCFlags));
  return Options;
}

Expected<speed::ObjectCost>
costProfiledIR(StringRef ProfiledIR, const LLCOptions &Options,
               speed::BlockCoster *Coster,
               const speed::MeasuredCounts *Counts) {
  SmallString<128> ObjPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-speed", "o", ObjPath))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveObj(ObjPath);
  if (Error E = compileToObject(ProfiledIR, ObjPath, withAddressMap(Options)))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Obj = readWholeFile(ObjPath);
  if (!Obj)
    return Obj.takeError();
  // Errors name the IR, not the temporary object.
  std::unique_ptr<MemoryBuffer> Named = MemoryBuffer::getMemBuffer(
      (*Obj)->getBuffer(), (ProfiledIR + " (llc-19's object)").str(),
      /*RequiresNullTerminator=*/false);
  return speed::measureExecutionCost(Named->getMemBufferRef(), Coster, Counts);
}

Expected<SpeedScore> scoreProfiledIR(StringRef ProfiledIR,
                                     const LLCOptions &Options) {
  SpeedScore Out;
  Expected<ModuleScore> Scores =
      compileAndScore(ProfiledIR, withAddressMap(Options));
  if (!Scores)
    return Scores.takeError();
  Out.Scores = std::move(*Scores);
  Expected<speed::ObjectCost> Cost = costProfiledIR(ProfiledIR, Options);
  if (!Cost)
    return Cost.takeError();
  Out.Cost = std::move(*Cost);
  return Out;
}

} // namespace mlgo::regalloc
