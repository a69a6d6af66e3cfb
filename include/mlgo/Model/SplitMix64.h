//===- mlgo/Model/SplitMix64.h - The project's one PRNG step ----*- C++ -*-===//
//
// splitmix64: a tiny generator whose output is the same on every platform
// and standard library (unlike std::uniform_*_distribution), which is what
// seeded, bit-reproducible exploration and model synthesis need.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_SPLITMIX64_H
#define MLGO_MODEL_SPLITMIX64_H

#include <cstdint>

namespace mlgo {

/// Advances \p State and returns the next 64 random bits.
inline uint64_t splitMix64(uint64_t &State) {
  State += 0x9e3779b97f4a7c15ULL;
  uint64_t Z = State;
  Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
  return Z ^ (Z >> 31);
}

} // namespace mlgo

#endif // MLGO_MODEL_SPLITMIX64_H
