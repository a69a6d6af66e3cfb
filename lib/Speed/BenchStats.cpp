//===- lib/Speed/BenchStats.cpp - Statistics of timed runs ----------------===//
//
// See mlgo/Speed/BenchStats.h: medians, paired ratios, the percentile
// bootstrap and the stopping rule of `mlgo bench`.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/BenchStats.h"

#include "mlgo/Model/SplitMix64.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace mlgo {
namespace speed {

namespace {

/// The median of \p Values, reordering them.
double medianInPlace(std::vector<double> &Values) {
  assert(!Values.empty() && "the median of nothing");
  size_t Mid = Values.size() / 2;
  std::nth_element(Values.begin(), Values.begin() + Mid, Values.end());
  double Upper = Values[Mid];
  if (Values.size() % 2)
    return Upper;
  // The largest value below the upper middle one.
  double Lower = *std::max_element(Values.begin(), Values.begin() + Mid);
  return (Lower + Upper) / 2;
}

} // namespace

double median(std::vector<double> Values) { return medianInPlace(Values); }

std::vector<double> pairedRatios(const std::vector<double> &Times,
                                 const std::vector<double> &Baseline) {
  assert(Times.size() == Baseline.size() && "ratios of unpaired rounds");
  std::vector<double> Ratios;
  Ratios.reserve(Times.size());
  for (size_t I = 0; I < Times.size(); ++I) {
    if (Baseline[I] == 0)
      Ratios.push_back(Times[I] == 0 ? 1
                                     : std::numeric_limits<double>::infinity());
    else
      Ratios.push_back(Times[I] / Baseline[I]);
  }
  return Ratios;
}

RatioEstimate bootstrapMedian(const std::vector<double> &Ratios, uint64_t Seed,
                              unsigned Resamples, double Confidence) {
  assert(!Ratios.empty() && Resamples > 0 && "nothing to resample");
  assert(Confidence > 0 && Confidence < 1 && "a confidence is a fraction");
  RatioEstimate E;
  E.Median = median(Ratios);
  uint64_t State = Seed;
  size_t N = Ratios.size();
  std::vector<double> Sample(N), Medians;
  Medians.reserve(Resamples);
  for (unsigned R = 0; R < Resamples; ++R) {
    // Modulo bias: at most N / 2^64, far below what the interval resolves.
    for (size_t I = 0; I < N; ++I)
      Sample[I] = Ratios[splitMix64(State) % N];
    Medians.push_back(medianInPlace(Sample));
  }
  std::sort(Medians.begin(), Medians.end());
  size_t Tail = static_cast<size_t>(
      std::llround(double(Resamples) * (1 - Confidence) / 2));
  Tail = std::min<size_t>(Tail, (Resamples - 1) / 2);
  E.CI = {Medians[Tail], Medians[Resamples - 1 - Tail]};
  return E;
}

Verdict judge(const Interval &CI) {
  if (CI.Low > 1)
    return Verdict::Slower;
  if (CI.High < 1)
    return Verdict::Faster;
  return Verdict::NoMeasurableDifference;
}

const char *describe(Verdict V) {
  switch (V) {
  case Verdict::Slower:
    return "slower";
  case Verdict::Faster:
    return "faster";
  case Verdict::NoMeasurableDifference:
    return "no measurable difference";
  }
  return "";
}

std::string describe(StopReason R, const StoppingRule &Rule) {
  std::ostringstream OS;
  switch (R) {
  case StopReason::KeepGoing:
    OS << "not stopped";
    break;
  case StopReason::Converged:
    OS << "every interval narrower than " << Rule.CIWidth;
    break;
  case StopReason::MaxRounds:
    OS << "at the cap of " << Rule.MaxRounds << " rounds";
    break;
  case StopReason::MaxSeconds:
    OS << "at the cap of " << Rule.MaxSeconds << " s";
    break;
  }
  return OS.str();
}

StopReason shouldStop(const StoppingRule &Rule, unsigned Rounds, double Elapsed,
                      const std::vector<RatioEstimate> &Estimates) {
  if (Rounds >= Rule.MinRounds &&
      std::all_of(
          Estimates.begin(), Estimates.end(),
          [&](const RatioEstimate &E) { return E.CI.width() <= Rule.CIWidth; }))
    return StopReason::Converged;
  if (Rule.MaxRounds && Rounds >= Rule.MaxRounds)
    return StopReason::MaxRounds;
  if (Rule.MaxSeconds > 0 && Elapsed >= Rule.MaxSeconds)
    return StopReason::MaxSeconds;
  return StopReason::KeepGoing;
}

std::vector<unsigned> roundOrder(unsigned N, uint64_t &State) {
  std::vector<unsigned> Order(N);
  std::iota(Order.begin(), Order.end(), 0u);
  for (unsigned I = N; I > 1; --I)
    std::swap(Order[I - 1], Order[splitMix64(State) % I]);
  return Order;
}

} // namespace speed
} // namespace mlgo
