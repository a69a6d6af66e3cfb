//===- lib/Tune/SpeedObjective.cpp - Executed instructions as objective ---===//
//
// See mlgo/Tune/SpeedObjective.h: the engine measures, the slots add up.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SpeedObjective.h"

#include <cassert>

using namespace llvm;

namespace mlgo {

Expected<std::vector<Measurement>>
SpeedObjective::measure(ArrayRef<Trial> Trials, StringRef,
                        bool WithTrajectory) {
  std::vector<Measurement> Out(Trials.size());
  for (size_t I = 0; I < Trials.size(); ++I) {
    const Trial &T = Trials[I];
    assert(T.Module < Base.size() && "a trial of a module of the corpus");
    CompileOutcome &O = Out[I].Outcome;
    if (T.Baseline) {
      O.Ok = true;
      O.TextSize = Base[T.Module];
      continue;
    }
    Expected<SpeedCost> C = Measure(T);
    if (!C) {
      O.Error = toString(C.takeError());
      continue;
    }
    O.Ok = true;
    O.TextSize = C->Instructions;
    O.Decisions = C->Sites.size();
    if (WithTrajectory)
      Out[I].Trajectory = std::move(C->Sites);
  }
  return Out;
}

int64_t SpeedObjective::delta(size_t Program,
                              ArrayRef<SlotChange> Changes) const {
  assert(Program == 0 && "the corpus is the speed objective's one program");
  (void)Program;
  int64_t D = 0;
  for (const SlotChange &C : Changes)
    D += int64_t(C.Outcome->TextSize) - int64_t(Slots[C.Slot]);
  return D;
}

void SpeedObjective::apply(size_t Program, ArrayRef<SlotChange> Changes) {
  assert(Program == 0 && "the corpus is the speed objective's one program");
  (void)Program;
  for (const SlotChange &C : Changes)
    Slots[C.Slot] = C.Outcome->TextSize;
}

uint64_t SpeedObjective::cost(size_t Program) const {
  assert(Program == 0 && "the corpus is the speed objective's one program");
  (void)Program;
  uint64_t T = 0;
  for (uint64_t S : Slots)
    T += S;
  return T;
}

} // namespace mlgo
