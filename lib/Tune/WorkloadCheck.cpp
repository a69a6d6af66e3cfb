//===- lib/Tune/WorkloadCheck.cpp - A tune's gains, measured --------------===//
//
// See mlgo/Tune/WorkloadCheck.h: the per-module check of a speed tune on
// the user's workload, and the linking and measuring of its variants.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/WorkloadCheck.h"

#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlgo {

Expected<WorkloadVerdict> verifyByModule(size_t N, MeasureFn Measure) {
  WorkloadVerdict V;
  auto Run = [&](const std::vector<bool> &Tuned) -> Expected<uint64_t> {
    ++V.Runs;
    return Measure(Tuned);
  };
  Expected<uint64_t> Untuned = Run(std::vector<bool>(N, false));
  if (!Untuned)
    return Untuned.takeError();
  V.Untuned = *Untuned;
  V.Reverted.assign(N, false);
  if (N == 0) {
    V.AllTuned = V.Final = V.Untuned;
    return V;
  }
  Expected<uint64_t> All = Run(std::vector<bool>(N, true));
  if (!All)
    return All.takeError();
  V.AllTuned = *All;
  // Each module alone (with one, the program with all of them).
  for (size_t I = 0; I < N; ++I) {
    if (N == 1) {
      V.Alone.push_back(V.AllTuned);
      break;
    }
    std::vector<bool> One(N, false);
    One[I] = true;
    Expected<uint64_t> C = Run(One);
    if (!C)
      return C.takeError();
    V.Alone.push_back(*C);
  }
  for (size_t I = 0; I < N; ++I)
    V.Reverted[I] = V.Alone[I] > V.Untuned;
  // The program as the file leaves it; while it measures worse than the
  // untuned one, the module measured worst alone goes too (ties: the first).
  for (;;) {
    std::vector<bool> Kept(N);
    size_t Count = 0;
    for (size_t I = 0; I < N; ++I)
      Count += Kept[I] = !V.Reverted[I];
    if (Count == 0) {
      V.Final = V.Untuned;
      return V;
    }
    if (Count == N) {
      V.Final = V.AllTuned;
    } else {
      Expected<uint64_t> F = Run(Kept);
      if (!F)
        return F.takeError();
      V.Final = *F;
    }
    if (V.Final <= V.Untuned)
      return V;
    size_t Worst = N;
    for (size_t I = 0; I < N; ++I)
      if (Kept[I] && (Worst == N || V.Alone[I] > V.Alone[Worst]))
        Worst = I;
    V.Reverted[Worst] = true;
  }
}

Expected<uint64_t> ProgramMeasurer::measure(ArrayRef<std::string> Objects,
                                            const std::vector<bool> &Tuned) {
  assert(Objects.size() == Names.size() && "one object per module");
  // The variant's name: what its program is made of and run with.
  MD5 Hash;
  Hash.update(O.Link);
  Hash.update(StringRef("\0", 1));
  Hash.update(O.Workload);
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
  std::string Dir = O.WorkDir + "/" + toHex(R, /*LowerCase=*/true);
  std::string Count = Dir + "/instructions";
  if (Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Count)) {
    uint64_t N;
    if (!(*Buf)->getBuffer().trim().getAsInteger(10, N))
      return N;
    return makeError(Count + ": malformed");
  } else {
    consumeError(Buf.takeError());
  }
  std::string Objs = Dir + "/objects", Program = Dir + "/bin/program";
  sys::fs::remove_directories(Dir);
  for (const std::string &D : {Objs, Dir + "/bin"})
    if (std::error_code EC = sys::fs::create_directories(D))
      return makeError("cannot create '" + D + "': " + EC.message());
  // Whole or not at all: a run killed here leaves no half object.
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
  RO.Stdout = RO.Stderr = Dir + "/link.log";
  RO.TimeoutSeconds = O.TimeoutSeconds;
  RO.OwnProcessGroup = true;
  ProcessResult L = runProcess({"env", "MLGO_OBJECTS=" + Objs,
                                "MLGO_PROGRAM=" + Program, "sh", "-c", O.Link},
                               RO);
  if (!L.succeeded() || !sys::fs::exists(Program))
    return makeError(
        "--link " +
        (L.succeeded() ? std::string("wrote no $MLGO_PROGRAM") : L.describe()) +
        " (" + Dir + "/link.log):\n" + speed::readTail(Dir + "/link.log", 10));
  Expected<speed::CallgrindRun> Run =
      speed::runCallgrind("--workload",
                          {"env", "MLGO_PROGRAM=" + Program,
                           "MLGO_TUNED=" + TunedKeys, "sh", "-c", O.Workload},
                          Dir + "/bin", Dir + "/callgrind", O.TimeoutSeconds);
  if (!Run)
    return Run.takeError();
  if (Error E =
          writeFileAtomically(Count, std::to_string(Run->Instructions) + "\n"))
    return E;
  return Run->Instructions;
}

} // namespace mlgo
