//===- Random.cpp - Reproducible random numbers ---------------------------===//
//
// xoshiro256** (Blackman and Vigna) and the distributions built on it; see
// mlgo/Learn/Random.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Random.h"
#include "mlgo/Model/SplitMix64.h"

#include <cassert>
#include <cmath>
#include <cstring>

namespace mlgo {
namespace learn {

bool RngState::operator==(const RngState &O) const {
  // Compare the spare by bits: it is state, not a quantity.
  return S == O.S && HasSpare == O.HasSpare &&
         (!HasSpare || std::memcmp(&Spare, &O.Spare, sizeof(double)) == 0);
}

Rng::Rng(uint64_t Seed) {
  uint64_t SM = Seed;
  for (uint64_t &W : State.S)
    W = splitMix64(SM);
}

static inline uint64_t rotl(uint64_t X, int K) {
  return (X << K) | (X >> (64 - K));
}

uint64_t Rng::next() {
  std::array<uint64_t, 4> &S = State.S;
  uint64_t Result = rotl(S[1] * 5, 7) * 9;
  uint64_t T = S[1] << 17;
  S[2] ^= S[0];
  S[3] ^= S[1];
  S[1] ^= S[2];
  S[0] ^= S[3];
  S[2] ^= T;
  S[3] = rotl(S[3], 45);
  return Result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

double Rng::uniformOpenZero() {
  return static_cast<double>((next() >> 11) + 1) * 0x1p-53;
}

double Rng::normal() {
  if (State.HasSpare) {
    State.HasSpare = false;
    return State.Spare;
  }
  constexpr double TwoPi = 6.283185307179586476925286766559;
  double U1 = uniformOpenZero();
  double U2 = uniform();
  double R = std::sqrt(-2.0 * std::log(U1));
  double Theta = TwoPi * U2;
  State.Spare = R * std::sin(Theta);
  State.HasSpare = true;
  return R * std::cos(Theta);
}

uint64_t Rng::below(uint64_t N) {
  assert(N > 0 && "below(0) has no value to return");
  // Reject the top partial copy of [0, N) so every residue is equally likely.
  uint64_t Limit = UINT64_MAX - UINT64_MAX % N;
  for (;;) {
    uint64_t X = next();
    if (X < Limit)
      return X % N;
  }
}

} // namespace learn
} // namespace mlgo
