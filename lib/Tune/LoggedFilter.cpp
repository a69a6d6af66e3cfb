//===- lib/Tune/LoggedFilter.cpp - Moves judged by logged scores ----------===//
//
// See mlgo/Tune/LoggedFilter.h: the search's one filter, a function from a
// plan to the plan it keeps.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/LoggedFilter.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace mlgo {

std::optional<double> getLoggedGain(ArrayRef<DecidedSite> T,
                                    const TuneMove &M) {
  if (M.Heuristic)
    return std::nullopt;
  // The sites the move changes are those decided the other way: a move
  // that takes inlinings away loses their scores, a move that inlines
  // gains the declined sites' (which log 0 unless the compile scored
  // them: CompileJob::WantDeclinedScore).
  const bool Inline = M.Entry.Inline;
  double Sum = 0;
  bool Any = false;
  auto Add = [&](const DecidedSite &S) {
    if (std::isnan(S.Score))
      return false;
    Sum += S.Score;
    Any |= S.Score != 0;
    return true;
  };
  if (M.Entry.isGroup()) {
    for (const DecidedSite &S : T)
      if (S.Site.Callee == M.Entry.Callee && S.Site.Inline != Inline && !Add(S))
        return std::nullopt;
  } else {
    auto Same = [&](const DecidedSite &S) {
      return S.Site.Caller == M.Entry.Caller &&
             S.Site.Callee == M.Entry.Callee &&
             S.Site.Ordinal == M.Entry.Ordinal;
    };
    const DecidedSite *Site = nullptr;
    if (M.Features.Position < T.size() && Same(T[M.Features.Position]))
      Site = &T[M.Features.Position];
    else if (auto It = llvm::find_if(T, Same); It != T.end())
      Site = &*It;
    if (!Site || Site->Site.Inline == Inline || !Add(*Site))
      return std::nullopt;
  }
  if (!Any)
    return std::nullopt;
  return Inline ? Sum : -Sum;
}

std::vector<TuneMove> filterByLoggedGain(ArrayRef<DecidedSite> T,
                                         std::vector<TuneMove> Plan,
                                         std::vector<LoggedBadMove> &Out) {
  std::vector<TuneMove> Kept;
  for (TuneMove &M : Plan) {
    std::optional<double> Gain = getLoggedGain(T, M);
    if (M.Heuristic || (Gain && *Gain > 0)) {
      Kept.push_back(std::move(M));
      continue;
    }
    Out.push_back(
        {M.getKey(), Gain ? *Gain : std::numeric_limits<double>::quiet_NaN()});
  }
  return Kept;
}

} // namespace mlgo
