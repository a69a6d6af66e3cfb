//===- mlgo/Tune/Tuner.h - mlgo tune's plan and entry point -*- C++ -*-===//
//
// `mlgo tune` (docs/tune.md): on a corpus of a program's modules, search
// for the inlining decisions that make the linked program smallest, guided
// by the model, and write them as a decisions file (docs/decisions.md) that
// the plugin applies in any build (-mlgo-decisions=FILE).
//
// The objective (mlgo/Tune/Objective.h; SizeObjective.h) is the program's
// linked .text: its modules' objects linked together, each C++ inline or
// template function counted once. The search is one loop over plain values
// (mlgo/Tune/SearchState.h) with its parts around it: the move source
// (TuneSearch.h) ordered by the ranker (MoveRanker.h) and the report writer
// (TuneReport.h). A move is kept only
// if it makes its program strictly smaller, so no program grows against
// the model's build; the first move offered to each module is LLVM's own
// heuristic, so tuning starts from the better of the model and -Oz.
//
// Every compile is kept in the work directory (compiles.tsv, sites.tsv) as
// soon as it is known: a rerun after kill -9, or after a source change,
// compiles only what it has not compiled before and writes the same file
// as an uninterrupted run (given --max-compiles, the search is a function
// of the corpus, the model and the budget; ties in the order of moves are
// broken by a fixed seed, TieBreakSeed).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNER_H
#define MLGO_TUNE_TUNER_H

#include "mlgo/Support/LtoMode.h"
#include "mlgo/Tune/TuneSearch.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlgo {

struct CorpusModule;

/// How a unit's moves are ordered (`--order`): by the move ranker's
/// expected bytes saved (mlgo/Tune/MoveRanker.h; the default), by the
/// model's |logit|, smallest first, or as the trajectory lists them. The
/// last two are kept because the ranker's recipe
/// (models/tune-ranker/recipe.json) learns from tries logs in those orders.
enum class TuneGuide : uint8_t { Ranker, Logit, Trajectory };
llvm::StringRef getName(TuneGuide G);

/// The seed that breaks ties in the order of moves (planMoves); the
/// decisions file's `meta seed` and the report name it. It was `--seed`
/// until 2026-12-03: any seed is as good, so it is not the user's choice.
constexpr uint64_t TieBreakSeed = 1;

/// The typed plan of one `mlgo tune` run: tools/mlgo/TuneCommands.cpp
/// parses the command line into it once; nothing below it sees a string
/// option.
struct TuneOptions {
  std::string CorpusDir;
  std::string WorkDir;
  /// The decisions file; with PerPackage, a directory that receives one
  /// file per package, <package>.decisions.
  std::string Output;
  /// Each top-level directory of the corpus is its own program (a corpus
  /// of Debian packages); otherwise the whole corpus is one program.
  bool PerPackage = false;
  /// The program's name in reports when the corpus is one program (e.g.
  /// the package of --package); empty: "the corpus".
  std::string ProgramName;
  /// The search's compiles (after the baseline's two per module); 0: no
  /// limit.
  uint64_t MaxCompiles = 0;
  /// Wall-clock minutes for the search; 0: no limit. A run stopped by time
  /// is not reproducible by a rerun; one stopped by MaxCompiles is.
  double BudgetMinutes = 0;
  TuneGuide Guide = TuneGuide::Ranker;
  /// The model that decides untuned sites and guides the search: a text
  /// model file, or the plugin's embedded model if empty.
  std::string ModelPath;
  /// With Guide Ranker: a ranker model file, or the shipped one if empty.
  std::string RankerPath;
  unsigned Workers = 0;
  unsigned TimeoutSeconds = 300;
  bool Verbose = true;
  /// Thin or Full: a program's cost is the .text of the final artifact
  /// that Link makes from its modules' LTO compile steps (LtoObjective in
  /// mlgo/Tune/SizeObjective.h); None: its objects linked (SizeObjective).
  LtoMode Lto = LtoMode::None;
  /// With Lto: the shell command that links $MLGO_OBJECTS into
  /// $MLGO_PROGRAM with $MLGO_LTO_FLAGS.
  std::string Link;
  /// Where Link comes from, as the report names it: "--link" or a
  /// package recipe's lto_link.
  std::string LinkSource = "--link";
  /// NAME=VALUE words added to Link's environment.
  std::vector<std::string> LinkEnv;

  /// The order's name in the work directory's files: "guided" (Ranker,
  /// Logit) or "unguided" (Trajectory).
  TuneOrder getOrder() const {
    return Guide == TuneGuide::Trajectory ? TuneOrder::Unguided
                                          : TuneOrder::Guided;
  }
};

/// Runs the search and writes the decisions file(s), <work>/report.md,
/// <work>/tries-<order>.tsv and <work>/curve-<order>.{csv,svg}.
llvm::Error runTuning(const TuneOptions &Options);

} // namespace mlgo

#endif // MLGO_TUNE_TUNER_H
