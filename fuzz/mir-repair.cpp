//===- fuzz/mir-repair.cpp - Fuzz the repair of printed MIR ---------------===//
//
// Feeds the input, as the text of a .mir file, to repairPrintedMIR (what
// `mlgo regalloc score` and the eviction trainer's reward apply before
// LLVM's MIR parser reads llc's output, mlgo/RegAlloc/Score.h). The repair
// must keep every line break where it was (the parser's line numbers in
// errors are those of the file), leave text without either printer bug
// byte for byte as it was, and be idempotent: repairing repaired text
// changes nothing.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAlloc/Score.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace mlgo::regalloc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  std::string Once = repairPrintedMIR(Input);
  if (std::count(Input.begin(), Input.end(), '\n') !=
      std::count(Once.begin(), Once.end(), '\n'))
    std::abort();
  if (!Input.contains("debug-info-") && !Input.contains("zeroinitializer") &&
      Once != Input)
    std::abort();
  if (repairPrintedMIR(Once) != Once)
    std::abort();
  return 0;
}
