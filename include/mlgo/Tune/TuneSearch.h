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
#include "llvm/ADT/StringMap.h"
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

/// The speed search's inlining plan (mlgo/Tune/SpeedTune.h): the moves of
/// trajectory \p T that change a call in a hot function, hottest first,
/// leaving out those in \p Tried. A site move scores its caller's heat, a
/// group move its callee's hottest caller's (\p Heat: a function's
/// profile-weighted instructions; a function not in it is cold); planMoves'
/// guided order with that score, ties broken by \p Seed, and the moves
/// that score 0 left out.
std::vector<TuneMove> planHotMoves(llvm::ArrayRef<DecidedSite> T,
                                   const llvm::StringMap<double> &Heat,
                                   uint64_t Seed,
                                   const llvm::StringSet<> &Tried);

/// \p Fixed with site or group move \p M applied: a site move sets that
/// site's entry; a group move sets the callee's group entry and drops the
/// callee's site entries (which would win over it).
ModuleDecisions applyMove(const ModuleDecisions &Fixed, const TuneMove &M);

/// The module keys of source paths \p Sources (IR source_filename):
/// normalized; absolute paths made relative to the deepest directory
/// that holds all of them, so that a key does not depend on where the
/// program was built. System sources (under /usr/, the same in every
/// build) do not count towards that directory unless all are.
std::vector<std::string> getSourceKeys(llvm::ArrayRef<std::string> Sources);

} // namespace mlgo

#endif // MLGO_TUNE_TUNESEARCH_H
