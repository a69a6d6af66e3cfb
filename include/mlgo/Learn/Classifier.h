//===- mlgo/Learn/Classifier.h - Training an MLP policy ---------*- C++ -*-===//
//
// Supervised training of a model-format MLP (behavioral cloning, and the
// imitation step of search-then-imitate): given a Dataset of raw feature
// rows with 0/1 labels and weights, fit the feature normalization
// (Normalization.h), train a multi-layer perceptron on the normalized rows
// with weighted binary cross-entropy and minibatch Adam, and export an
// mlgo::Model whose interpreter computes the same normalized inputs and
// decides "logit > threshold".
//
// The math (docs/training-math.md has it in full): for a batch B with
// weights w_i, labels y_i and logits z_i,
//   loss = sum_i w_i (max(z_i, 0) - y_i z_i + log1p(exp(-|z_i|))) / sum_i w_i
//          + (L2 / 2) * sum of squared weights (biases excluded)
// which is the weighted mean of -[y log sigmoid(z) + (1-y) log(1-sigmoid(z))]
// in a form that never overflows; d loss / d z_i = w_i (sigmoid(z_i) - y_i) /
// sum w. Training runs in double with Eigen; the export rounds to float.
//
// Determinism: one Rng (Random.h) seeded with Options.Seed draws the initial
// weights (He normal, std sqrt(2 / fan_in), for relu layers; Glorot normal,
// std sqrt(2 / (fan_in + fan_out)), for the others and the output layer;
// biases 0) and then, at the start of each epoch, a Fisher-Yates permutation
// of the rows. Minibatches are consecutive slices of the permutation. No
// threads; the same dataset, options and seed give the same model, bit for
// bit. The whole state (parameters, Adam moments, generator, epoch) can be
// checkpointed after any epoch and resumed bit-identically.
//
// Regression: with Loss SquaredError or AbsoluteError the trainer fits real
// targets (one per row, passed to create(); the dataset's 0/1 labels are
// ignored) instead of labels: the loss of a row is w_i (z_i - t_i)^2 / 2 or
// w_i |z_i - t_i| (gradient w_i sign(z_i - t_i), 0 at a tie), divided by
// the batch's sum of weights as above. The logit is the prediction;
// IR2Native's size model (mlgo/SizeModel/SizeData.h) fits log(bytes) this
// way and exports the last layer with an exp activation.
//
// A residual input: ResidualFeature names one feature (e.g. the default
// heuristic's own 0/1 decision) that is fed raw - an empty pipeline, no
// log1p, no standardization - so a model can learn "follow the heuristic
// unless ...".
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_CLASSIFIER_H
#define MLGO_LEARN_CLASSIFIER_H

#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Learn/Dataset.h"
#include "mlgo/Learn/Normalization.h"
#include "mlgo/Learn/Optimizer.h"
#include "mlgo/Learn/Random.h"
#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Model/Model.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {
namespace learn {

/// Loss and accuracy of a model on a set of rows, both weighted.
struct EpochStats {
  unsigned Epoch = 0; ///< Epochs completed when measured.
  double Loss = 0;    ///< Weighted mean loss (no L2 term).
  /// Weighted fraction with (logit > T) == label; 0 for a regression.
  double Accuracy = 0;
};

/// What the trainer minimizes (the file comment has the formulas).
enum class LossKind {
  CrossEntropy,  ///< 0/1 labels, the logit through a sigmoid.
  SquaredError,  ///< Real targets, (logit - target)^2 / 2.
  AbsoluteError, ///< Real targets, |logit - target|: a median regression.
};
llvm::StringRef toString(LossKind L);

struct ClassifierOptions {
  /// Hidden layer widths; {} is logistic regression.
  std::vector<size_t> Hidden;
  Activation HiddenActivation = Activation::Relu;
  LossKind Loss = LossKind::CrossEntropy;
  unsigned Epochs = 10;
  size_t BatchSize = 256;
  OptimizerOptions Optimizer;
  /// Coefficient of (1/2) * sum of squared weights.
  double L2 = 0;
  uint64_t Seed = 1;
  NormalizationOptions Normalization;
  /// A feature fed raw (see the file comment); added to
  /// Normalization.RawFeatures.
  std::optional<std::string> ResidualFeature;
  /// The exported decision rule: 1 iff logit > Threshold.
  float Threshold = 0;
  /// One spec per feature, element count 1. Empty: int64_t [1] specs named
  /// after the dataset's features (LLVM's inlining features are int64).
  std::vector<TensorSpec> InputSpecs;
  TensorSpec OutputSpec{
      InlineDecisionFeatureName.str(), 0, TensorType::Int64, {1}};
  /// Copied into the model; Seed is set to Options.Seed and an empty Recipe
  /// to a description of these options.
  ModelMetadata Metadata;
  /// Called after every epoch with the training-set loss and accuracy.
  std::function<void(const EpochStats &)> OnEpoch;
};

/// An MLP being trained on one dataset. Keeps a reference to the dataset's
/// rows only while it is being created (the normalized rows are copied).
class ClassifierTrainer {
public:
  /// \p Targets: one per row of \p D for a regression loss, none for
  /// cross-entropy.
  static llvm::Expected<std::unique_ptr<ClassifierTrainer>>
  create(const Dataset &D, const ClassifierOptions &Options,
         llvm::ArrayRef<double> Targets = {});
  ~ClassifierTrainer();

  /// Runs one epoch (a fresh permutation, then every minibatch), then
  /// measures the training set and calls OnEpoch.
  EpochStats runEpoch();
  /// Runs epochs until Options.Epochs are done.
  void run();
  unsigned getEpoch() const { return Epoch; }
  bool isDone() const { return Epoch >= Options.Epochs; }

  /// Loss and accuracy (double forward pass) on the training rows, or on
  /// other rows with the same features (cross-entropy only).
  EpochStats evaluate() const;
  EpochStats evaluate(const Dataset &D) const;
  /// The double-precision logit of one raw row.
  double predictLogit(llvm::ArrayRef<float> RawRow) const;

  /// The trained model. Fails if training diverged (non-finite weights).
  llvm::Expected<Model> exportModel() const;

  const std::vector<FeatureScaling> &getScalings() const { return Scalings; }
  /// The flat parameter vector, in Parameters.h's order.
  const std::vector<double> &getParameters() const { return Theta; }
  /// Replaces the parameters (e.g. a warm start); same size.
  llvm::Error setParameters(llvm::ArrayRef<double> NewTheta);

  /// Stores / restores parameters, optimizer, generator and epoch under
  /// keys starting with \p Prefix. The scalings are a function of the
  /// dataset and are recomputed by create(), which must see the same rows.
  void saveState(Checkpoint &C, llvm::StringRef Prefix = "clf.") const;
  llvm::Error loadState(const Checkpoint &C, llvm::StringRef Prefix = "clf.");

private:
  struct Impl;
  ClassifierTrainer(const ClassifierOptions &Options);

  ClassifierOptions Options;
  std::vector<FeatureScaling> Scalings;
  std::vector<double> Theta;
  Optimizer Opt;
  Rng R;
  unsigned Epoch = 0;
  std::unique_ptr<Impl> P;
};

/// Creates a trainer, runs every epoch and exports the model.
llvm::Expected<Model> trainClassifier(const Dataset &D,
                                      const ClassifierOptions &Options,
                                      llvm::ArrayRef<double> Targets = {});

/// The recipe string recorded in a model's metadata for \p Options.
std::string describeRecipe(const ClassifierOptions &Options);

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_CLASSIFIER_H
