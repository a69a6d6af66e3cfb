//===- fuzz/serve-host.cpp - Fuzz the host side of the protocol -----------===//
//
// Plays a compiler that sends arbitrary bytes: feeds the input, in pieces
// of fuzzer-chosen sizes (ChunkedSource.h), to serveStream, the session
// logic of `mlgo serve` (mlgo/Protocol/Host.h), with one of the built-in
// policies (the first byte's bits 3-4 choose always, never, alternate or
// first-valid). Every observation must be answered with exactly the
// header's advice size, and a failure must be an error, never a crash.
//
//===----------------------------------------------------------------------===//

#include "ChunkedSource.h"

#include "mlgo/Protocol/Host.h"

#include <cstdlib>

using namespace mlgo;

namespace {
class CountingIO final : public SessionIO {
public:
  llvm::Error advise(const LogHeader &H, const LogRecord &Obs,
                     const LogReader &, const char *, size_t Size) override {
    if (Obs.TheKind != LogRecord::Kind::Observation ||
        Size != H.Advice->getTotalTensorBufferSize())
      std::abort();
    ++Decisions;
    return llvm::Error::success();
  }
  size_t Decisions = 0;
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const char *const Policies[] = {"always", "never", "alternate",
                                         "first-valid"};
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto [Pieces, Stream] = splitPieces(Input);
  const char *Name = Policies[Size ? (Data[0] >> 3) % 4 : 0];
  auto P = createPolicy(Name);
  if (!P)
    std::abort();
  CountingIO IO;
  if (llvm::Error E = serveStream(
          std::make_unique<ChunkedSource>(Stream, Pieces), "fuzz.out", **P, IO))
    llvm::consumeError(std::move(E));
  return 0;
}
