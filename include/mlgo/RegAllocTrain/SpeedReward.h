//===- mlgo/RegAllocTrain/SpeedReward.h - Speed reward ----------*- C++ -*-===//
//
// The speed reward of register allocation (docs/speed.md, "The reward in
// training"): how much work the final code of a module does on the workload
// a profile recorded, and LLVM's regalloc score with profile-based block
// frequencies, both from one allocation.
//
// A module (IR captured before optimization, as a corpus holds it) gets its
// profile applied once, by clang's own pipeline:
//
//   clang-19 -O2 -fprofile-use=P -Werror=backend-plugin
//       -mllvm -pgo-warn-missing-function -x ir M.bc -emit-llvm -c -o M.opt.bc
//
// which is the IR-level PGO pass at the place of the pipeline where
// -fprofile-generate instrumented (so the control-flow hashes are those of
// the profiled build) and the -O2 pipeline after it; a profile that does not
// match the module stops it (mlgo/Speed/Profile.h). The profiled IR then
// goes through llc-19 twice with the same options, the address-map flags
// included: once stopped after the virtual-register rewriter (the MIR the
// scores read) and once to the object (the cost, mlgo/Speed/ExecutionCost.h).
// llc is deterministic, so both runs make the same allocation; the object's
// .text is byte for byte what `clang-19 -O2 -fprofile-use=P -c` makes of the
// source (checked by test/RegAlloc/speed-score.test). Restarting code
// generation from the MIR instead is not faithful in LLVM 19, and clang
// cannot write both from one run.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCTRAIN_SPEEDREWARD_H
#define MLGO_REGALLOCTRAIN_SPEEDREWARD_H

#include "mlgo/RegAlloc/Score.h"
#include "mlgo/Speed/ExecutionCost.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo::regalloc {

/// How strictly a profile must know a module's functions.
enum class ProfileMatch {
  /// Every function: one the profile does not know is an error (a user's
  /// file and its profile).
  Strict,
  /// A package's profile, as a package build applies it
  /// (speed::speedPackageFlags): a function the profile does not know is
  /// cold (a corpus module of a program the package's workload never ran,
  /// e.g. bzip2recover), and one whose control flow does not match (that
  /// program's `main`, named like the one of the program that ran) keeps no
  /// counts and is reported in \p Mismatches. Whether the profile is the
  /// package's at all is the caller's check (hasProfileCounts over its
  /// modules).
  Package,
};

/// Optimizes \p IRPath (.ll or .bc, before optimization) at -O2 with the
/// profile \p Profile applied, into \p OutPath (written under a temporary
/// name and renamed: never half a file). The profile is checked first
/// (speed::readProfileInfo). Errors name the profile: "P: does not match
/// IR: <clang's first error>" when a function's control flow changed or
/// (Strict) the profile does not know it, "P: clang-19 ...: <first line>"
/// otherwise.
llvm::Error applyProfile(llvm::StringRef IRPath, llvm::StringRef Profile,
                         llvm::StringRef OutPath, unsigned TimeoutSeconds = 300,
                         ProfileMatch Match = ProfileMatch::Strict,
                         std::vector<std::string> *Mismatches = nullptr);

/// Whether a function defined in \p ProfiledIR (from applyProfile) has a
/// profile entry count, even 0: false when the profile knew none of them.
llvm::Expected<bool> hasProfileCounts(llvm::StringRef ProfiledIR);

/// \p Options with the address-map flags both llc runs get.
LLCOptions withAddressMap(LLCOptions Options);

/// The cost of \p ProfiledIR (from applyProfile) compiled to an object by
/// llc with \p Options and the address-map flags. \p Coster may be null.
/// With \p Counts (the block counts of the package's workload), a function
/// they have takes its blocks' counts from them rather than from the
/// profile's probabilities (speed::measureExecutionCost). An object in
/// which no function has a profile count is an error (the IR had no
/// profile applied).
llvm::Expected<speed::ObjectCost>
costProfiledIR(llvm::StringRef ProfiledIR, const LLCOptions &Options,
               speed::BlockCoster *Coster = nullptr,
               const speed::MeasuredCounts *Counts = nullptr);

/// Both rewards of one allocation of \p ProfiledIR.
struct SpeedScore {
  /// The MIR's scores: static and profile-weighted (Score.h).
  ModuleScore Scores;
  /// The object's profile-weighted instructions and cycles.
  speed::ObjectCost Cost;
};

/// scoreMIR() of the MIR and costProfiledIR() of the object of the same
/// compile (\p Options and the address-map flags in both).
llvm::Expected<SpeedScore> scoreProfiledIR(llvm::StringRef ProfiledIR,
                                           const LLCOptions &Options);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCTRAIN_SPEEDREWARD_H
