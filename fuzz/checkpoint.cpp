//===- fuzz/checkpoint.cpp - Fuzz the trainer checkpoint reader -----------===//
//
// Feeds the input, as a checkpoint file (mlgo/Learn/Checkpoint.h), to
// Checkpoint::parse, what `mlgo train` does when it resumes. The last four
// bytes are first replaced by the CRC-32 of the others, so that mutations
// reach the entries rather than stopping at the checksum (the seeds, real
// checkpoints, carry their own). A checkpoint that parses must serialize
// to bytes that parse to an equal checkpoint.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Checkpoint.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"

#include <cstdlib>
#include <vector>

using namespace mlgo;
using mlgo::learn::Checkpoint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<uint8_t> Bytes(Data, Data + Size);
  if (Size >= 4)
    llvm::support::endian::write32le(
        Bytes.data() + Size - 4,
        llvm::crc32(llvm::ArrayRef<uint8_t>(Data, Size - 4)));
  llvm::Expected<Checkpoint> C = Checkpoint::parse(Bytes, "state.ckpt");
  if (!C) {
    std::string Msg = llvm::toString(C.takeError());
    if (!llvm::StringRef(Msg).starts_with("state.ckpt: "))
      std::abort();
    return 0;
  }
  std::vector<uint8_t> Written = C->serialize();
  llvm::Expected<Checkpoint> Again = Checkpoint::parse(Written, "written");
  if (!Again || !(*Again == *C))
    std::abort();
  return 0;
}
