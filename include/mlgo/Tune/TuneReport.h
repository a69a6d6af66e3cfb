//===- mlgo/Tune/TuneReport.h - What a tune run writes ---------*- C++ -*-===//
//
// The one report writer of `mlgo tune` (docs/tune.md, "Work directory"):
// from plain values, the report (W/report.md, and with several programs
// W/reports/<program>.md), the tries log (W/tries-<order>.tsv), the
// filter's log (W/logged-<order>.tsv) and the curve of cost against
// compiles (W/curve-<order>.csv, and its plot W/curve-<order>.svg through
// learn::LearningCurve, the project's one curve plotter), and the same for
// `--objective speed` (W/report.md, W/moves.tsv, W/curve-speed.svg from
// SpeedRunReport). Nothing here
// compiles or searches, so each text is tested over made-up values
// (unittests/Tune/TuneReportTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNEREPORT_H
#define MLGO_TUNE_TUNEREPORT_H

#include "mlgo/Tune/SearchState.h"
#include "mlgo/Tune/WorkloadCheck.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One program of the report: its name as shown, its cost at -Oz, with the
/// model and tuned, and per unit the moves it kept.
struct ProgramReport {
  std::string Shown;
  /// The build Stock is of: "-Oz", or under `--lto` "stock -flto=thin" or
  /// "stock -flto" (the final artifact of the link).
  std::string Baseline = "-Oz";
  uint64_t Stock = 0, Model = 0, Tuned = 0;
  size_t UnitsTuned = 0, Units = 0;
  /// Why the decisions file is not the whole-program form the search's
  /// entries make (empty when it is): a line after the sizes.
  std::string FormNote;
  /// "- <unit>: <kept moves>" lines, one per unit that kept a move.
  std::vector<std::string> KeptLines;
};

/// What the report says of the run.
struct RunReport {
  std::string CorpusDir;
  size_t Modules = 0;
  std::string Fingerprint;
  std::string ModelDescription, OrderDescription, Budget;
  /// Under `--lto`, what a program's cost is (the report's "LTO" line);
  /// empty otherwise.
  std::string Lto;
  uint64_t Seed = 0;
  uint64_t Compiles = 0;
  bool StoppedByBudget = false;
  /// Whole-program decisions: functions decided once, program entries,
  /// module entries left out and added.
  size_t HoistedFunctions = 0, ProgramEntries = 0, Removed = 0, Added = 0;
  std::vector<ProgramReport> Programs;
  /// The modules left out, each its compile's error.
  std::vector<std::string> Failures;
};

/// The report's text (report.md).
std::string formatReport(const RunReport &R);

/// Program \p P's own report (reports/<program>.md, with several programs).
std::string formatProgramReport(const ProgramReport &P);

/// The tries log's text; \p ProgramOf and \p UnitKey give each try's
/// program's shown name and unit key.
std::string formatTries(llvm::ArrayRef<TryRecord> Tries,
                        llvm::function_ref<std::string(size_t)> ProgramOf,
                        llvm::function_ref<std::string(size_t)> UnitKey);

/// Writes the curve of \p Curve to \p Stem.csv (per point, the compiles,
/// the programs' cost, its change against \p ModelTotal in percent, "%.3f",
/// and the seconds since the search began, "%.1f") and \p Stem.svg (the
/// percent against the compiles, through learn::LearningCurve).
llvm::Error writeCurve(llvm::StringRef Stem, llvm::ArrayRef<CurvePoint> Curve,
                       uint64_t ModelTotal);

/// One module of the speed tune (`mlgo tune --objective speed`), in
/// profile-weighted executed instructions.
struct SpeedModuleReport {
  std::string Key;
  /// Whether the module was searched (it has hot functions).
  bool Searched = false;
  /// Stock clang-19 -O2, the eviction model with the kept inlining entries,
  /// and tuned (the stock compile without entries).
  double Base = 0, Model = 0, Final = 0;
  /// What the inlining entries and the eviction side each saved of Base.
  double InliningGain = 0, EvictionGain = 0;
  double BaseCycles = 0, FinalCycles = 0;
  size_t SiteEntries = 0, EvictionEntries = 0;
  unsigned Tries = 0, InlineTries = 0, InlineKept = 0, EvictTries = 0,
           EvictKept = 0;
  /// Passes over the moves, and the tries and kept moves of the passes
  /// after the first.
  unsigned InlinePasses = 0, EvictPasses = 0, LaterTries = 0, LaterKept = 0;
  unsigned PairTries = 0, PairKept = 0;
  /// Its share of --max-compiles, and its budget with what was handed on.
  uint64_t Share = 0, Budget = 0;
  bool OutOfMoves = false;
  /// The workload check: the program with this module alone tuned (none:
  /// not measured), whether it was reverted, and the search's estimate.
  std::optional<speed::WorkloadMeasure> MeasuredAlone;
  bool Reverted = false;
  double Predicted = 0;
  /// W/moves.tsv's lines of the module, in order.
  std::vector<std::string> Moves;
  /// (the module's search compiles, its best cost) after each kept move.
  std::vector<std::pair<unsigned, double>> Kept;
};

/// What the speed tune's report says of the run.
struct SpeedRunReport {
  std::string ProgramName, CorpusDir, Fingerprint, Profile;
  /// The eviction model's `model` metadata; EvictModel: one was given.
  std::string ModelMeta;
  bool EvictModel = false;
  uint64_t Seed = 0, MaxCompiles = 0, SearchCompiles = 0, HandedOn = 0;
  unsigned Rounds = 0;
  size_t HotFunctions = 0, NearMisses = 0;
  double HotShare = 0;
  /// Every module's stock -O2 cost.
  double BaseTotal = 0;
  std::optional<WorkloadVerdict> Verdict;
  /// What the verdict judged by (--cost).
  speed::CostKind Cost = speed::CostKind::Instructions;
  std::string Workload, BuildIdentity, ClangVersion, ValgrindVersion;
  std::vector<std::string> WorkloadInputs;
  /// Every corpus module searched, in corpus order, and those left out
  /// (of another program than the profile's, mlgo/Speed/ProfiledModules.h).
  std::vector<SpeedModuleReport> Modules;
  std::vector<std::string> LeftOut;
};

/// "N modules define no function of the profile P and are left out: A, B"
/// (the first ten named).
std::string formatLeftOut(llvm::ArrayRef<std::string> LeftOut,
                          llvm::StringRef Profile);

/// "+1.250%" / "-0.500%": \p New against \p Old ("+0.000%" when Old is 0).
std::string formatSpeedPercent(double New, double Old);

/// The decisions file's `meta measured` value: "workload executed
/// instructions: untuned N, tuned M (-1.000%)", the same of "estimated
/// cycles", or under time "workload CPU time, tuned/untuned: 0.9800
/// [0.9700, 0.9900] faster (12 rounds)".
std::string formatWorkloadMeasured(speed::CostKind Cost,
                                   const WorkloadVerdict &V);

/// The speed tune's report.md; its modules' tables hottest (Base) first.
std::string formatSpeedReport(const SpeedRunReport &R);

/// W/moves.tsv: every try, module by module in the report's order.
std::string formatSpeedMoves(const SpeedRunReport &R);

/// Writes \p Path (an SVG, through learn::LearningCurve): the estimated
/// gain of the program after each search compile, the modules' kept moves
/// laid out hottest module first (each module's search is sequential;
/// their compiles add up).
llvm::Error writeSpeedCurve(llvm::StringRef Path, const SpeedRunReport &R);

} // namespace mlgo

#endif // MLGO_TUNE_TUNEREPORT_H
