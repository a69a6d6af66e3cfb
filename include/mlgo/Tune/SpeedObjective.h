//===- mlgo/Tune/SpeedObjective.h - Instructions as objective -*- C++ -*-===//
//
// The speed objective of `mlgo tune` (mlgo/Tune/Objective.h): a trial is a
// speed compile (mlgo/Speed/SpeedCompile.h, a task on the worker ranks)
// whose cost is the module's profile-weighted executed instructions, read
// off the object's basic-block address map (mlgo/Speed/ExecutionCost.h).
// The corpus is one program, one slot per module, and its cost is the sum
// of its modules' costs, so that delta is exact: the sum of the changed
// slots' new costs less their old ones. The engine gives the instructions
// to a tenth (the speed cache's cost files hold them so), and the cost is
// held as an integer count of tenths where a size measurement holds its
// .text bytes (Measurement::getCost), so delta < 0 exactly when the new
// instructions are fewer.
//
// A speed measurement carries what the speed search reads besides the
// cost (SpeedOutcome, the Measurement's Detail): cycles, per-function
// costs (the hot functions), the eviction model's trajectory (the moves
// of the eviction search) and the object (the tuned program's). There is
// no free trial: the baseline is stock clang, which the engine compiles
// (and caches) like any other trial; its slots are set with apply.
//
// The engine is a function (SpeedMeasureFn): a module's
// speed::ModuleSpeedCompiler (mlgo/Speed/SpeedCompiler.h) in the tool,
// made-up values in the unit tests
// (unittests/Tune/SpeedObjectiveTest.cpp). measure may run on several
// threads at once for different modules; apply changes only the slots it
// names.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SPEEDOBJECTIVE_H
#define MLGO_TUNE_SPEEDOBJECTIVE_H

#include "mlgo/Speed/SpeedCompiler.h"
#include "mlgo/Tune/Objective.h"

#include <functional>
#include <utility>

namespace mlgo {

/// What one speed compile gave (mlgo/Speed/SpeedCompiler.h): a
/// Measurement's Detail.
struct SpeedOutcome final : MeasurementDetail, speed::CompiledModule {
  SpeedOutcome() = default;
  explicit SpeedOutcome(speed::CompiledModule C)
      : speed::CompiledModule(std::move(C)) {}
};

/// The objective's cost of \p Instructions: tenths, rounded.
uint64_t getSpeedCost(double Instructions);

/// Measures one trial; an error is the module's (it names the module), and
/// makes the trial's Measurement not Ok.
using SpeedMeasureFn =
    std::function<llvm::Expected<SpeedOutcome>(const Trial &)>;

class SpeedObjective final : public Objective {
public:
  /// \p Modules slots, each costing 0 until apply gives it its baseline.
  SpeedObjective(SpeedMeasureFn Measure, size_t Modules)
      : Measure(std::move(Measure)), Slots(Modules, 0) {}

  llvm::Expected<std::vector<Measurement>>
  measure(llvm::ArrayRef<Trial> Trials, llvm::StringRef What,
          bool WithTrajectory = true) override;
  int64_t delta(size_t Program,
                llvm::ArrayRef<SlotChange> Changes) const override;
  void apply(size_t Program, llvm::ArrayRef<SlotChange> Changes) override;
  uint64_t cost(size_t Program) const override;

  /// The speed outcome of \p M, one of this objective's Ok measurements.
  static const SpeedOutcome &getOutcome(const Measurement &M);

private:
  SpeedMeasureFn Measure;
  /// Each module's cost now.
  std::vector<uint64_t> Slots;
};

} // namespace mlgo

#endif // MLGO_TUNE_SPEEDOBJECTIVE_H
