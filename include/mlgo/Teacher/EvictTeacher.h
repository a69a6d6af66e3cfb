//===- mlgo/Teacher/EvictTeacher.h - A speed tune as a teacher --*- C++ -*-===//
//
// `mlgo teacher build --objective speed` and `mlgo teacher train` on an
// eviction teacher set (docs/teacher.md, "Eviction teachers"): the eviction
// decisions `mlgo tune --objective speed` keeps for a program become a set
// (mlgo/Teacher/EvictTeacherSet.h), and an eviction model of the shipped
// family (one linear score per column, masked argmax) is warm-started on
// it.
//
// Building: the corpus is tuned for speed in W/tune (mlgo/Tune/SpeedTune.h;
// resumable, a function of the corpus, the profile, the model and the
// budget), then every module the tuned file puts on the eviction model is
// compiled as a build applies the file (compileSpeedDecisions), its
// eviction training log read back: one row per decision, with every
// feature, the model's column (the model evaluated on those features) and
// the column the compile took, and for a moved decision the instructions
// its kept move saved (W/tune/moves.tsv). A decision whose column no entry
// fixed must be the model's, and a fixed one the entry's: anything else is
// an error, not a row.
//
// Training: a warm start (the init model, by default the shipped
// models/regalloc-evict/model.json, the advisor the tune ran) widened into
// an MLP that takes exactly its decisions (mlgo/RegAllocModel/EvictionMLP.h)
// with one unit more, h = relu(U . x + C), whose output weight V adds V * h
// to a column's score. U and C are a binary perceptron's over every
// column's MLP inputs (ModelEvaluator::computeMLPInputs): the unit should
// fire at the tuned column of each moved decision and at no other column
// of any decision, so that it changes the moved decisions and nothing
// else; V is twice the least weight that makes each moved decision's
// tuned column win where the unit fires more there. Each row weighs 1 +
// the instructions its move saved (1 for a decision the search did not
// move), in the perceptron's updates and in the count of rows right after
// each epoch; the best epoch's unit is kept (the warm start, whose unit
// never fires, is epoch 0: the student's weighted rows right are never
// fewer than its). No random draw: the same set, init and epochs
// give the same model, byte for byte. Two decisions with the same inputs
// and different tuned columns cannot both be right: the unit fires at
// both or neither.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TEACHER_EVICTTEACHER_H
#define MLGO_TEACHER_EVICTTEACHER_H

#include "mlgo/Model/Model.h"
#include "mlgo/Teacher/EvictTeacherSet.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlgo {

struct EvictTeacherBuildOptions {
  std::string CorpusDir;
  /// The program's indexed profile.
  std::string Profile;
  /// The tune's work directory is WorkDir/tune, its decisions
  /// WorkDir/decisions.txt.
  std::string WorkDir;
  std::string Output;
  /// The tune's budget; 0: until the moves run out.
  uint64_t MaxCompiles = 0;
  /// The eviction model the search starts from; empty: the embedded one.
  std::string ModelPath;
  unsigned Jobs = 2;
  bool Verbose = true;
  /// `mlgo --version`: part of the tune's cache keys.
  std::string BuildIdentity;
};

/// Tunes the corpus for speed, compiles the modules on the eviction model
/// with the tuned file and writes the set to Options.Output; returns it.
llvm::Expected<EvictTeacherSet>
buildEvictTeacherSet(const EvictTeacherBuildOptions &Options);

struct EvictStudentOptions {
  std::string Name = "evict-teacher-student";
  unsigned Epochs = 200;
};

struct EvictStudentReport {
  Model Student;
  /// Decisions of the set, and the moved ones; the decisions whose tuned
  /// column the student and the warm start take, and the moved ones the
  /// student takes; the epoch whose weights were kept (0: the warm start).
  size_t Decisions = 0, Moved = 0, Agree = 0, InitAgree = 0, MovedRight = 0;
  /// The instructions the moved decisions saved, and those of the moved
  /// decisions the student takes.
  uint64_t Saved = 0, SavedRight = 0;
  unsigned Epoch = 0;
};

/// A row's weight in training: 1 + the instructions its move saved (1 for
/// a decision the search did not move, tried or not).
inline uint64_t getEvictRowWeight(const EvictTeacherDecision &D) {
  return 1 + D.Saved;
}

/// Trains the student on \p Set from \p Init (named \p InitName in the
/// recipe). Errors: an init that is not a linear per-column model, a
/// feature it reads that the set lacks or holds with another type or
/// size, a set without decisions.
llvm::Expected<EvictStudentReport>
trainEvictStudent(const EvictTeacherSet &Set, const Model &Init,
                  llvm::StringRef InitName, const EvictStudentOptions &O);

} // namespace mlgo

#endif // MLGO_TEACHER_EVICTTEACHER_H
