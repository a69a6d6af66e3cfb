//===- mlgo/Learn/Optimizer.h - Adam and SGD on a flat vector ---*- C++ -*-===//
//
// First-order optimizers over a flat parameter vector, minimizing: step()
// moves against the gradient it is given (ES passes the negated ascent
// direction). Both are element-wise, so the result does not depend on how
// the loop is vectorized, and their whole state can be checkpointed.
//
// Adam (Kingma and Ba), with t the step count after incrementing:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   theta -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// SGD: theta -= lr * g.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_OPTIMIZER_H
#define MLGO_LEARN_OPTIMIZER_H

#include "mlgo/Learn/Checkpoint.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace mlgo {
namespace learn {

struct OptimizerOptions {
  enum class Kind { Adam, SGD };
  Kind TheKind = Kind::Adam;
  double LearningRate = 1e-3;
  double Beta1 = 0.9;
  double Beta2 = 0.999;
  double Epsilon = 1e-8;
};

class Optimizer {
public:
  Optimizer(size_t NumParameters, const OptimizerOptions &Options);

  /// One step of descent on \p Theta along \p Grad (same sizes).
  void step(llvm::MutableArrayRef<double> Theta, llvm::ArrayRef<double> Grad);

  uint64_t getStepCount() const { return T; }
  const OptimizerOptions &getOptions() const { return Options; }
  void setLearningRate(double LR) { Options.LearningRate = LR; }

  /// Stores / restores the moments and the step count under
  /// "<Prefix>adam_m", "<Prefix>adam_v", "<Prefix>steps".
  void saveState(Checkpoint &C, llvm::StringRef Prefix) const;
  llvm::Error loadState(const Checkpoint &C, llvm::StringRef Prefix);

private:
  OptimizerOptions Options;
  std::vector<double> M, V;
  uint64_t T = 0;
};

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_OPTIMIZER_H
