//===- ByteSource.cpp - Where log bytes come from -------------------------===//

#include "mlgo/Log/ByteSource.h"

#include "mlgo/Support/FileDescriptor.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

ByteSource::~ByteSource() = default;

namespace {

class MemorySource final : public ByteSource {
public:
  explicit MemorySource(std::unique_ptr<MemoryBuffer> Buffer)
      : Buffer(std::move(Buffer)) {}
  Expected<size_t> read(char *Buf, size_t Size) override {
    size_t N = std::min(Size, Buffer->getBufferSize() - Pos);
    std::memcpy(Buf, Buffer->getBufferStart() + Pos, N);
    Pos += N;
    return N;
  }

private:
  std::unique_ptr<MemoryBuffer> Buffer;
  size_t Pos = 0;
};

class FDSource final : public ByteSource {
public:
  FDSource(int FD, bool Owned) : FD(FD), Owner(Owned ? FD : -1) {}
  Expected<size_t> read(char *Buf, size_t Size) override {
    ErrorOr<size_t> N = readSome(FD, Buf, Size);
    if (!N)
      return createStringError(N.getError(), "read failed: %s",
                               N.getError().message().c_str());
    return *N;
  }

private:
  int FD;
  /// Closes FD if the source owns it.
  FileDescriptor Owner;
};

} // namespace

std::unique_ptr<ByteSource>
createMemorySource(std::unique_ptr<MemoryBuffer> Buffer) {
  return std::make_unique<MemorySource>(std::move(Buffer));
}

std::unique_ptr<ByteSource> createFDSource(int FD, bool TakeOwnership) {
  return std::make_unique<FDSource>(FD, TakeOwnership);
}

Expected<std::unique_ptr<ByteSource>> openFileSource(StringRef Path) {
  if (Path == "-")
    return createFDSource(STDIN_FILENO, /*TakeOwnership=*/false);
  int FD;
  if (std::error_code EC = sys::fs::openFileForRead(Path, FD))
    return createStringError(EC, "cannot open '%s': %s", Path.str().c_str(),
                             EC.message().c_str());
  return createFDSource(FD, /*TakeOwnership=*/true);
}

} // namespace mlgo
