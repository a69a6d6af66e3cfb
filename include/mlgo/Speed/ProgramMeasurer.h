//===- mlgo/Speed/ProgramMeasurer.h - A program on a workload ---*- C++ -*-===//
//
// The measurement under `mlgo tune --objective speed --workload CMD`
// (docs/tune.md, "Checking on a workload"): a program is linked from one
// object per module by the user's --link command and run by the workload;
// its cost is the executed instructions or estimated cycles under callgrind
// (mlgo/Speed/Callgrind.h, mlgo/Speed/CycleEstimate.h), or under time its
// CPU time benched against the untuned program's (mlgo/Speed/TimeBench.h).
// What to do with the measures (which modules to keep) is the tune's
// (mlgo/Tune/WorkloadCheck.h).
//
// ProgramMeasurer links and runs the variants. A count (instructions, cycles)
// is measured once per work directory: it is kept under the hash of the
// variant's objects, commands, input files, cost and mlgo's and valgrind's
// versions, so a rerun after a kill measures only what was not measured. Under
// time the directory keeps each variant's linked program (read back, the link
// being a function of the same key) and its last bench (`time.json`, for the
// reader, never read back). A variant is linked and run in a directory of its
// own (`<hash>.tmp-<pid>`) renamed to `<hash>` once complete, so a result is
// never read from a run that did not finish or that an orphaned process of a
// killed run wrote into. Each run of the workload has a limit
// (--timeout; by default 20 times the untuned program's run, at
// least a minute), and a run over it is an error naming the program and the
// limit.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_PROGRAMMEASURER_H
#define MLGO_SPEED_PROGRAMMEASURER_H

#include "mlgo/Speed/BenchStats.h"
#include "mlgo/Speed/CostKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo::speed {

/// One program measured on the workload.
struct WorkloadMeasure {
  /// Executed instructions (--cost instructions) or estimated cycles
  /// (cycles); 0 under time.
  uint64_t Count = 0;
  /// --cost time: the median ratio of the program's CPU time to the
  /// untuned program's with its 95% interval (the untuned program's own:
  /// 1 [1, 1]), and the rounds its bench ran (0 for the untuned program).
  std::optional<RatioEstimate> Ratio;
  unsigned Rounds = 0;
  /// Under time: the bench judged hardware cycles (perf_event_open had a
  /// counter) rather than CPU time.
  bool HardwareCycles = false;
};

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
  CostKind Cost = CostKind::Instructions;
  /// --cost time: seeds each bench's order of runs and its bootstrap, and
  /// when a bench stops (TimeStop).
  uint64_t Seed = 1;
  static StoppingRule getTimeStop();
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

} // namespace mlgo::speed

#endif // MLGO_SPEED_PROGRAMMEASURER_H
