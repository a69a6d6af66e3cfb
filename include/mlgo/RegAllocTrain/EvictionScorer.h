//===- mlgo/RegAllocTrain/EvictionScorer.h - Scores -------------*- C++ -*-===//
//
// What `mlgo regalloc train` and `mlgo eval regalloc` share: corpus modules
// made ready once, an eviction model (or LLVM's own advisor) compiled on
// them by llc-19 and scored with LLVM's static register-allocation score
// (RegAlloc/Score.h), and every score kept on disk so that no compile is
// paid for twice.
//
// The work directory:
//   WORK/ir/<module, '/' as '@'>.bc   the module, `opt-19 -O2` (written as
//                                     .tmp and renamed: never half a file)
//   WORK/candidates/<id>.json         every model scored; <id> is the first
//                                     16 hex digits of the MD5 of its text
//   WORK/scores.tsv                   the score cache below
//
// A module is prepared by optimizing it and scoring it with stock llc-19
// (LLVM's default eviction advisor, the id "llvm-default"). Not every
// module's MIR reads back (LLVM's MIR printer and parser do not round-trip
// every construct): such a module cannot be scored and is left out, which
// the log says and getLeftOut() counts.
//
// The reward is the static score (Reward::Static), or with Reward::Speed
// the profile-weighted cycles of the final code (docs/speed.md, "The reward
// in training"): a module is then prepared by applying its package's
// profile from the corpus description (SpeedReward.h's applyProfile,
// clang-19 -O2 -fprofile-use, into WORK/ir-profiled/), and each model is
// scored by compiling it with llc-19 and the address-map flags to an object
// and summing its functions' cycles (speed::measureExecutionCost); the
// scores go to WORK/speed-cycles.tsv, the same format. Modules of packages
// without a profile are skipped and counted (getSkippedWithoutProfile());
// a profile that does not match its package's module is an error.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCTRAIN_EVICTIONSCORER_H
#define MLGO_REGALLOCTRAIN_EVICTIONSCORER_H

#include "mlgo/Model/Model.h"
#include "mlgo/Support/LineFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlgo::regalloc {

/// WORK/scores.tsv: one line per score, in a LineFile (Support/LineFile.h:
/// a checksum per line, torn last lines cut off, locked, whole lines only
/// on a full disk):
///   <candidate id> '\t' <module> '\t' <score, printf's "%.17e"> '\n'
/// where <candidate id> is a model's id or "llvm-default". A line that does
/// not have this form is "PATH: line N (byte B): malformed line '...'".
/// Thread-safe.
class ScoreCache {
public:
  /// Reads \p Path (creating it) and opens it for appending.
  llvm::Error open(llvm::StringRef Path);
  /// The score of model \p Id on \p Module, if known.
  std::optional<double> find(llvm::StringRef Id, llvm::StringRef Module) const;
  /// Records a score and appends it to the file.
  llvm::Error add(llvm::StringRef Id, llvm::StringRef Module, double Score);
  size_t size() const;

private:
  llvm::Error readLine(llvm::StringRef Line, const LineLocation &Where);

  mutable std::mutex Mutex;
  llvm::StringMap<double> Scores;
  LineFile File;
};

/// A corpus module ready to score.
struct ScoredModule {
  std::string Name;    ///< The corpus name.
  std::string Package; ///< Its package (Corpus/Package.h).
  std::string IRPath;  ///< WORK/ir/... (or WORK/ir-profiled/...), optimized.
  double Default = 0;  ///< The score of LLVM's advisor (stock llc-19).
  /// Speed rewards: the functions whose profile counts clang dropped (a
  /// control flow the profile does not match).
  std::vector<std::string> Mismatched;
};

/// What a model is scored by; lower is better for both.
enum class EvictionReward {
  /// LLVM's static regalloc score (Score.h).
  Static,
  /// The profile-weighted cycles of the object (SpeedReward.h).
  Speed,
  /// The profile-weighted executed instructions of the object: the
  /// estimate that agrees with callgrind (docs/speed.md, "Validation").
  Instructions,
};

/// Parses "static", "speed" or "instructions".
llvm::Expected<EvictionReward> parseEvictionReward(llvm::StringRef Name);

/// Whether \p R is measured on profiled code (speed or instructions).
inline bool usesProfile(EvictionReward R) {
  return R != EvictionReward::Static;
}

/// What \p R counts, for logs and reports: "static score",
/// "profile-weighted cycles" or "profile-weighted instructions".
llvm::StringRef describeEvictionReward(EvictionReward R);

/// How the ratios model / LLVM's advisor of the units of an objective (the
/// modules with the static reward, the packages with a speed reward) become
/// one number. The mean lets a gain on one package pay for a loss on
/// another: a model that makes one program slower to win on others is kept
/// (lab notes, session 7: bzip2 -2.95% beside xz +0.70%). Max and Softmax
/// punish the worst unit instead.
struct RatioAggregate {
  enum class Kind {
    /// The mean of the ratios.
    Mean,
    /// The largest ratio: only the worst unit counts.
    Max,
    /// The smooth maximum T * log(mean(exp(r / T))), T the Temperature:
    /// between the mean (T large) and the max (T -> 0); with T = 0.01 a
    /// unit 1% worse than another weighs e times as much in its gradient.
    /// Equal ratios give that ratio.
    Softmax,
  };
  Kind TheKind = Kind::Mean;
  double Temperature = 0.01;
};

/// Parses "mean", "max" or "softmax".
llvm::Expected<RatioAggregate::Kind> parseRatioAggregate(llvm::StringRef Name);

/// "mean", "max" or "softmax".
llvm::StringRef getRatioAggregateName(RatioAggregate::Kind K);

/// \p Ratios (at least one) aggregated by \p A.
double aggregateRatios(llvm::ArrayRef<double> Ratios, const RatioAggregate &A);

/// The objective of \p Scores on \p Set (lower is better; 1 is LLVM's
/// advisor). Static: the ratios score / default of the modules. Speed: per
/// package, the sum of the scores over the sum of the defaults, so each program
/// counts by what runs in it rather than by how many modules it has. The ratios
/// are aggregated by \p A (default: their mean); an empty set is 1.
double evictionObjective(llvm::ArrayRef<double> Scores,
                         llvm::ArrayRef<ScoredModule> Set,
                         EvictionReward Reward, const RatioAggregate &A = {});

struct EvictionScorerOptions {
  std::string CorpusDir;
  std::string WorkDir;
  /// The plugin llc-19 loads to compile with a model.
  std::string PluginPath;
  unsigned Jobs = 2;
  /// Print nothing (otherwise: the modules left out).
  bool Quiet = false;
  EvictionReward Reward = EvictionReward::Static;
  /// Speed rewards: a package's block counts, where the corpus has them
  /// (mlgo corpus profile --counts), give its blocks their counts; without
  /// them (or with this off), the profile's branch probabilities do.
  bool UseBlockCounts = true;
};

class EvictionScorer {
public:
  /// Creates WORK, WORK/ir and WORK/candidates and opens the score cache.
  static llvm::Expected<std::unique_ptr<EvictionScorer>>
  open(const EvictionScorerOptions &Options, llvm::raw_ostream &Log);

  /// Prepares the modules named \p Candidates, in order and in batches on
  /// Jobs threads, and appends them to \p Out until it holds \p Want
  /// modules whose default score is not 0 (functions that never spill have
  /// nothing to learn), or, with \p KeepFree, \p Want modules of any score.
  /// Fails if a module cannot be optimized, or, without \p KeepFree, if no
  /// module has a cost ("no WHAT module of 'CORPUS' has register-allocation
  /// cost to learn from").
  llvm::Error prepare(llvm::ArrayRef<std::string> Candidates, size_t Want,
                      std::vector<ScoredModule> &Out, llvm::StringRef What,
                      bool KeepFree = false);

  /// Writes \p M to WORK/candidates/<id>.json (unless it is there) and
  /// returns the id.
  llvm::Expected<std::string> writeCandidate(const Model &M);
  std::string getCandidatePath(llvm::StringRef Id) const;

  /// The scores of \p M on every module of \p Set, in order (compiled in
  /// parallel, or read from the cache).
  llvm::Expected<std::vector<double>> score(const Model &M,
                                            llvm::ArrayRef<ScoredModule> Set);

  /// Modules prepare() left out (their MIR does not read back).
  size_t getLeftOut() const { return LeftOut; }
  /// With the speed reward: modules prepare() skipped because their
  /// package has no profile.
  size_t getSkippedWithoutProfile() const { return WithoutProfile; }
  /// Modules of profiled packages none of whose functions the profile
  /// knows: programs the package's workload never ran. Skipped.
  size_t getSkippedNeverRun() const { return NeverRun; }
  /// "MODULE: FUNCTION" of every function of the prepared modules whose
  /// control flow the profile does not match (its counts dropped: a
  /// program the workload never ran, whose `main` is named like the one of
  /// a program that ran), in preparation order.
  const std::vector<std::string> &getProfileMismatches() const {
    return Mismatched;
  }
  const EvictionScorerOptions &getOptions() const { return Options; }

private:
  EvictionScorer(const EvictionScorerOptions &Options, llvm::raw_ostream &Log)
      : Options(Options), Log(Log) {}
  /// The scores of the model \p Id (at \p ModelPath; empty: LLVM's
  /// advisor) on each of \p Set: from the cache, or compiled as tasks
  /// (task "regalloc-score", mlgo/Support/Tasks.h: here on Jobs threads, or
  /// on the worker ranks of a run across machines) and added to the cache
  /// as each is known.
  std::vector<llvm::Expected<double>>
  scoreAll(llvm::StringRef Id, llvm::StringRef ModelPath,
           llvm::ArrayRef<const ScoredModule *> Set);

  EvictionScorerOptions Options;
  llvm::raw_ostream &Log;
  ScoreCache Cache;
  /// Package -> its profile (with the speed reward).
  std::map<std::string, std::string> Profiles;
  /// Package -> the path of its block counts (speed rewards, when used).
  std::map<std::string, std::string> BlockCounts;
  size_t LeftOut = 0, WithoutProfile = 0, NeverRun = 0;
  std::vector<std::string> Mismatched;
};

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCTRAIN_EVICTIONSCORER_H
