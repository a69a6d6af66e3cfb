//===- ModelSynth.cpp - Deterministic synthetic models --------------------===//
//
// Random-but-reproducible models for the tests and the benchmark (see
// mlgo/Model/ModelSynth.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/ModelSynth.h"
#include "mlgo/Model/SplitMix64.h"

#include <cmath>

namespace mlgo {

namespace {
/// splitmix64: tiny, fast and identical everywhere.
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() { return splitMix64(State); }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double Lo, double Hi) { return Lo + (Hi - Lo) * unit(); }
  size_t below(size_t N) { return static_cast<size_t>(next() % N); }

private:
  uint64_t State;
};
} // namespace

std::vector<TensorSpec> getMixedTestInputs() {
  return {TensorSpec::createSpec<int64_t>("i64_a", {1}),
          TensorSpec::createSpec<int64_t>("i64_b", {1}),
          TensorSpec::createSpec<int32_t>("i32", {1}),
          TensorSpec::createSpec<uint64_t>("u64", {1}),
          TensorSpec::createSpec<float>("f32", {1}),
          TensorSpec::createSpec<double>("f64", {1}),
          TensorSpec::createSpec<int64_t>("i64_vec", {3}),
          TensorSpec::createSpec<uint8_t>("u8", {1})};
}

std::vector<TensorSpec> getColumnsTestInputs() {
  const int64_t C = static_cast<int64_t>(ColumnsTestCount);
  return {TensorSpec::createSpec<int64_t>("mask", {C}),
          TensorSpec::createSpec<float>("weight", {C}),
          TensorSpec::createSpec<int64_t>("stage", {C}),
          TensorSpec::createSpec<float>("progress", {1})};
}

/// Quantile boundaries like those of a heavy-tailed integer feature:
/// repeated small values, then geometric growth.
static std::vector<double> makeBoundaries(Rng &R, size_t N) {
  std::vector<double> B;
  double V = -static_cast<double>(R.below(3));
  for (size_t I = 0; I < N; ++I) {
    B.push_back(V);
    if (R.below(4) != 0)
      V = std::floor(V + 1 + std::fabs(V) * R.uniform(0, 0.5));
  }
  return B;
}

static PreprocessStep makeStep(Rng &R, PreprocessStep::Op Op) {
  PreprocessStep S;
  S.TheOp = Op;
  switch (Op) {
  case PreprocessStep::Op::Standardize:
    S.Mean = R.uniform(-10, 10);
    S.StdDev = R.uniform(0.1, 10);
    break;
  case PreprocessStep::Op::Quantile:
    S.Boundaries = makeBoundaries(R, 1 + R.below(40));
    break;
  case PreprocessStep::Op::Clamp:
    S.Min = R.uniform(-1000, 0);
    S.Max = R.uniform(0, 1000);
    break;
  case PreprocessStep::Op::NanTo:
    S.Value = R.uniform(-2, 2);
    break;
  default:
    break;
  }
  return S;
}

Model synthesizeModel(const ModelSynthOptions &Options) {
  Rng R(Options.Seed);
  bool Columns = Options.TheStyle == ModelSynthOptions::Style::Columns;
  bool Mixed = Columns || Options.TheStyle == ModelSynthOptions::Style::Mixed;
  Model M;
  M.Metadata.Name = Options.Name;
  M.Metadata.Description =
      "Synthetic model with random weights (seed " +
      std::to_string(Options.Seed) +
      "), for tests and benchmarks only; it is not a policy.";
  M.Metadata.LLVMVersion = "19";
  std::string Hidden;
  for (size_t H : Options.Hidden)
    Hidden += (Hidden.empty() ? "" : ",") + std::to_string(H);
  M.Metadata.Recipe = std::string("mlgo-codegen --synthesize=") +
                      (Columns ? "columns"
                       : Mixed ? "mixed"
                               : "benchmark") +
                      " --hidden=" + Hidden +
                      " --seed=" + std::to_string(Options.Seed);
  M.Metadata.Seed = Options.Seed;
  for (size_t I = 0; I < Options.Inputs.size(); ++I) {
    ModelInput In{Options.Inputs[I], {}};
    if (Columns) {
      // The mask is read by the decision only.
      if (In.Spec.name() != "mask")
        for (size_t P = 0, E = 1 + R.below(2); P < E; ++P) {
          Pipeline Pipe{makeStep(R, PreprocessStep::Op::NanTo)};
          for (size_t S = 0, N = R.below(3); S < N; ++S)
            Pipe.push_back(
                makeStep(R, static_cast<PreprocessStep::Op>(R.below(6))));
          In.Pipelines.push_back(std::move(Pipe));
        }
    } else if (!Mixed) {
      if (I % 2 == 0)
        In.Pipelines.push_back({makeStep(R, PreprocessStep::Op::Quantile)});
      else
        In.Pipelines.push_back({makeStep(R, PreprocessStep::Op::Log1p),
                                makeStep(R, PreprocessStep::Op::Standardize)});
    } else {
      size_t NumPipes = I == 0 ? 1 : R.below(4);
      for (size_t P = 0; P < NumPipes; ++P) {
        Pipeline Pipe;
        for (size_t S = 0, E = R.below(4); S < E; ++S)
          Pipe.push_back(
              makeStep(R, static_cast<PreprocessStep::Op>(R.below(6))));
        In.Pipelines.push_back(std::move(Pipe));
      }
    }
    M.Inputs.push_back(std::move(In));
  }
  if (Columns) {
    M.OutputSpec = TensorSpec::createSpec<int64_t>("index", {1});
    M.Decision.TheKind = DecisionRule::Kind::MaskedArgmax;
    M.Decision.Columns = ColumnsTestCount;
    M.Decision.MaskName = "mask";
  }
  std::vector<size_t> Sizes = Options.Hidden;
  Sizes.push_back(1);
  size_t In = M.getNumMLPInputs();
  for (size_t L = 0; L < Sizes.size(); ++L) {
    DenseLayer Layer;
    Layer.In = In;
    Layer.Out = Sizes[L];
    bool Last = L + 1 == Sizes.size();
    Layer.Act =
        Last ? Activation::Linear
             : (Mixed ? static_cast<Activation>(R.below(4)) : Activation::Relu);
    double Scale = 1.0 / std::sqrt(static_cast<double>(In));
    for (size_t W = 0; W < Layer.In * Layer.Out; ++W)
      Layer.Weights.push_back(static_cast<float>(R.uniform(-Scale, Scale)));
    for (size_t B = 0; B < Layer.Out; ++B)
      Layer.Bias.push_back(static_cast<float>(R.uniform(-0.1, 0.1)));
    M.Layers.push_back(std::move(Layer));
    In = Sizes[L];
  }
  return M;
}

} // namespace mlgo
