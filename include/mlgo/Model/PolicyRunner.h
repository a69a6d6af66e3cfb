//===- mlgo/Model/PolicyRunner.h - Runners over a text model ----*- C++ -*-===//
//
// Two ModelRunners over one model file (mlgo/Model/Model.h):
//
//  * InterpretedRunner ("development mode") loads the JSON model at run time
//    and evaluates it with ModelEvaluator;
//  * EmbeddedRunner ("release mode") calls C++ generated from the same model
//    at build time (mlgo_embed_model in cmake/MLGOModels.cmake, see
//    ModelCodeGen.h), like LLVM's ReleaseModeModelRunner.
//
// Both bind the compiler's inputs to the model's by feature name
// (versioning: the compiler may offer features the model does not read; those
// get scratch buffers. A feature the model reads but the compiler does not
// offer, or offers with another type or shape, is an error from create()).
// Both compute bit-identical logits and take the decision the same way, in
// the PolicyRunner base: 1/0 into the model's one-element output tensor,
// either "logit > threshold" or, when exploring, a draw with probability
// sigmoid(logit / temperature) from a seeded generator; for a per-column
// model (regalloc eviction), the index of the allowed column with the
// largest logit (Model.h, "masked_argmax").
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_POLICYRUNNER_H
#define MLGO_MODEL_POLICYRUNNER_H

#include "mlgo/Model/Model.h"
#include "mlgo/Runner/ModelRunner.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <memory>
#include <optional>

namespace mlgo {

/// Evaluates a Model's logit: preprocessing and MLP, exactly as the generated
/// code does. Holds the transposed weights and scratch space, so one
/// evaluator must not be used by two threads at once.
class ModelEvaluator {
public:
  explicit ModelEvaluator(const Model &M);
  /// \p Inputs[K] points at the buffer of the model's input K (model order),
  /// laid out as that input's spec says. A per-column model computes the
  /// logit of \p Column; other models ignore it.
  float evaluate(const void *const *Inputs, size_t Column = 0);
  /// The MLP's input vector that evaluate() computes from \p Inputs (of
  /// \p Column, for a per-column model): every input's pipelines applied,
  /// Model::getNumMLPInputs() floats, for trainers that fit the layers to
  /// what the model sees.
  std::vector<float> computeMLPInputs(const void *const *Inputs,
                                      size_t Column = 0) const;

private:
  /// Writes computeMLPInputs' values to \p X.
  void preprocess(const void *const *Inputs, size_t Column, float *X) const;

  struct Layer {
    size_t In, Out;
    Activation Act;
    std::vector<float> WeightsT; // [In][Out]
    std::vector<float> Bias;
  };
  std::vector<ModelInput> Inputs;
  bool PerColumn;
  size_t NumMLPInputs;
  std::vector<Layer> Layers;
  std::vector<float> BufA, BufB;
};

/// Options shared by both runners.
struct PolicyRunnerOptions {
  /// If set, decisions are sampled with P(1) = sigmoid(logit / T) instead of
  /// following the model's own rule (exploration while training).
  std::optional<float> ExplorationTemperature;
  /// Seed of the sampling generator; the decision sequence is a function of
  /// the seed and the logits only.
  uint64_t Seed = 0;
  ErrorHandler OnError = getDefaultErrorHandler();
};

/// What both runners share: binding by name and taking the decision.
class PolicyRunner : public ModelRunner {
public:
  void *evaluateUntyped() override;

  /// The logit of the last evaluation (per-column models: of the chosen
  /// column).
  float getLastLogit() const { return LastLogit; }
  /// P(decision = 1) at the last evaluation: sigmoid(logit / T) when
  /// sampling, and 0 or 1 for a threshold rule.
  float getLastProbability() const { return LastProbability; }
  const TensorSpec &getOutputSpec() const { return OutputSpec; }

  /// The sampling generator's next uniform value in [0, 1) (splitmix64,
  /// 24 bits). Exposed so tests can replay a decision sequence.
  static float uniformFromState(uint64_t &State);

protected:
  PolicyRunner(Kind K, std::vector<TensorSpec> CompilerInputs,
               TensorSpec OutputSpec, DecisionRule Rule,
               const PolicyRunnerOptions &Options);

  /// Binds every compiler input: those named in \p ModelInputs get a buffer
  /// the model reads (in model order), the others scratch buffers.
  llvm::Error bindInputs(llvm::ArrayRef<TensorSpec> ModelInputs,
                         llvm::StringRef ModelName);

  /// Computes the logit (of \p Column, for per-column models) from the
  /// model-ordered input buffers.
  virtual float computeLogit(const void *const *ModelInputs, size_t Column) = 0;

private:
  /// The masked argmax of a per-column model.
  size_t chooseColumn();

  TensorSpec OutputSpec;
  DecisionRule Rule;
  uint64_t RandomState;
  bool Explore;
  std::vector<const void *> ModelInputBuffers;
  /// The mask input of a per-column model.
  const int64_t *Mask = nullptr;
  std::vector<std::unique_ptr<uint64_t[]>> Storage;
  uint64_t Output[1] = {0};
  float LastLogit = 0;
  float LastProbability = 0;
};

/// Evaluates a JSON model at run time.
class InterpretedRunner final : public PolicyRunner {
public:
  /// Fails if a feature the model reads is missing from \p CompilerInputs or
  /// has another type or shape there.
  static llvm::Expected<std::unique_ptr<InterpretedRunner>>
  create(std::shared_ptr<const Model> M, std::vector<TensorSpec> CompilerInputs,
         const PolicyRunnerOptions &Options = {});
  /// Loads \p Path, then as above.
  static llvm::Expected<std::unique_ptr<InterpretedRunner>>
  create(llvm::StringRef Path, std::vector<TensorSpec> CompilerInputs,
         const PolicyRunnerOptions &Options = {});

  const Model &getModel() const { return *TheModel; }
  static bool classof(const ModelRunner *R) {
    return R->getKind() == Kind::Interpreted;
  }

private:
  InterpretedRunner(std::shared_ptr<const Model> M,
                    std::vector<TensorSpec> CompilerInputs,
                    const PolicyRunnerOptions &Options);
  float computeLogit(const void *const *ModelInputs, size_t Column) override;

  std::shared_ptr<const Model> TheModel;
  ModelEvaluator Evaluator;
};

/// What generated code (ModelCodeGen.h) provides, gathered from the
/// generated `struct Model` by getEmbeddedModelInfo<M>().
struct EmbeddedModelInfo {
  const char *Name;
  size_t NumInputs;
  const char *const *InputSpecs; ///< TensorSpec JSON, model order.
  const char *OutputSpec;        ///< TensorSpec JSON.
  int DecisionRuleKind;          ///< 0: threshold, 1: sample, 2: masked argmax.
  float DecisionThreshold;
  float Temperature;
  size_t Columns;       ///< Masked argmax: the number of columns.
  const char *MaskName; ///< Masked argmax: the mask input.
  /// The logit (of \p Column, for a per-column model).
  float (*Evaluate)(const void *const *Inputs, size_t Column);
  /// The model's HeuristicSettings (Model.h).
  bool HasInlineThreshold;
  int InlineThreshold;
};

template <typename GeneratedModel> EmbeddedModelInfo getEmbeddedModelInfo() {
  return {GeneratedModel::Name,
          GeneratedModel::NumInputs,
          GeneratedModel::InputSpecs,
          GeneratedModel::OutputSpec,
          GeneratedModel::DecisionRule,
          GeneratedModel::DecisionThreshold,
          GeneratedModel::Temperature,
          GeneratedModel::Columns,
          GeneratedModel::MaskName,
          &GeneratedModel::evaluateColumn,
          GeneratedModel::HasInlineThreshold != 0,
          GeneratedModel::InlineThreshold};
}

/// Evaluates a model compiled into the binary.
class EmbeddedRunner final : public PolicyRunner {
public:
  static llvm::Expected<std::unique_ptr<EmbeddedRunner>>
  create(const EmbeddedModelInfo &Info, std::vector<TensorSpec> CompilerInputs,
         const PolicyRunnerOptions &Options = {});
  /// E.g. EmbeddedRunner::create<mlgo::embedded::inline_oz::Model>(Specs).
  template <typename GeneratedModel>
  static llvm::Expected<std::unique_ptr<EmbeddedRunner>>
  create(std::vector<TensorSpec> CompilerInputs,
         const PolicyRunnerOptions &Options = {}) {
    return create(getEmbeddedModelInfo<GeneratedModel>(),
                  std::move(CompilerInputs), Options);
  }

  llvm::StringRef getModelName() const { return Info.Name; }
  static bool classof(const ModelRunner *R) {
    return R->getKind() == Kind::Embedded;
  }

private:
  EmbeddedRunner(const EmbeddedModelInfo &Info, TensorSpec OutputSpec,
                 std::vector<TensorSpec> CompilerInputs,
                 const PolicyRunnerOptions &Options);
  float computeLogit(const void *const *ModelInputs, size_t Column) override {
    return Info.Evaluate(ModelInputs, Column);
  }

  EmbeddedModelInfo Info;
};

} // namespace mlgo

#endif // MLGO_MODEL_POLICYRUNNER_H
