//===- lib/TrainCore/GreedySearch.cpp - Greedy search over inversions -----===//
//
// Lockstep bookkeeping of the greedy search (see
// mlgo/TrainCore/GreedySearch.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/GreedySearch.h"

#include <cassert>

using namespace llvm;

namespace mlgo {

void GreedySearch::addModule(size_t Module, std::vector<uint32_t> Candidates,
                             uint64_t Size, uint32_t Decisions) {
  State S;
  S.Module = Module;
  S.Candidates = std::move(Candidates);
  S.StartSize = S.Size = Size;
  S.Decisions = Decisions;
  States.push_back(std::move(S));
}

std::vector<GreedySearch::Try> GreedySearch::nextStep() {
  assert(Pending.empty() && "record() the last step's outcomes first");
  std::vector<Try> Out;
  for (size_t K = 0; K < States.size(); ++K) {
    State &S = States[K];
    while (S.Next < S.Candidates.size() && S.Candidates[S.Next] >= S.Decisions)
      ++S.Next;
    if (S.Next >= S.Candidates.size())
      continue;
    Try T{S.Module, S.Flips};
    T.Flips.push_back(S.Candidates[S.Next]);
    Out.push_back(std::move(T));
    Pending.push_back(K);
  }
  Tries += Out.size();
  return Out;
}

void GreedySearch::record(ArrayRef<std::optional<Outcome>> Outcomes) {
  assert(Outcomes.size() == Pending.size() && "one outcome per try");
  for (size_t I = 0; I < Pending.size(); ++I) {
    State &S = States[Pending[I]];
    uint32_t Tried = S.Candidates[S.Next++];
    if (!Outcomes[I] || Outcomes[I]->Size >= S.Size)
      continue;
    S.Flips.push_back(Tried);
    S.Size = Outcomes[I]->Size;
    S.Decisions = Outcomes[I]->Decisions;
  }
  Pending.clear();
}

uint64_t GreedySearch::getTotalSize() const {
  uint64_t Sum = 0;
  for (const State &S : States)
    Sum += S.Size;
  return Sum;
}

} // namespace mlgo
