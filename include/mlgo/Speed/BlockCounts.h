//===- mlgo/Speed/BlockCounts.h - Block counts of a run ---------*- C++ -*-===//
//
// How often each machine block of a build ran on a workload, measured: the
// per-instruction costs callgrind wrote for the build's programs and shared
// libraries (--dump-instr=yes), mapped to blocks by each object's
// basic-block address map (-fbasic-block-address-map) and keyed by function
// name and block ID (MeasuredCounts, mlgo/Speed/ExecutionCost.h). A
// package's workload runs many processes of several programs; their counts
// add up, so that one file describes the whole workload, as one merged
// profile does.
//
// A name is a key only where it names one function: a name defined twice
// in one object (two static functions of different files), or in two
// objects with different blocks (each program's `main`), is left out and
// counted. The same function in two objects (a library linked into two
// programs, or built static and shared) has the same blocks and sums.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_BLOCKCOUNTS_H
#define MLGO_SPEED_BLOCKCOUNTS_H

#include "mlgo/Speed/ExecutionCost.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo::speed {

/// What countBlocks() read and kept.
struct BlockCountsSummary {
  /// The objects whose code ran, as callgrind names them, sorted.
  std::vector<std::string> Objects;
  /// Functions and blocks kept.
  size_t Functions = 0, Blocks = 0;
  /// Names left out: defined twice in an object, or with different blocks
  /// in two objects.
  size_t Ambiguous = 0;
};

/// The block counts of the runs recorded in \p CallgrindFiles (callgrind
/// outputs written with --dump-instr=yes, one per process), over the
/// objects \p Wanted accepts by name. Errors name the file: a callgrind
/// file that does not read, an object that ran and cannot be read or has
/// no address map.
llvm::Expected<MeasuredCounts>
countBlocks(llvm::ArrayRef<std::string> CallgrindFiles,
            llvm::function_ref<bool(llvm::StringRef)> Wanted,
            BlockCountsSummary *Summary = nullptr);

} // namespace mlgo::speed

#endif // MLGO_SPEED_BLOCKCOUNTS_H
