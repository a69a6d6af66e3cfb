//===- lib/Speed/SpeedCompile.cpp - A compile for speed, as a task --------===//
//
// See mlgo/Speed/SpeedCompile.h: the task "clang-speed-compile" (spawn the
// module's cc1 command in a directory of its own, answer with the object
// and the logs) and the making and decoding of it.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/SpeedCompile.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace mlgo::speed {
namespace {

constexpr const char ObjectPlaceholder[] = "%{mlgo-object}";

/// \p Text with every \p From replaced by \p To.
std::string replaceAll(std::string Text, StringRef From, StringRef To) {
  for (size_t At = Text.find(From); At != std::string::npos;
       At = Text.find(From, At + To.size()))
    Text.replace(At, From.size(), To.str());
  return Text;
}

/// Removes a directory and what is in it when it goes out of scope.
struct TempDir {
  SmallString<128> Path;
  ~TempDir() {
    if (!Path.empty())
      sys::fs::remove_directories(Path);
  }
};

void putFile(ByteWriter &W, StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  W.putU8(bool(Buf));
  if (Buf)
    W.putString((*Buf)->getBuffer());
}

/// Args: the timeout, then clang's argv with the placeholders. Answers the
/// format of SpeedCompile.h.
Expected<std::string> runSpeedCompile(ArrayRef<std::string> Args) {
  unsigned Timeout = 0;
  if (Args.size() < 2 || StringRef(Args[0]).getAsInteger(10, Timeout))
    return makeError("clang-speed-compile: malformed arguments");
  TempDir Dir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-speed-compile", Dir.Path))
    return makeError("cannot create a temporary directory: " + EC.message());
  std::string Object = (Dir.Path + "/m.o").str();
  std::string ILog = (Dir.Path + "/m.ilog").str();
  std::string ELog = (Dir.Path + "/m.elog").str();
  std::string Err = (Dir.Path + "/m.err").str();
  std::vector<std::string> Argv;
  for (const std::string &A : ArrayRef(Args).drop_front())
    Argv.push_back(
        replaceAll(replaceAll(replaceAll(A, ObjectPlaceholder, Object),
                              SpeedInlineLog, ILog),
                   SpeedEvictLog, ELog));
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = "/dev/null";
  RO.Stderr = Err;
  RO.TimeoutSeconds = Timeout;
  // Killed with mlgo, however it ends.
  RO.OwnProcessGroup = true;
  ProcessResult PR = runProcess(Argv, RO);
  std::string Stderr;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Err))
    Stderr = (*Buf)->getBuffer().take_front(2000).rtrim().str();
  if (!PR.succeeded()) {
    // A full disk may have left the compiler nothing to say it with; at a
    // file size limit it dies of SIGXFSZ with a crash report, cut too.
    std::string NoRoom = describeNoRoom(std::string(Dir.Path), Stderr);
    if (!NoRoom.empty())
      return makeError(Argv[0] + " " + PR.describe() + ": cannot write '" +
                       Object + "': " + NoRoom);
    return makeError(Argv[0] + " " + PR.describe() +
                     (Stderr.empty() ? "" : ":\n" + Stderr));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Obj = readWholeFile(Object);
  if (!Obj)
    return Obj.takeError();
  ByteWriter W;
  W.putString(Stderr);
  W.putString((*Obj)->getBuffer());
  putFile(W, ILog);
  putFile(W, ILog + ".sites");
  putFile(W, ELog);
  return toStringRef(W.Bytes).str();
}

RegisterTask SpeedCompileKind("clang-speed-compile", runSpeedCompile);

} // namespace

Expected<Task> makeSpeedCompileTask(const SpeedCompileSetup &Setup,
                                    StringRef Module,
                                    const CompilePolicy &Policy) {
  // speedCompileFlags (mlgo/Speed/Profile.h) as cc1 spells them, and the
  // address map measureExecutionCost reads.
  std::vector<std::string> Extra = {
      "-fprofile-instrument-use-path=" + Setup.Profile,
      "-Werror=backend-plugin", "-mllvm", "-pgo-warn-missing-function"};
  llvm::append_range(Extra, AddressMapFlags);
  Expected<std::vector<std::string>> PluginArgs =
      Policy.getCC1Args(Setup.PluginPath);
  if (!PluginArgs)
    return PluginArgs.takeError();
  llvm::append_range(Extra, *PluginArgs);
  Expected<std::vector<std::string>> Argv =
      getModuleCompileCommand(Setup.CorpusDir, Setup.Description, Module,
                              ObjectPlaceholder, Extra, Setup.Clang);
  if (!Argv)
    return Argv.takeError();
  Task T;
  T.Kind = "clang-speed-compile";
  T.Module = Module.str();
  T.Inputs = {getModuleFile(Setup.CorpusDir, Module, ".bc"), Setup.Profile};
  if (Policy.Fixed && !Policy.DecisionsPath.empty())
    T.Inputs.push_back(Policy.DecisionsPath);
  if (Policy.EvictModel && !Policy.EvictModel->empty())
    T.Inputs.push_back(*Policy.EvictModel);
  T.Args.push_back(std::to_string(Setup.TimeoutSeconds));
  llvm::append_range(T.Args, *Argv);
  return T;
}

Expected<SpeedCompileAnswer> decodeSpeedCompileAnswer(StringRef Payload) {
  ByteReader R(Payload);
  SpeedCompileAnswer A;
  bool Ok = R.getString(A.Stderr) && R.getString(A.Object);
  for (std::optional<std::string> *F :
       {&A.InlineLog, &A.InlineSites, &A.EvictLog}) {
    uint8_t Present = 0;
    if (!Ok || !R.getU8(Present))
      Ok = false;
    else if (Present)
      Ok = R.getString(F->emplace());
  }
  if (!Ok || R.remaining())
    return makeError("clang-speed-compile: malformed answer of " +
                     Twine(Payload.size()) + " bytes");
  return A;
}

} // namespace mlgo::speed
