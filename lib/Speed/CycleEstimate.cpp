//===- lib/Speed/CycleEstimate.cpp - Cycles from simulated caches ---------===//
//
// See mlgo/Speed/CycleEstimate.h: callgrind's cache and branch simulation
// over a command and its children, its per-process event totals read back
// and weighted into cycles.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/CycleEstimate.h"

#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {
namespace speed {

SimulatedEvents &SimulatedEvents::operator+=(const SimulatedEvents &O) {
  Ir += O.Ir;
  Dr += O.Dr;
  Dw += O.Dw;
  I1mr += O.I1mr;
  D1mr += O.D1mr;
  D1mw += O.D1mw;
  ILmr += O.ILmr;
  DLmr += O.DLmr;
  DLmw += O.DLmw;
  Bc += O.Bc;
  Bcm += O.Bcm;
  Bi += O.Bi;
  Bim += O.Bim;
  return *this;
}

uint64_t estimateCycles(const SimulatedEvents &E) {
  return E.Ir + CycleWeights::L1Miss * E.l1Misses() +
         CycleWeights::LLMiss * E.llMisses() +
         CycleWeights::Mispredict * E.mispredicts();
}

Expected<SimulatedEvents> parseSimulatedEvents(StringRef Names,
                                               StringRef Counts) {
  SmallVector<StringRef, 16> N, C;
  Names.split(N, ' ', -1, /*KeepEmpty=*/false);
  Counts.split(C, ' ', -1, /*KeepEmpty=*/false);
  if (C.size() > N.size())
    return makeError(Twine(C.size()) + " counts for " + Twine(N.size()) +
                     " events");
  SimulatedEvents E;
  bool HaveIr = false;
  for (size_t I = 0; I < N.size(); ++I) {
    uint64_t Value = 0;
    // Callgrind leaves trailing zero counts out.
    if (I < C.size() && C[I].getAsInteger(10, Value))
      return makeError("'" + C[I] + "' is not the count of event " + N[I]);
    uint64_t *Field = StringSwitch<uint64_t *>(N[I])
                          .Case("Ir", &E.Ir)
                          .Case("Dr", &E.Dr)
                          .Case("Dw", &E.Dw)
                          .Case("I1mr", &E.I1mr)
                          .Case("D1mr", &E.D1mr)
                          .Case("D1mw", &E.D1mw)
                          .Case("ILmr", &E.ILmr)
                          .Case("DLmr", &E.DLmr)
                          .Case("DLmw", &E.DLmw)
                          .Case("Bc", &E.Bc)
                          .Case("Bcm", &E.Bcm)
                          .Case("Bi", &E.Bi)
                          .Case("Bim", &E.Bim)
                          .Default(nullptr);
    if (Field)
      *Field = Value;
    HaveIr |= N[I] == "Ir";
  }
  if (!HaveIr)
    return makeError("no Ir event (instructions executed) among '" + Names +
                     "'");
  return E;
}

namespace {

/// The text after "Key" and the colon that follows it on a valgrind log
/// line ("==123== Events    : Ir Dr ..."), if the line has that key.
std::optional<StringRef> logValue(StringRef Line, StringRef Key) {
  // Strip the "==PID== " prefix.
  if (Line.starts_with("==")) {
    size_t End = Line.find("== ", 2);
    if (End == StringRef::npos)
      return std::nullopt;
    Line = Line.drop_front(End + 3);
  }
  if (!Line.consume_front(Key))
    return std::nullopt;
  Line = Line.ltrim(' ');
  if (!Line.consume_front(":"))
    return std::nullopt;
  return Line.trim();
}

} // namespace

Expected<SimulatedRun> runCallgrindSimulated(StringRef Name,
                                             ArrayRef<std::string> Argv,
                                             const std::string &Tree,
                                             const std::string &LogDir,
                                             unsigned TimeoutSeconds) {
  sys::fs::remove_directories(LogDir);
  if (std::error_code EC = sys::fs::create_directories(LogDir))
    return makeError(LogDir + ": " + EC.message());
  std::vector<std::string> Full = {"valgrind",
                                   "--tool=callgrind",
                                   "--callgrind-out-file=/dev/null",
                                   "--cache-sim=yes",
                                   "--branch-sim=yes",
                                   "--I1=32768,8,64",
                                   "--D1=32768,8,64",
                                   "--LL=8388608,16,64",
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
  auto NoRoom = [&] { return benchmarkNoRoom(Name, LogDir, Out); };
  if (!R.succeeded()) {
    if (std::optional<Error> E = NoRoom())
      return std::move(*E);
    return makeError(Name + ": the benchmark under callgrind " + R.describe() +
                     "; last lines of " + Out + ":\n" + readTail(Out, 10));
  }
  SimulatedRun Run;
  std::set<std::string> Programs;
  std::error_code EC;
  for (sys::fs::directory_iterator It(LogDir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!StringRef(It->path()).ends_with(".log"))
      continue;
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(It->path());
    if (!Buf)
      return Buf.takeError();
    StringRef Program, Events, Collected;
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (StringRef L : Lines) {
      size_t Syms = L.find("Reading syms from ");
      if (Program.empty() && Syms != StringRef::npos)
        Program = L.drop_front(Syms + strlen("Reading syms from ")).trim();
      if (std::optional<StringRef> V = logValue(L, "Events"))
        Events = *V;
      if (std::optional<StringRef> V = logValue(L, "Collected"))
        Collected = *V;
    }
    if (!Program.starts_with(Tree + "/"))
      continue;
    if (Events.empty() || Collected.empty()) {
      if (std::optional<Error> E = NoRoom())
        return std::move(*E);
      return makeError(It->path() + ": callgrind counted nothing in main of " +
                       Program + " (did it end normally? is it stripped?)");
    }
    Expected<SimulatedEvents> E = parseSimulatedEvents(Events, Collected);
    if (!E)
      return makeError(It->path() + ": " + toString(E.takeError()));
    if (E->Ir == 0)
      return makeError(It->path() + ": callgrind counted nothing in main of " +
                       Program + " (did it end normally? is it stripped?)");
    Run.Events += *E;
    Programs.insert(Program.drop_front(Tree.size() + 1).str());
  }
  if (EC)
    return makeError(LogDir + ": " + EC.message());
  if (Programs.empty()) {
    if (std::optional<Error> E = NoRoom())
      return std::move(*E);
    return makeError(Name + ": the benchmark ran no program of the build in " +
                     Tree + " (see " + Out + ")");
  }
  Run.Programs.assign(Programs.begin(), Programs.end());
  return Run;
}

} // namespace speed
} // namespace mlgo
