//===- lib/Eval/ClangModuleCompiler.cpp - Compile by spawning clang -------===//
//
// Replays a corpus module with clang-19 -cc1 (plus the plugin for a model)
// into a temporary object and measures its code (mlgo::getCodeSize) with
// LLVM's Object library (see mlgo/Eval/ClangModuleCompiler.h): the task
// "clang-code-size", which runs here or on a worker rank.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/ClangModuleCompiler.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Support/Bytes.h"
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

/// What the argv of a "clang-code-size" task says where the object goes:
/// each task writes its own temporary file instead.
constexpr const char ObjectPlaceholder[] = "%{mlgo-object}";

std::string encodeCodeSize(const CodeSize &S) {
  ByteWriter W;
  W.putU64(S.Total);
  W.putU32(S.Grouped.size());
  for (const auto &[Name, Bytes] : S.Grouped) {
    W.putString(Name);
    W.putU64(Bytes);
  }
  return toStringRef(W.Bytes).str();
}

Expected<CodeSize> decodeCodeSize(StringRef Payload) {
  ByteReader R(Payload);
  CodeSize S;
  uint32_t N = 0;
  if (!R.getU64(S.Total) || !R.getU32(N) || N > R.remaining() / 12)
    return makeError("code size: malformed answer of " + Twine(Payload.size()) +
                     " bytes");
  S.Grouped.resize(N);
  for (auto &[Name, Bytes] : S.Grouped)
    if (!R.getString(Name) || !R.getU64(Bytes))
      return makeError("code size: malformed answer of " +
                       Twine(Payload.size()) + " bytes");
  if (R.remaining())
    return makeError("code size: malformed answer of " + Twine(Payload.size()) +
                     " bytes");
  return S;
}

/// Args: the timeout in seconds, then clang's argv with ObjectPlaceholder
/// for the object. Answers encodeCodeSize of the object.
Expected<std::string> runClangCodeSize(ArrayRef<std::string> Args) {
  unsigned Timeout = 0;
  if (Args.size() < 2 || StringRef(Args[0]).getAsInteger(10, Timeout))
    return makeError("clang-code-size: malformed arguments");
  TempFile Out;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-eval", "o", Out.Path))
    return makeError("cannot create a temporary object file: " + EC.message());
  std::vector<std::string> Argv(Args.begin() + 1, Args.end());
  for (std::string &A : Argv)
    if (A == ObjectPlaceholder)
      A = std::string(Out.Path);
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
  RO.TimeoutSeconds = Timeout;
  ProcessResult R = runProcess(Argv, RO);
  if (!R.succeeded()) {
    std::string Stderr;
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
            MemoryBuffer::getFile(Err.Path))
      Stderr = (*Buf)->getBuffer().take_front(2000).rtrim().str();
    // A full disk may have left the compiler nothing to say it with.
    std::string Full =
        describeFullDisks({std::string(Out.Path), std::string(Err.Path)});
    return makeError(Argv[0] + " " + R.describe() +
                     (Full.empty() ? "" : " (" + Full + ")") +
                     (Stderr.empty() ? "" : ":\n" + Stderr));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Obj = readWholeFile(Out.Path);
  if (!Obj)
    return Obj.takeError();
  Expected<CodeSize> Size = getCodeSize((*Obj)->getMemBufferRef());
  if (!Size)
    return Size.takeError();
  return encodeCodeSize(*Size);
}

RegisterTask ClangCodeSize("clang-code-size", runClangCodeSize);
} // namespace

Expected<Task>
ClangModuleCompiler::makeTask(StringRef Module,
                              const CompilePolicy &Policy) const {
  Expected<std::vector<std::string>> PolicyArgs =
      Policy.getCC1Args(Opts.PluginPath);
  if (!PolicyArgs)
    return PolicyArgs.takeError();
  Expected<std::vector<std::string>> Argv =
      getModuleCompileCommand(CorpusDir, Description, Module, ObjectPlaceholder,
                              *PolicyArgs, Opts.Clang);
  if (!Argv)
    return Argv.takeError();
  Task T;
  T.Kind = "clang-code-size";
  T.Module = Module.str();
  T.Inputs.push_back(getModuleFile(CorpusDir, Module, ".bc"));
  if (!Policy.ModelPath.empty())
    T.Inputs.push_back(Policy.ModelPath);
  if (Policy.Fixed && !Policy.DecisionsPath.empty())
    T.Inputs.push_back(Policy.DecisionsPath);
  T.Args.push_back(std::to_string(Opts.TimeoutSeconds));
  llvm::append_range(T.Args, *Argv);
  return T;
}

Expected<CodeSize> ClangModuleCompiler::codeSize(StringRef Module,
                                                 const CompilePolicy &Policy) {
  Expected<Task> T = makeTask(Module, Policy);
  if (!T)
    return T.takeError();
  Expected<std::string> Answer = runTaskHere(T->Kind, T->Args);
  if (!Answer)
    return Answer.takeError();
  return decodeCodeSize(*Answer);
}

std::vector<Expected<CodeSize>>
ClangModuleCompiler::codeSizes(ArrayRef<Request> Requests, unsigned Threads,
                               const ProgressCallback &Progress) {
  std::vector<Task> Tasks;
  std::vector<std::optional<std::string>> Unmade(Requests.size());
  std::vector<size_t> TaskOf(Requests.size(), 0);
  for (size_t I = 0; I < Requests.size(); ++I) {
    Expected<Task> T = makeTask(Requests[I].Module, *Requests[I].Policy);
    if (!T) {
      Unmade[I] = toString(T.takeError());
      continue;
    }
    TaskOf[I] = Tasks.size();
    Tasks.push_back(std::move(*T));
  }
  size_t Failed = Requests.size() - Tasks.size();
  ProgressCallback Shifted;
  if (Progress)
    Shifted = [&](size_t Done, size_t) {
      Progress(Failed + Done, Requests.size());
    };
  std::vector<TaskOutcome> Out = runTasks(Tasks, Threads, Shifted);
  std::vector<Expected<CodeSize>> Sizes;
  for (size_t I = 0; I < Requests.size(); ++I) {
    if (Unmade[I]) {
      Sizes.push_back(makeError(*Unmade[I]));
      continue;
    }
    TaskOutcome &O = Out[TaskOf[I]];
    if (O.ok())
      Sizes.push_back(decodeCodeSize(*O.Result));
    else
      Sizes.push_back(makeError(O.Error));
  }
  return Sizes;
}

} // namespace mlgo
