//===- mlgo/Log/ByteSource.h - Where log bytes come from --------*- C++ -*-===//
//
// The log reader pulls bytes from a ByteSource so that the same parser reads
// a file in memory, standard input, or a FIFO from a live compiler (where the
// host must notice a peer that died or stalled instead of blocking forever).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LOG_BYTESOURCE_H
#define MLGO_LOG_BYTESOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace llvm {
class MemoryBuffer;
}

namespace mlgo {

class ByteSource {
public:
  virtual ~ByteSource();
  /// Reads at most \p Size bytes into \p Buf. Returns the number of bytes
  /// read; 0 means end of input. Blocks until at least one byte, end of
  /// input, or an error.
  virtual llvm::Expected<size_t> read(char *Buf, size_t Size) = 0;
};

/// Serves the bytes of \p Buffer.
std::unique_ptr<ByteSource>
createMemorySource(std::unique_ptr<llvm::MemoryBuffer> Buffer);

/// Reads from the file descriptor \p FD (a file, a pipe or a FIFO); takes
/// ownership of it if \p TakeOwnership.
std::unique_ptr<ByteSource> createFDSource(int FD, bool TakeOwnership);

/// Opens \p Path for streaming reads; "-" means standard input.
llvm::Expected<std::unique_ptr<ByteSource>>
openFileSource(llvm::StringRef Path);

} // namespace mlgo

#endif // MLGO_LOG_BYTESOURCE_H
