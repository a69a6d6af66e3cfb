//===- mlgo/Tune/TuneSearch.h - The moves of per-program tuning -*- C++ -*-===//
//
// `mlgo tune` searches, per module, for inlining decisions that make the
// linked program smaller (docs/tune.md). Its state per module is a set of
// fixed decisions (mlgo/Inline/Decisions.h) on top of the model; a move
// changes that set:
//
//   site move    invert the decision at one call site of the current
//                trajectory (caller, callee, ordinal);
//   group move   inline every call of one callee in the module, or none
//                (offered when the callee has two or more call sites and
//                the move changes one of them);
//   heuristic    take LLVM's heuristic's decisions everywhere (offered
//                first, once, so that tuning starts from the better of the
//                model and -Oz).
//
// After a move is kept the module is compiled again to learn its new
// trajectory (a kept inversion brings call sites along or takes them away),
// and the moves are planned again from it, leaving out every move tried
// before.
//
// Order: guided tries first the moves a learned ranker expects to save
// the most bytes (mlgo/Tune/MoveRanker.h) or, without one, the moves the
// model is least sure of (the smallest |logit|; a group move by the mean
// |logit| of the sites it changes); unguided tries them in trajectory
// order. Ties are broken by a
// hash of the move and the seed, so a run is a function of its seed.
//
// These are functions over values, tested without compiling
// (unittests/Tune/TuneSearchTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_TUNESEARCH_H
#define MLGO_TUNE_TUNESEARCH_H

#include "mlgo/Inline/Decisions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

enum class TuneOrder : uint8_t { Guided, Unguided };
llvm::StringRef getName(TuneOrder O);

/// What the planner knows of a move when it ranks it: the tries log
/// (<work>/tries-<order>.tsv) records it with the move's outcome.
struct MoveFeatures {
  /// The model's logit at the site, or the mean over the sites a group
  /// move changes (0 for the heuristic; NaN where the model gave none).
  double Logit = 0;
  /// The sites the move changes (1 for a site move).
  uint32_t Changed = 0;
  /// The callee's sites in the trajectory.
  uint32_t CalleeSites = 0;
  /// The (first changed) site's index in the trajectory.
  uint32_t Position = 0;
};

struct TuneMove {
  /// LLVM's heuristic everywhere (Entry unused).
  bool Heuristic = false;
  /// The site move, or (Entry.Caller empty) the group move.
  SiteDecision Entry;
  MoveFeatures Features;
  /// A name unique among a module's moves ("site f g 0 inline").
  std::string getKey() const;
  /// For reports: "inline f -> g #0", "inline every call of g", "LLVM's
  /// heuristic".
  std::string describe() const;
};

/// The expected bytes a try of a move saves (a MoveRanker's score).
using MoveScore = llvm::function_ref<double(const TuneMove &)>;

/// The moves to try from trajectory \p T (a compile's decided sites), in
/// \p Order, leaving out those whose key is in \p Tried. \p OfferHeuristic
/// puts the heuristic move first. Given \p Score, the guided order tries
/// the highest score first (the heuristic, if offered, still comes first);
/// without it, the smallest |logit|.
std::vector<TuneMove> planMoves(llvm::ArrayRef<DecidedSite> T, TuneOrder Order,
                                uint64_t Seed, const llvm::StringSet<> &Tried,
                                bool OfferHeuristic, MoveScore Score = nullptr);

/// A program move (docs/tune.md, "Program moves"): one call site of a C++
/// inline function (linkonce_odr) decided alike in every copy of the
/// function a program holds, so that a callee that dies only when every
/// copy inlines it (or a caller that only shrinks when every copy does)
/// is within one move's reach.
struct ProgramMove {
  /// The site move, made in each of Copies.
  TuneMove Move;
  /// The copies it changes (indices into planProgramMoves' Copies): those
  /// whose trajectory decides the site the other way; at least two.
  std::vector<size_t> Copies;
  /// "program site f g 0 inline".
  std::string getKey() const { return "program " + Move.getKey(); }
};

/// The program moves over the trajectories \p Copies of a program's
/// modules (in link order; each holding only the sites whose caller the
/// module defines linkonce_odr), in \p Order, leaving out those whose key
/// is in \p Tried: for every site that two or more copies decide, each
/// direction that changes at least two of them. A move's features are
/// those of the site in the first copy it changes; guided by \p Score,
/// highest first (without it, the smallest |logit|); unguided, in the
/// order the sites first appear; ties by a hash of the key and the seed.
std::vector<ProgramMove>
planProgramMoves(llvm::ArrayRef<std::vector<DecidedSite>> Copies,
                 TuneOrder Order, uint64_t Seed, const llvm::StringSet<> &Tried,
                 MoveScore Score = nullptr);

/// The bytes move \p M saves, as trajectory \p T's logged size scores
/// (DecidedSite::Score, the predicted saving of each decision that
/// inlined, and of inlining each declined site when the compile scored
/// those: CompileJob::WantDeclinedScore) estimate it without compiling:
/// inverting an inlined site loses its score (minus the score); a group
/// move that inlines no call of its callee loses the sum of the scores of
/// the inlined sites it changes; a move that inlines gains the score(s)
/// of the declined site(s) it changes. None when the log says nothing:
/// the heuristic, sites without a score (NaN), or scores that are all 0
/// (as declined sites log unless scored).
std::optional<double> getLoggedGain(llvm::ArrayRef<DecidedSite> T,
                                    const TuneMove &M);

/// A move the logged filter took out: its key and logged gain (NaN when
/// the log says nothing of it: taken out by \p Only below).
struct LoggedBadMove {
  std::string Key;
  double Gain;
};

/// The logged filter (docs/tune.md, "The logged filter"): takes out of
/// \p Moves, keeping the order of the rest, every move whose logged gain
/// (getLoggedGain) is negative, i.e. predicted to grow its module, and
/// puts them back at the end in their order when \p Rank. With
/// \p Promote, the moves whose logged gain is positive go first (after
/// the heuristic, if offered), the largest gain first, ties in their
/// order. With \p Only, every move but the heuristic whose logged gain is
/// not positive is taken out, those the log says nothing of too (moves
/// that inline, sites that logged 0): only the moves the scores predict
/// to shrink the module are left, in their order. With \p Only and
/// \p PredictInline N, the first N moves that inline whose logged gain is
/// not positive stay too, in their order, for the IR pipeline's
/// prediction to judge (the logged filter `predict`: the scores cannot see
/// the simplification that makes such a move pay). Returns those it took
/// out, in their order.
std::vector<LoggedBadMove> filterByLoggedGain(llvm::ArrayRef<DecidedSite> T,
                                              std::vector<TuneMove> &Moves,
                                              bool Rank, bool Promote = false,
                                              bool Only = false,
                                              size_t PredictInline = 0);

/// \p Fixed with site or group move \p M applied: a site move sets that
/// site's entry; a group move sets the callee's group entry and drops the
/// callee's site entries (which would win over it).
ModuleDecisions applyMove(const ModuleDecisions &Fixed, const TuneMove &M);

/// Every decision of trajectory \p T as a site entry: the decisions file
/// entries that reproduce \p T whatever the model proposes.
ModuleDecisions fixAll(llvm::StringRef Module, llvm::ArrayRef<DecidedSite> T);

/// The module keys of source paths \p Sources (IR source_filename):
/// normalized; absolute paths made relative to the deepest directory
/// that holds all of them, so that a key does not depend on where the
/// program was built. System sources (under /usr/, the same in every
/// build) do not count towards that directory unless all are.
std::vector<std::string> getSourceKeys(llvm::ArrayRef<std::string> Sources);

} // namespace mlgo

#endif // MLGO_TUNE_TUNESEARCH_H
