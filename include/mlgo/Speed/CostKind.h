//===- mlgo/Speed/CostKind.h - What speed is judged by ----------*- C++ -*-===//
//
// The three measures a speed tool can judge two builds of a program by,
// chosen with `--cost` (mlgo tune's workload check, mlgo eval's speed
// table; docs/speed.md):
//
//  * instructions: executed instructions under callgrind
//    (mlgo/Speed/Callgrind.h) - deterministic, blind to memory and
//    branches;
//  * cycles: callgrind's cache and branch simulation weighted into cycles
//    (mlgo/Speed/CycleEstimate.h) - deterministic, sees misses;
//  * time: the builds alternated by mlgo bench's engine
//    (mlgo/Speed/TimeBench.h), CPU time with a bootstrap interval - what
//    users feel, noisy, never cached.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_COSTKIND_H
#define MLGO_SPEED_COSTKIND_H

namespace mlgo {
namespace speed {

enum class CostKind { Instructions, Cycles, Time };

/// "instructions", "cycles", "time": the --cost word.
inline const char *getCostName(CostKind C) {
  switch (C) {
  case CostKind::Instructions:
    return "instructions";
  case CostKind::Cycles:
    return "cycles";
  case CostKind::Time:
    return "time";
  }
  return "?";
}

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_COSTKIND_H
