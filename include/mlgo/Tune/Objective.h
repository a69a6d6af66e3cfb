//===- mlgo/Tune/Objective.h - What the tune search minimizes --*- C++ -*-===//
//
// The one seam between the tune search and the compile engine. The search
// (lib/Tune/Tuner.cpp) knows units, moves and costs; an Objective knows how
// to measure a unit under a set of decisions and what that does to its
// program:
//
//   measure   "compile unit module M under policy P": per trial, whether
//             it compiled (the error naming the module if not), the unit's
//             own cost (getCost) and the trajectory (the call site of each
//             decision, with the logged size scores the filter reads).
//             Trials run as one batch, in parallel wherever the engine
//             runs (compile workers, MPI ranks), and are cached by the
//             engine, so that a rerun after kill -9 measures only what no
//             run measured before. A trial marked Baseline is LLVM's
//             heuristic: the objective may answer it from the baseline it
//             measured before the search, without a compile.
//   delta     what a program's cost would become if some of its slots (one
//             per module) held other measurements; nothing changes.
//   apply     makes such a change the program's.
//   total     the cost of every program now.
//
// A move is kept when delta is negative, so every objective must make
// delta exact for the measurements it returned: the search judges a step's
// tries one after the other against the programs as the tries before left
// them.
//
// What an objective's own search parts need of a measurement beyond its
// cost and sites (speed: the object, per-function costs, the eviction
// trajectory) rides in Measurement::Detail, a type the objective defines
// and reads back (SpeedObjective::getOutcome); the size search needs none.
//
// Size (SizeObjective.h): CompileService compiles at -Oz, the cost is the
// program's linked .text (LinkedProgram, each COMDAT group once). Speed
// (SpeedObjective.h): a compile applies the profile and the measurement's
// cost is the module's profile-weighted executed instructions (delta: the
// sum of the changed modules' costs). Size under LTO (LtoObjective in
// SizeObjective.h): a program's cost is the .text of the final artifact
// its link makes; measure returns the object and the policy (Detail),
// delta runs the LTO compile steps it changes and the link.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_OBJECTIVE_H
#define MLGO_TUNE_OBJECTIVE_H

#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/TrainCore/CompileOutcome.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mlgo {

/// One measurement asked of an objective: corpus module Module under
/// Policy.
struct Trial {
  size_t Module = 0;
  CompilePolicy Policy;
  /// LLVM's heuristic (Policy is CompilePolicy::heuristic()): answered
  /// from the module's baseline, with no trajectory and no compile.
  bool Baseline = false;
};

/// An objective's own data about one measurement (see Measurement::Detail):
/// each objective derives its type and reads it back.
struct MeasurementDetail {
  virtual ~MeasurementDetail();
};

/// What one trial measured.
struct Measurement {
  /// The engine's outcome: Ok, Error (naming the module), and what the
  /// objective's cost is made of (size: .text and grouped sections).
  CompileOutcome Outcome;
  /// The call site of each decision, in the order decided (empty for a
  /// Baseline trial, or one measured without WithTrajectory).
  std::vector<DecidedSite> Trajectory;
  /// The objective's own data (none for size; speed: SpeedOutcome).
  std::shared_ptr<const MeasurementDetail> Detail;
  /// The module's own cost (size: its object's .text bytes; speed: its
  /// profile-weighted executed instructions in tenths, held in the same
  /// field).
  uint64_t getCost() const { return Outcome.TextSize; }
};

/// One slot of a program (a module) holding another measurement.
struct SlotChange {
  size_t Slot;
  const CompileOutcome *Outcome;
  /// The measurement's Detail (null if it has none).
  const MeasurementDetail *Detail = nullptr;
};

class Objective {
public:
  virtual ~Objective();

  /// Measures \p Trials (with their trajectories if \p WithTrajectory), as
  /// one batch named \p What on the progress line. The error is the
  /// machine's (a cache that cannot be written); a module that fails to
  /// compile is a Measurement whose Outcome is not Ok.
  virtual llvm::Expected<std::vector<Measurement>>
  measure(llvm::ArrayRef<Trial> Trials, llvm::StringRef What,
          bool WithTrajectory = true) = 0;

  /// How program \p Program's cost changes if \p Changes were made (at
  /// most one per slot); the program is not changed.
  virtual int64_t delta(size_t Program,
                        llvm::ArrayRef<SlotChange> Changes) const = 0;

  /// Makes \p Changes program \p Program's: its cost changes by delta().
  virtual void apply(size_t Program, llvm::ArrayRef<SlotChange> Changes) = 0;

  /// Program \p Program's cost now.
  virtual uint64_t cost(size_t Program) const = 0;

  /// The first failure of the machine that delta() or apply() met (a link
  /// that failed, a full disk), which they cannot return: delta() then
  /// answers "larger" and the search must stop with this error. None for
  /// objectives whose delta is arithmetic.
  virtual llvm::Error takeError() { return llvm::Error::success(); }

  /// Every program's cost now.
  uint64_t total(size_t Programs) const {
    uint64_t T = 0;
    for (size_t P = 0; P < Programs; ++P)
      T += cost(P);
    return T;
  }
};

} // namespace mlgo

#endif // MLGO_TUNE_OBJECTIVE_H
