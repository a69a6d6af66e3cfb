//===- lib/Learn/FlipPolicy.cpp - "Heuristic unless" as one MLP -----------===//
//
// The construction and why it is exact are in mlgo/Learn/FlipPolicy.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/FlipPolicy.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace mlgo {
namespace learn {

/// The big constant of the construction (see the header): 2^24.
static constexpr float BigM = 16777216.0f;

/// Both entry points: \p Tau[C] is the tau of the branch gated by carry C
/// (carry 0 is d, so it gates the d = 1 branch off: r0 and r1 are d = 0's).
static Expected<Model> build(const Model &G, const float Tau[2],
                             StringRef DefaultFeature, FlipScope Scope) {
  if (Error E = G.validate("scorer"))
    return E;
  if (G.Layers.size() < 2)
    return makeError("flip policy: the scorer needs a hidden layer");
  if (G.Layers.back().Act != Activation::Linear)
    return makeError("flip policy: the scorer's output layer must be linear");
  for (size_t I = 0; I + 1 < G.Layers.size(); ++I)
    if (G.Layers[I].Act != Activation::Relu)
      return makeError("flip policy: the scorer's hidden layers must be relu");
  // The MLP input position of the raw default decision.
  std::optional<size_t> DefaultPos;
  size_t Pos = 0;
  for (const ModelInput &In : G.Inputs) {
    if (In.Spec.name() == DefaultFeature) {
      if (In.Spec.getElementCount() != 1 || In.Pipelines.size() != 1 ||
          !In.Pipelines[0].empty())
        return makeError("flip policy: input '" + DefaultFeature +
                         "' must be one raw value (one empty pipeline)");
      DefaultPos = Pos;
    }
    Pos += In.getNumValues();
  }
  if (!DefaultPos)
    return makeError("flip policy: the scorer does not read '" +
                     DefaultFeature + "'");
  for (size_t C = 0; C < 2; ++C)
    if (!(Tau[C] > -BigM / 4 && Tau[C] <= NeverFlip))
      return makeError("flip policy: tau must lie in (-2^22, 2^22]");

  Model P;
  P.Metadata = G.Metadata;
  P.Inputs = G.Inputs;
  P.OutputSpec = G.OutputSpec;
  P.Decision.TheKind = DecisionRule::Kind::Threshold;
  P.Decision.Threshold = 0;

  // Hidden layers: g's units, then the carries c0 = d and c1 = 1 - d.
  for (size_t I = 0; I + 1 < G.Layers.size(); ++I) {
    const DenseLayer &L = G.Layers[I];
    DenseLayer N;
    N.In = I == 0 ? L.In : L.In + 2;
    N.Out = L.Out + 2;
    N.Act = Activation::Relu;
    N.Weights.assign(N.Out * N.In, 0.0f);
    N.Bias.assign(N.Out, 0.0f);
    for (size_t O = 0; O < L.Out; ++O) {
      for (size_t K = 0; K < L.In; ++K)
        N.Weights[O * N.In + K] = L.weight(O, K);
      N.Bias[O] = L.Bias[O];
    }
    size_t C0 = L.Out, C1 = L.Out + 1;
    if (I == 0) {
      N.Weights[C0 * N.In + *DefaultPos] = 1.0f;
      N.Weights[C1 * N.In + *DefaultPos] = -1.0f;
      N.Bias[C1] = 1.0f;
    } else {
      N.Weights[C0 * N.In + L.In] = 1.0f;
      N.Weights[C1 * N.In + L.In + 1] = 1.0f;
    }
    P.Layers.push_back(std::move(N));
  }

  // g's output layer becomes r0..r3.
  const DenseLayer &Out = G.Layers.back();
  DenseLayer R;
  R.In = Out.In + 2;
  R.Out = 4;
  R.Act = Activation::Relu;
  R.Weights.assign(4 * R.In, 0.0f);
  R.Bias.assign(4, 0.0f);
  // Sign of h in each unit, and which carry gates it.
  const float Sign[4] = {1, -1, 1, -1};
  const size_t Carry[4] = {0, 0, 1, 1};
  for (size_t U = 0; U < 4; ++U) {
    R.Weights[U * R.In + Out.In + Carry[U]] = -BigM;
    // A branch outside the scope does not depend on g: d = 0 gets h = 0
    // (L = 0, "no"), d = 1 gets h = -1 (L = 1, "yes").
    bool Frozen = (Scope == FlipScope::InlineOnly && Carry[U] == 0) ||
                  (Scope == FlipScope::NoInlineOnly && Carry[U] == 1);
    if (Frozen) {
      R.Bias[U] = Carry[U] == 1 ? Sign[U] * -1.0f : 0.0f;
      continue;
    }
    for (size_t K = 0; K < Out.In; ++K)
      R.Weights[U * R.In + K] = Sign[U] * Out.weight(0, K);
    R.Bias[U] = Sign[U] * (Out.Bias[0] - Tau[Carry[U]]);
  }
  P.Layers.push_back(std::move(R));

  DenseLayer L;
  L.In = 4;
  L.Out = 1;
  L.Act = Activation::Linear;
  L.Weights = {1, -1, -1, 1};
  L.Bias = {0};
  P.Layers.push_back(std::move(L));
  if (Error E = P.validate("flip policy"))
    return E;
  return P;
}

Expected<Model> buildFlipPolicy(const Model &G, float Tau,
                                StringRef DefaultFeature, FlipScope Scope) {
  const float Taus[2] = {Tau, Tau};
  return build(G, Taus, DefaultFeature, Scope);
}

Expected<Model> buildFlipPolicyPerBranch(const Model &G, float TauNoInline,
                                         float TauInline,
                                         StringRef DefaultFeature) {
  const float Taus[2] = {TauNoInline, TauInline};
  return build(G, Taus, DefaultFeature, FlipScope::Both);
}

} // namespace learn
} // namespace mlgo
