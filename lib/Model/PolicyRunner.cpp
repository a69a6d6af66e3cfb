//===- PolicyRunner.cpp - Interpreting and embedded model runners ---------===//
//
// The model interpreter (ModelEvaluator) and the two runners. The numeric
// code here has a twin in the C++ that ModelCodeGen.cpp emits; the two must
// perform the same IEEE operations in the same order so that interpreted and
// generated models agree to the bit (unittests/Model check it on random and
// extreme inputs). Hence: every step spelled as in the file comment of
// Model.h, accumulations in a fixed order, this file compiled with
// -ffp-contract=off (lib/Model/CMakeLists.txt) so no multiply-add is fused.
// The dense layer loops over outputs innermost, which the compiler may
// vectorize without reassociating any sum.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace mlgo {

//===----------------------------------------------------------------------===//
// ModelEvaluator
//===----------------------------------------------------------------------===//

ModelEvaluator::ModelEvaluator(const Model &M)
    : Inputs(M.Inputs), PerColumn(M.Decision.isPerColumn()),
      NumMLPInputs(M.getNumMLPInputs()) {
  size_t Widest = M.getNumMLPInputs();
  for (const DenseLayer &L : M.Layers) {
    Layer T{L.In, L.Out, L.Act, std::vector<float>(L.In * L.Out), L.Bias};
    for (size_t O = 0; O < L.Out; ++O)
      for (size_t I = 0; I < L.In; ++I)
        T.WeightsT[I * L.Out + O] = L.weight(O, I);
    Layers.push_back(std::move(T));
    Widest = std::max(Widest, L.Out);
  }
  BufA.resize(Widest);
  BufB.resize(Widest);
}

static double loadElement(const void *Buffer, TensorType Type, size_t I) {
  switch (Type) {
#define MLGO_LOAD_ELEMENT(CType, Name)                                         \
  case TensorType::Name:                                                       \
    return static_cast<double>(static_cast<const CType *>(Buffer)[I]);
    MLGO_TENSOR_TYPES(MLGO_LOAD_ELEMENT)
#undef MLGO_LOAD_ELEMENT
  case TensorType::Invalid:
    break;
  }
  return 0;
}

static double applyStep(const PreprocessStep &S, double V) {
  switch (S.TheOp) {
  case PreprocessStep::Op::Log1p:
    return std::copysign(std::log1p(std::fabs(V)), V);
  case PreprocessStep::Op::Standardize:
    return (V - S.Mean) / S.StdDev;
  case PreprocessStep::Op::Quantile: {
    const double *B = S.Boundaries.data();
    size_t N = S.Boundaries.size();
    return static_cast<double>(std::upper_bound(B, B + N, V) - B) /
           static_cast<double>(N);
  }
  case PreprocessStep::Op::Sqrt:
    return V > 0 ? std::sqrt(V) : 0.0;
  case PreprocessStep::Op::Square:
    return V * V;
  case PreprocessStep::Op::Clamp:
    return V < S.Min ? S.Min : (V > S.Max ? S.Max : V);
  case PreprocessStep::Op::NanTo:
    return std::isnan(V) ? S.Value : V;
  }
  return V;
}

// Like the generated code, the dense layer is compiled for AVX-512, AVX2 and
// the baseline on x86-64; without FMA all compute the same bits.
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MLGO_TARGET_CLONES                                                     \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef MLGO_TARGET_CLONES
#define MLGO_TARGET_CLONES
#endif

MLGO_TARGET_CLONES static void denseLayer(const float *__restrict WeightsT,
                                          const float *__restrict Bias,
                                          const float *__restrict X,
                                          float *__restrict Y, size_t In,
                                          size_t Out) {
  // Blocks of outputs are accumulated in registers; each Y[O] still sums
  // over I in order, exactly as the generated code does.
  constexpr size_t Block = 32;
  size_t O0 = 0;
  for (; O0 + Block <= Out; O0 += Block) {
    float Acc[Block];
    for (size_t J = 0; J < Block; ++J)
      Acc[J] = Bias[O0 + J];
    for (size_t I = 0; I < In; ++I) {
      const float XI = X[I];
      const float *__restrict W = WeightsT + I * Out + O0;
      for (size_t J = 0; J < Block; ++J)
        Acc[J] = Acc[J] + W[J] * XI;
    }
    for (size_t J = 0; J < Block; ++J)
      Y[O0 + J] = Acc[J];
  }
  for (size_t O = O0; O < Out; ++O)
    Y[O] = Bias[O];
  for (size_t I = 0; I < In; ++I) {
    const float XI = X[I];
    const float *__restrict W = WeightsT + I * Out;
    for (size_t O = O0; O < Out; ++O)
      Y[O] = Y[O] + W[O] * XI;
  }
}

static void activate(Activation A, float *Y, size_t N) {
  switch (A) {
  case Activation::Linear:
    return;
  case Activation::Relu:
    for (size_t I = 0; I < N; ++I)
      Y[I] = Y[I] > 0.0f ? Y[I] : 0.0f;
    return;
  case Activation::Tanh:
    for (size_t I = 0; I < N; ++I)
      Y[I] = std::tanh(Y[I]);
    return;
  case Activation::Sigmoid:
    for (size_t I = 0; I < N; ++I)
      Y[I] = 1.0f / (1.0f + std::exp(-Y[I]));
    return;
  case Activation::Exp:
    for (size_t I = 0; I < N; ++I)
      Y[I] = std::exp(Y[I]);
    return;
  }
}

void ModelEvaluator::preprocess(const void *const *InputBuffers, size_t Column,
                                float *X) const {
  size_t K = 0;
  for (size_t In = 0; In < Inputs.size(); ++In) {
    const ModelInput &MI = Inputs[In];
    size_t N = MI.Spec.getElementCount();
    // A per-column model reads element Column (or the only one).
    size_t First = 0;
    if (PerColumn) {
      First = N == 1 ? 0 : Column;
      N = 1;
    }
    for (const Pipeline &P : MI.Pipelines)
      for (size_t E = First; E < First + N; ++E) {
        double V = loadElement(InputBuffers[In], MI.Spec.type(), E);
        for (const PreprocessStep &S : P)
          V = applyStep(S, V);
        X[K++] = static_cast<float>(V);
      }
  }
}

std::vector<float> ModelEvaluator::computeMLPInputs(const void *const *Inputs,
                                                    size_t Column) const {
  std::vector<float> X(NumMLPInputs);
  preprocess(Inputs, Column, X.data());
  return X;
}

float ModelEvaluator::evaluate(const void *const *InputBuffers, size_t Column) {
  float *X = BufA.data();
  preprocess(InputBuffers, Column, X);
  float *Y = BufB.data();
  for (const Layer &L : Layers) {
    denseLayer(L.WeightsT.data(), L.Bias.data(), X, Y, L.In, L.Out);
    activate(L.Act, Y, L.Out);
    std::swap(X, Y);
  }
  return X[0];
}

//===----------------------------------------------------------------------===//
// PolicyRunner
//===----------------------------------------------------------------------===//

static std::string describe(const TensorSpec &S) {
  std::string Out = toString(S.type()).str() + " [";
  for (size_t I = 0; I < S.shape().size(); ++I)
    Out += (I ? "," : "") + std::to_string(S.shape()[I]);
  return Out + "]";
}

PolicyRunner::PolicyRunner(Kind K, std::vector<TensorSpec> CompilerInputs,
                           TensorSpec OutputSpec, DecisionRule Rule,
                           const PolicyRunnerOptions &Options)
    : ModelRunner(K, std::move(CompilerInputs), Options.OnError),
      OutputSpec(std::move(OutputSpec)), Rule(std::move(Rule)),
      RandomState(Options.Seed),
      Explore(Options.ExplorationTemperature.has_value()) {
  if (Options.ExplorationTemperature && !this->Rule.isPerColumn()) {
    this->Rule.TheKind = DecisionRule::Kind::Sample;
    this->Rule.Temperature = *Options.ExplorationTemperature;
  }
}

Error PolicyRunner::bindInputs(ArrayRef<TensorSpec> ModelInputs,
                               StringRef ModelName) {
  if (Rule.TheKind == DecisionRule::Kind::Sample &&
      !(Rule.Temperature > 0 && std::isfinite(Rule.Temperature)))
    return makeError("exploration temperature must be positive and "
                     "finite");
  if (Rule.isPerColumn() && Explore)
    return makeError("model '" + ModelName +
                     "' chooses among columns; exploration by sampling is "
                     "for one-logit models");
  if (OutputSpec.getElementCount() != 1 ||
      OutputSpec.getTotalTensorBufferSize() > sizeof(Output))
    return makeError("model '" + ModelName +
                     "': the output must be one scalar");
  ModelInputBuffers.assign(ModelInputs.size(), nullptr);
  for (size_t I = 0; I < InputSpecs.size(); ++I) {
    const TensorSpec &Offered = InputSpecs[I];
    const TensorSpec *Needed = nullptr;
    size_t K = 0;
    for (; K < ModelInputs.size(); ++K)
      if (ModelInputs[K].name() == Offered.name()) {
        Needed = &ModelInputs[K];
        break;
      }
    if (!Needed || ModelInputBuffers[K]) {
      // Versioning: the model does not read this feature.
      setUpBufferForTensor(I, Offered, nullptr);
      continue;
    }
    if (Needed->type() != Offered.type() || Needed->shape() != Offered.shape())
      return makeError("model '" + ModelName + "' needs input '" +
                       Needed->name() + "' as " + describe(*Needed) +
                       ", but the compiler offers " + describe(Offered));
    size_t Words = (Offered.getTotalTensorBufferSize() + 7) / 8;
    Storage.push_back(std::make_unique<uint64_t[]>(Words ? Words : 1));
    setUpBufferForTensor(I, Offered, Storage.back().get());
    ModelInputBuffers[K] = Storage.back().get();
  }
  for (size_t K = 0; K < ModelInputs.size(); ++K) {
    if (!ModelInputBuffers[K])
      return makeError("model '" + ModelName + "' needs input '" +
                       ModelInputs[K].name() + "' (" +
                       describe(ModelInputs[K]) +
                       "), which the compiler does not offer");
    if (Rule.isPerColumn() && ModelInputs[K].name() == Rule.MaskName)
      Mask = static_cast<const int64_t *>(ModelInputBuffers[K]);
  }
  if (Rule.isPerColumn() && !Mask)
    return makeError("model '" + ModelName + "' has no mask input '" +
                     Rule.MaskName + "'");
  return Error::success();
}

float PolicyRunner::uniformFromState(uint64_t &State) {
  return static_cast<float>(splitMix64(State) >> 40) * 0x1p-24f;
}

template <typename T> static void storeDecision(void *Buffer, bool Decision) {
  T V = static_cast<T>(Decision ? 1 : 0);
  std::memcpy(Buffer, &V, sizeof(V));
}

size_t PolicyRunner::chooseColumn() {
  const size_t Columns = Rule.Columns;
  size_t Best = Columns;
  float BestLogit = 0;
  for (size_t C = 0; C < Columns; ++C) {
    if (!Mask[C])
      continue;
    float L = computeLogit(ModelInputBuffers.data(), C);
    // The first allowed column, then only a strictly larger number: ties
    // and NaNs keep the lowest index, and a NaN never wins over a number.
    if (Best == Columns ||
        (!std::isnan(L) && (std::isnan(BestLogit) || L > BestLogit))) {
      Best = C;
      BestLogit = L;
    }
  }
  if (Best == Columns)
    return Columns - 1;
  LastLogit = BestLogit;
  return Best;
}

void *PolicyRunner::evaluateUntyped() {
  if (Rule.isPerColumn()) {
    int64_t Index = static_cast<int64_t>(chooseColumn());
    std::memcpy(Output, &Index, sizeof(Index));
    LastProbability = 1;
    return Output;
  }
  LastLogit = computeLogit(ModelInputBuffers.data(), 0);
  bool Decision;
  if (Rule.TheKind == DecisionRule::Kind::Sample) {
    LastProbability = 1.0f / (1.0f + std::exp(-LastLogit / Rule.Temperature));
    Decision = uniformFromState(RandomState) < LastProbability;
  } else {
    Decision = LastLogit > Rule.Threshold;
    LastProbability = Decision ? 1.0f : 0.0f;
  }
  switch (OutputSpec.type()) {
#define MLGO_STORE_DECISION(CType, Name)                                       \
  case TensorType::Name:                                                       \
    storeDecision<CType>(Output, Decision);                                    \
    break;
    MLGO_TENSOR_TYPES(MLGO_STORE_DECISION)
#undef MLGO_STORE_DECISION
  case TensorType::Invalid:
    break;
  }
  return Output;
}

//===----------------------------------------------------------------------===//
// InterpretedRunner and EmbeddedRunner
//===----------------------------------------------------------------------===//

InterpretedRunner::InterpretedRunner(std::shared_ptr<const Model> M,
                                     std::vector<TensorSpec> CompilerInputs,
                                     const PolicyRunnerOptions &Options)
    : PolicyRunner(Kind::Interpreted, std::move(CompilerInputs), M->OutputSpec,
                   M->Decision, Options),
      TheModel(std::move(M)), Evaluator(*TheModel) {}

Expected<std::unique_ptr<InterpretedRunner>>
InterpretedRunner::create(std::shared_ptr<const Model> M,
                          std::vector<TensorSpec> CompilerInputs,
                          const PolicyRunnerOptions &Options) {
  if (Error E = M->validate(M->Metadata.Name))
    return E;
  std::unique_ptr<InterpretedRunner> R(
      new InterpretedRunner(M, std::move(CompilerInputs), Options));
  if (Error E = R->bindInputs(M->getInputSpecs(), M->Metadata.Name))
    return E;
  return R;
}

Expected<std::unique_ptr<InterpretedRunner>>
InterpretedRunner::create(StringRef Path,
                          std::vector<TensorSpec> CompilerInputs,
                          const PolicyRunnerOptions &Options) {
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  return create(std::make_shared<const Model>(std::move(*M)),
                std::move(CompilerInputs), Options);
}

float InterpretedRunner::computeLogit(const void *const *ModelInputs,
                                      size_t Column) {
  return Evaluator.evaluate(ModelInputs, Column);
}

static DecisionRule getEmbeddedDecisionRule(const EmbeddedModelInfo &Info) {
  DecisionRule R;
  R.TheKind = Info.DecisionRuleKind == 2   ? DecisionRule::Kind::MaskedArgmax
              : Info.DecisionRuleKind == 1 ? DecisionRule::Kind::Sample
                                           : DecisionRule::Kind::Threshold;
  R.Threshold = Info.DecisionThreshold;
  R.Temperature = Info.Temperature;
  R.Columns = Info.Columns;
  R.MaskName = Info.MaskName ? Info.MaskName : "";
  return R;
}

EmbeddedRunner::EmbeddedRunner(const EmbeddedModelInfo &Info,
                               TensorSpec OutputSpec,
                               std::vector<TensorSpec> CompilerInputs,
                               const PolicyRunnerOptions &Options)
    : PolicyRunner(Kind::Embedded, std::move(CompilerInputs),
                   std::move(OutputSpec), getEmbeddedDecisionRule(Info),
                   Options),
      Info(Info) {}

static Expected<TensorSpec> parseEmbeddedSpec(const char *JSON,
                                              StringRef ModelName) {
  Expected<json::Value> V = json::parse(JSON);
  if (!V)
    return makeError("embedded model '" + ModelName +
                     "': bad tensor spec: " + toString(V.takeError()));
  return TensorSpec::fromJSON(*V);
}

Expected<std::unique_ptr<EmbeddedRunner>>
EmbeddedRunner::create(const EmbeddedModelInfo &Info,
                       std::vector<TensorSpec> CompilerInputs,
                       const PolicyRunnerOptions &Options) {
  std::vector<TensorSpec> ModelInputs;
  for (size_t K = 0; K < Info.NumInputs; ++K) {
    Expected<TensorSpec> S = parseEmbeddedSpec(Info.InputSpecs[K], Info.Name);
    if (!S)
      return S.takeError();
    ModelInputs.push_back(std::move(*S));
  }
  Expected<TensorSpec> Out = parseEmbeddedSpec(Info.OutputSpec, Info.Name);
  if (!Out)
    return Out.takeError();
  std::unique_ptr<EmbeddedRunner> R(new EmbeddedRunner(
      Info, std::move(*Out), std::move(CompilerInputs), Options));
  if (Error E = R->bindInputs(ModelInputs, Info.Name))
    return E;
  return R;
}

} // namespace mlgo
