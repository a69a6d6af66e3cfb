//===- mlgo/Speed/BenchStats.h - Statistics of timed runs -------*- C++ -*-===//
//
// The statistics of `mlgo bench` (mlgo/Speed/TimeBench.h), as value code
// over plain numbers: no process, no clock, no LLVM, so that every rule is
// tested over made-up timings with exact results.
//
// Builds are timed in rounds: every round runs each build once, in an order
// drawn afresh (roundOrder), so that a slow drift of the machine (another
// job starting, the CPU warming) falls on every build alike rather than on
// whichever always runs second. Each round gives one paired ratio per build
// (its time over the baseline's - the first build's - in the same round);
// pairing cancels what the round's moment did to both.
//
// The estimate is the median of those ratios: a run that another process
// preempted is an outlier the median ignores and a mean does not. Its 95%
// confidence interval is a percentile bootstrap: the rounds are resampled
// with replacement (Resamples times, indices drawn by splitMix64 from a
// seed, so the interval is a function of the timings and the seed alone),
// the median of each resample taken, and the interval is the
// round(Resamples * (1 - Confidence) / 2)-th smallest of those medians to
// the as-many-th largest (0-based: [50], [1949] of 2000 resamples).
//
// A difference is called only when the interval excludes 1 (judge); a
// build whose interval holds 1 has "no measurable difference", however far
// its median lies from 1. Measurement stops (shouldStop) once every build's
// interval is narrower than the requested width, after at least MinRounds
// rounds - or at a cap on rounds or seconds, and the report says which.
// With identical builds the interval still misses 1 in about 5% of benches:
// that is what 95% means.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_BENCHSTATS_H
#define MLGO_SPEED_BENCHSTATS_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {
namespace speed {

/// The median of \p Values: the middle value, or the mean of the two middle
/// values of an even count. \p Values must not be empty.
double median(std::vector<double> Values);

/// Times[I] / Baseline[I] for each round I (both of one length; a baseline
/// time of 0 gives a ratio of 1 if the time is 0 too, else infinity).
std::vector<double> pairedRatios(const std::vector<double> &Times,
                                 const std::vector<double> &Baseline);

/// A closed interval [Low, High].
struct Interval {
  double Low = 0;
  double High = 0;
  double width() const { return High - Low; }
  bool contains(double X) const { return Low <= X && X <= High; }
};

/// The median of a build's ratios to the baseline and its interval.
struct RatioEstimate {
  double Median = 1;
  Interval CI{1, 1};
};

/// The median of \p Ratios with its percentile bootstrap interval at
/// \p Confidence (see the file comment). \p Ratios must not be empty.
RatioEstimate bootstrapMedian(const std::vector<double> &Ratios, uint64_t Seed,
                              unsigned Resamples = 2000,
                              double Confidence = 0.95);

enum class Verdict {
  Slower,                 ///< The interval lies above 1.
  Faster,                 ///< The interval lies below 1.
  NoMeasurableDifference, ///< The interval holds 1.
};
Verdict judge(const Interval &CI);
/// "slower", "faster", "no measurable difference".
const char *describe(Verdict V);

/// When to stop timing.
struct StoppingRule {
  /// Stop once every interval is at most this wide.
  double CIWidth = 0.01;
  /// Never judge from fewer rounds.
  unsigned MinRounds = 5;
  /// Caps: rounds, and seconds since the first round (0: none).
  unsigned MaxRounds = 200;
  double MaxSeconds = 600;
};

enum class StopReason {
  KeepGoing,
  Converged,  ///< Every interval is narrower than the width asked for.
  MaxRounds,  ///< The round cap was reached first.
  MaxSeconds, ///< The time cap was reached first.
};
/// "every interval narrower than W", "at the cap of N rounds"...
std::string describe(StopReason R, const StoppingRule &Rule);

/// Whether to stop after \p Rounds rounds and \p Elapsed seconds, with the
/// current estimates of the builds other than the baseline. Convergence is
/// checked before the caps (a bench that converged on its last allowed
/// round converged).
StopReason shouldStop(const StoppingRule &Rule, unsigned Rounds, double Elapsed,
                      const std::vector<RatioEstimate> &Estimates);

/// The order in which a round runs \p N builds: a permutation of 0..N-1
/// (Fisher-Yates, drawing from splitMix64 on \p State, which it advances).
std::vector<unsigned> roundOrder(unsigned N, uint64_t &State);

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_BENCHSTATS_H
