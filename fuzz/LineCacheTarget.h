//===- fuzz/LineCacheTarget.h - One harness for line-based caches -*- C++
//-*-===//
//
// The work-directory caches that a resumed run reads back (compiles.tsv,
// sites.tsv) share a contract: read(Text, FileName) either reads the
// complete lines - returning how many bytes they span; a torn last line is
// ignored - or fails with "FILE: line N: ...". fuzzLineCache checks it for
// any such cache class.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_FUZZ_LINECACHETARGET_H
#define MLGO_FUZZ_LINECACHETARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace mlgo {

template <typename Cache>
int fuzzLineCache(const uint8_t *Data, size_t Size, llvm::StringRef FileName) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  Cache C;
  llvm::Expected<uint64_t> Complete = C.read(Text, FileName);
  if (!Complete) {
    std::string Msg = llvm::toString(Complete.takeError());
    if (!llvm::StringRef(Msg).starts_with((FileName + ": line ").str()))
      std::abort();
    return 0;
  }
  if (*Complete > Size || (*Complete && Text[*Complete - 1] != '\n') ||
      Text.substr(*Complete).contains('\n'))
    std::abort();
  return 0;
}

} // namespace mlgo

#endif // MLGO_FUZZ_LINECACHETARGET_H
