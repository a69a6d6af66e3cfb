//===- mlgo/Speed/CycleEstimate.h - Cycles, simulated -----------*- C++ -*-===//
//
// A deterministic cost that sees more than executed instructions: a
// command run under callgrind with its cache and branch-predictor
// simulation (--cache-sim=yes --branch-sim=yes), and the simulated misses
// weighted into an estimate of cycles:
//
//   cycles = Ir + 10 x (I1mr + D1mr + D1mw)
//               + 100 x (ILmr + DLmr + DLmw)
//               + 15 x (Bcm + Bim)
//
// Ir counts instructions, at one cycle each; an access that misses the
// first-level cache (instruction I1mr, data read D1mr or write D1mw) costs
// about 10 cycles to fetch from the last-level cache; one that misses the
// last level too (ILmr, DLmr, DLmw - also counted as L1 misses) about 100
// more, from memory; a mispredicted conditional (Bcm) or indirect (Bim)
// branch about 15, the refill of a modern pipeline. The weights are round
// numbers of the right order for current x86-64 cores, not a model of one
// CPU; what they buy is an estimate that moves when a change of code adds
// misses or mispredictions without adding instructions (a spill that
// thrashes a line, a layout that splits a loop, a branch made less
// predictable), where the instruction count stays flat.
//
// The simulated caches have a fixed geometry - I1 and D1 32 KiB, 8-way; LL
// 8 MiB, 16-way; 64-byte lines - rather than callgrind's default of the
// host's caches: the estimate of one program on one input is then the same
// on every machine, to the event. As with runCallgrind, only the processes
// whose program lies under one tree count, from main on.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_CYCLEESTIMATE_H
#define MLGO_SPEED_CYCLEESTIMATE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {
namespace speed {

/// The events of callgrind's cache and branch simulation, summed over the
/// processes of a run.
struct SimulatedEvents {
  uint64_t Ir = 0;             ///< instructions executed
  uint64_t Dr = 0, Dw = 0;     ///< data reads and writes
  uint64_t I1mr = 0;           ///< L1 instruction misses
  uint64_t D1mr = 0, D1mw = 0; ///< L1 data read and write misses
  uint64_t ILmr = 0;           ///< LL instruction misses
  uint64_t DLmr = 0, DLmw = 0; ///< LL data read and write misses
  uint64_t Bc = 0, Bcm = 0;    ///< conditional branches, mispredicted
  uint64_t Bi = 0, Bim = 0;    ///< indirect branches, mispredicted

  SimulatedEvents &operator+=(const SimulatedEvents &Other);
  uint64_t l1Misses() const { return I1mr + D1mr + D1mw; }
  uint64_t llMisses() const { return ILmr + DLmr + DLmw; }
  uint64_t mispredicts() const { return Bcm + Bim; }
};

/// The weights of the estimate (see the file comment).
struct CycleWeights {
  static constexpr uint64_t L1Miss = 10;
  static constexpr uint64_t LLMiss = 100;
  static constexpr uint64_t Mispredict = 15;
};

/// Ir + 10 x L1 misses + 100 x LL misses + 15 x mispredicted branches.
uint64_t estimateCycles(const SimulatedEvents &E);

/// The events named by \p Names ("Ir Dr Dw I1mr ...", callgrind's events
/// line) with the counts of \p Counts (its "Collected" or "totals" line).
/// Events the simulation did not collect stay 0; Ir is required. Errors:
/// a count that is not a number, more counts than names, no Ir.
llvm::Expected<SimulatedEvents> parseSimulatedEvents(llvm::StringRef Names,
                                                     llvm::StringRef Counts);

/// What one run of a command under the simulation executed in one tree's
/// programs.
struct SimulatedRun {
  SimulatedEvents Events;
  /// The tree's programs that ran, relative to it, sorted.
  std::vector<std::string> Programs;
  uint64_t cycles() const { return estimateCycles(Events); }
};

/// Runs \p Argv under callgrind with the cache and branch simulation (the
/// geometry of the file comment), following children, one log per process
/// in \p LogDir (the command's output goes to LogDir/output.txt), and sums
/// the events of the processes whose program lies under \p Tree, counted
/// from main on. Errors (named by \p Name) as runCallgrind's: the command
/// failed or timed out, ran no program of the tree, or a program of the
/// tree ended before the simulation counted anything in main.
llvm::Expected<SimulatedRun>
runCallgrindSimulated(llvm::StringRef Name, llvm::ArrayRef<std::string> Argv,
                      const std::string &Tree, const std::string &LogDir,
                      unsigned TimeoutSeconds);

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_CYCLEESTIMATE_H
