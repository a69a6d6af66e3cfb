//===- lib/Speed/Callgrind.cpp - Executed instructions, measured ----------===//
//
// See mlgo/Speed/Callgrind.h: callgrind over a command and its children,
// its per-process logs read back.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/Callgrind.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {
namespace speed {

/// The last \p N lines of the file at \p Path ("" if it cannot be read).
std::string readTail(StringRef Path, size_t N) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  StringRef Text = (*Buf)->getBuffer().rtrim('\n');
  size_t Pos = Text.size();
  for (size_t I = 0; I < N && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  return (Pos == StringRef::npos ? Text : Text.drop_front(Pos + 1)).str();
}

Expected<CallgrindRun> runCallgrind(StringRef Name, ArrayRef<std::string> Argv,
                                    const std::string &Tree,
                                    const std::string &LogDir,
                                    unsigned TimeoutSeconds) {
  sys::fs::remove_directories(LogDir);
  if (std::error_code EC = sys::fs::create_directories(LogDir))
    return makeError(LogDir + ": " + EC.message());
  std::vector<std::string> Full = {"valgrind",
                                   "--tool=callgrind",
                                   "--callgrind-out-file=/dev/null",
                                   "--trace-children=yes",
                                   "--toggle-collect=main",
                                   "-v",
                                   "--log-file=" + LogDir + "/%p.log"};
  llvm::append_range(Full, Argv);
  std::string Out = LogDir + "/output.txt";
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = Out;
  RO.Stderr = Out;
  RO.TimeoutSeconds = TimeoutSeconds;
  RO.OwnProcessGroup = true;
  ProcessResult R = runProcess(Full, RO);
  if (!R.succeeded())
    return makeError(Name + ": the benchmark under callgrind " + R.describe() +
                     "; last lines of " + Out + ":\n" + readTail(Out, 10));
  CallgrindRun Run;
  std::set<std::string> Programs;
  std::error_code EC;
  for (sys::fs::directory_iterator It(LogDir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!StringRef(It->path()).ends_with(".log"))
      continue;
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(It->path());
    if (!Buf)
      return Buf.takeError();
    StringRef Program;
    std::optional<uint64_t> Collected;
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (StringRef L : Lines) {
      size_t Syms = L.find("Reading syms from ");
      if (Program.empty() && Syms != StringRef::npos)
        Program = L.drop_front(Syms + strlen("Reading syms from ")).trim();
      size_t C = L.find("Collected : ");
      uint64_t N;
      if (C != StringRef::npos &&
          !L.drop_front(C + strlen("Collected : ")).trim().getAsInteger(10, N))
        Collected = N;
    }
    if (!Program.starts_with(Tree + "/"))
      continue;
    if (!Collected || *Collected == 0)
      return makeError(It->path() + ": callgrind counted nothing in main of " +
                       Program + " (did it end normally? is it stripped?)");
    Run.Instructions += *Collected;
    Programs.insert(Program.drop_front(Tree.size() + 1).str());
  }
  if (EC)
    return makeError(LogDir + ": " + EC.message());
  if (Programs.empty())
    return makeError(Name + ": the benchmark ran no program of the build in " +
                     Tree + " (see " + Out + ")");
  Run.Programs.assign(Programs.begin(), Programs.end());
  return Run;
}

} // namespace speed
} // namespace mlgo
