//===- ByteSource.cpp - Where log bytes come from -------------------------===//

#include "mlgo/Log/ByteSource.h"

#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
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
  FDSource(int FD, bool Owned) : FD(FD), Owned(Owned) {}
  ~FDSource() override {
    if (Owned)
      ::close(FD);
  }
  Expected<size_t> read(char *Buf, size_t Size) override {
    while (true) {
      ssize_t N = ::read(FD, Buf, Size);
      if (N >= 0)
        return static_cast<size_t>(N);
      if (errno != EINTR)
        return createStringError(std::error_code(errno, std::generic_category()),
                                 "read failed: %s", std::strerror(errno));
    }
  }

private:
  int FD;
  bool Owned;
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
