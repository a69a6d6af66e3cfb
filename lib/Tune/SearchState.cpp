//===- lib/Tune/SearchState.cpp - What the tune search works on -----------===//
//
// See mlgo/Tune/SearchState.h: the search's steps that need no compiler.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SearchState.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {

uint64_t UnitState::getText() const {
  uint64_t Text = 0;
  for (const CompileOutcome &E : Current)
    Text += E.TextSize;
  return Text;
}

uint64_t SearchBudget::getGoal(uint64_t Made, uint64_t Left,
                               double Seconds) const {
  uint64_t Goal = Made + Left;
  if (MaxCompiles)
    Goal = MaxCompiles;
  else if (Minutes > 0 && Seconds > 0)
    Goal = std::min<uint64_t>(Goal,
                              uint64_t(double(Made) * Minutes * 60 / Seconds));
  return std::max(Goal, Made);
}

size_t getTriesPerUnit(size_t Active) {
  return Active ? std::max<size_t>(1, (TriesPerStep + Active - 1) / Active)
                : size_t(1);
}

StepPlan planStep(const SearchState &S, const SearchBudget &B) {
  const uint64_t MaxCompiles = B.MaxCompiles;
  StepPlan P;
  size_t Active = 0;
  for (const UnitState &St : S.States)
    Active += St.hasMovesLeft();
  const size_t PerUnit = getTriesPerUnit(Active);
  // The compiles the kept heuristics would take, in all and per unit.
  uint64_t Reserve = 0;
  std::vector<uint64_t> UnitReserve(S.Units.size());
  std::vector<size_t> Begun(S.Units.size());
  for (bool HeuristicPass : {true, false}) {
    for (size_t U = 0; U < S.Units.size() && !(P.Full && !HeuristicPass); ++U) {
      const UnitState &St = S.States[U];
      for (size_t K = St.Next + (HeuristicPass ? 0 : Begun[U]);
           K < St.Moves.size() && K < St.Next + PerUnit; ++K) {
        const bool Heuristic = St.Moves[K].Heuristic;
        if (Heuristic != HeuristicPass)
          break;
        const uint64_t NewReserve =
            std::max<uint64_t>(UnitReserve[U], Heuristic ? 2 : 0);
        const uint64_t TryCompiles = Heuristic ? 0 : S.Units[U].Mods.size();
        if (MaxCompiles && S.Compiles + P.Compiles + TryCompiles + Reserve -
                                   UnitReserve[U] + NewReserve >
                               MaxCompiles) {
          P.Full = true;
          break;
        }
        Reserve += NewReserve - UnitReserve[U];
        UnitReserve[U] = NewReserve;
        ++Begun[U];
        P.Tries.push_back({U, K, Heuristic});
        P.Compiles += TryCompiles;
      }
    }
  }
  return P;
}

void keepMove(UnitState &St, const TuneMove &M, int64_t Delta,
              ArrayRef<CompileOutcome> Objects) {
  assert(Objects.size() == St.Current.size() && "one object per module");
  llvm::copy(Objects, St.Current.begin());
  St.Kept.push_back(M.describe() + formatv(" ({0} bytes)", Delta).str());
  if (!M.Heuristic)
    St.Fixed = applyMove(St.Fixed, M);
}

} // namespace mlgo
