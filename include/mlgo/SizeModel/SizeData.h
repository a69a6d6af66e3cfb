//===- mlgo/SizeModel/SizeData.h - Functions, features, bytes ---*- C++ -*-===//
//
// IR2Native's training data and its trainer, as values (no LLVM IR).
//
// A *sample* is one function of one corpus module: its features
// (SizeFeatures.h) at the end of the -Oz IR pipeline, and its label, the
// size of its symbol in the object that pipeline's code generator wrote.
// `mlgo ir2native dataset` writes them as a tab-separated file:
//
//   # ir2native dataset v1, corpus <fingerprint>
//   module <TAB> function <TAB> native_size <TAB> <feature name> ...
//   zlib/deflate.o <TAB> deflate_stored <TAB> 1375 <TAB> 402 <TAB> ...
//
// one line per function, in corpus order then module order. The first line
// names the corpus the file came from (its fingerprint, docs/corpus.md);
// the second must list exactly this mlgo's features, in this order: a file
// written by another feature list is refused by name, never read with its
// columns shifted.
//
// The trainer (fitSizeModel) fits a linear model by weighted ridge
// regression: features standardized over the training samples, each sample
// weighted by 1/size^2, so it minimizes the sum of squared *relative*
// errors - the measure the benchmark reports (median absolute percentage
// error) - instead of letting a few big functions decide the weights. The
// normal equations are solved in double with Eigen's LDLT, so the same
// samples give the same bits. The model is one linear layer in the text
// model format (docs/model-format.md): the standardization is each input's
// pipeline, the layer's single output is the predicted size in bytes (the
// "logit"; the threshold rule is unused).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SIZEMODEL_SIZEDATA_H
#define MLGO_SIZEMODEL_SIZEDATA_H

#include "mlgo/Model/Model.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

class ModelEvaluator;

/// One function: where it is, its bytes, its features (NumSizeFeatures, in
/// feature order).
struct SizeSample {
  std::string Module;
  std::string Function;
  uint64_t NativeSize = 0;
  std::vector<int64_t> Features;
};

/// A dataset file's contents.
struct SizeDataset {
  std::string CorpusHash;
  std::vector<SizeSample> Samples;
};

/// Writes \p Data in the format above.
void writeSizeDataset(llvm::raw_ostream &OS, const SizeDataset &Data);
/// Reads a dataset file; errors name the file and line.
llvm::Expected<SizeDataset> readSizeDataset(llvm::StringRef Path);

/// The package of a corpus module: its first path component, as
/// getModulePackage (mlgo/Corpus/Package.h) says.
llvm::StringRef getSamplePackage(const SizeSample &S);

/// How a size model is trained (models/ir2native/recipe.json):
///   {"name": "ir2native", "description": "...",
///    "held_out_packages": ["cjson", ...], "ridge": 0.01,
///    "log_features": true, "log_target": true,
///    "mlp": {"hidden": [32], "epochs": 200, "batch_size": 64,
///            "learning_rate": 0.001, "l2": 0, "loss": "absolute_error",
///            "seed": 1}}
/// Held-out packages are never trained on (the accuracy benchmark measures
/// on them); ridge is the L2 penalty on standardized weights, relative to
/// the total sample weight. With "mlp" the model is a relu network instead
/// of a linear layer (ridge unused), trained by the classifier's trainer
/// (mlgo/Learn/Classifier.h) with a regression loss.
struct SizeRecipe {
  /// The recipe's "mlp": hidden relu layers over the same inputs and
  /// pipelines as the linear model (standardized without weights), one
  /// output. The loss is on the target: log(size) with log_target (the
  /// output through exp), else the size itself, each sample weighing 1/y
  /// (absolute error: the sum of absolute relative errors) or 1/y^2
  /// (squared error: of squared relative errors). Minibatch Adam, seeded:
  /// the same dataset and recipe give the same bits.
  struct MLP {
    std::vector<uint64_t> Hidden;
    unsigned Epochs = 100;
    uint64_t BatchSize = 64;
    double LearningRate = 1e-3;
    double L2 = 0;
    bool AbsoluteLoss = true;
    uint64_t Seed = 1;
  };

  std::string Name = "ir2native";
  std::string Description;
  std::vector<std::string> HeldOutPackages;
  double Ridge = 0.01;
  /// Also read each feature through log1p (a second pipeline): a linear
  /// model in x and log(1 + x) can bend where fixed costs (prologue,
  /// epilogue, a frame) dominate small functions.
  bool LogFeatures = false;
  /// Fit log(size), unweighted, and read the layer's output through exp
  /// (its activation): errors are relative by construction, and a
  /// prediction is never negative.
  bool LogTarget = false;
  std::optional<MLP> Network;

  static llvm::Expected<SizeRecipe> load(llvm::StringRef Path);
  bool isHeldOut(llvm::StringRef Package) const;
};

/// Fits the model of \p Recipe on \p Train (samples of size 0 are
/// skipped). Errors when there is nothing to fit.
llvm::Expected<Model> fitSizeModel(llvm::ArrayRef<const SizeSample *> Train,
                                   const SizeRecipe &Recipe,
                                   llvm::StringRef CorpusHash,
                                   llvm::StringRef RecipeText);

/// Accuracy of predictions against labels.
struct SizeAccuracy {
  size_t Functions = 0;
  /// Median, mean and 90th percentile of |predicted - actual| / actual.
  double MdAPE = 0, MeanAPE = 0, P90APE = 0;
  double ActualBytes = 0, PredictedBytes = 0;
};
SizeAccuracy measureSizeAccuracy(llvm::ArrayRef<double> Predicted,
                                 llvm::ArrayRef<double> Actual);

/// Evaluates a size model on samples: binds the model's inputs to the
/// features by name. Errors name the model's input that is no size
/// feature, or an output other than native_size.
class SizePredictorOverSamples {
public:
  static llvm::Expected<SizePredictorOverSamples> create(const Model &M);
  double predict(const SizeSample &S);

private:
  explicit SizePredictorOverSamples(const Model &M);
  std::shared_ptr<ModelEvaluator> Evaluator;
  std::vector<size_t> FeatureOfInput;
  std::vector<int64_t> Scratch;
};

/// Checks that \p M is a size model: every input a size feature with its
/// spec, and the output native_size. \p FileName names it in errors.
llvm::Error checkSizeModel(const Model &M, llvm::StringRef FileName);

} // namespace mlgo

#endif // MLGO_SIZEMODEL_SIZEDATA_H
