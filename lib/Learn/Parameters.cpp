//===- Parameters.cpp - A model's weights as one vector -------------------===//

#include "mlgo/Learn/Parameters.h"

#include "mlgo/Support/Error.h"

#include <cmath>

using namespace llvm;

namespace mlgo {
namespace learn {

std::vector<double> getModelParameters(const Model &M) {
  std::vector<double> Theta;
  Theta.reserve(M.getNumParameters());
  for (const DenseLayer &L : M.Layers) {
    Theta.insert(Theta.end(), L.Weights.begin(), L.Weights.end());
    Theta.insert(Theta.end(), L.Bias.begin(), L.Bias.end());
  }
  return Theta;
}

Error setModelParameters(Model &M, ArrayRef<double> Theta) {
  size_t Expected = 0;
  for (const DenseLayer &L : M.Layers)
    Expected += L.In * L.Out + L.Out;
  if (Theta.size() != Expected)
    return makeError("model '" + M.Metadata.Name + "' has " + Twine(Expected) +
                     " parameters, got " + Twine(Theta.size()));
  for (size_t I = 0; I < Theta.size(); ++I)
    if (!std::isfinite(static_cast<float>(Theta[I])))
      return makeError("parameter " + Twine(I) + " is not a finite float");
  size_t K = 0;
  for (DenseLayer &L : M.Layers) {
    for (float &W : L.Weights)
      W = static_cast<float>(Theta[K++]);
    for (float &B : L.Bias)
      B = static_cast<float>(Theta[K++]);
  }
  return Error::success();
}

} // namespace learn
} // namespace mlgo
