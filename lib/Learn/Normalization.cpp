//===- Normalization.cpp - Fitting feature preprocessing ------------------===//
//
// See mlgo/Learn/Normalization.h. apply() must match applyStep() in
// lib/Model/PolicyRunner.cpp operation for operation; this file is built
// with -ffp-contract=off like that one (lib/Learn/CMakeLists.txt), and
// unittests/Learn/NormalizationTest.cpp compares the two bit for bit.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Normalization.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace llvm;

namespace mlgo {
namespace learn {

static double symmetricLog1p(double V) {
  return std::copysign(std::log1p(std::fabs(V)), V);
}

Pipeline FeatureScaling::toPipeline() const {
  Pipeline P;
  if (Raw)
    return P;
  if (Log1p) {
    PreprocessStep L;
    L.TheOp = PreprocessStep::Op::Log1p;
    P.push_back(L);
  }
  PreprocessStep S;
  S.TheOp = PreprocessStep::Op::Standardize;
  S.Mean = Mean;
  S.StdDev = StdDev;
  P.push_back(S);
  return P;
}

float FeatureScaling::apply(double V) const {
  if (Raw)
    return static_cast<float>(V);
  if (Log1p)
    V = symmetricLog1p(V);
  V = (V - Mean) / StdDev;
  return static_cast<float>(V);
}

std::vector<FeatureScaling> fitNormalization(const Dataset &D,
                                             const NormalizationOptions &O) {
  assert(!D.empty() && "cannot fit a normalization to no rows");
  size_t F = D.getNumFeatures(), N = D.size();
  std::vector<FeatureScaling> Out(F);
  for (size_t I : O.RawFeatures) {
    assert(I < F && "raw feature index out of range");
    Out[I].Raw = true;
  }
  for (size_t J = 0; J < F; ++J) {
    FeatureScaling &S = Out[J];
    if (S.Raw)
      continue;
    S.Log1p = O.Log1p;
    auto U = [&](size_t Row) {
      double V = D.feature(Row, J);
      return S.Log1p ? symmetricLog1p(V) : V;
    };
    double Sum = 0;
    for (size_t R = 0; R < N; ++R)
      Sum += U(R);
    double Mean = Sum / static_cast<double>(N);
    double SumSq = 0;
    for (size_t R = 0; R < N; ++R) {
      double Dev = U(R) - Mean;
      SumSq += Dev * Dev;
    }
    double StdDev = std::sqrt(SumSq / static_cast<double>(N));
    S.Mean = Mean;
    S.StdDev = (StdDev < O.MinStdDev || !std::isfinite(StdDev)) ? 1.0 : StdDev;
  }
  return Out;
}

void normalizeRow(ArrayRef<FeatureScaling> Scalings, ArrayRef<float> Row,
                  double *Out) {
  assert(Scalings.size() == Row.size() && "one scaling per feature");
  for (size_t J = 0; J < Row.size(); ++J)
    Out[J] = Scalings[J].apply(Row[J]);
}

std::vector<ModelInput> makeModelInputs(ArrayRef<TensorSpec> Specs,
                                        ArrayRef<FeatureScaling> S) {
  assert(Specs.size() == S.size() && "one spec per feature");
  std::vector<ModelInput> Inputs;
  for (size_t J = 0; J < Specs.size(); ++J) {
    assert(Specs[J].getElementCount() == 1 && "features are scalars");
    ModelInput MI{Specs[J], {S[J].toPipeline()}};
    Inputs.push_back(std::move(MI));
  }
  return Inputs;
}

} // namespace learn
} // namespace mlgo
