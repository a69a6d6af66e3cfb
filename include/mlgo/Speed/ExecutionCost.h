//===- mlgo/Speed/ExecutionCost.h - What a profile says runs, costed -*- C++
//-*-===//
//
// The speed reward: how much work the machine code of an object (or a linked
// program) does on the workload a profile recorded. It is read off the final
// code, not off an intermediate form, so that everything code generation
// does after register allocation (spill placement, callee-saved registers
// pushed in the prologue, copies folded away, block placement) is counted.
//
// The object is compiled with the profile (`-fprofile-use=P.profdata`) and
// with LLVM's basic-block address map extended by its PGO analysis map:
//
//   clang-19 -O2 -fprofile-use=P.profdata -fbasic-block-address-map
//       -mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob
//
// which changes no byte of .text (checked by test/Speed) and adds, per
// function, a section SHT_LLVM_BB_ADDR_MAP that lists every machine basic
// block (its offset and size in the function) with the function's entry
// count from the profile, each block's frequency from
// MachineBlockFrequencyInfo and the probabilities of its outgoing edges
// from MachineBranchProbabilityInfo, as code generation left them. A
// block's count is then
//
//   count(B) = entry count × visits(B)
//
// where visits are the expected visits of each block per entry, solved from
// the edge probabilities (visits = e + Pᵀ visits, e the entry block): what
// the frequencies mean, without their propagation's approximation of
// irreducible cycles. That approximation is not small: in lua's
// luaV_execute, whose computed-goto dispatch code generation tail-duplicates
// into every handler, the frequencies put one block at 10^14 visits per
// call, the solved visits at 13.7 (and the function's estimate within 3% of
// callgrind's). Only a cycle that the probabilities never leave, where the
// system has no solution, falls back to freq(B) / freq(entry block).
//
// and a function's cost is Σ count(B) × cost(B) over its blocks, for two
// costs of a block:
//
//   instructions   the number of machine instructions in the block's bytes
//                  (decoded with the target's MCDisassembler): the sum over
//                  a program estimates what callgrind counts as executed
//                  instructions (Ir) on the profiled workload;
//   cycles         the block's reciprocal throughput under LLVM's
//                  scheduling model of the target CPU, simulated by the
//                  public llvm/MCA library (the machinery of llvm-mca-19):
//                  the cycles of BlockIterations back-to-back executions of
//                  the block divided by BlockIterations. Calls and returns
//                  cost one cycle each outside the simulation (MCA models no
//                  control transfer, and what a callee does is costed in the
//                  callee's own blocks).
//
// A lower cost is faster code. The cycle estimate is what the eviction
// trainer minimizes; the instruction estimate is what callgrind checks
// (docs/speed.md, "Validation").
//
// An object without an address map (not compiled with
// -fbasic-block-address-map), or whose map carries no PGO analysis (compiled
// without -pgo-analysis-map), is an error, never a zero cost. A function
// whose entry count is 0 costs 0: the workload never ran it, or the profile
// has no count for it. The two cannot be told apart in the object, so the
// compile that applies a profile is what checks that it matches the code
// (mlgo/Speed/Profile.h: clang's -Wprofile-instr-* diagnostics as errors);
// ObjectCost::Profiled counts the functions with a count.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_EXECUTIONCOST_H
#define MLGO_SPEED_EXECUTIONCOST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlgo::speed {

/// How many back-to-back executions of a block MCA simulates; the block's
/// cycles are the simulated total divided by this.
inline constexpr unsigned BlockIterations = 100;

/// The clang and llc options that make an object carry what
/// measureExecutionCost reads (besides the profile itself).
inline constexpr const char *AddressMapFlags[] = {
    "-fbasic-block-address-map", "-mllvm",
    "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"};

/// The same for llc (the options clang's -fbasic-block-address-map and
/// -mllvm set).
inline constexpr const char *AddressMapLLCFlags[] = {
    "-basic-block-address-map",
    "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"};

/// One machine basic block of the final code.
struct BlockCost {
  /// The block's ID in the address map: the BBID LLVM gives a machine block
  /// when it is created (MachineBasicBlock::getBBID), not its number.
  uint32_t ID = 0;
  /// Offset of the block from the function's start, and its size in bytes.
  uint64_t Offset = 0, Size = 0;
  /// How often the profiled workload ran it (fractional: the function's
  /// entry count times the block's visits per entry).
  double Count = 0;
  /// Machine instructions in the block.
  unsigned Instructions = 0;
  /// Reciprocal throughput of the block under the scheduling model.
  double Cycles = 0;
};

/// One function of the final code.
struct FunctionCost {
  std::string Name;
  /// The function's address (in a linked program, where it runs; in an
  /// object, its offset in its section).
  uint64_t Address = 0;
  /// The profile's entry count, or 0 when the profile has none for it.
  uint64_t EntryCount = 0;
  bool HasProfile = false;
  /// Whether a call or jump in the measured code reaches the function (by
  /// its relocation in an object, by its address in a linked program). An
  /// external function inlined wherever it was called keeps an out-of-line
  /// copy no call reaches, and LLVM moves the inlined calls' counts from it
  /// to its callers: its entry count is 0 though it ran.
  bool Called = false;
  /// Whether the blocks' visits were solved from the branch probabilities
  /// (always, except for a cycle the probabilities never leave, where
  /// MachineBlockFrequencyInfo's frequencies are used).
  bool CountsSolved = false;
  /// Whether the blocks' counts came from a run (MeasuredCounts) rather
  /// than from the profile.
  bool CountsMeasured = false;
  /// Σ Count × Instructions and Σ Count × Cycles over Blocks.
  double Instructions = 0;
  double Cycles = 0;
  std::vector<BlockCost> Blocks;
};

/// The cost of every function of an object or a linked program.
struct ObjectCost {
  /// In the order of the address maps (sections, then functions).
  std::vector<FunctionCost> Functions;
  /// The sums over Functions.
  double Instructions = 0;
  double Cycles = 0;
  /// Functions with a profile entry count.
  size_t Profiled = 0;
};

/// The cost of one execution of a block.
struct BlockWork {
  unsigned Instructions = 0;
  double Cycles = 0;
  /// The calls and jumps of the block whose target the instruction itself
  /// gives (not through a register or memory): where each starts and ends
  /// and where it goes, as offsets from the block's start (an object's
  /// call through a relocation goes to its own end until linked).
  struct Branch {
    uint64_t Begin, End;
    int64_t Target;
  };
  std::vector<Branch> Branches;
};

/// Decodes and simulates blocks of one target; holds the target's MC layer
/// and a cache of block costs by their bytes, so that many objects of one
/// target (the candidates of a search) are costed quickly.
class BlockCoster {
public:
  /// The coster for \p Triple and \p CPU (as in -mtriple and -mcpu; an empty
  /// CPU is the triple's default, "x86-64" for x86_64).
  static llvm::Expected<std::unique_ptr<BlockCoster>>
  create(llvm::StringRef Triple, llvm::StringRef CPU);
  ~BlockCoster();

  /// The instructions and cycles of the code \p Bytes (one basic block) at
  /// \p Address. An error if the bytes do not decode.
  llvm::Expected<BlockWork> cost(llvm::ArrayRef<uint8_t> Bytes,
                                 uint64_t Address);

  llvm::StringRef triple() const;
  llvm::StringRef cpu() const;

private:
  struct Impl;
  explicit BlockCoster(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

/// Block counts measured on a run of a program (`mlgo speed counts`, from
/// callgrind): per function, per machine block ID, how often the block ran.
/// The profile's branch probabilities are as good as the last pass that
/// wrote them (LoopRotate overwrites some with {127, 1}: docs/speed.md);
/// a run's counts are not. Block IDs are the BBIDs LLVM gives machine
/// blocks in the order it creates them (MachineFunction::
/// CreateMachineBasicBlock with the address map on), not the blocks'
/// numbers: no ID is ever given to another block, but the passes after
/// register allocation remove different blocks and make new ones (with
/// higher IDs) under another eviction policy. Another build of the same
/// code under another eviction policy keeps nearly all of them (bzip2 under
/// another model: every function's IDs but 8 of BZ2_decompress's 654, which
/// passes after allocation merged otherwise), so one run's counts serve every
/// policy's build. Record them on the workload the profile recorded: a
/// block the run does not know takes the profile's count scaled by the
/// measured/profile ratio of the nearest measured block before it.
struct MeasuredCounts {
  /// Function name -> block ID -> count.
  llvm::StringMap<llvm::DenseMap<uint32_t, uint64_t>> Functions;
};

/// The version of the block counts file format readMeasuredCounts reads and
/// writeMeasuredCounts writes.
inline constexpr unsigned BlockCountsVersion = 2;

/// Reads and writes MeasuredCounts as text, LF line ends: a first line
/// "mlgo-block-counts 2", then one line per block, "FUNCTION<TAB>ID<TAB>
/// COUNT", sorted by function and ID, then an end line "end<TAB>N", N the
/// number of block lines, so that a file cut at a line boundary is told
/// from a whole one. Errors name the file (and the line): a malformed line,
/// a block twice, a CR LF line end, no end line ("no end line after its N
/// blocks: a file cut short ..."), an end line that miscounts, lines after
/// it, and a version 1 file (2026-11, no end line: it is refused, to be
/// written again with `mlgo speed counts`).
llvm::Expected<MeasuredCounts> readMeasuredCounts(llvm::StringRef Path);
llvm::Error writeMeasuredCounts(llvm::StringRef Path,
                                const MeasuredCounts &Counts);

/// The cost of the ELF object or executable \p Object (its name in errors is
/// \p Object's identifier). \p Coster must be for the object's target; with
/// none, one is created for the object's triple and the default CPU. With
/// \p Measured, a function it has counts for takes its blocks' counts from
/// it (a block it does not know keeps the profile's count), if the profile
/// has an entry count for it (one without is not the function the run
/// counted: another program's `main`).
llvm::Expected<ObjectCost>
measureExecutionCost(llvm::MemoryBufferRef Object,
                     BlockCoster *Coster = nullptr,
                     const MeasuredCounts *Measured = nullptr);

} // namespace mlgo::speed

#endif // MLGO_SPEED_EXECUTIONCOST_H
