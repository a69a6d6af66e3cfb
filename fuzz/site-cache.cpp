//===- fuzz/site-cache.cpp - Fuzz the call-site cache file reader ---------===//
//
// Feeds the input, as the contents of a tuning work directory's sites.tsv,
// to SiteCache::read, what `mlgo tune` does when it resumes. It must either
// read the complete lines (a torn last line is ignored) or fail with an
// error naming the file and a line.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/CompileCache.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  SiteCache C;
  llvm::Expected<uint64_t> Complete = C.read(Text, "sites.tsv");
  if (!Complete) {
    std::string Msg = llvm::toString(Complete.takeError());
    if (!llvm::StringRef(Msg).starts_with("sites.tsv: line "))
      std::abort();
    return 0;
  }
  if (*Complete > Size || (*Complete && Text[*Complete - 1] != '\n') ||
      Text.substr(*Complete).contains('\n'))
    std::abort();
  return 0;
}
