//===- fuzz/worker-frames.cpp - Fuzz the worker pool's frame decoding -----===//
//
// Feeds the input, as the payload of one frame, to decodeJob (what a
// compile worker does with a request) and to decodeResponse (what the pool
// does with a worker's answer). A response that decodes must encode
// (encodeResponse) to the same bytes; a job to bytes that decode to a job
// encoding the same (flags may be any non-zero byte).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/WorkerPool.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Payload(reinterpret_cast<const char *>(Data), Size);
  if (llvm::Expected<CompileJob> Job = decodeJob(Payload)) {
    std::string Bytes = encodeJob(*Job);
    llvm::Expected<CompileJob> Again = decodeJob(Bytes);
    if (!Again || encodeJob(*Again) != Bytes)
      std::abort();
  } else {
    llvm::consumeError(Job.takeError());
  }
  if (llvm::Expected<WorkerResponse> R = decodeResponse(Payload)) {
    if (encodeResponse(*R) != Payload)
      std::abort();
  } else {
    llvm::consumeError(R.takeError());
  }
  return 0;
}
