//===- mlgo/Speed/TimeBench.h - Time that can be trusted --------*- C++ -*-===//
//
// The engine of `mlgo bench`: two or more builds of a program run on one
// workload, alternately and many times, until the statistics
// (mlgo/Speed/BenchStats.h) can say whether each is faster or slower than
// the first, the baseline, or that no difference is measurable.
//
// On a machine shared with other jobs, wall time measures the machine as
// much as the program. So each run is timed three ways:
//
//  * CPU time: user + system seconds of the program and the children it
//    waited for, from wait4(2) (mlgo/Support/Process.h) - time the program
//    itself spent on a CPU, which other jobs lengthen only through shared
//    caches and frequency;
//  * wall time, reported beside;
//  * hardware cycles (user mode) where perf_event_open(2) has a cycle
//    counter; virtual machines usually have none, and the report then says
//    so and why. With a counter, cycles are what the bench decides on.
//
// Every run is pinned to one CPU (SpawnOptions::CPU; the last CPU this
// process may use, or the one asked for), so that a run does not migrate
// between cores mid-way. Rounds run every build once, in a seeded random
// order; one warm-up round (not counted) fills the page cache. The
// workload's standard output is kept and compared, byte for byte, with the
// baseline's first: a build that prints something else, fails, or runs past
// the timeout is an error naming the build. The load average
// (/proc/loadavg) before the first and after the last round is reported,
// so that a reader can tell a quiet measurement from a busy one.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_TIMEBENCH_H
#define MLGO_SPEED_TIMEBENCH_H

#include "mlgo/Speed/BenchStats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {
namespace speed {

/// One build: a name for reports and errors, and the command that runs the
/// workload on it (argv[0] looked up in PATH unless it holds a '/').
struct BenchBuild {
  std::string Name;
  std::vector<std::string> Argv;
};

struct BenchOptions {
  StoppingRule Stop;
  /// The workload's standard input (unset: /dev/null).
  std::optional<std::string> Stdin;
  /// Where the runs' outputs go (must exist).
  std::string WorkDir;
  /// A run longer than this is an error.
  unsigned TimeoutSeconds = 60;
  /// Seeds the order of the builds in each round and the bootstrap.
  uint64_t Seed = 1;
  unsigned Resamples = 2000;
  /// The CPU to pin the runs to; unset: the last one this process may use.
  std::optional<unsigned> CPU;
  /// Do not pin.
  bool NoPin = false;
  /// Rounds run first and not counted.
  unsigned WarmupRounds = 1;
};

/// The 1-, 5- and 15-minute load averages of /proc/loadavg ("?" where it
/// cannot be read).
std::string readLoadAverage();

/// What a bench measured and concluded. Per-build vectors are in the
/// order of the builds; estimates of the baseline itself are exactly 1.
struct BenchResult {
  std::vector<std::string> Names;
  /// Seconds (CPU, wall) and cycles of each counted run, by round.
  std::vector<std::vector<double>> CPUSeconds, WallSeconds, Cycles;
  unsigned Rounds = 0;
  StopReason Stopped = StopReason::KeepGoing;
  StoppingRule Rule;
  /// The CPU the runs were pinned to, or why they were not.
  std::optional<unsigned> PinnedCPU;
  std::string NotPinned;
  /// Whether cycles were counted, or why not.
  bool HaveCycles = false;
  std::string NoCycles;
  std::string LoadBefore, LoadAfter;
  /// The estimates: of the measure decided on (cycles with a counter, else
  /// CPU time), and of wall time, per build.
  std::vector<RatioEstimate> Decided, Wall;

  /// "cycles" or "CPU time".
  const char *decidedMeasure() const {
    return HaveCycles ? "cycles" : "CPU time";
  }
  const std::vector<std::vector<double>> &decidedValues() const {
    return HaveCycles ? Cycles : CPUSeconds;
  }

  /// The report `mlgo bench` prints.
  void print(llvm::raw_ostream &OS) const;
  /// The same as JSON, every run's numbers included.
  void printJSON(llvm::raw_ostream &OS) const;
  /// The ratio distribution of each build to the baseline, sorted, as a
  /// plot (written atomically).
  llvm::Error savePlot(llvm::StringRef Path) const;
};

/// Benchmarks \p Builds (at least two; the first is the baseline) on their
/// workload. \p Progress, if given, gets a line per round. Errors name the
/// build: "build 'b': the workload exited with status 1; its last lines of
/// standard error: ...", "build 'b': its output differs from that of the
/// baseline 'a' (see X and Y)", "build 'b': the workload timed out after 5
/// s".
llvm::Expected<BenchResult> runTimeBench(llvm::ArrayRef<BenchBuild> Builds,
                                         const BenchOptions &Options,
                                         llvm::raw_ostream *Progress = nullptr);

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_TIMEBENCH_H
