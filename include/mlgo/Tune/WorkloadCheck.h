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
// compiling (unittests/Tune/WorkloadCheckTest.cpp); ProgramMeasurer links
// and runs the variants. A count (instructions, cycles) is measured once
// per work directory: it is kept under the hash of the variant's objects,
// commands, input files, cost and mlgo's and valgrind's versions, so a
// rerun after a kill measures only what was not measured. Under time the
// directory keeps each variant's linked program (read back, the link being
// a function of the same key) and its last bench (`time.json`, for the
// reader, never read back). A variant is linked and run in a directory of
// its own (`<hash>.tmp-<pid>`) renamed to `<hash>` once complete, so a
// result is never read from a run that did not finish or that an orphaned
// process of a killed run wrote into. Each run of the workload has a limit
// (--workload-timeout; by default 20 times the untuned program's run, at
// least a minute), and a run over it is an error naming the program and
// the limit.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_WORKLOADCHECK_H
#define MLGO_TUNE_WORKLOADCHECK_H

#include "mlgo/Speed/BenchStats.h"
#include "mlgo/Speed/CostKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// One program measured on the workload.
struct WorkloadMeasure {
  /// Executed instructions (--cost instructions) or estimated cycles
  /// (cycles); 0 under time.
  uint64_t Count = 0;
  /// --cost time: the median ratio of the program's CPU time to the
  /// untuned program's with its 95% interval (the untuned program's own:
  /// 1 [1, 1]), and the rounds its bench ran (0 for the untuned program).
  std::optional<speed::RatioEstimate> Ratio;
  unsigned Rounds = 0;
  /// Under time: the bench judged hardware cycles (perf_event_open had a
  /// counter) rather than CPU time.
  bool HardwareCycles = false;
};

/// Whether \p M measured worse than \p Untuned by the rules of the file
/// comment: a higher count, or under time an interval that does not lie
/// below 1.
bool isWorse(const WorkloadMeasure &M, const WorkloadMeasure &Untuned);

/// The measurements of a check and its verdict, over the N modules the
/// search changed.
struct WorkloadVerdict {
  /// The untuned program, the program with every changed module tuned,
  /// and the program the file finally makes.
  WorkloadMeasure Untuned, AllTuned, Final;
  /// Per module: the program with that module alone tuned.
  std::vector<WorkloadMeasure> Alone;
  /// Per module: whether it was reverted.
  std::vector<bool> Reverted;
  /// How many programs were measured.
  unsigned Runs = 0;
};

/// The measure of the program with the modules \p Tuned marks (one flag
/// per module) tuned and the others untuned; the first program asked for
/// is the untuned one.
using MeasureFn = llvm::function_ref<llvm::Expected<WorkloadMeasure>(
    const std::vector<bool> &)>;

/// The check over \p N changed modules (see the file comment).
llvm::Expected<WorkloadVerdict> verifyByModule(size_t N, MeasureFn Measure);

/// Links and runs the variants of one program.
struct WorkloadOptions {
  /// Links the objects of $MLGO_OBJECTS (one per module of the corpus,
  /// named as the module with ".o" added) into $MLGO_PROGRAM; run by sh.
  std::string Link;
  /// Runs $MLGO_PROGRAM on the workload (under callgrind, or timed); run
  /// by sh.
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
  /// What the variants are measured by (--cost).
  speed::CostKind Cost = speed::CostKind::Instructions;
  /// --cost time: seeds each bench's order of runs and its bootstrap, and
  /// when a bench stops (TimeStop).
  uint64_t Seed = 1;
  static speed::StoppingRule getTimeStop();
};

class ProgramMeasurer {
public:
  /// \p Names: the corpus's modules (their objects' names); \p Keys: their
  /// source keys (for $MLGO_TUNED).
  ProgramMeasurer(WorkloadOptions O, std::vector<std::string> Names,
                  std::vector<std::string> Keys)
      : O(std::move(O)), Names(std::move(Names)), Keys(std::move(Keys)) {}
  /// The cost of the program linked from \p Objects (one per module) with
  /// the modules \p Tuned marks named in $MLGO_TUNED. The first program
  /// measured is the untuned one (its run sets the default limit of the
  /// others; under time, the baseline every later program is benched
  /// against).
  llvm::Expected<WorkloadMeasure> measure(llvm::ArrayRef<std::string> Objects,
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
  /// --cost time: the untuned program, once linked.
  std::string UntunedProgram;

  /// Links the variant into \p Work/bin/program; errors name --link.
  llvm::Error link(llvm::ArrayRef<std::string> Objects,
                   const std::string &Work);
  /// Benches the program \p Program (tuned: \p TunedKeys) against the
  /// untuned one, in \p Dir (time.json: the bench's report).
  llvm::Expected<WorkloadMeasure> benchTime(const std::string &Program,
                                            const std::string &TunedKeys,
                                            const std::string &Dir);
};

} // namespace mlgo

#endif // MLGO_TUNE_WORKLOADCHECK_H
