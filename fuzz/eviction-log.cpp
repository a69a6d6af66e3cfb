//===- fuzz/eviction-log.cpp - Fuzz the tie-breaker's log reading and fit -===//
//
// Feeds the input, as one in-memory training log, to TieBreakFitter (the
// `mlgo regalloc train --fit-ties` step, mlgo/RegAllocModel/TieBreak.h), then
// fits. Errors must name the log or say there are too few pairs; a fit must
// have finite weights and go into the shipped eviction model's layout.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/RegAllocModel/TieBreak.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdlib>

using namespace mlgo;
using namespace mlgo::regalloc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto Reader = LogReader::create(
      createMemorySource(llvm::MemoryBuffer::getMemBuffer(
          Input, "fuzz.log", /*RequiresNullTerminator=*/false)),
      "fuzz.log");
  if (!Reader) {
    llvm::consumeError(Reader.takeError());
    return 0;
  }
  TieBreakFitter F;
  if (llvm::Error E = F.addLog(**Reader)) {
    std::string Msg = llvm::toString(std::move(E));
    if (!llvm::StringRef(Msg).starts_with("fuzz.log: "))
      std::abort();
    return 0;
  }
  llvm::Expected<TieBreakFit> Fit = F.fit();
  if (!Fit) {
    std::string Msg = llvm::toString(Fit.takeError());
    if (!llvm::StringRef(Msg).contains("too few to fit"))
      std::abort();
    return 0;
  }
  for (double W : Fit->Weights)
    if (!std::isfinite(W))
      std::abort();
  if (Fit->Accuracy < 0 || Fit->Accuracy > 1)
    std::abort();
  return 0;
}
