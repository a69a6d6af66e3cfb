//===- fuzz/decisions.cpp - Fuzz the decisions file reader ----------------===//
//
// Feeds the input, as a decisions file (docs/decisions.md), to
// DecisionsFile::parse, what the plugin's -mlgo-decisions and `mlgo tune
// check` do. It must either fail with an error naming the file (and, past
// the header, a line), or parse into a file that prints and parses back to
// the same text, and whose modules find themselves by their keys.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/Decisions.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<DecisionsFile> F = DecisionsFile::parse(Text, "d.txt");
  if (!F) {
    std::string Msg = llvm::toString(F.takeError());
    if (!llvm::StringRef(Msg).starts_with("d.txt:"))
      std::abort();
    return 0;
  }
  std::string Printed = F->print();
  llvm::Expected<DecisionsFile> Back = DecisionsFile::parse(Printed, "again");
  if (!Back || Back->print() != Printed)
    std::abort();
  for (const auto &M : F->Modules) {
    DecisionTable T(M);
    for (const SiteDecision &S : M->Sites)
      if (!S.isGroup() && T.lookup(S.Caller, S.Callee, S.Ordinal) != S.Inline)
        std::abort();
  }
  return 0;
}
