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
// The engine is a function (SpeedMeasureFn): the speed tune's cached
// compile in the tool, made-up values in the unit tests
// (unittests/Tune/SpeedObjectiveTest.cpp). measure may run on several
// threads at once for different modules; apply changes only the slots it
// names.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SPEEDOBJECTIVE_H
#define MLGO_TUNE_SPEEDOBJECTIVE_H

#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Tune/Objective.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mlgo {

/// One eviction decision of a trajectory, as the training log recorded it.
struct EvictionStep {
  std::string Function;
  /// The decision's place among its function's decisions.
  uint32_t Ordinal = 0;
  /// The hash of its features (mlgo/RegAllocModel/EvictionFeatures.h).
  uint64_t Hash = 0;
  /// The answer, and the candidates it was chosen among.
  int64_t Choice = 0;
  int64_t Mask[EvictionColumns] = {};
};

/// What one speed compile gave: a Measurement's Detail.
struct SpeedOutcome final : MeasurementDetail {
  /// Profile-weighted instructions and cycles of the module's object.
  double Instructions = 0, Cycles = 0;
  /// Per function: profile-weighted instructions.
  std::map<std::string, double> FunctionCost;
  /// The model's eviction decisions (empty for LLVM's eviction).
  std::vector<EvictionStep> Trajectory;
  /// The inliner's policy decisions, in the order they were taken; empty
  /// for the stock compile.
  std::vector<DecidedSite> Sites;
  /// The object, in the work directory's cache.
  std::string Object;
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
