//===- TieBreak.cpp - When LLVM's normalization erases weights ------------===//
//
// See mlgo/RegAllocModel/TieBreak.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/TieBreak.h"

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <Eigen/Dense>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

using namespace llvm;

namespace mlgo::regalloc {
namespace {

using F = EvictionFeature;
/// The features the tie-breaker reads, in weight order.
constexpr EvictionFeature TieFeatures[] = {F::weighed_reads_by_max,
                                           F::weighed_writes_by_max,
                                           F::weighed_read_writes_by_max,
                                           F::weighed_indvars_by_max,
                                           F::hint_weights_by_max,
                                           F::start_bb_freq_by_max,
                                           F::end_bb_freq_by_max,
                                           F::hottest_bb_freq_by_max,
                                           F::liverange_size,
                                           F::nr_defs_and_uses,
                                           F::nr_rematerializable};
constexpr size_t NumFeatures = std::size(TieFeatures);
/// Their names, in the same order.
constexpr auto Features = [] {
  std::array<const char *, NumFeatures> Names{};
  for (size_t K = 0; K < NumFeatures; ++K)
    Names[K] = getEvictionFeatureName(TieFeatures[K]);
  return Names;
}();
constexpr size_t Columns = EvictionColumns, LiveRange = EvictionLiveRangeColumn;
constexpr double Spread = 1e-6;

/// The tie-breaker's pipeline on one value, as the model computes it:
/// nan_to 0, standardize(0, Spread), log1p.
double transform(float X) {
  double V = std::isnan(X) ? 0.0 : static_cast<double>(X);
  V = V / Spread;
  return std::copysign(std::log1p(std::fabs(V)), V);
}

Pipeline getPipeline() {
  PreprocessStep NanTo, Standardize, Log;
  NanTo.TheOp = PreprocessStep::Op::NanTo;
  NanTo.Value = 0;
  Standardize.TheOp = PreprocessStep::Op::Standardize;
  Standardize.Mean = 0;
  Standardize.StdDev = Spread;
  Log.TheOp = PreprocessStep::Op::Log1p;
  return {NanTo, Standardize, Log};
}

} // namespace

ArrayRef<const char *> getTieBreakFeatures() { return Features; }

Error TieBreakFitter::addLog(StringRef Path) {
  Expected<std::unique_ptr<LogReader>> R = LogReader::open(Path);
  if (!R)
    return R.takeError();
  return addLog(**R);
}

Error TieBreakFitter::addLog(LogReader &Reader) {
  LogReader *R = &Reader;
  StringRef Path = Reader.getName();
  const LogHeader &H = R->getHeader();
  auto Find = [&](StringRef Name, TensorType Type, size_t &Index) -> Error {
    std::optional<size_t> I = H.findFeature(Name);
    if (!I || H.Features[*I].type() != Type ||
        H.Features[*I].getElementCount() != Columns)
      return makeError(Path + ": not an eviction log: no feature '" + Name +
                       "' of " + Twine(Columns) + " elements");
    Index = *I;
    return Error::success();
  };
  size_t Mask = 0, Density = 0, Cols[NumFeatures] = {};
  if (Error E = Find(getEvictionFeatureName(F::mask), TensorType::Int64, Mask))
    return E;
  if (Error E = Find(getEvictionFeatureName(F::use_def_density),
                     TensorType::Float, Density))
    return E;
  for (size_t K = 0; K < NumFeatures; ++K)
    if (Error E = Find(Features[K], TensorType::Float, Cols[K]))
      return E;

  auto Floats = [&](size_t Feature) {
    float V[Columns];
    std::memcpy(V, R->getFeatureData(Feature), sizeof(V));
    return std::vector<float>(V, V + Columns);
  };
  while (true) {
    Expected<const LogRecord &> Rec = R->next();
    if (!Rec)
      return Rec.takeError();
    if (Rec->TheKind == LogRecord::Kind::End)
      return Error::success();
    if (Rec->TheKind != LogRecord::Kind::Observation)
      continue;
    ++Observations;
    int64_t M[Columns];
    std::memcpy(M, R->getFeatureData(Mask), sizeof(M));
    std::vector<float> D = Floats(Density);
    bool Intact = true;
    for (float V : D)
      Intact &= !std::isnan(V);
    if (!Intact) {
      ++Erased;
      continue;
    }
    if (!M[LiveRange])
      continue;
    std::vector<std::vector<float>> X;
    for (size_t K = 0; K < NumFeatures; ++K)
      X.push_back(Floats(Cols[K]));
    for (size_t C = 0; C < LiveRange; ++C) {
      if (!M[C] || D[C] == D[LiveRange])
        continue;
      double Row[NumFeatures];
      bool Finite = true;
      for (size_t K = 0; K < NumFeatures; ++K) {
        Row[K] = transform(X[K][C]) - transform(X[K][LiveRange]);
        Finite &= std::isfinite(Row[K]);
      }
      // LLVM's features are finite; a log that is not (written by hand)
      // has nothing to teach.
      if (!Finite)
        continue;
      Rows.insert(Rows.end(), Row, Row + NumFeatures);
      Signs.push_back(D[C] < D[LiveRange] ? 1.0 : -1.0);
    }
  }
}

Expected<TieBreakFit> TieBreakFitter::fit() const {
  const size_t N = Signs.size();
  if (N < 10 * NumFeatures)
    return makeError(formatv("{0} (candidate, live range) pairs with an "
                             "intact density in {1} decisions: too few to "
                             "fit the tie-breaker's {2} weights",
                             N, Observations, NumFeatures)
                         .str());
  using Matrix =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const Matrix> X(Rows.data(), N, NumFeatures);
  Eigen::Map<const Eigen::VectorXd> Y(Signs.data(), N);
  // Normal equations with a small ridge, so that a feature constant over
  // the pairs (e.g. no induction variables anywhere) gets weight 0.
  Eigen::MatrixXd A = X.transpose() * X;
  A.diagonal().array() += 1e-9 * (A.trace() / NumFeatures + 1.0);
  Eigen::VectorXd W = A.ldlt().solve(X.transpose() * Y);
  TieBreakFit F;
  F.Weights.assign(W.data(), W.data() + NumFeatures);
  F.Observations = Observations;
  F.Erased = Erased;
  F.Pairs = N;
  Eigen::VectorXd P = X * W;
  size_t Right = 0;
  for (size_t I = 0; I < N; ++I)
    Right += (P[I] > 0) == (Y[I] > 0);
  F.Accuracy = static_cast<double>(Right) / static_cast<double>(N);
  return F;
}

Expected<Model> addTieBreak(const Model &Base, const TieBreakFit &Fit,
                            double Scale) {
  if (!Base.Decision.isPerColumn() || Base.Layers.size() != 1 ||
      Base.Layers[0].Out != 1)
    return makeError("the tie-breaker goes into per-column models with one "
                     "linear layer");
  if (Fit.Weights.size() != NumFeatures)
    return makeError("a tie-breaker fit has " + Twine(NumFeatures) +
                     " weights");
  Model M = Base;
  size_t Offset = 0;
  for (ModelInput &In : M.Inputs) {
    const size_t Values = In.Pipelines.size();
    for (size_t K = 0; K < NumFeatures; ++K) {
      if (In.Spec.name() != Features[K])
        continue;
      if (Values != 1)
        return makeError("the model reads '" + In.Spec.name() + "' through " +
                         Twine(Values) +
                         " pipelines; the tie-breaker replaces exactly one");
      In.Pipelines[0] = getPipeline();
      M.Layers[0].Weights[Offset] = static_cast<float>(Scale * Fit.Weights[K]);
    }
    Offset += Values;
  }
  for (const char *Name : Features)
    if (llvm::none_of(M.Inputs, [&](const ModelInput &In) {
          return In.Spec.name() == Name;
        }))
      return makeError(Twine("the model does not read '") + Name +
                       "', which the tie-breaker needs");
  if (Error E = M.validate())
    return E;
  return M;
}

} // namespace mlgo::regalloc
