//===- fuzz/log.cpp - Fuzz the training-log reader, whole files -----------===//
//
// Feeds the input, as one in-memory file, to LogReader::create and then
// LogReader::next until the end or an error, rendering every observation's
// tensors the way `mlgo log dump` does. Any input must end in a record of
// Kind::End or an error naming the log and a byte offset.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Log/TrainingLog.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto Reader = LogReader::create(
      createMemorySource(llvm::MemoryBuffer::getMemBuffer(
          Input, "fuzz.log", /*RequiresNullTerminator=*/false)),
      "fuzz.log");
  if (!Reader) {
    std::string Msg = llvm::toString(Reader.takeError());
    if (!llvm::StringRef(Msg).starts_with("fuzz.log: byte "))
      std::abort();
    return 0;
  }
  const LogHeader &H = (*Reader)->getHeader();
  while (true) {
    auto Rec = (*Reader)->next();
    if (!Rec) {
      std::string Msg = llvm::toString(Rec.takeError());
      if (!llvm::StringRef(Msg).starts_with("fuzz.log: byte "))
        std::abort();
      return 0;
    }
    if (Rec->TheKind == LogRecord::Kind::End)
      return 0;
    if (Rec->TheKind == LogRecord::Kind::Observation)
      for (size_t I = 0; I < H.Features.size(); ++I)
        (void)tensorValueToString((*Reader)->getFeatureData(I), H.Features[I]);
    if (Rec->TheKind == LogRecord::Kind::Outcome && H.Score)
      (void)tensorValueToString(Rec->Data.data(), *H.Score);
  }
}
