//===- mlgo/Tune/Tuner.h - mlgo tune: per-program inlining search -*- C++
//-*-===//
//
// `mlgo tune` (docs/tune.md): on a corpus of a program's modules, search
// for the inlining decisions that make the linked program smallest, guided
// by the model, and write them as a decisions file (docs/decisions.md) that
// the plugin applies in any build (-mlgo-decisions=FILE).
//
// The objective is the program's linked .text: its modules' objects linked
// together, each C++ inline or template function counted once (the
// "package" size measure of mlgo/TrainCore/SizeMeasure.h). A move is kept only
// if it makes its program strictly smaller, so no program grows against
// the model's build; the first move offered to each module is LLVM's own
// heuristic, so tuning starts from the better of the model and -Oz.
//
// Every compile is kept in the work directory (compiles.tsv, sites.tsv) as
// soon as it is known: a rerun after kill -9, or after a source change,
// compiles only what it has not compiled before and writes the same file
// as an uninterrupted run (given --max-compiles, the search is a function
// of the corpus, the model, the seed and the budget).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNER_H
#define MLGO_TUNE_TUNER_H

#include "mlgo/Tune/TuneSearch.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace mlgo {

struct CorpusModule;

/// What the search does with IR2Native's prediction of a move
/// (docs/tune.md, "Predicted gains"): nothing, try the moves predicted not
/// to shrink their unit after all the others, or never try them.
enum class TunePredict : uint8_t { Off, Rank, Skip };
llvm::StringRef getName(TunePredict P);

/// What a prediction of a move compiles (docs/tune.md, "On slices"): the
/// module; the slice of the move's component of the statics graph, if it
/// has one; or a slice of the functions the move changes and the bodies
/// they inline.
enum class TunePredictOn : uint8_t { Module, Components, Moves };
llvm::StringRef getName(TunePredictOn P);

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
  uint64_t Seed = 1;
  TuneOrder Order = TuneOrder::Guided;
  /// Also search in the other order with the same budget, and plot both
  /// (gain against compiles) in <work>/guided-vs-unguided.svg. The
  /// decisions file is Order's.
  bool Compare = false;
  /// The model that decides untuned sites and guides the search: a text
  /// model file, or the plugin's embedded model if empty.
  std::string ModelPath;
  /// How the guided order ranks moves: by a move ranker
  /// (mlgo/Tune/MoveRanker.h; RankerPath, or the shipped one if empty), or
  /// (UseRanker false) by the model's |logit|, smallest first.
  bool UseRanker = true;
  std::string RankerPath;
  /// Before the move search, split each module's decisions into
  /// independent components and search those of at most ExhaustiveSites
  /// sites exhaustively (mlgo/Tune/Components.h); the move search tunes
  /// the larger ones.
  bool Components = false;
  unsigned ExhaustiveSites = 6;
  /// Join functions by the bitcode's calls and references as well as by
  /// the decided sites; false joins them by the sites only, a split that
  /// misses interactions (for tests of their detection).
  bool ReferenceGraph = true;
  /// With ReferenceGraph: join functions only through static functions and
  /// variables and linkonce functions (SplitKind::Statics): a call of an
  /// external function, inlined or not, separates caller and callee.
  bool StaticsGraph = false;
  /// With Components: measure each component's configurations on a slice
  /// of its module that holds the component's functions only
  /// (mlgo/Tune/FunctionSlice.h); the module's combination is compiled
  /// whole, as without it. Needs ReferenceGraph (a closed component).
  bool FunctionLevel = false;
  /// With Components: instead of searching every small component before
  /// the moves, search them in rounds from the current state, the
  /// components with the highest expected gain per compile first (the
  /// ranker's, docs/tune.md "Interleaved"), whenever their expected rate
  /// beats what the move search gained over its last compiles; a round's
  /// compiles go to the workers as one batch.
  bool Interleave = false;
  /// Decide each linkonce_odr function's sites once per program, in the
  /// decisions file's 'program' section (mlgo/Tune/ProgramDecisions.h),
  /// rather than in the entries of every module that has a copy.
  bool WholeProgram = true;
  /// Also try program moves (docs/tune.md, "Program moves"): one call
  /// site of a C++ inline function decided alike in every module that has
  /// a copy of it, measured by the program's linked .text.
  bool ProgramMoves = false;
  /// Before compiling a move, predict its unit's .text from the IR
  /// pipeline alone (CompileService::predict) and skip the move or try it
  /// last when the prediction is not smaller than the unit's own.
  TunePredict Predict = TunePredict::Off;
  /// With Predict: what one prediction costs in MaxCompiles, as a fraction
  /// of a compile (a prediction is the IR half of one). The search's
  /// compiles plus ceil(PredictionCost * predictions) stay within
  /// MaxCompiles, and the curve counts them so; a step predicts at most
  /// what its compiles may cost (TriesPerStep compiles' worth).
  double PredictionCost = 0.5;
  /// With Predict: predict a move on a slice instead of the whole module
  /// (Components: the component of the statics graph holding its changed
  /// sites, mlgo/Tune/FunctionSlice.h; Moves: getMoveSlice()), against the
  /// same slice as it is; such a prediction costs PredictionCost times the
  /// slice's share of the module's instructions, with a fixed part
  /// (Tuner.cpp, PredictionFixedInstructions). Moves without a slice (the
  /// heuristic) are predicted on the module as with Module.
  TunePredictOn PredictOn = TunePredictOn::Module;
  /// The free first filter (docs/tune.md, "The logged filter"): every
  /// trajectory compile logs each decision's predicted size change
  /// (CompileService::setSizeScore), and the moves whose logged gain
  /// (getLoggedGain) is negative are never tried (Skip) or tried after
  /// all the others (Rank), before any prediction or compile; at no
  /// charge.
  TunePredict LoggedFilter = TunePredict::Off;
  /// With LoggedFilter: the moves whose logged gain is positive are tried
  /// first, the largest first (filterByLoggedGain).
  bool LoggedPromote = false;
  /// With LoggedFilter Skip: only the moves whose logged gain is positive
  /// (and LLVM's heuristic) are tried; a unit without one leaves the
  /// lockstep (filterByLoggedGain's Only).
  bool LoggedOnly = false;
  /// With LoggedOnly (the logged filter `predict`): once a unit has kept a
  /// move, each of its plans also keeps its first this many moves that
  /// inline whose logged gain is not positive, and only those are
  /// predicted (Predict, charged as any prediction); the moves whose
  /// logged gain is positive are tried without one, and the move undoing
  /// the unit's last kept move is taken out when it inlines. 0: `only`
  /// as it is.
  unsigned LoggedPredictInline = 0;
  /// With LoggedFilter: the declined sites log the estimated saving of
  /// inlining them too (CompileService::setSizeScore's Declined), so that
  /// moves that inline have a logged gain.
  bool LoggedDeclined = false;
  unsigned Workers = 0;
  unsigned TimeoutSeconds = 300;
  bool Verbose = true;
};

/// Runs the search and writes the decisions file(s), <work>/report.md,
/// <work>/curve-<order>.csv and (Compare) the plot.
llvm::Error runTuning(const TuneOptions &Options);

/// The source file of corpus module \p M as the plugin resolves it in a
/// build (resolveSourcePath): its source_filename joined to the directory
/// it was compiled in (-fdebug-compilation-dir). It is what finds a
/// module's entries in a decisions file. Errors name the bitcode file.
llvm::Expected<std::string> getSourceFileName(const CorpusModule &M);

/// The source_filename of corpus module \p M as its bitcode records it,
/// unresolved (getSourceFileName resolves it). Errors name the bitcode file.
llvm::Expected<std::string> readSourceFileName(const CorpusModule &M);

} // namespace mlgo

#endif // MLGO_TUNE_TUNER_H
