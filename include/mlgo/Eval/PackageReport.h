//===- mlgo/Eval/PackageReport.h - A package built twice --------*- C++ -*-===//
//
// What `mlgo eval package` found after building one Debian source package
// with stock clang-19 -Oz and with the plugin: the .text size of every
// linked binary, shared library and static library (paired by path in the
// build tree); the wall-clock time of each build (configure and make) and
// its peak compiler RSS (the largest maximum resident set size of any one
// compiler run); and the verdict of each test of the package's suite
// against each build.
//
// A test that passes with the baseline build and fails with the model's is
// a possible miscompile. One that fails with both says nothing about the
// plugin and is reported as such.
//
// This file needs LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_PACKAGEREPORT_H
#define MLGO_EVAL_PACKAGEREPORT_H

#include "mlgo/Eval/Table.h"
#include "mlgo/Speed/BenchStats.h"
#include "mlgo/Speed/CostKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One linked artifact, built both ways.
struct ArtifactSizes {
  /// Relative to the build tree, e.g. "libz.so.1.2.13" or "src/lua".
  std::string Path;
  uint64_t Baseline = 0;
  uint64_t Model = 0;
  /// With a decisions file (PackageReport::HasTuned).
  uint64_t Tuned = 0;
  /// An LTO evaluation's build without LTO (PackageReport::HasNoLto).
  uint64_t NoLto = 0;
};

/// One build.
struct BuildStats {
  double WallSeconds = 0;
  /// Largest peak RSS of one compiler run, in KiB.
  uint64_t PeakRSSKiB = 0;
  /// Compiler runs recorded (compiles, links, configure probes).
  size_t CompilerRuns = 0;
};

/// One test of the package's suite.
struct TestOutcome {
  std::string Name;
  bool BaselinePassed = false;
  bool ModelPassed = false;
  /// The model build's test log, for the report of a failure.
  std::string ModelLog;
  bool TunedPassed = false;
  std::string TunedLog = "";
  /// An LTO evaluation's build without LTO (PackageReport::HasNoLto).
  bool NoLtoPassed = false;
};

/// The speed of both builds of a profiled evaluation (`mlgo eval
/// package|build --profile`) on the benchmark workload, which runs another
/// input than the profile's.
struct SpeedReport {
  /// Executed instructions (callgrind's Ir) of the build's own programs
  /// on the workload, summed over their processes.
  uint64_t BaselineExecuted = 0, ModelExecuted = 0;
  /// The reward: the profile-weighted instructions and cycles of the
  /// programs the workload runs (mlgo/Speed/ExecutionCost.h).
  double BaselineRewardInstructions = 0, ModelRewardInstructions = 0;
  double BaselineRewardCycles = 0, ModelRewardCycles = 0;
  /// Paired wall-clock runs, alternating baseline and model: the median
  /// seconds of each and the median of the per-pair ratios model/baseline.
  unsigned WallRuns = 0;
  double BaselineWallMedian = 0, ModelWallMedian = 0, WallRatioMedian = 0;
  /// What the table measures beside the reward (--cost).
  speed::CostKind Cost = speed::CostKind::Instructions;
  /// --cost cycles: the cycle estimate of the workload
  /// (mlgo/Speed/CycleEstimate.h), summed over the build's own processes.
  uint64_t BaselineCycles = 0, ModelCycles = 0;
  /// --cost time, instead of the wall-clock pairs: the model's time over
  /// the baseline's from mlgo bench's engine, what it timed ("CPU time" or
  /// "cycles") and its rounds.
  speed::RatioEstimate Time;
  std::string TimeMeasure;
  unsigned TimeRounds = 0;
  /// The files costed for the reward, relative to the build tree.
  std::vector<std::string> Programs;
  /// Functions whose control flow differs from the profile's ("FILE:
  /// FUNCTION", from clang's warnings in the baseline build): they get no
  /// counts.
  std::vector<std::string> Mismatches;
};

/// `--bolt`: the two builds of a profiled evaluation, each also optimized
/// by BOLT from an instrumented run of the profile workload, timed together
/// on the benchmark (mlgo/Speed/TimeBench.h) and run under callgrind.
struct BoltReport {
  /// The builds in the order timed: the baseline, the baseline +BOLT, the
  /// model's (or tuned) build, the same +BOLT.
  std::vector<std::string> Names;
  /// Callgrind's executed instructions of each.
  std::vector<uint64_t> Executed;
  /// Each build's time over the baseline's (the baseline's own is 1).
  std::vector<speed::RatioEstimate> Time;
  /// Whether a gain survives the other: model+BOLT over baseline+BOLT, and
  /// model+BOLT over model; from the same rounds.
  speed::RatioEstimate ModelAfterBolt, BoltAfterModel;
  /// What was timed ("CPU time" or "cycles"), how many rounds, why it
  /// stopped, and the load average before and after.
  std::string Measure, Stopped, LoadBefore, LoadAfter;
  unsigned Rounds = 0;
  /// The files BOLT optimized, relative to the build tree.
  std::vector<std::string> Programs;
};

struct PackageReport {
  std::string Package;
  std::string BaselineName = "-Oz";
  std::string ModelName;
  std::vector<ArtifactSizes> Artifacts;
  /// Artifacts found in one build only, with which.
  std::vector<std::string> UnpairedArtifacts;
  BuildStats Baseline;
  BuildStats Model;
  /// A third build, with the model and a decisions file (`mlgo eval
  /// package --decisions`): every table gets its column.
  bool HasTuned = false;
  std::string TunedName = "tuned";
  BuildStats Tuned;
  /// An LTO evaluation (`mlgo eval package --lto thin|full`): the baseline,
  /// the model's and the tuned builds link with LTO, and a fourth build,
  /// stock clang-19 without LTO (with the same level and link flags), gets
  /// the last column of every table.
  bool HasNoLto = false;
  std::string NoLtoName = "no LTO";
  BuildStats NoLto;
  std::vector<TestOutcome> Tests;
  /// With a profile: the benchmark's speed of both builds.
  bool HasSpeed = false;
  SpeedReport Speed;
  /// With `--bolt`: the four builds against BOLT.
  bool HasBolt = false;
  BoltReport Bolt;

  /// Tests that pass with the baseline and fail with the model (or, with
  /// a tuned build, fail with it).
  std::vector<const TestOutcome *> getPossibleMiscompiles() const;
  /// Tests that fail with the baseline build.
  std::vector<const TestOutcome *> getBaselineFailures() const;

  /// The .text of all artifacts in one build (&ArtifactSizes::Baseline or
  /// ::Model): the size table's TOTAL.
  uint64_t getTotal(uint64_t ArtifactSizes::*Build) const;
  /// The tests that pass in one build (&TestOutcome::BaselinePassed or
  /// ::ModelPassed).
  size_t countPassed(bool TestOutcome::*Build) const;

  Table getSizeTable() const;
  Table getBuildTable() const;
  Table getTestTable() const;
  /// The speed table (HasSpeed): executed instructions, the reward's
  /// instructions and cycles, wall-clock medians, each with its ratio.
  Table getSpeedTable() const;
  /// The table against BOLT (HasBolt): per build, executed instructions
  /// and time, each with its ratio to the baseline.
  Table getBoltTable() const;
  /// The three tables and a verdict line per failing test.
  void print(llvm::raw_ostream &OS, ReportFormat Format) const;
};

/// One row per package of a multi-package `mlgo eval package` run, in the
/// order given: the TOTAL of its size table and its test verdicts per build.
/// A package without a report (null: its fetch or a build failed) gets a
/// row saying so. The last row sums the sizes of the packages with one.
Table getPackageSummaryTable(
    llvm::ArrayRef<std::pair<std::string, const PackageReport *>> Packages,
    llvm::StringRef BaselineName, llvm::StringRef ModelName);

/// One row per package with a speed report (`--profile`), in the order
/// given: the ratios model/baseline of its executed instructions, reward
/// instructions and cycles, and wall-clock time; packages without one are
/// left out.
Table getSpeedSummaryTable(
    llvm::ArrayRef<std::pair<std::string, const PackageReport *>> Packages,
    llvm::StringRef BaselineName, llvm::StringRef ModelName);

/// The peak RSS (KiB) recorded in a GNU time log written with "-f %M -a":
/// the largest line that is a decimal number (GNU time also writes lines
/// such as "Command exited with non-zero status 1"). \p Runs, when given,
/// receives the number of such lines.
uint64_t parsePeakRSS(llvm::StringRef TimeLog, size_t *Runs = nullptr);

} // namespace mlgo

#endif // MLGO_EVAL_PACKAGEREPORT_H
