//===- mlgo/Learn/Random.h - Reproducible random numbers --------*- C++ -*-===//
//
// The generator every trainer uses: xoshiro256** seeded through splitmix64,
// with the distributions written out here (uniform doubles from the top 53
// bits, Box-Muller normals, unbiased bounded integers by rejection, a
// Fisher-Yates shuffle). <random>'s distributions are implementation-defined,
// so a seed would not mean the same numbers with another standard library;
// these do. The whole state (including Box-Muller's spare value) is exposed
// so that checkpoints can resume a run bit-identically.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_RANDOM_H
#define MLGO_LEARN_RANDOM_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlgo {
namespace learn {

/// Everything a Rng's future output depends on.
struct RngState {
  std::array<uint64_t, 4> S{};
  bool HasSpare = false;
  double Spare = 0;
  bool operator==(const RngState &O) const;
};

class Rng {
public:
  /// Seeds the four state words with consecutive splitmix64 outputs.
  explicit Rng(uint64_t Seed = 0);

  /// The next 64 random bits (xoshiro256**).
  uint64_t next();
  /// Uniform in [0, 1): the top 53 bits times 2^-53.
  double uniform();
  /// Uniform in (0, 1]: never zero (for logarithms).
  double uniformOpenZero();
  /// A standard normal deviate, Box-Muller: with U1 in (0,1], U2 in [0,1),
  /// R = sqrt(-2 log U1), returns R cos(2 pi U2) and keeps R sin(2 pi U2)
  /// for the next call.
  double normal();
  /// Uniform integer in [0, N), unbiased (rejection); N > 0.
  uint64_t below(uint64_t N);
  /// Fisher-Yates: for I = N-1 down to 1, swap V[I] with V[below(I + 1)].
  template <typename T> void shuffle(std::vector<T> &V) {
    for (size_t I = V.size(); I > 1; --I) {
      size_t J = static_cast<size_t>(below(I));
      std::swap(V[I - 1], V[J]);
    }
  }

  RngState getState() const { return State; }
  void setState(const RngState &S) { State = S; }

private:
  RngState State;
};

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_RANDOM_H
