//===- mlgo/RegAllocModel/TieBreak.h - Erased weights estimated -*- C++ -*-===//
//
// LLVM's eviction rule compares spill weights: a register is taken from
// lighter live ranges only. The ML advisor sends that weight as
// `use_def_density`, divided by the largest value of the decision - and
// when one candidate's live range cannot be spilled, that largest value is
// infinite: every other column reads 0 (and the infinite one NaN). On the
// corpus this happens in more than half of the eviction decisions, and a
// rule that reads only `use_def_density` then sees a tie between every
// candidate and "evict nothing".
//
// The tie-breaker estimates the lost comparison from features that survive
// the normalization. Each is divided by its own largest value, so its
// logarithm differs between columns by the same amount whatever that value
// is: a linear score over log(x) compares columns as the unnormalized
// values would. Its weights come from decisions where the density is
// intact: for every allowed candidate column i, the sign of
// (d[32] - d[i]) - "is the candidate lighter than the live range" - is
// fitted by least squares to the differences of the log-features of
// columns i and 32.
//
// In a model the tie-breaker is the pipeline
//   [nan_to 0, standardize(mean 0, stddev 1e-6), log1p]
// = log(1e6) + log(x + 1e-6) on each of getTieBreakFeatures(), with the
// fitted weights times a small scale, so that it decides only where the
// main rule ties (docs/regalloc.md, "The tie-breaker").
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCMODEL_TIEBREAK_H
#define MLGO_REGALLOCMODEL_TIEBREAK_H

#include "mlgo/Model/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {
class LogReader;
}

namespace mlgo::regalloc {

/// The eviction features the tie-breaker reads, in weight order.
llvm::ArrayRef<const char *> getTieBreakFeatures();

/// The fitted tie-breaker and what it was fitted on.
struct TieBreakFit {
  /// One per getTieBreakFeatures() entry: the score of a column rises by
  /// Weights[k] per unit of log(feature k).
  std::vector<double> Weights;
  size_t Observations = 0; ///< Decisions read.
  size_t Erased = 0;       ///< Of which the density was erased (NaN).
  size_t Pairs = 0;        ///< (candidate, live range) pairs fitted.
  /// Fraction of the pairs whose sign the fit gets right.
  double Accuracy = 0;
};

/// Collects pairs from eviction training logs, then fits.
class TieBreakFitter {
public:
  /// Reads one log (`-mlgo-evict-training-log`). Errors name the file and
  /// the byte, or the feature the log lacks.
  llvm::Error addLog(llvm::StringRef Path);
  /// The same, on an opened log (its name in errors is the reader's).
  llvm::Error addLog(LogReader &Reader);
  /// Least squares over the pairs collected so far; an error if there are
  /// none, or too few to determine every weight.
  llvm::Expected<TieBreakFit> fit() const;

private:
  std::vector<double> Rows; ///< Pairs x features, row-major.
  std::vector<double> Signs;
  size_t Observations = 0, Erased = 0;
};

/// The scale of the tie-breaker's weights in a model: far below the
/// differences of the main rule, so that it only breaks its ties.
constexpr double TieBreakScale = 1e-5;

/// \p Base (a per-column eviction model with one linear layer reading each
/// tie-break feature through one pipeline) with those pipelines replaced by
/// the tie-breaker's and their weights set to Scale times the fitted ones.
llvm::Expected<Model> addTieBreak(const Model &Base, const TieBreakFit &Fit,
                                  double Scale = TieBreakScale);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCMODEL_TIEBREAK_H
