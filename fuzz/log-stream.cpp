//===- fuzz/log-stream.cpp - Fuzz the training-log reader, streamed -------===//
//
// Feeds a log to LogReader::create and LogReader::next through a
// ByteSource that returns it in pieces of fuzzer-chosen sizes (the first
// input byte says how many piece-size bytes follow; ChunkedSource.h), as a
// pipe does. The records read must be the same as from the whole buffer
// at once: same kinds, contexts, indices, offsets and bytes, and the same
// error.
//
//===----------------------------------------------------------------------===//

#include "ChunkedSource.h"

#include "mlgo/Log/TrainingLog.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace mlgo;

/// Every record of the log \p Stream (read in \p Pieces), then the error.
static std::vector<std::string> readAll(llvm::StringRef Stream,
                                        llvm::StringRef Pieces) {
  std::vector<std::string> Out;
  auto Reader = LogReader::create(
      std::make_unique<ChunkedSource>(Stream, Pieces), "fuzz.log");
  if (!Reader) {
    Out.push_back(llvm::toString(Reader.takeError()));
    return Out;
  }
  while (true) {
    auto Rec = (*Reader)->next();
    if (!Rec) {
      Out.push_back(llvm::toString(Rec.takeError()));
      return Out;
    }
    Out.push_back(std::to_string(static_cast<int>(Rec->TheKind)) + " " +
                  Rec->Context + " " + std::to_string(Rec->Index) + " " +
                  std::to_string(Rec->Offset) + " " +
                  std::string(Rec->Data.begin(), Rec->Data.end()));
    if (Rec->TheKind == LogRecord::Kind::End)
      return Out;
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto [Pieces, Stream] =
      splitPieces(llvm::StringRef(reinterpret_cast<const char *>(Data), Size));
  if (readAll(Stream, Pieces) != readAll(Stream, ""))
    std::abort();
  return 0;
}
