//===- mlgo/Model/ModelSynth.h - Synthetic models ---------------*- C++ -*-===//
//
// Deterministic random models for tests and benchmarks: the same options give
// the same model, bit for bit, on every platform (the generator is
// splitmix64, not <random>'s implementation-defined distributions). They
// exercise the format and the runners; they are not policies.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_MODELSYNTH_H
#define MLGO_MODEL_MODELSYNTH_H

#include "mlgo/Model/Model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

struct ModelSynthOptions {
  enum class Style {
    /// One pipeline per input, alternating ml-compiler-opt's quantile rank
    /// and log1p + standardize; hidden layers relu. The benchmark's model.
    Benchmark,
    /// Random pipelines (zero to three, of zero to three steps of every
    /// kind) and a random activation per layer. The bit-identity test's
    /// model.
    Mixed,
    /// A per-column "masked_argmax" model over getColumnsTestInputs():
    /// every pipeline starts with nan_to, then random steps. The
    /// bit-identity test's per-column model.
    Columns,
  };
  Style TheStyle = Style::Benchmark;
  std::string Name = "synthetic";
  std::vector<TensorSpec> Inputs;
  std::vector<size_t> Hidden = {64, 64};
  uint64_t Seed = 1;
};

/// Builds a valid model as \p Options describes.
Model synthesizeModel(const ModelSynthOptions &Options);

/// The input specs of the "Mixed" test model: several scalar types, a
/// multi-element input.
std::vector<TensorSpec> getMixedTestInputs();

/// The input specs of the "Columns" test model: an int64 "mask" and two
/// other per-column inputs of ColumnsTestCount elements, and one scalar.
constexpr size_t ColumnsTestCount = 9;
std::vector<TensorSpec> getColumnsTestInputs();

} // namespace mlgo

#endif // MLGO_MODEL_MODELSYNTH_H
