//===- mlgo/Tune/WorkloadCheck.h - A tune's gains, measured -----*- C++ -*-===//
//
// `mlgo tune --objective speed --workload CMD` (docs/tune.md, "Checking on
// a workload"): the search predicts from a profile; the workload measures.
// The tuned program and the untuned one (clang-19 -O2 -fprofile-use with
// the same profile) are linked by the user's --link command and run by
// the workload under callgrind (mlgo/Speed/Callgrind.h), and every module
// the search changed is measured on its own: the program with that module
// tuned and every other one untuned. A module whose tuned version executes
// more instructions than the untuned program is reverted (its entries
// leave the file); if the program with the remaining modules still
// measures worse than the untuned one (the modules' effects interact), the
// module measured worst alone is reverted next, until it does not. So the
// file never makes the workload slower than it was measured to be.
//
// verifyByModule is the decision over a measure function, tested without
// compiling (unittests/Tune/WorkloadCheckTest.cpp); ProgramMeasurer links
// and runs the variants, each measured once per work directory (its count
// is kept under the hash of its objects and commands, so a rerun after a
// kill measures only what was not measured).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_WORKLOADCHECK_H
#define MLGO_TUNE_WORKLOADCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

/// The measurements of a check and its verdict, over the N modules the
/// search changed.
struct WorkloadVerdict {
  /// Executed instructions: the untuned program, the program with every
  /// changed module tuned, and the program the file finally makes.
  uint64_t Untuned = 0, AllTuned = 0, Final = 0;
  /// Per module: the program with that module alone tuned.
  std::vector<uint64_t> Alone;
  /// Per module: whether it was reverted.
  std::vector<bool> Reverted;
  /// How many programs were measured.
  unsigned Runs = 0;
};

/// The executed instructions of the program with the modules \p Tuned
/// marks (one flag per module) tuned and the others untuned.
using MeasureFn =
    llvm::function_ref<llvm::Expected<uint64_t>(const std::vector<bool> &)>;

/// The check over \p N changed modules (see the file comment).
llvm::Expected<WorkloadVerdict> verifyByModule(size_t N, MeasureFn Measure);

/// Links and runs the variants of one program.
struct WorkloadOptions {
  /// Links the objects of $MLGO_OBJECTS (one per module of the corpus,
  /// named as the module with ".o" added) into $MLGO_PROGRAM; run by sh.
  std::string Link;
  /// Runs $MLGO_PROGRAM on the workload, under callgrind; run by sh.
  /// $MLGO_TUNED lists the keys of the modules tuned in this variant.
  std::string Workload;
  /// Variants go to WorkDir/<hash>/.
  std::string WorkDir;
  unsigned TimeoutSeconds = 3600;
};

class ProgramMeasurer {
public:
  /// \p Names: the corpus's modules (their objects' names); \p Keys: their
  /// source keys (for $MLGO_TUNED).
  ProgramMeasurer(WorkloadOptions O, std::vector<std::string> Names,
                  std::vector<std::string> Keys)
      : O(std::move(O)), Names(std::move(Names)), Keys(std::move(Keys)) {}
  /// The executed instructions of the program linked from \p Objects (one
  /// per module) with the modules \p Tuned marks named in $MLGO_TUNED.
  llvm::Expected<uint64_t> measure(llvm::ArrayRef<std::string> Objects,
                                   const std::vector<bool> &Tuned);

private:
  WorkloadOptions O;
  std::vector<std::string> Names, Keys;
};

} // namespace mlgo

#endif // MLGO_TUNE_WORKLOADCHECK_H
