//===- mlgo/Tune/SpeedObjective.h - Instructions as objective -*- C++ -*-===//
//
// The speed objective of `mlgo tune` (mlgo/Tune/Objective.h): a trial is a
// speed compile (mlgo/Tune/SpeedCompile.h, a task on the worker ranks)
// whose cost is the module's profile-weighted executed instructions, read
// off the object's basic-block address map (mlgo/Speed/ExecutionCost.h).
// The corpus is one program, one slot per module, and its cost is the sum
// of its modules' costs, so that delta is exact: the sum of the changed
// slots' new costs less their old ones. The costs are integers (the
// profile's counts times instructions), held where a size measurement
// holds its .text bytes (Measurement::getCost).
//
// The engine is a function (SpeedMeasureFn): the speed tune's cached
// compile in the tool, made-up values in the unit tests
// (unittests/Tune/SpeedObjectiveTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SPEEDOBJECTIVE_H
#define MLGO_TUNE_SPEEDOBJECTIVE_H

#include "mlgo/Tune/Objective.h"

#include <functional>
#include <vector>

namespace mlgo {

/// What one speed compile gave the objective.
struct SpeedCost {
  /// The module's profile-weighted executed instructions.
  uint64_t Instructions = 0;
  /// The inliner's decisions, in the order taken.
  std::vector<DecidedSite> Sites;
};

/// Measures one (non-baseline) trial; an error is the module's (it names
/// the module), and makes the trial's Measurement not Ok.
using SpeedMeasureFn = std::function<llvm::Expected<SpeedCost>(const Trial &)>;

class SpeedObjective final : public Objective {
public:
  /// \p Base: each corpus module's stock compile's cost (a Baseline
  /// trial's answer, and the program's slots as the search starts).
  SpeedObjective(SpeedMeasureFn Measure, std::vector<uint64_t> Base)
      : Measure(std::move(Measure)), Base(Base), Slots(std::move(Base)) {}

  llvm::Expected<std::vector<Measurement>>
  measure(llvm::ArrayRef<Trial> Trials, llvm::StringRef What,
          bool WithTrajectory = true) override;
  int64_t delta(size_t Program,
                llvm::ArrayRef<SlotChange> Changes) const override;
  void apply(size_t Program, llvm::ArrayRef<SlotChange> Changes) override;
  uint64_t cost(size_t Program) const override;

private:
  SpeedMeasureFn Measure;
  const std::vector<uint64_t> Base;
  /// Each module's cost now.
  std::vector<uint64_t> Slots;
};

} // namespace mlgo

#endif // MLGO_TUNE_SPEEDOBJECTIVE_H
