//===- mlgo/Tune/WorkloadCheck.h - A tune's gains, measured -----*- C++ -*-===//
//
// `mlgo tune --objective speed --workload CMD` (docs/tune.md, "Checking on
// a workload"): the search predicts from a profile; the workload measures.
// The tuned program and the untuned one (clang-19 -O2 -fprofile-use with
// the same profile) are linked by the user's --link command and run by
// the workload, and every module the search changed is measured on its
// own: the program with that module tuned and every other one untuned. A
// module measured worse than the untuned program is reverted (its entries
// leave the file); if the program with the remaining modules still
// measures worse than the untuned one (the modules' effects interact), the
// module measured worst alone is reverted next, until it does not. So the
// file never makes the workload slower than it was measured to be.
//
// What "measured" means is the check's cost (--cost, mlgo/Speed/CostKind.h):
//
//  * instructions (the default): the workload under callgrind, the
//    executed instructions of the program's own processes from main on
//    (mlgo/Speed/Callgrind.h). Worse: more instructions (a tie is kept).
//  * cycles: the same run with callgrind's cache and branch simulation,
//    weighted into an estimate of cycles (mlgo/Speed/CycleEstimate.h).
//    Worse: more estimated cycles (a tie is kept).
//  * time: the program and the untuned one alternated on the workload by
//    `mlgo bench`'s engine (mlgo/Speed/TimeBench.h): the CPU time of the
//    whole workload command (its shells and checks too), the median of the
//    paired ratios and its bootstrap 95% interval. A program is better only
//    when its interval lies below 1 ("faster"); an interval holding 1 (no
//    measurable difference) counts as worse, so a module is kept only when
//    its own bench calls it faster, and the file's program only when its
//    bench does too; the module reverted next is the one whose median
//    ratio alone is highest. Time is not a function of the program: a
//    rerun benches again, so two runs can keep different modules.
//
// verifyByModule is the decision over a measure function, tested without
// compiling (unittests/Tune/WorkloadCheckTest.cpp); speed::ProgramMeasurer
// (mlgo/Speed/ProgramMeasurer.h) links and runs the variants.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_WORKLOADCHECK_H
#define MLGO_TUNE_WORKLOADCHECK_H

#include "mlgo/Speed/ProgramMeasurer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// Whether \p M measured worse than \p Untuned by the rules of the file
/// comment: a higher count, or under time an interval that does not lie
/// below 1.
bool isWorse(const speed::WorkloadMeasure &M,
             const speed::WorkloadMeasure &Untuned);

/// The measurements of a check and its verdict, over the N modules the
/// search changed.
struct WorkloadVerdict {
  /// The untuned program, the program with every changed module tuned,
  /// and the program the file finally makes.
  speed::WorkloadMeasure Untuned, AllTuned, Final;
  /// Per module: the program with that module alone tuned.
  std::vector<speed::WorkloadMeasure> Alone;
  /// Per module: whether it was reverted.
  std::vector<bool> Reverted;
  /// How many programs were measured.
  unsigned Runs = 0;
};

/// The measure of the program with the modules \p Tuned marks (one flag
/// per module) tuned and the others untuned; the first program asked for
/// is the untuned one.
using MeasureFn = llvm::function_ref<llvm::Expected<speed::WorkloadMeasure>(
    const std::vector<bool> &)>;

/// The check over \p N changed modules (see the file comment).
llvm::Expected<WorkloadVerdict> verifyByModule(size_t N, MeasureFn Measure);

} // namespace mlgo

#endif // MLGO_TUNE_WORKLOADCHECK_H
