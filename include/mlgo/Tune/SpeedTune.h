//===- mlgo/Tune/SpeedTune.h - mlgo tune --objective speed ------*- C++ -*-===//
//
// The per-program search for speed (issue #49, docs/tune.md "For speed"):
// a program's own inlining and eviction decisions, searched on its own
// profile.
//
// The program is a corpus of its -O2 build. Every compile is the module's
// own cc1 command with the profile applied (-fprofile-use, mismatches
// errors) and the basic-block address map, so the object's profile-weighted
// cost is read off it (mlgo/Speed/ExecutionCost.h); the objective of a
// module is its profile-weighted executed instructions (what callgrind
// counts), the search's only signal, compile-only.
//
// Per module:
//   1. stock clang-19 -O2 -fprofile-use: the baseline; the program's hot
//      functions are those that hold 99% of the baselines' cost;
//   2. inlining, with LLVM's eviction: mlgo's advisor deciding with LLVM's
//      heuristic, its decisions recorded (the training log and its sites
//      file); the size search's moves (mlgo/Tune/TuneSearch.h: a site's
//      decision inverted, a callee's calls all inlined or none) whose
//      caller is hot, the hottest caller's first, each kept if it lowers
//      the module's cost, the moves planned again after each kept one;
//      a pass that kept a move is followed by one over the moves it did
//      not keep;
//   3. eviction, on top of the kept inlining entries: the plugin's
//      eviction model, with its trajectory (every decision's function,
//      features and answer); in the hot functions, hottest first, each
//      decision of the current trajectory in turn, ordinal by ordinal,
//      inverted as -mlgo-evict-flips does (invertEviction): an entry
//      (function, ordinal, hash of the features, answer) added, kept if
//      it lowers the model side's cost, the trajectory then the compile's;
//      a function whose pass kept an inversion gets another pass over its
//      decisions without an entry, those whose last inversion moved the
//      cost most first (kept entries a later inversion made stale are
//      dropped); when the single inversions are exhausted, pairs of each
//      function's near misses (the 10 inversions that raised its cost the
//      least; the second inverted in the allocation the first left),
//      nearest first, a kept pair followed by another pass.
// The module's result is the cheapest of the three; the model side gets
// one entry that pins the model's own first answer (which switches the
// module to the model). With --workload (mlgo/Tune/WorkloadCheck.h) the
// tuned program is then measured, and modules measured worse reverted.
//
// The compiles are speed::ModuleSpeedCompiler's (mlgo/Speed/SpeedCompiler.h,
// tasks of mlgo/Speed/SpeedCompile.h): the modules' searches
// ask for them one at a time, through the speed objective
// (mlgo/Tune/SpeedObjective.h, whose delta judges every try), and the
// waiting ones go out as a batch, to this machine's threads or, under
// mpirun, to the worker ranks. The inlining phase keeps its state as a
// unit of the size search (mlgo/Tune/SearchState.h: UnitState, keepMove).
//
// Deterministic: the order of moves is a function of the baseline costs,
// the trajectories and the seed (which breaks ties between functions of
// equal cost), and --max-compiles splits over modules by their cost before
// any compile; modules run in parallel, each search is sequential. In
// rounds: the budget of modules out of moves is then handed on to those
// their budget stopped, which are searched again (their first tries read
// back from the cache; inlining is bounded by the module's own share, so
// the longer search repeats the shorter one).
// Resumable: each compile's result (its cost and trajectory) is kept in
// WORK/speed/ (SpeedCompiler.h's cache) under the hash of everything it
// depends on (the module, the
// profile, the entries, the eviction model, mlgo's build identity and the
// compiler's version), written atomically, so a rerun after kill -9 reads
// what was done and compiles the rest; the output is the same file. The
// run holds the work directory's lock (mlgo/Support/WorkDirLock.h), and its
// children end with it (mlgo/Support/Process.h's keeper).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SPEEDTUNE_H
#define MLGO_TUNE_SPEEDTUNE_H

#include "mlgo/Tune/WorkloadCheck.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlgo {

class DecisionsFile;
struct ModuleDecisions;
namespace speed {
struct CompiledModule;
} // namespace speed

struct SpeedTuneOptions {
  std::string CorpusDir;
  /// The program's indexed profile (-fprofile-use).
  std::string Profile;
  std::string WorkDir;
  /// The decisions file written.
  std::string Output;
  /// The program's name in the report.
  std::string ProgramName;
  /// Search compiles after the two per module; 0: every move.
  uint64_t MaxCompiles = 0;
  uint64_t Seed = 1;
  unsigned Jobs = 2;
  unsigned TimeoutSeconds = 300;
  /// The share of the baseline's cost the hot functions hold.
  double HotShare = 0.99;
  bool Verbose = true;
  /// --link and --workload (mlgo/Tune/WorkloadCheck.h): the check of the
  /// tuned program on a workload; none if empty.
  std::string Link, Workload;
  /// --timeout: the seconds one run of the workload may take; 0:
  /// speed::WorkloadOptions' default (20 times the untuned program's run).
  unsigned WorkloadTimeout = 0;
  /// --workload-input: files the workload reads; their bytes are part of
  /// each measurement's key, so a changed input is measured again.
  std::vector<std::string> WorkloadInputs;
  /// --cost: what the workload check judges by.
  speed::CostKind Cost = speed::CostKind::Instructions;
  /// What mlgo is (`mlgo --version`: its version and commit, the LLVM it
  /// runs on, the MD5 of each model it embeds): part of every cache key,
  /// with `clang --version`, so an upgrade reads no old result.
  std::string BuildIdentity;
  /// --evict-model: the eviction model whose trajectory the search inverts
  /// (-mlgo-evict-model); empty: the one embedded in the plugin.
  std::string EvictModel;
  /// The plugin (default: the installed one) and the compiler.
  std::string PluginPath;
  std::string Clang = "clang-19";
};

/// Runs the search and writes Output (a decisions file for speed),
/// WORK/report.md, WORK/moves.tsv (every try: module, kind, function,
/// decision, the change of the module's cost, kept or not) and
/// WORK/curve-speed.svg.
llvm::Error runSpeedTuning(const SpeedTuneOptions &Options);

/// `mlgo tune check` for a file for speed: compiles each module of the
/// corpus that the file has entries for, with them and the profile, as a
/// build does, and lists on \p OS the entries that fixed no decision:
/// eviction entries whose function has no such decision or whose features
/// changed, and inlining entries that fixed no call site of the compile
/// (the call site or the callee is gone, or every call of a group entry's
/// callee has a site entry of its own). Returns how many of both; errors
/// name the file or the module. The eviction model is \p EvictModel (a
/// file, -mlgo-evict-model; empty: the embedded one), and a file whose
/// eviction entries were tuned on another one is an error
/// (checkDecisionsModel).
llvm::Expected<size_t> checkSpeedDecisions(llvm::StringRef CorpusDir,
                                           llvm::StringRef DecisionsPath,
                                           llvm::StringRef Profile,
                                           llvm::StringRef EvictModel,
                                           llvm::raw_ostream &OS);

/// A module of a file for speed compiled as a build applies the file.
struct TunedSpeedCompile {
  /// Its index in the corpus (mlgo/Compile/TrainingCorpus.h's order).
  size_t Module = 0;
  /// The file's entries for it.
  std::shared_ptr<const ModuleDecisions> Entries;
  /// The compile: its inlining decisions and, for a module with eviction
  /// entries (allocated by the eviction model), its eviction trajectory
  /// and training log.
  const speed::CompiledModule *Compiled = nullptr;
};

/// Compiles each module of the corpus that \p File (read from
/// \p DecisionsPath) has entries for, with them and the profile, as a
/// build does (the eviction model \p EvictModel, empty: the embedded one,
/// for the modules with eviction entries), and calls \p OnModule with
/// each, in corpus order, while the compile's files exist (in a temporary
/// directory, removed afterwards). Errors name the file or the module; an
/// error of \p OnModule stops the loop and is returned.
llvm::Error compileSpeedDecisions(
    llvm::StringRef CorpusDir, const DecisionsFile &File,
    llvm::StringRef DecisionsPath, llvm::StringRef Profile,
    llvm::StringRef EvictModel,
    llvm::function_ref<llvm::Error(const TunedSpeedCompile &)> OnModule);

} // namespace mlgo

#endif // MLGO_TUNE_SPEEDTUNE_H
