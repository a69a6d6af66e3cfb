//===- mlgo/TrainCore/CompileOutcome.h - What a compile came to -*- C++ -*-===//
//
// A module's compile under a policy as every trainer, search and size
// measure sees it: whether it compiled, its code (and the grouped sections
// a linker keeps once), how many decisions the policy took, or the error.
// The compile cache (mlgo/Compile/CompileCache.h) stores exactly this, one
// line per compile, as CompileOutcome.
//
// A value with no compiler behind it, so that the trainers' phases and
// size measures (lib/TrainCore) are functions over made-up outcomes in
// their unit tests.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAINCORE_COMPILEOUTCOME_H
#define MLGO_TRAINCORE_COMPILEOUTCOME_H

#include "mlgo/Support/CodeOnce.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {

/// One compile's result, or its failure.
struct CompileOutcome {
  bool Ok = false;
  /// The object's executable code (mlgo/Corpus/CodeSize.h).
  uint64_t TextSize = 0;
  /// Its grouped executable sections, sorted by name hash; part of
  /// TextSize.
  std::vector<GroupedSection> Grouped;
  /// False for a line of an earlier version of the compile cache (no
  /// <grouped> field).
  bool GroupedKnown = true;
  uint32_t Decisions = 0;
  double Seconds = 0;
  /// Why it failed, naming the module.
  std::string Error;
  /// A failure that is the machine's, not the module's (a timeout, a
  /// worker killed by the out-of-memory killer): kept in memory, never
  /// written to the compile cache.
  bool Transient = false;
};

} // namespace mlgo

#endif // MLGO_TRAINCORE_COMPILEOUTCOME_H
