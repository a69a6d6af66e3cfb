//===- mlgo/Learn/Normalization.h - Fitting feature preprocessing -*- C++ -*-=//
//
// Fits the per-feature preprocessing a trained model carries in its file
// (mlgo/Model/Model.h): optionally the symmetric log1p, then standardization
// with the mean and standard deviation measured on the training rows. The
// result is both a function the trainer applies to its rows and the
// ModelInput pipelines it exports, and the two compute the same value to the
// bit: normalize() performs the interpreter's IEEE operations in its order
// (copysign(log1p(|V|), V), then (V - M) / S, in double, rounded to float).
//
// Statistics: over the N rows in order, in double, with U the feature after
// the optional log1p, M = (sum U) / N, S = sqrt((sum (U - M)^2) / N)
// (population standard deviation, two passes). Row weights are ignored: the
// scale of a feature does not depend on how much a decision counts. A
// feature whose S is below MinStdDev (a constant, or nearly so) gets S = 1,
// so it becomes U - M rather than an amplified rounding error.
//
// A "raw" feature (e.g. the heuristic's own 0/1 decision, fed as a residual
// input) is passed unchanged: its pipeline is the empty pipeline [].
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_NORMALIZATION_H
#define MLGO_LEARN_NORMALIZATION_H

#include "mlgo/Learn/Dataset.h"
#include "mlgo/Model/Model.h"

#include <vector>

namespace mlgo {
namespace learn {

/// How one feature is preprocessed.
struct FeatureScaling {
  bool Raw = false;   ///< Pass unchanged; the fields below are unused.
  bool Log1p = false; ///< Symmetric log1p before standardizing.
  double Mean = 0;
  double StdDev = 1;

  /// The model format's pipeline computing the same value.
  Pipeline toPipeline() const;
  /// The value the model interpreter feeds the MLP for raw value \p V.
  float apply(double V) const;
};

struct NormalizationOptions {
  /// Apply log1p before standardizing (LLVM's features are heavy-tailed
  /// counts).
  bool Log1p = true;
  /// A standard deviation below this is replaced by 1.
  double MinStdDev = 1e-6;
  /// Features passed raw, by index.
  std::vector<size_t> RawFeatures;
};

/// Fits one FeatureScaling per feature of \p D (which must not be empty).
std::vector<FeatureScaling> fitNormalization(const Dataset &D,
                                             const NormalizationOptions &O);

/// The MLP input vector of \p Row under \p Scalings, widened to double.
void normalizeRow(llvm::ArrayRef<FeatureScaling> Scalings,
                  llvm::ArrayRef<float> Row, double *Out);

/// The model inputs: one per feature, spec \p Specs[I] (element count 1),
/// one pipeline.
std::vector<ModelInput> makeModelInputs(llvm::ArrayRef<TensorSpec> Specs,
                                        llvm::ArrayRef<FeatureScaling> S);

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_NORMALIZATION_H
