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

#include "mlgo/Support/Process.h"

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
  /// The names of the functions that ran, as the program's symbols (a
  /// local function's "FILE;" prefix dropped), sorted, each once.
  std::vector<std::string> ExecutedNames;
  /// The IR-level PGO name of every function with a record (a local
  /// function's "FILE;NAME"), sorted, each once.
  std::vector<std::string> RecordNames;
  /// The largest count of each function of ExecutedNames (the same order;
  /// of local functions named alike, the largest).
  std::vector<uint64_t> ExecutedMaxCounts;
  /// LLVM's hot count of this profile: the smallest of the counts that
  /// make up 99% of the total (ProfileSummaryBuilder::getHotCountThreshold,
  /// what -fprofile-use calls hot).
  uint64_t HotCount = 0;
};

/// Reads and checks the indexed profile at \p Path: an error naming the
/// file if it is missing, not an indexed profile, a front-end (clang
/// -fprofile-instr-generate) rather than an IR-level profile, a
/// context-sensitive or sample profile, or one with no count at all (the
/// workload ran nothing that was instrumented).
llvm::Expected<ProfileInfo> readProfileInfo(llvm::StringRef Path);

/// The functions of a build that ran in a profile but have no count in
/// the build: LLVM dropped the profile's counts of a function whose control
/// flow changed since (an edited function; clang-19 warns "function control
/// flow change detected (hash mismatch)"), or the build used another
/// profile. Such a function costs nothing, however much it ran.
struct MissingCounts {
  /// The build's functions that ran in the profile.
  size_t Ran = 0;
  /// Those of them without a count, hottest (in the profile) first, and
  /// how many of them are hot (ProfileInfo::HotCount): the first Hot.
  std::vector<std::string> Missing;
  size_t Hot = 0;
};

/// Finds the functions of a build that lack the counts of \p Info: \p
/// Functions are the build's functions, by symbol name, each with whether
/// the build has a profile count for it.
MissingCounts
findMissingCounts(const ProfileInfo &Info,
                  llvm::ArrayRef<std::pair<std::string, bool>> Functions);

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

/// The clang driver arguments of a package's speed compiles, which
/// `mlgo eval package|build --profile` appends to its own compiles (not to
/// the build systems' probe programs): the profile, the address map that
/// measureExecutionCost reads, and DWARF 4 for any debug information (the
/// callgrind that measures these builds cannot read clang-19's DWARF 5 of
/// every shared library). Unlike speedCompileFlags(), neither a
/// function the profile does not know nor a control-flow mismatch stops the
/// compile: a package builds programs its workload never runs, and each
/// such program's `main` is a mismatch with the profile's. The driver
/// reports the mismatches clang warns about (findProfileMismatches), and a
/// profile that gives the measured programs no count is its error.
std::vector<std::string> speedPackageFlags(llvm::StringRef Profile);

/// The functions clang warned about in the build log \p Log as a
/// control-flow mismatch with the profile ("FILE: FUNCTION", in order,
/// each once).
std::vector<std::string> findProfileMismatches(llvm::StringRef Log);

/// Runs the workload \p Commands one after the other (each must succeed)
/// with LLVM_PROFILE_FILE pointing into a fresh directory (one raw profile
/// per instrumented binary and process), merges what they wrote into the
/// indexed profile \p Out and checks it (readProfileInfo). \p Options
/// apply to each command (timeout, output). Errors name the command that
/// failed, or say that no instrumented program ran; \p Out is written only
/// when everything succeeded.
llvm::Expected<ProfileInfo>
collectProfile(llvm::ArrayRef<std::vector<std::string>> Commands,
               const RunOptions &Options, llvm::StringRef Out);

} // namespace mlgo::speed

#endif // MLGO_SPEED_PROFILE_H
