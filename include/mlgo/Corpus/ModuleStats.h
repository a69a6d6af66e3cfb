//===- mlgo/Corpus/ModuleStats.h - What a corpus module holds ---*- C++ -*-===//
//
// Counts, per bitcode module, what matters to an inlining policy: defined
// functions, IR instructions and call sites (calls and invokes to anything
// but intrinsics). `mlgo corpus stats` sums and spreads these.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_MODULESTATS_H
#define MLGO_CORPUS_MODULESTATS_H

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>

namespace mlgo {

struct ModuleStats {
  uint64_t Functions = 0;    ///< functions with a body
  uint64_t Declarations = 0; ///< functions without one
  uint64_t Instructions = 0;
  uint64_t CallSites = 0; ///< non-intrinsic calls/invokes/callbrs
  uint64_t BitcodeBytes = 0;
};

/// Parses a bitcode module (in its own LLVMContext) and counts.
llvm::Expected<ModuleStats> computeModuleStats(llvm::MemoryBufferRef Bitcode);

} // namespace mlgo

#endif // MLGO_CORPUS_MODULESTATS_H
