//===- lib/Tune/WorkloadCheck.cpp - A tune's gains, measured --------------===//
//
// See mlgo/Tune/WorkloadCheck.h: the per-module check of a speed tune on
// the user's workload (the variants are linked and measured by
// speed::ProgramMeasurer, mlgo/Speed/ProgramMeasurer.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/WorkloadCheck.h"

#include "mlgo/Speed/BenchStats.h"

using namespace llvm;

namespace mlgo {

bool isWorse(const speed::WorkloadMeasure &M,
             const speed::WorkloadMeasure &Untuned) {
  if (M.Ratio)
    return speed::judge(M.Ratio->CI) != speed::Verdict::Faster;
  return M.Count > Untuned.Count;
}

/// What orders the modules measured alone, worst last: the count, or under
/// time the median ratio.
static double getBadness(const speed::WorkloadMeasure &M) {
  return M.Ratio ? M.Ratio->Median : double(M.Count);
}

Expected<WorkloadVerdict> verifyByModule(size_t N, MeasureFn Measure) {
  WorkloadVerdict V;
  auto Run =
      [&](const std::vector<bool> &Tuned) -> Expected<speed::WorkloadMeasure> {
    ++V.Runs;
    return Measure(Tuned);
  };
  Expected<speed::WorkloadMeasure> Untuned = Run(std::vector<bool>(N, false));
  if (!Untuned)
    return Untuned.takeError();
  V.Untuned = *Untuned;
  V.Reverted.assign(N, false);
  if (N == 0) {
    V.AllTuned = V.Final = V.Untuned;
    return V;
  }
  Expected<speed::WorkloadMeasure> All = Run(std::vector<bool>(N, true));
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
    Expected<speed::WorkloadMeasure> C = Run(One);
    if (!C)
      return C.takeError();
    V.Alone.push_back(*C);
  }
  for (size_t I = 0; I < N; ++I)
    V.Reverted[I] = isWorse(V.Alone[I], V.Untuned);
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
      Expected<speed::WorkloadMeasure> F = Run(Kept);
      if (!F)
        return F.takeError();
      V.Final = *F;
    }
    if (!isWorse(V.Final, V.Untuned))
      return V;
    size_t Worst = N;
    for (size_t I = 0; I < N; ++I)
      if (Kept[I] &&
          (Worst == N || getBadness(V.Alone[I]) > getBadness(V.Alone[Worst])))
        Worst = I;
    V.Reverted[Worst] = true;
  }
}

} // namespace mlgo
