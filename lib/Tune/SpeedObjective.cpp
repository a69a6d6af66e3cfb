//===- lib/Tune/SpeedObjective.cpp - Executed instructions as objective ---===//
//
// See mlgo/Tune/SpeedObjective.h: the engine measures, the slots add up.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SpeedObjective.h"

#include <cassert>
#include <cmath>

using namespace llvm;

namespace mlgo {

uint64_t getSpeedCost(double Instructions) {
  return uint64_t(std::llround(Instructions * 10));
}

Expected<std::vector<Measurement>>
SpeedObjective::measure(ArrayRef<Trial> Trials, StringRef,
                        bool WithTrajectory) {
  std::vector<Measurement> Out(Trials.size());
  for (size_t I = 0; I < Trials.size(); ++I) {
    const Trial &T = Trials[I];
    assert(T.Module < Slots.size() && "a trial of a module of the corpus");
    CompileOutcome &O = Out[I].Outcome;
    Expected<SpeedOutcome> C = Measure(T);
    if (!C) {
      O.Error = toString(C.takeError());
      continue;
    }
    O.Ok = true;
    O.TextSize = getSpeedCost(C->Instructions);
    O.Decisions = C->Sites.size();
    if (WithTrajectory)
      Out[I].Trajectory = C->Sites;
    Out[I].Detail = std::make_shared<const SpeedOutcome>(std::move(*C));
  }
  return Out;
}

const SpeedOutcome &SpeedObjective::getOutcome(const Measurement &M) {
  assert(M.Outcome.Ok && M.Detail && "an Ok measurement of speed");
  return static_cast<const SpeedOutcome &>(*M.Detail);
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
