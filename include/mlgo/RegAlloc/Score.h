//===- mlgo/RegAlloc/Score.h - LLVM's static regalloc score -----*- C++ -*-===//
//
// The static reward of register allocation: LLVM's "regalloc score"
// (llvm/lib/CodeGen/RegAllocScore.cpp, LLVM 19.1.7), the number the
// development-mode eviction advisor logs as each function's reward, computed
// here by our own code over public LLVM APIs, because RegAllocScore.h is a
// private header of lib/CodeGen that Debian does not ship.
//
// The score of a function is a sum over its instructions after register
// allocation (as `llc-19 -stop-after=virtregrewriter` prints them). Each
// instruction counts with the frequency of its basic block relative to the
// entry block (MachineBlockFrequencyInfo::getBlockFreqRelativeToEntryBlock),
// in the first of these classes it falls into:
//
//   skipped             debug instructions, KILLs, inline asm
//   copy                COPY                                        weight 0.2
//   cheap remat         trivially rematerializable, and its         weight 0.2
//                       MCInstrDesc is "as cheap as a move"
//   expensive remat     trivially rematerializable otherwise        weight 1.0
//   load+store          may load and may store                      weight 5.0
//   load                may load                                    weight 4.0
//   store               may store                                   weight 1.0
//   (anything else counts nothing)
//
// "Trivially rematerializable" is TargetInstrInfo::isTriviallyReMaterializable
// of the function's subtarget. A bundle counts once, as its header. The score
// is the weighted sum of the six frequency-weighted counts. A lower score is a
// better allocation.
//
// Floating-point sums depend on their order, and these are compared with
// libLLVM's own to the last bit (unittests/RegAlloc), so they are added in
// upstream's order: each block's six counts first, then each block's counts
// to the function's in block order; the score adds the weighted counts in
// the order copy, load, store, load+store, cheap remat, expensive remat.
//
// A module's score is the sum of its functions' scores, and its counts the
// sums of their counts, in the module's function order.
//
// With a profile applied (the IR carries function entry counts and branch
// weights), the same counts are also taken with each block weighed by its
// profile count instead, MachineBlockFrequencyInfo::getBlockProfileCount
// (the block's frequency relative to the entry times the function's entry
// count): the form upstream trains on, where a function the workload never
// ran weighs 0. Both are computed for every function; without profile data
// the profile-weighted ones are 0.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOC_SCORE_H
#define MLGO_REGALLOC_SCORE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MachineBlockFrequencyInfo;
class MachineFunction;
} // namespace llvm

namespace mlgo::regalloc {

/// Upstream's weights (the defaults of llc's hidden -regalloc-*-weight
/// options).
inline constexpr double CopyWeight = 0.2;
inline constexpr double LoadWeight = 4.0;
inline constexpr double StoreWeight = 1.0;
inline constexpr double LoadStoreWeight = LoadWeight + StoreWeight;
inline constexpr double CheapRematWeight = 0.2;
inline constexpr double ExpensiveRematWeight = 1.0;

/// The instructions of each class, each counted with its block's frequency
/// relative to the entry block.
struct ScoreCounts {
  double Copies = 0.0;
  double Loads = 0.0;
  double Stores = 0.0;
  double LoadStores = 0.0;
  double CheapRemats = 0.0;
  double ExpensiveRemats = 0.0;

  ScoreCounts &operator+=(const ScoreCounts &Other);
  bool operator==(const ScoreCounts &Other) const;

  /// The weighted sum, upstream's RegAllocScore::getScore().
  double weighted() const;
};

/// One machine function's score.
struct FunctionScore {
  std::string Name;
  ScoreCounts Counts;
  /// Counts.weighted().
  double Score = 0.0;
  /// The function's entry count from the profile, if the IR has one.
  std::optional<uint64_t> EntryCount;
  /// The counts with each block weighed by its profile count
  /// (MachineBlockFrequencyInfo::getBlockProfileCount; 0 without one), in
  /// the same order, and their weighted sum.
  ScoreCounts ProfileCounts;
  double ProfileScore = 0.0;
};

/// The score of every function with a body in one module.
struct ModuleScore {
  /// The file it was read or compiled from.
  std::string File;
  /// In the module's function order.
  std::vector<FunctionScore> Functions;
  /// The functions' counts summed in order.
  ScoreCounts Counts;
  /// The functions' scores summed in order.
  double Score = 0.0;
  /// The functions' ProfileCounts and ProfileScores summed in order.
  ScoreCounts ProfileCounts;
  double ProfileScore = 0.0;
};

/// The counts of \p MF with the block frequencies of \p MBFI (upstream's
/// calculateRegAllocScore).
ScoreCounts countInstructions(const llvm::MachineFunction &MF,
                              const llvm::MachineBlockFrequencyInfo &MBFI);

/// The counts of \p MF with each block weighed by its profile count
/// (MBFI.getBlockProfileCount: 0 for a function without an entry count).
ScoreCounts
countInstructionsByProfile(const llvm::MachineFunction &MF,
                           const llvm::MachineBlockFrequencyInfo &MBFI);

/// The score of \p MF, with block frequencies computed from its CFG, branch
/// probabilities and loops (MachineDominatorTree, MachineLoopInfo,
/// MachineBranchProbabilityInfo, MachineBlockFrequencyInfo). A function
/// without blocks scores 0.
FunctionScore scoreMachineFunction(llvm::MachineFunction &MF);

/// \p MIR with what LLVM 19.1.7's MIR printer writes but its parser rejects
/// made readable, leaving the score unchanged; scoreMIR() applies it:
///  * a stack slot that stack coloring shared between variables prints
///    their debug-info variables, expressions and locations run together
///    ("debug-info-variable: '!43!50'"; llvm-project issue #87817): the
///    three fields of that stack object are emptied (the score does not
///    read them);
///  * a constant-pool vector of zeros prints as "'<4 x i32>
///    zeroinitializer'", which the MIR parser's constant parser does not
///    accept: it is spelled "'<4 x i32> splat (i32 0)'", the same constant.
/// Line breaks are kept, so the parser's line numbers stay those of \p MIR.
std::string repairPrintedMIR(llvm::StringRef MIR);

/// Parses \p MIR (a module in LLVM's MIR format; its buffer identifier names
/// the file in errors) and scores each of its machine functions. The target
/// comes from the embedded LLVM IR module's triple. Errors: "FILE:LINE:COL:
/// <the MIR parser's message>", "FILE: no target triple ...", "FILE: unknown
/// target '<triple>': ...", and MIR from the wrong point of the pipeline:
/// "FILE: function 'f' has virtual registers: ..." (before register
/// allocation), "FILE: function 'f' is past prologue/epilogue insertion..."
/// (what llc prints for -O0 or -regalloc=fast, which have no
/// virtregrewriter to stop after).
llvm::Expected<ModuleScore> scoreMIR(llvm::MemoryBufferRef MIR);

/// scoreMIR() of the file at \p Path; "PATH: No such file or directory"...
/// when it cannot be read.
llvm::Expected<ModuleScore> scoreMIRFile(llvm::StringRef Path);

/// How llc is run to produce MIR.
struct LLCOptions {
  /// The program, looked up in PATH unless it contains a '/'.
  std::string LLC = "llc-19";
  /// Passed to llc before the input (e.g. "-regalloc-enable-advisor=release",
  /// "-load=plugin.so").
  std::vector<std::string> ExtraArgs;
  /// llc is killed after this many seconds; 0: no limit.
  unsigned TimeoutSeconds = 300;
};

/// The MIR of \p IRPath (.ll or .bc) right after register allocation, from
/// `llc -O2 -stop-after=virtregrewriter <ExtraArgs> IRPath`, run through
/// mlgo's subprocess layer. Errors name the file: "PATH: No such file or
/// directory", "PATH: llc-19 exited with status 1: <llc's first stderr
/// line>", "PATH: llc-19 was killed by signal 11 (...): ...", "PATH: llc-19
/// timed out after N s".
llvm::Expected<std::string> compileToMIR(llvm::StringRef IRPath,
                                         const LLCOptions &Options);

/// Compiles \p IRPath (.ll or .bc) to the object \p ObjectPath with
/// `llc -O2 -filetype=obj <ExtraArgs> IRPath`: the same compile as
/// compileToMIR() with the same options, run to the end, hence the same
/// allocation (llc is deterministic). Errors as compileToMIR()'s.
llvm::Error compileToObject(llvm::StringRef IRPath, llvm::StringRef ObjectPath,
                            const LLCOptions &Options);

/// scoreMIR() of compileToMIR(\p IRPath); the score's File is \p IRPath.
llvm::Expected<ModuleScore> compileAndScore(llvm::StringRef IRPath,
                                            const LLCOptions &Options);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOC_SCORE_H
