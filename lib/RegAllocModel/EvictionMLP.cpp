//===- lib/RegAllocModel/EvictionMLP.cpp - Eviction models as MLPs --------===//
//
// The searched parameters of a per-column eviction model, and a linear one
// widened into an MLP with the same decisions (EvictionMLP.h says why the
// widening is exact).
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/EvictionMLP.h"

#include "mlgo/Model/SplitMix64.h"
#include "mlgo/Support/Error.h"

#include <cassert>
#include <cmath>

using namespace llvm;

namespace mlgo::regalloc {

std::vector<float> getSearchedParameters(const Model &M) {
  assert(!M.Layers.empty() && "a model has at least one layer");
  std::vector<float> P;
  for (const DenseLayer &L : M.Layers)
    P.insert(P.end(), L.Weights.begin(), L.Weights.end());
  for (size_t K = 0; K + 1 < M.Layers.size(); ++K)
    P.insert(P.end(), M.Layers[K].Bias.begin(), M.Layers[K].Bias.end());
  return P;
}

Model withSearchedParameters(const Model &M, ArrayRef<float> P) {
  Model Out = M;
  size_t At = 0;
  auto Take = [&](std::vector<float> &Into) {
    assert(At + Into.size() <= P.size() && "too few parameters");
    std::copy(P.begin() + At, P.begin() + At + Into.size(), Into.begin());
    At += Into.size();
  };
  for (DenseLayer &L : Out.Layers)
    Take(L.Weights);
  for (size_t K = 0; K + 1 < Out.Layers.size(); ++K)
    Take(Out.Layers[K].Bias);
  assert(At == P.size() && "too many parameters");
  return Out;
}

Expected<Model> widenToMLP(const Model &Linear, unsigned Extra, uint64_t Seed) {
  if (!Linear.Decision.isPerColumn() || Linear.Layers.size() != 1 ||
      Linear.Layers[0].Out != 1 || Linear.Layers[0].Act != Activation::Linear)
    return makeError("'" + Linear.Metadata.Name +
                     "': only a per-column model with one linear layer "
                     "widens into an MLP (it has " +
                     Twine(Linear.Layers.size()) + " layers)");
  const DenseLayer &S = Linear.Layers[0];
  DenseLayer Hidden;
  Hidden.In = S.In;
  Hidden.Out = 2 + Extra;
  Hidden.Act = Activation::Relu;
  Hidden.Weights.reserve(Hidden.In * Hidden.Out);
  // h0 = relu(s), h1 = relu(-s): the same products, negated, summed in
  // the same order.
  Hidden.Weights.insert(Hidden.Weights.end(), S.Weights.begin(),
                        S.Weights.end());
  for (float W : S.Weights)
    Hidden.Weights.push_back(-W);
  Hidden.Bias = {S.Bias[0], -S.Bias[0]};
  float Range = 1 / std::sqrt(static_cast<float>(S.In));
  uint64_t State = Seed;
  for (unsigned K = 0; K < Extra; ++K) {
    for (size_t I = 0; I < S.In; ++I) {
      // 24 random bits: a uniform float in [-Range, Range).
      float U = static_cast<float>(splitMix64(State) >> 40) * 0x1p-24f;
      Hidden.Weights.push_back((2 * U - 1) * Range);
    }
    Hidden.Bias.push_back(0);
  }
  DenseLayer Output;
  Output.In = Hidden.Out;
  Output.Out = 1;
  Output.Act = Activation::Linear;
  Output.Weights.assign(Hidden.Out, 0.0f);
  Output.Weights[0] = 1;
  Output.Weights[1] = -1;
  Output.Bias = {0};
  Model Out = Linear;
  Out.Layers = {std::move(Hidden), std::move(Output)};
  return Out;
}

} // namespace mlgo::regalloc
