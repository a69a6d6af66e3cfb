//===- mlgo/Tune/TuneReport.h - What a tune run writes ---------*- C++ -*-===//
//
// The one report writer of `mlgo tune` (docs/tune.md, "Work directory"):
// from plain values, the report (W/report.md, and with several programs
// W/reports/<program>.md), the tries log (W/tries-<order>.tsv), the
// filter's log (W/logged-<order>.tsv) and the curve of cost against
// compiles (W/curve-<order>.csv, and its plot W/curve-<order>.svg through
// learn::LearningCurve, the project's one curve plotter). Nothing here
// compiles or searches, so each text is tested over made-up values
// (unittests/Tune/TuneReportTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNEREPORT_H
#define MLGO_TUNE_TUNEREPORT_H

#include "mlgo/Tune/SearchState.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

/// One program of the report: its name as shown, its cost at -Oz, with the
/// model and tuned, and per unit the moves it kept.
struct ProgramReport {
  std::string Shown;
  uint64_t Stock = 0, Model = 0, Tuned = 0;
  size_t UnitsTuned = 0, Units = 0;
  /// "- <unit>: <kept moves>" lines, one per unit that kept a move.
  std::vector<std::string> KeptLines;
};

/// What the report says of the run.
struct RunReport {
  std::string CorpusDir;
  size_t Modules = 0;
  std::string Fingerprint;
  std::string ModelDescription, OrderDescription, Budget;
  uint64_t Seed = 0;
  uint64_t Compiles = 0;
  bool StoppedByBudget = false;
  /// The moves the filter took out, each time they were planned; none
  /// without the filter.
  std::optional<size_t> Filtered;
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

/// The filter's log's text.
std::string formatFiltered(llvm::ArrayRef<FilteredRecord> Filtered);

/// Writes the curve of \p Curve to \p Stem.csv (per point, the compiles,
/// the programs' cost, its change against \p ModelTotal in percent, "%.3f",
/// and the seconds since the search began, "%.1f") and \p Stem.svg (the
/// percent against the compiles, through learn::LearningCurve).
llvm::Error writeCurve(llvm::StringRef Stem, llvm::ArrayRef<CurvePoint> Curve,
                       uint64_t ModelTotal);

} // namespace mlgo

#endif // MLGO_TUNE_TUNEREPORT_H
