//===- mlgo/Compile/DecisionLog.h - An inlining log, decoded -------*- C++
//-*-===//
//
// The training log a compile returns (docs/training-log.md), decoded into
// what trainers and the trajectory cache use: per policy decision, the
// logged features (every one an int64_t [1], "inlining_decision" left
// out), the heuristic's decision ("inlining_default") and the decision
// applied ("inlining_decision").
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_DECISIONLOG_H
#define MLGO_COMPILE_DECISIONLOG_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlgo {

struct DecisionLog {
  /// The features, in log order, without "inlining_decision".
  std::vector<TensorSpec> Specs;
  /// Where "inlining_default" is among Specs.
  size_t DefaultColumn = 0;
  /// Specs.size() values per decision, decision by decision.
  std::vector<int64_t> Features;
  /// Per decision: the heuristic's decision and the applied one (0 or 1).
  std::vector<uint8_t> Defaults, Decisions;

  size_t size() const { return Decisions.size(); }
  llvm::ArrayRef<int64_t> row(size_t K) const {
    return llvm::ArrayRef<int64_t>(Features).slice(K * Specs.size(),
                                                   Specs.size());
  }
};

/// Decodes \p Log; errors name \p Name (a malformed log, a feature that is
/// not int64_t [1], a missing decision or default column).
llvm::Expected<DecisionLog> parseDecisionLog(llvm::StringRef Log,
                                             llvm::StringRef Name);

/// The outcome of every policy decision of \p Log, in decision order: a
/// log written with CompileJob::WantSizeScore, whose outcome is the float
/// "delta_size" (docs/ir2native.md). Errors name \p Name (a malformed log,
/// an outcome that is not one float).
llvm::Expected<std::vector<float>> readLoggedScores(llvm::StringRef Log,
                                                    llvm::StringRef Name);

} // namespace mlgo

#endif // MLGO_COMPILE_DECISIONLOG_H
