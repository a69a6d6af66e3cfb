//===- lib/Eval/ClangModuleCompiler.cpp - Compile by spawning clang -------===//
//
// Replays a corpus module with clang-19 -cc1 (plus the plugin for a model)
// into a temporary object and measures its code (mlgo::getCodeSize) with
// LLVM's Object library (see mlgo/Eval/ClangModuleCompiler.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/ClangModuleCompiler.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/Object/Archive.h"
#include "llvm/Object/Binary.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace llvm::object;

namespace mlgo {

static Expected<uint64_t> sumBinary(Binary &Bin) {
  if (auto *Obj = dyn_cast<ObjectFile>(&Bin))
    return getTextSize(*Obj);
  auto *Ar = dyn_cast<Archive>(&Bin);
  if (!Ar)
    return makeError("not an object file, binary or archive");
  uint64_t Sum = 0;
  Error Err = Error::success();
  for (const Archive::Child &C : Ar->children(Err)) {
    Expected<std::unique_ptr<Binary>> Member = C.getAsBinary();
    if (!Member) {
      // Archives may carry non-object members (a symbol table is not a
      // child; other files are rare). Only objects have code.
      consumeError(Member.takeError());
      continue;
    }
    Expected<uint64_t> S = sumBinary(**Member);
    if (!S)
      return S.takeError();
    Sum += *S;
  }
  if (Err)
    return Err;
  return Sum;
}

Expected<uint64_t> measureTextSize(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<Binary>> Bin = createBinary(Buffer);
  if (!Bin)
    return Bin.takeError();
  return sumBinary(**Bin);
}

Expected<uint64_t> measureTextSize(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<uint64_t> Size = measureTextSize((*Buf)->getMemBufferRef());
  if (!Size)
    return makeError(Path + ": " + toString(Size.takeError()));
  return Size;
}

ClangModuleCompiler::ClangModuleCompiler(StringRef CorpusDir,
                                         CorpusDescription Description,
                                         Options Opts)
    : CorpusDir(CorpusDir.str()), Description(std::move(Description)),
      Opts(std::move(Opts)) {}

namespace {
/// Removes a file when it goes out of scope.
struct TempFile {
  SmallString<128> Path;
  ~TempFile() {
    if (!Path.empty())
      sys::fs::remove(Path);
  }
};
} // namespace

Expected<CodeSize> ClangModuleCompiler::codeSize(StringRef Module,
                                                 const CompilePolicy &Policy) {
  TempFile Out;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-eval", "o", Out.Path))
    return makeError("cannot create a temporary object file: " + EC.message());
  Expected<std::vector<std::string>> PolicyArgs =
      Policy.getCC1Args(Opts.PluginPath);
  if (!PolicyArgs)
    return PolicyArgs.takeError();
  Expected<std::vector<std::string>> Argv = getModuleCompileCommand(
      CorpusDir, Description, Module, Out.Path, *PolicyArgs, Opts.Clang);
  if (!Argv)
    return Argv.takeError();
  // runProcess rather than mlgo::runCommand: the compiler gets no standard
  // input or output, and the message ends with stderr's trailing whitespace
  // trimmed.
  TempFile Err;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-eval", "err", Err.Path))
    return makeError("cannot create a temporary file: " + EC.message());
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = "/dev/null";
  RO.Stderr = std::string(Err.Path);
  RO.TimeoutSeconds = Opts.TimeoutSeconds;
  ProcessResult R = runProcess(*Argv, RO);
  if (!R.succeeded()) {
    std::string Stderr;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
            MemoryBuffer::getFile(Err.Path))
      Stderr = (*Buf)->getBuffer().take_front(2000).rtrim().str();
    return makeError((*Argv)[0] + " " + R.describe() +
                     (Stderr.empty() ? "" : ":\n" + Stderr));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Obj = readWholeFile(Out.Path);
  if (!Obj)
    return Obj.takeError();
  return getCodeSize((*Obj)->getMemBufferRef());
}

} // namespace mlgo
