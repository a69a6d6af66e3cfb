//===- mlgo/Tune/LoggedFilter.h - Moves judged by logged scores -*- C++ -*-===//
//
// The search's filter (docs/tune.md, "The logged filter"): every compile
// that learns a trajectory logs, per decision, IR2Native's estimate of the
// native bytes it saved (inlined sites) or would save (declined sites),
// CompileService::setSizeScore. A move's logged gain is what those scores
// say it changes; the filter keeps LLVM's heuristic and the moves whose
// logged gain is positive, and takes every other move out of the plan.
//
// It is a part of the search over plain values: it takes a plan (the moves
// of one unit, in order) and the unit's trajectory and returns the plan it
// keeps, in the same order, with the moves it took out. It costs nothing:
// the scores come with compiles the search makes anyway. Measured against
// the unfiltered search at equal budgets (docs/lab/2026-12-02.md):
// more bytes in 7 of 8 comparisons on ten packages, but nothing at all on
// a small CMake project where the unfiltered search saves 6.35%, because
// a plan it empties is never refilled; so it is `--filter logged`, not
// the default, until a search that falls back to the filtered-out moves
// when the filtered ones run out is measured.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_LOGGEDFILTER_H
#define MLGO_TUNE_LOGGEDFILTER_H

#include "mlgo/Tune/TuneSearch.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// Move \p M's logged gain in bytes (positive: predicted to shrink the
/// module) from trajectory \p T's per-decision size scores: a move that
/// takes inlinings away loses their scores (minus their sum), one that
/// inlines gains the declined sites' scores (their sum). None for the
/// heuristic, for a move whose changed sites logged no score (NaN) or only
/// zeros, and for a site move whose site is not in \p T.
std::optional<double> getLoggedGain(llvm::ArrayRef<DecidedSite> T,
                                    const TuneMove &M);

/// A move the filter took out of a plan: its key and its logged gain (NaN
/// where the log says nothing of it).
struct LoggedBadMove {
  std::string Key;
  double Gain;
};

/// The moves of \p Plan that the logged filter keeps, in their order: LLVM's
/// heuristic and the moves whose logged gain (getLoggedGain over \p T) is
/// positive. Every other move is appended to \p Out, in plan order.
std::vector<TuneMove> filterByLoggedGain(llvm::ArrayRef<DecidedSite> T,
                                         std::vector<TuneMove> Plan,
                                         std::vector<LoggedBadMove> &Out);

} // namespace mlgo

#endif // MLGO_TUNE_LOGGEDFILTER_H
