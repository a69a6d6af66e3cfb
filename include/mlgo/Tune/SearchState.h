//===- mlgo/Tune/SearchState.h - What the tune search works on -*- C++ -*-===//
//
// The search's state as plain values (docs/tune.md, "What it searches"):
// the units (the modules of one program that share a source key, tuned as
// one), each unit's state (its fixed decisions, trajectory, objects, plan
// and kept moves), the judged tries, the curve and the counts. Every part
// of the search reads these and nothing else; the objective
// (mlgo/Tune/Objective.h) is the only thing that compiles.
//
// The functions here are the search's steps that need no compiler, so they
// are tested over made-up values (unittests/Tune/SearchStateTest.cpp):
// which tries a step makes within the budget (planStep) and what keeping a
// move does to a unit's state (keepMove).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SEARCHSTATE_H
#define MLGO_TUNE_SEARCHSTATE_H

#include "mlgo/TrainCore/CompileOutcome.h"
#include "mlgo/Tune/TuneSearch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

/// The modules of one program that share a source key: tuned as one, with
/// the same fixed decisions.
struct Unit {
  size_t Program = 0;
  std::string Key;
  /// Corpus module indices, and each module's slot in its program's
  /// objective (the linked program).
  std::vector<size_t> Mods;
  std::vector<size_t> Slots;
};

/// A unit's search state.
struct UnitState {
  /// The decisions the search fixed (the decisions file's entries).
  ModuleDecisions Fixed;
  /// The call sites of the unit's current compile.
  std::vector<DecidedSite> Trajectory;
  /// Per module of the unit: its current compile.
  std::vector<CompileOutcome> Current;
  /// Keys of the moves tried in any state.
  llvm::StringSet<> Tried;
  /// The plan of the current state, and the next move to try in it.
  std::vector<TuneMove> Moves;
  size_t Next = 0;
  /// For the report: each kept move and the bytes it saved.
  std::vector<std::string> Kept;

  /// The unit's own cost now: its modules' .text.
  uint64_t getText() const;
  bool hasMovesLeft() const { return Next < Moves.size(); }
};

/// One judged try: the tries log's line (docs/tune.md).
struct TryRecord {
  unsigned Step = 0;
  /// The search's compiles before the step.
  uint64_t Compiles = 0;
  size_t Unit = 0;
  TuneMove Move;
  /// The unit's .text (its modules' sum) before the move.
  uint64_t UnitText = 0;
  /// The program's cost change; 0 for a failed compile.
  int64_t Delta = 0;
  bool Ok = false;
  bool Kept = false;
};

/// One point of the curve: after the baselines and after each step.
struct CurvePoint {
  /// The search's compiles so far.
  uint64_t Compiles;
  /// The programs' cost (linked .text).
  uint64_t Total;
  /// Wall-clock seconds since the search began (not reproducible).
  double Seconds;
};

/// The whole search's state.
struct SearchState {
  std::vector<Unit> Units;
  std::vector<UnitState> States;
  std::vector<TryRecord> Tries;
  std::vector<CurvePoint> Curve;
  uint64_t Compiles = 0;
  bool StoppedByBudget = false;
  double Seconds = 0;
};

/// The search's budget (docs/tune.md, "Use"): compiles (reproducible) or
/// wall-clock minutes (not); 0 is no limit.
struct SearchBudget {
  uint64_t MaxCompiles = 0;
  double Minutes = 0;

  /// Whether \p Seconds since the search began used up the time.
  bool isTimeUp(double Seconds) const {
    return Minutes > 0 && Seconds >= Minutes * 60;
  }
  /// The compiles the search will make, for the progress line: the
  /// budget; or, with a time budget, as many as it makes at its rate so
  /// far (\p Made in \p Seconds) until the time is up; at most \p Made
  /// and the \p Left compiles its plans still hold.
  uint64_t getGoal(uint64_t Made, uint64_t Left, double Seconds) const;
};

/// Tries per step the search aims at: each unit with moves left tries one
/// when many are left, more when few are, so that a step keeps the compile
/// workers busy; a count of units, never of the machine.
constexpr size_t TriesPerStep = 8;
size_t getTriesPerUnit(size_t Active);

/// One try a step makes: unit Unit's move Move (an index into its plan).
struct PlannedTry {
  size_t Unit;
  size_t Move;
  /// LLVM's heuristic: judged from the unit's baseline, no compile.
  bool Free;
};

/// The tries of one step, in the order they are judged.
struct StepPlan {
  std::vector<PlannedTry> Tries;
  /// The compiles they charge (the free tries' none).
  uint64_t Compiles = 0;
  /// A try did not fit the budget.
  bool Full = false;
};

/// The tries of the next step of \p S, within \p B.MaxCompiles (0: no
/// limit) after the \p S.Compiles made: each unit with moves left tries its
/// next getTriesPerUnit(units with moves left). LLVM's heuristic's tries come
/// first, every unit's: they compile nothing, but the budget holds the two
/// compiles that keeping one takes (its sites, its trajectory). Then the
/// other tries, unit by unit; once one does not fit, no other is added.
StepPlan planStep(const SearchState &S, const SearchBudget &B);

/// Keeps move \p M in \p St, which changed the program by \p Delta bytes
/// and whose compiles are \p Objects (one per module of the unit): they
/// become the unit's objects, the move is reported, and (but for the
/// heuristic, whose decisions the caller fixes from its own compile) its
/// decisions join the fixed ones. The caller plans the unit again from its
/// new trajectory.
void keepMove(UnitState &St, const TuneMove &M, int64_t Delta,
              llvm::ArrayRef<CompileOutcome> Objects);

} // namespace mlgo

#endif // MLGO_TUNE_SEARCHSTATE_H
