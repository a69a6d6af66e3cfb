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
// and runs the variants, each measured once per work directory: its count
// is kept under the hash of its objects, commands, input files and mlgo's
// and valgrind's versions, so a rerun after a kill measures only what was
// not measured. A variant is linked and run in a directory of its own
// (`<hash>.tmp-<pid>`) renamed to `<hash>` once its count is written, so a
// count is never read from a run that did not finish or that an orphaned
// process of a killed run wrote into. Each run of the workload has a limit
// (--workload-timeout; by default 20 times the untuned program's run, at
// least a minute), and a run over it is an error naming the program and
// the limit.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_WORKLOADCHECK_H
#define MLGO_TUNE_WORKLOADCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
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
  /// The program's name, in the messages.
  std::string ProgramName;
  /// The seconds one run of the workload may take; 0: 20 times the
  /// untuned program's run and at least MinAutoTimeout, and for the
  /// untuned program's run itself, FirstAutoTimeout.
  unsigned TimeoutSeconds = 0;
  static constexpr unsigned MinAutoTimeout = 60, FirstAutoTimeout = 600;
  /// The seconds a --link may take (the compiles' --timeout; 0: no limit).
  unsigned LinkTimeoutSeconds = 300;
  /// What else a measurement depends on (mlgo's and valgrind's versions),
  /// part of each variant's key.
  std::string Identity;
  /// Files the workload reads (--workload-input): their paths and bytes
  /// are part of each variant's key.
  std::vector<std::string> Inputs;
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
  /// The first program measured is the untuned one (its run sets the
  /// default limit of the others).
  llvm::Expected<uint64_t> measure(llvm::ArrayRef<std::string> Objects,
                                   const std::vector<bool> &Tuned);

  /// Removes what killed runs left in WorkDir (their unfinished variants,
  /// `<hash>.tmp-<pid>`); call it while holding the work directory's lock.
  void removeLeftovers();

  /// The limit of the next run, in seconds (0: none).
  unsigned getTimeoutSeconds() const;

private:
  WorkloadOptions O;
  std::vector<std::string> Names, Keys;
  /// The untuned program's run, once measured (or read back).
  std::optional<double> UntunedSeconds;
};

} // namespace mlgo

#endif // MLGO_TUNE_WORKLOADCHECK_H
