//===- mlgo/Model/Model.h - The text model format ---------------*- C++ -*-===//
//
// A Model is a complete, framework-free description of a decision policy: the
// named input features it reads, how each feature is preprocessed, a small
// multi-layer perceptron, and how a decision is taken from its output. It is
// stored as a JSON text file so it can be reviewed, diffed and reproduced
// (the objection raised against opaque binary models when MLGO landed in
// LLVM). The same Model is either interpreted at run time
// (InterpretedRunner, "development mode") or turned into plain C++ at build
// time (ModelCodeGen.h, "release mode"); both compute bit-identical results.
//
// File format, version 1 (docs/model-format.md has the long form):
//
//   {
//     "format": "mlgo-model",          required, exactly this string
//     "version": 1,                    required, the format version
//     "metadata": {                    required
//       "name": "inline-oz",           required, non-empty
//       "description": "...",          optional strings (default ""):
//       "llvm_version": "19",            the LLVM the features come from
//       "feature_set": "...",            id of the feature list trained on
//       "recipe": "...",                 how the model was produced
//       "corpus_hash": "...",            fingerprint of the training corpus
//       "seed": 0                      optional non-negative integer
//     },
//     "heuristic": {                   optional; omitted when empty
//       "inline_threshold": 10         optional integer: the heuristic whose
//     },                                 decision the input "inlining_default"
//                                        carries runs at this inline
//                                        threshold, as clang's -mllvm
//                                        -inline-threshold=10 would set it
//                                        (-Oz's own is 5); needs that input
//     "inputs": [                      required, non-empty; model order
//       { "spec": <TensorSpec JSON, as LLVM writes it>,
//         "preprocess": [ <pipeline>, ... ] }
//     ],
//     "layers": [                      required, non-empty; applied in order
//       { "in": 2, "out": 1,           sizes
//         "activation": "linear",      linear | relu | tanh | sigmoid
//         "weights": [[w00, w01], ...],  "out" rows of "in" floats: row o
//                                        holds the weights of output o
//         "bias": [b0, ...] }          "out" floats
//     ],
//     "output": {                      required
//       "spec": <TensorSpec JSON>,     one element, e.g. inlining_decision
//       "decision": {"rule": "threshold", "threshold": 0}
//                or {"rule": "sample", "temperature": 1}
//                or {"rule": "masked_argmax", "columns": 33,
//                    "mask": "mask"} }
//   }
//
// Inputs are bound to the compiler's features by spec name, so a compiler may
// offer more features than a model reads; every feature a model reads must be
// offered with the same type and shape.
//
// Preprocessing: each element of an input is converted to double and fed
// through every pipeline of that input; each pipeline yields one value, which
// is rounded to float and appended to the MLP's input vector (order: inputs
// in file order, then pipelines in order, then elements in order). A
// pipeline is a list of steps applied left to right to a double V:
//   {"op":"log1p"}                    V = copysign(log1p(|V|), V)
//   {"op":"standardize","mean":M,"stddev":S}   V = (V - M) / S, S > 0
//   {"op":"quantile","boundaries":[B...]}  V = #{i : B[i] <= V} / |B|, the
//                                     normalized quantile rank ("vocab" of
//                                     ml-compiler-opt); B non-empty, sorted
//   {"op":"sqrt"}                     V = V > 0 ? sqrt(V) : 0
//   {"op":"square"}                   V = V * V
//   {"op":"clamp","min":L,"max":H}    V = V < L ? L : (V > H ? H : V)
//   {"op":"nan_to","value":X}         V = V is NaN ? X : V (X finite)
// An empty pipeline passes the value through. Other steps carry a NaN
// through (clamp and sqrt turn it into H and 0), so a model whose inputs may
// be NaN (regalloc's use_def_density) starts those pipelines with nan_to.
//
// The MLP computes in float. A layer computes, for each output o,
//   Y[o] = B[o]; then for i = 0..in-1 in order: Y[o] = Y[o] + W[o][i] * X[i]
// (no fused multiply-add), then applies the activation: relu is
// Y > 0 ? Y : 0, sigmoid is 1 / (1 + exp(-Y)), tanh is std::tanh. The last
// layer has one output, the logit L. The decision written to the output
// tensor is 1 or 0: "threshold" gives L > threshold; "sample" draws 1 with
// probability sigmoid(L / temperature).
//
// Per-column models ("masked_argmax", for choices among C candidates such as
// regalloc eviction's 33 columns): every input has C elements (one per
// column) or 1 (the same value for every column). The MLP, with its one set
// of weights, is run once per column c on that column's values: input
// elements c (or 0), through every pipeline, in the order above, giving the
// logit L[c]. The decision is the index c that maximizes L[c] among the
// columns whose element of the "mask" input (an int64 input with C elements,
// usually read with no pipeline) is non-zero; ties and NaN logits go to the
// lowest such index (a NaN never beats a number). If the mask allows no
// column, the decision is C - 1. A masked column is never the decision when
// another is allowed, whatever the weights.
//
// Numbers: preprocessing constants are doubles, weights and biases floats;
// both are written with the fewest decimal digits that read back to the same
// bits (negative zero as -0.0), so read -> write -> read is bit-exact. Where a
// number is expected, a string may hold a hexadecimal float ("0x1.8p+1") or
// "nan"/"inf"/"-inf" (which validation then rejects by name, with the path).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_MODEL_H
#define MLGO_MODEL_MODEL_H

#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// The format version this code reads and writes.
constexpr int64_t ModelFormatVersion = 1;

/// One preprocessing step (see the file comment for the exact semantics).
struct PreprocessStep {
  enum class Op { Log1p, Standardize, Quantile, Sqrt, Square, Clamp, NanTo };
  Op TheOp = Op::Log1p;
  double Mean = 0, StdDev = 1;    ///< Standardize.
  std::vector<double> Boundaries; ///< Quantile, sorted ascending.
  double Min = 0, Max = 0;        ///< Clamp.
  double Value = 0;               ///< NanTo.

  bool operator==(const PreprocessStep &O) const;
  bool operator!=(const PreprocessStep &O) const { return !(*this == O); }
};

/// The JSON spelling of \p Op ("log1p", "quantile", ...).
llvm::StringRef toString(PreprocessStep::Op Op);

using Pipeline = std::vector<PreprocessStep>;

/// One input feature the model reads, and its preprocessing.
struct ModelInput {
  TensorSpec Spec;
  std::vector<Pipeline> Pipelines;
  /// Number of MLP input values this feature yields; in a per-column model,
  /// per column (each column reads one element).
  size_t getNumValues(bool PerColumn = false) const {
    return (PerColumn ? 1 : Spec.getElementCount()) * Pipelines.size();
  }
};

/// Exp (std::exp) makes a last layer's logit a positive quantity fitted
/// in log space (IR2Native's sizes, docs/ir2native.md).
enum class Activation { Linear, Relu, Tanh, Sigmoid, Exp };
llvm::StringRef toString(Activation A);

/// A fully connected layer. Weights are row-major [Out][In], as in the file.
struct DenseLayer {
  size_t In = 0, Out = 0;
  Activation Act = Activation::Linear;
  std::vector<float> Weights;
  std::vector<float> Bias;
  float weight(size_t O, size_t I) const { return Weights[O * In + I]; }
};

/// How the decision is taken from the logit(s).
struct DecisionRule {
  enum class Kind { Threshold, Sample, MaskedArgmax };
  Kind TheKind = Kind::Threshold;
  float Threshold = 0;   ///< Threshold: decide 1 iff logit > Threshold.
  float Temperature = 1; ///< Sample: P(1) = sigmoid(logit / Temperature).
  size_t Columns = 0;    ///< MaskedArgmax: the number of candidates.
  std::string MaskName;  ///< MaskedArgmax: the input that allows columns.

  bool isPerColumn() const { return TheKind == Kind::MaskedArgmax; }
};

struct ModelMetadata {
  std::string Name;
  std::string Description;
  std::string LLVMVersion;
  std::string FeatureSet;
  std::string Recipe;
  std::string CorpusHash;
  uint64_t Seed = 0;
};

/// Settings of the LLVM heuristic a model works with. They do not change
/// the MLP; they change what the compiler offers as "inlining_default".
struct HeuristicSettings {
  /// The inline threshold the heuristic runs at instead of the optimization
  /// level's own (LLVM's -inline-threshold); unset: the level's own.
  std::optional<int32_t> InlineThreshold;

  bool operator==(const HeuristicSettings &O) const {
    return InlineThreshold == O.InlineThreshold;
  }
  bool operator!=(const HeuristicSettings &O) const { return !(*this == O); }
};

/// A parsed and validated model. Build one with parse()/load(), or fill the
/// fields and call validate() before use.
class Model {
public:
  ModelMetadata Metadata;
  HeuristicSettings Heuristic;
  std::vector<ModelInput> Inputs;
  std::vector<DenseLayer> Layers;
  TensorSpec OutputSpec{
      InlineDecisionFeatureName.str(), 0, TensorType::Int64, {1}};
  DecisionRule Decision;

  /// Parses and validates JSON text. Errors read
  /// "<FileName>: <json path>: <what is wrong>", e.g.
  /// "model.json: layers[1].weights[3][7]: NaN weight".
  static llvm::Expected<Model> parse(llvm::StringRef JSONText,
                                     llvm::StringRef FileName);
  /// Reads and parses a file.
  static llvm::Expected<Model> load(llvm::StringRef Path);

  /// Checks the invariants parse() guarantees (sizes agree, numbers finite,
  /// boundaries sorted, ...). Errors are located like parse()'s.
  llvm::Error validate(llvm::StringRef FileName = "model") const;

  /// Writes the model in the canonical layout: indented, one weight row per
  /// line, numbers in their shortest exact form.
  void write(llvm::raw_ostream &OS) const;
  std::string toJSONString() const;

  /// Writes the model to \p Path.
  llvm::Error save(llvm::StringRef Path) const;

  /// Length of the MLP input vector (the sum of getNumValues(); per column in
  /// a per-column model).
  size_t getNumMLPInputs() const;
  /// The index of the mask input of a per-column model (-1 otherwise).
  int getMaskInputIndex() const;
  /// Number of weights and biases.
  size_t getNumParameters() const;
  /// The model's input specs, in model order.
  std::vector<TensorSpec> getInputSpecs() const;

  /// A human-readable summary (mlgo model show).
  void printSummary(llvm::raw_ostream &OS) const;
};

/// Writes what changed from \p A to \p B (mlgo model diff); returns true if
/// the models differ in any way.
bool diffModels(const Model &A, const Model &B, llvm::raw_ostream &OS);

/// The decimal form the model writer uses for floats: the fewest significant
/// digits that read back (as JSON does: to double, then rounded to float) to
/// the same bits; "-0.0" for negative zero.
std::string formatModelFloat(float V);
/// Likewise for doubles.
std::string formatModelDouble(double V);

} // namespace mlgo

#endif // MLGO_MODEL_MODEL_H
