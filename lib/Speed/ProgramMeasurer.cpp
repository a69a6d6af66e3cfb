//===- lib/Speed/ProgramMeasurer.cpp - A program on a workload ------------===//
//
// See mlgo/Speed/ProgramMeasurer.h: a program's variants linked by the
// user's command, run on the workload and measured, each measurement kept
// under the hash of what it depends on.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/ProgramMeasurer.h"

#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Speed/CycleEstimate.h"
#include "mlgo/Speed/TimeBench.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <unistd.h>

using namespace llvm;

namespace mlgo::speed {

StoppingRule WorkloadOptions::getTimeStop() {
  StoppingRule R;
  R.CIWidth = 0.01;
  R.MinRounds = 10;
  R.MaxRounds = 100;
  R.MaxSeconds = 120;
  return R;
}

unsigned ProgramMeasurer::getTimeoutSeconds() const {
  if (O.TimeoutSeconds)
    return O.TimeoutSeconds;
  if (!UntunedSeconds)
    return WorkloadOptions::FirstAutoTimeout;
  return std::max<unsigned>(WorkloadOptions::MinAutoTimeout,
                            unsigned(std::ceil(20 * *UntunedSeconds)));
}

void ProgramMeasurer::removeLeftovers() {
  std::error_code EC;
  std::vector<std::string> Left;
  for (sys::fs::directory_iterator It(O.WorkDir, EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::path::filename(It->path()).contains(".tmp-"))
      Left.push_back(It->path());
  for (const std::string &D : Left)
    sys::fs::remove_directories(D);
}

/// Reads a count kept in \p Path (a decimal integer and a newline).
static Expected<double> readNumber(const std::string &Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  double N;
  if ((*Buf)->getBuffer().trim().getAsDouble(N))
    return makeError(Path + ": malformed");
  return N;
}

Error ProgramMeasurer::link(ArrayRef<std::string> Objects,
                            const std::string &Work) {
  std::string Objs = Work + "/objects", Program = Work + "/bin/program";
  sys::fs::remove_directories(Work);
  for (const std::string &D : {Objs, Work + "/bin"})
    if (std::error_code EC = sys::fs::create_directories(D))
      return makeError("cannot create '" + D + "': " + EC.message());
  // A package's modules keep their directories (lib/compress/x.o).
  for (size_t I = 0; I < Objects.size(); ++I) {
    std::string To = Objs + "/" + Names[I] + ".o";
    if (std::error_code EC =
            sys::fs::create_directories(sys::path::parent_path(To)))
      return makeError("cannot create the directory of '" + To +
                       "': " + EC.message());
    if (Error E = copyFileAtomically(Objects[I], To))
      return E;
  }
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = RO.Stderr = Work + "/link.log";
  RO.TimeoutSeconds = O.LinkTimeoutSeconds;
  RO.OwnProcessGroup = true;
  ProcessResult L = runProcess({"env", "MLGO_OBJECTS=" + Objs,
                                "MLGO_PROGRAM=" + Program, "sh", "-c", O.Link},
                               RO);
  if (L.succeeded() && sys::fs::exists(Program))
    return Error::success();
  // A full disk or a file size limit: the linker's own message, if its
  // log has it, is in its words ("File size limit exceeded" of its
  // signal); this one names the reason and the path.
  std::string Why = describeNoRoom(Work, readTail(Work + "/link.log", 10));
  if (!Why.empty())
    return makeError("--link could not write $MLGO_PROGRAM (" + Program +
                     "): " + Why + "; last lines of " + Work + "/link.log:\n" +
                     readTail(Work + "/link.log", 10));
  return makeError(
      "--link " +
      (L.succeeded() ? std::string("wrote no $MLGO_PROGRAM") : L.describe()) +
      " (" + Work + "/link.log):\n" + readTail(Work + "/link.log", 10));
}

Expected<WorkloadMeasure>
ProgramMeasurer::benchTime(const std::string &Program,
                           const std::string &TunedKeys,
                           const std::string &Dir) {
  assert(!UntunedProgram.empty() && "the untuned program is measured first");
  std::string BenchDir = Dir + "/time";
  if (std::error_code EC = sys::fs::create_directories(BenchDir))
    return makeError("cannot create '" + BenchDir + "': " + EC.message());
  auto Argv = [&](const std::string &P, const std::string &Keys) {
    return std::vector<std::string>{
        "env", "MLGO_PROGRAM=" + P, "MLGO_TUNED=" + Keys, "sh",
        "-c",  O.Workload};
  };
  BenchOptions BO;
  BO.Stop = WorkloadOptions::getTimeStop();
  BO.WorkDir = BenchDir;
  BO.TimeoutSeconds = getTimeoutSeconds();
  BO.Seed = O.Seed;
  Expected<BenchResult> R =
      runTimeBench({{"untuned", Argv(UntunedProgram, "")},
                    {"tuned: " + TunedKeys, Argv(Program, TunedKeys)}},
                   BO);
  if (!R)
    return makeError("--workload (--cost time): " + toString(R.takeError()));
  std::string JSON;
  raw_string_ostream OS(JSON);
  R->printJSON(OS);
  if (Error E = writeFileAtomically(Dir + "/time.json", JSON))
    return E;
  if (!UntunedSeconds)
    UntunedSeconds = median(R->WallSeconds[0]);
  WorkloadMeasure M;
  M.Ratio = R->Decided[1];
  M.Rounds = R->Rounds;
  M.HardwareCycles = R->HaveCycles;
  return M;
}

Expected<WorkloadMeasure>
ProgramMeasurer::measure(ArrayRef<std::string> Objects,
                         const std::vector<bool> &Tuned) {
  assert(Objects.size() == Names.size() && "one object per module");
  // The variant's name: what its program is made of and run with (and,
  // for a cost other than the first one, which: so that a count of one
  // is never read back as the other).
  MD5 Hash;
  auto Add = [&](StringRef S) {
    Hash.update(S);
    Hash.update(StringRef("\0", 1));
  };
  Add(O.Link);
  Add(O.Workload);
  Add(O.Identity);
  if (O.Cost != CostKind::Instructions)
    Add(getCostName(O.Cost));
  for (const std::string &In : O.Inputs) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(In);
    if (!Buf)
      return makeError("--workload-input: " + toString(Buf.takeError()));
    Add(In);
    Hash.update(MD5::hash(arrayRefFromStringRef((*Buf)->getBuffer())));
  }
  std::string TunedKeys;
  for (size_t I = 0; I < Objects.size(); ++I) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Objects[I]);
    if (!Buf)
      return Buf.takeError();
    MD5::MD5Result R = MD5::hash(arrayRefFromStringRef((*Buf)->getBuffer()));
    Hash.update(Names[I]);
    Hash.update(R);
    if (I < Tuned.size() && Tuned[I])
      TunedKeys += (TunedKeys.empty() ? "" : " ") + Keys[I];
  }
  Hash.update(TunedKeys);
  MD5::MD5Result R;
  Hash.final(R);
  bool Untuned = TunedKeys.empty();
  bool Timed = O.Cost == CostKind::Time;
  std::string Dir = O.WorkDir + "/" + toHex(R, /*LowerCase=*/true);
  std::string CountFile = Dir + "/" + getCostName(O.Cost);
  // Time: the untuned program is the baseline of every later bench, which
  // runs in the tuned variant's directory.
  auto Timing = [&]() -> Expected<WorkloadMeasure> {
    if (!Untuned)
      return benchTime(Dir + "/bin/program", TunedKeys, Dir);
    UntunedProgram = Dir + "/bin/program";
    WorkloadMeasure M;
    M.Ratio = RatioEstimate();
    return M;
  };
  // A variant measured (under time: linked) before: its directory is there
  // only when complete.
  if (Timed && sys::fs::exists(Dir))
    return Timing();
  if (!Timed && sys::fs::exists(CountFile)) {
    Expected<double> N = readNumber(CountFile);
    if (!N)
      return N.takeError();
    if (Untuned && !UntunedSeconds) {
      Expected<double> S = readNumber(Dir + "/seconds");
      if (!S)
        return S.takeError();
      UntunedSeconds = *S;
    }
    WorkloadMeasure M;
    M.Count = uint64_t(*N);
    return M;
  }
  // Linked and measured in a directory of this process's own, of a fixed
  // length (the program's path is the same length in every run), moved
  // into place when complete.
  std::string Work = Dir + formatv(".tmp-{0:d10}", ::getpid()).str();
  std::string Program = Work + "/bin/program";
  if (Error E = link(Objects, Work))
    return E;
  if (Timed) {
    if (std::error_code EC = sys::fs::rename(Work, Dir))
      return makeError("cannot rename '" + Work + "' to '" + Dir +
                       "': " + EC.message());
    return Timing();
  }
  unsigned Limit = getTimeoutSeconds();
  auto Start = std::chrono::steady_clock::now();
  std::vector<std::string> Argv = {"env",
                                   "MLGO_PROGRAM=" + Program,
                                   "MLGO_TUNED=" + TunedKeys,
                                   "sh",
                                   "-c",
                                   O.Workload};
  Expected<uint64_t> Count = [&]() -> Expected<uint64_t> {
    if (O.Cost == CostKind::Cycles) {
      Expected<SimulatedRun> Run = runCallgrindSimulated(
          "--workload", Argv, Work + "/bin", Work + "/callgrind", Limit);
      if (!Run)
        return Run.takeError();
      return Run->cycles();
    }
    Expected<CallgrindRun> Run = runCallgrind("--workload", Argv, Work + "/bin",
                                              Work + "/callgrind", Limit);
    if (!Run)
      return Run.takeError();
    return Run->Instructions;
  }();
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  if (!Count) {
    // Killed at its limit (runProcess kills the group at the deadline).
    if (Limit && Seconds >= Limit) {
      consumeError(Count.takeError());
      return makeError(
          "--workload: the run of " +
          (O.ProgramName.empty() ? std::string("the program")
                                 : "'" + O.ProgramName + "'") +
          (Untuned ? std::string(" (untuned)")
                   : " (tuned: " + TunedKeys + ")") +
          " did not end within its limit of " + std::to_string(Limit) +
          " s (--timeout" +
          (O.TimeoutSeconds
               ? std::string(")")
               : ": by default 20 times the untuned run, at "
                 "least " +
                     std::to_string(WorkloadOptions::MinAutoTimeout) +
                     " s; the untuned run " +
                     std::to_string(WorkloadOptions::FirstAutoTimeout) +
                     " s)") +
          "; last lines of " + Work + "/callgrind/output.txt:\n" +
          readTail(Work + "/callgrind/output.txt", 10));
    }
    return Count.takeError();
  }
  if (Error E = writeFileAtomically(Work + "/" + getCostName(O.Cost),
                                    std::to_string(*Count) + "\n"))
    return E;
  if (Error E = writeFileAtomically(Work + "/seconds",
                                    formatv("{0:f3}\n", Seconds).str()))
    return E;
  if (std::error_code EC = sys::fs::rename(Work, Dir))
    return makeError("cannot rename '" + Work + "' to '" + Dir +
                     "': " + EC.message());
  if (Untuned && !UntunedSeconds)
    UntunedSeconds = Seconds;
  WorkloadMeasure M;
  M.Count = *Count;
  return M;
}

} // namespace mlgo::speed
