//===- Optimizer.cpp - Adam and SGD on a flat vector ----------------------===//

#include "mlgo/Learn/Optimizer.h"

#include "mlgo/Support/Error.h"

#include <cassert>
#include <cmath>

using namespace llvm;

namespace mlgo {
namespace learn {

Optimizer::Optimizer(size_t NumParameters, const OptimizerOptions &Options)
    : Options(Options) {
  if (Options.TheKind == OptimizerOptions::Kind::Adam) {
    M.assign(NumParameters, 0.0);
    V.assign(NumParameters, 0.0);
  }
}

void Optimizer::step(MutableArrayRef<double> Theta, ArrayRef<double> Grad) {
  assert(Theta.size() == Grad.size() && "one gradient entry per parameter");
  ++T;
  double LR = Options.LearningRate;
  if (Options.TheKind == OptimizerOptions::Kind::SGD) {
    for (size_t I = 0; I < Theta.size(); ++I)
      Theta[I] -= LR * Grad[I];
    return;
  }
  assert(M.size() == Theta.size() && "optimizer built for another size");
  double B1 = Options.Beta1, B2 = Options.Beta2;
  double C1 = 1.0 - std::pow(B1, static_cast<double>(T));
  double C2 = 1.0 - std::pow(B2, static_cast<double>(T));
  for (size_t I = 0; I < Theta.size(); ++I) {
    double G = Grad[I];
    M[I] = B1 * M[I] + (1.0 - B1) * G;
    V[I] = B2 * V[I] + (1.0 - B2) * (G * G);
    double MHat = M[I] / C1;
    double VHat = V[I] / C2;
    Theta[I] -= LR * MHat / (std::sqrt(VHat) + Options.Epsilon);
  }
}

void Optimizer::saveState(Checkpoint &C, StringRef Prefix) const {
  C.setF64s((Prefix + "adam_m").str(), M);
  C.setF64s((Prefix + "adam_v").str(), V);
  C.setU64((Prefix + "steps").str(), T);
}

Error Optimizer::loadState(const Checkpoint &C, StringRef Prefix) {
  Expected<std::vector<double>> NewM = C.getF64s((Prefix + "adam_m").str());
  if (!NewM)
    return NewM.takeError();
  Expected<std::vector<double>> NewV = C.getF64s((Prefix + "adam_v").str());
  if (!NewV)
    return NewV.takeError();
  Expected<uint64_t> NewT = C.getU64((Prefix + "steps").str());
  if (!NewT)
    return NewT.takeError();
  if (NewM->size() != M.size() || NewV->size() != V.size())
    return makeError("checkpoint optimizer state '" + Prefix + "' has " +
                     Twine(NewM->size()) + " parameters, expected " +
                     Twine(M.size()));
  M = std::move(*NewM);
  V = std::move(*NewV);
  T = *NewT;
  return Error::success();
}

} // namespace learn
} // namespace mlgo
