//===- mlgo/Teacher/Teacher.h - The search as a teacher ---------*- C++ -*-===//
//
// `mlgo teacher build` and `mlgo teacher train` (docs/teacher.md): the
// decisions `mlgo tune` finds for a corpus become a teacher set
// (mlgo/Teacher/TeacherSet.h), and a student - an inlining model of the
// shipped family, LLVM's heuristic XOR a learned scorer
// (mlgo/Learn/FlipPolicy.h) - is trained to imitate it.
//
// Building: the corpus is tuned in W/tune (mlgo/Tune/Tuner.h; a rerun
// resumes there, and with --max-compiles the search is a function of the
// corpus, the model and the budget), then every module is compiled once
// with the decisions file as a build applies it, logging the features and
// the call site of every policy decision. A site fixed by an entry to
// another answer than the model's was moved by the search; the bytes it
// saved are those of the kept move of the tries log
// (W/tune/tries-guided.tsv) that names it: its site move, else its
// callee's group move, else LLVM's heuristic taken for the module.
//
// Training: one row per site of the set, labelled whether the target
// (TeacherSite::getTarget) inverts LLVM's answer and weighted 1 + the
// bytes saved; the scorer is the one classifier of mlgo/Learn/Classifier.h
// (inlining_default fed raw), and the student decides LLVM's answer XOR
// (score > 0). Seeded and single-threaded: the same set gives the same
// model, byte for byte.
//
// A DAgger round (runDaggerRound): the corpus tuned with the student as the
// start model, the student rolled out alone, and the rollout's sites where
// the tuned decisions fix another answer than the student's added to the
// set with the rollout's features.
//
// Not done yet (issue #67): eviction teachers, tries that were not kept as
// negative rows.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TEACHER_TEACHER_H
#define MLGO_TEACHER_TEACHER_H

#include "mlgo/Model/Model.h"
#include "mlgo/Teacher/TeacherSet.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

struct TeacherBuildOptions {
  std::string CorpusDir;
  /// The tune's work directory is WorkDir/tune, its decisions
  /// WorkDir/decisions.txt (with PerPackage the directory
  /// WorkDir/decisions).
  std::string WorkDir;
  std::string Output;
  /// The tune's budget (mlgo/Tune/Tuner.h): compiles after the baselines;
  /// 0: until the moves run out.
  uint64_t MaxCompiles = 0;
  bool PerPackage = false;
  /// The model the search starts from; empty: the embedded one.
  std::string ModelPath;
  unsigned Workers = 0;
  bool Verbose = true;
};

/// Tunes the corpus, compiles it with the tuned decisions and writes the
/// set to Options.Output; returns it.
llvm::Expected<TeacherSet> buildTeacherSet(const TeacherBuildOptions &Options);

/// A DAgger round (docs/teacher.md, "A DAgger round"): Build.ModelPath is
/// the student; the corpus is tuned in Build.WorkDir with the student as
/// the start model, every module compiled with the student alone (its
/// rollout), and each rollout site whose answer an entry of the tuned
/// decisions fixes otherwise is added to the set, with the rollout's
/// features. Build.PerPackage is taken from the set.
struct DaggerOptions {
  TeacherBuildOptions Build;
  /// The set's name, for errors.
  std::string SetName;
};

struct DaggerReport {
  /// The set with the added sites (and the round's meta lines).
  TeacherSet Set;
  /// The rollout's policy decisions, and the diverging ones added.
  size_t RolloutSites = 0, Added = 0;
};

/// Runs one round on \p Set and writes the new set to Build.Output.
/// Errors: no student, a set of another corpus or other features.
llvm::Expected<DaggerReport> runDaggerRound(const TeacherSet &Set,
                                            const DaggerOptions &Options);

struct StudentOptions;

/// Rounds of DAgger (docs/teacher.md, "Rounds"): round K runs
/// runDaggerRound in Round.Build.WorkDir/round-K, writing
/// round-K/set.txt, with the student Round.Build.ModelPath (K = 1) or the
/// student trained on round K-1's set, round-(K-1)/student.json; after a
/// round that added sites and before the last, that round's set trains
/// round-K/student.json with \p Student. The rounds stop after \p Rounds
/// or after one that adds no site; the last round's set is written to
/// Round.Build.Output. The same bytes as the rounds run one by one, each
/// with `mlgo teacher dagger` and `mlgo teacher train` on those paths.
struct DaggerRoundsReport {
  TeacherSet Set;
  /// Per round run: the rollout's decisions and the sites added.
  std::vector<std::pair<size_t, size_t>> Rounds;
};
llvm::Expected<DaggerRoundsReport>
runDaggerRounds(const TeacherSet &Set, const DaggerOptions &Round,
                unsigned Rounds, const StudentOptions &Student);

struct StudentOptions {
  std::string Name = "teacher-student";
  std::vector<size_t> Hidden = {64, 32};
  unsigned Epochs = 200;
  double LearningRate = 0.002;
  double L2 = 1e-4;
  size_t BatchSize = 256;
  uint64_t Seed = 1;
};

/// What training did: the student and how it fits its set.
struct StudentReport {
  Model Student;
  /// Sites, sites whose target inverts LLVM's answer, and of those the
  /// ones the scorer inverts; sites whose answer the student gets right.
  size_t Sites = 0, Inversions = 0, InversionsKept = 0, Agree = 0;
};

/// Trains the student on \p Set. Errors: a set without inlining_default,
/// or without sites.
llvm::Expected<StudentReport> trainStudent(const TeacherSet &Set,
                                           const StudentOptions &Options);

} // namespace mlgo

#endif // MLGO_TEACHER_TEACHER_H
