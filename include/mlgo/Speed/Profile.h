//===- mlgo/Speed/Profile.h - Profiles that a speed compile applies -*- C++
//-*-===//
//
// mlgo's speed work follows LLVM's IR-level PGO: a program is built
// instrumented (`-fprofile-generate`), runs a workload that writes raw
// profiles (.profraw), which `llvm-profdata-19 merge` turns into one indexed
// profile (.profdata); later compiles apply it (`-fprofile-use=P`), which
// attaches the counts to the IR (function entry counts, branch weights) that
// code generation turns into block frequencies (mlgo/Speed/ExecutionCost.h
// reads them back from the object).
//
// A profile that does not fit the code must never pass for one that does.
// LLVM applies a function's counts only when the function's control-flow
// hash matches the instrumented build's, and otherwise warns and drops them;
// with no profile data for a function it drops nothing and says nothing.
// mlgo's speed compiles turn both into errors naming the file and the
// function (speedCompileFlags()): a profile of another program, or of
// another version of the source, stops the compile. A reader checks the
// profile file itself before any compile (readProfileInfo()).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_PROFILE_H
#define MLGO_SPEED_PROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo::speed {

/// What an indexed profile holds.
struct ProfileInfo {
  /// Functions with a record, and those whose counts are not all zero.
  uint64_t Functions = 0;
  uint64_t ExecutedFunctions = 0;
  /// The largest count of any block or function entry.
  uint64_t MaxCount = 0;
  /// The sum of every function's entry count (its first counter).
  uint64_t TotalEntryCount = 0;
};

/// Reads and checks the indexed profile at \p Path: an error naming the
/// file if it is missing, not an indexed profile, a front-end (clang
/// -fprofile-instr-generate) rather than an IR-level profile, a
/// context-sensitive or sample profile, or one with no count at all (the
/// workload ran nothing that was instrumented).
llvm::Expected<ProfileInfo> readProfileInfo(llvm::StringRef Path);

/// The clang driver arguments of a compile that applies \p Profile: the
/// profile, and LLVM's profile diagnostics as errors (a function whose
/// control flow changed since the profile was taken, or that the profile
/// does not know).
std::vector<std::string> speedCompileFlags(llvm::StringRef Profile);

/// Merges the raw profiles \p Raw into the indexed profile \p Out with
/// llvm-profdata-19 (written through a temporary file; \p Out exists only if
/// the merge succeeded). An error names llvm-profdata's first line of
/// stderr, or a missing or empty input.
llvm::Error mergeRawProfiles(llvm::ArrayRef<std::string> Raw,
                             llvm::StringRef Out);

} // namespace mlgo::speed

#endif // MLGO_SPEED_PROFILE_H
