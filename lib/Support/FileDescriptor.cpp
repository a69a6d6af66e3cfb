//===- FileDescriptor.cpp - Owned descriptors, whole I/O ------------------===//
//
// The loops of mlgo/Support/FileDescriptor.h: EINTR repeats the call, a short
// count continues after the bytes transferred, anything else is errno's.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/FileDescriptor.h"

#include <cerrno>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

static std::error_code lastError() {
  return std::error_code(errno, std::generic_category());
}

void FileDescriptor::reset(int NewFD) {
  if (FD >= 0 && FD != NewFD)
    ::close(FD);
  FD = NewFD;
}

std::error_code FileDescriptor::close() {
  if (FD < 0)
    return std::error_code();
  // Not repeated after EINTR: on Linux the descriptor is gone even then.
  int R = ::close(release());
  return R == 0 ? std::error_code() : lastError();
}

ErrorOr<size_t> readSome(int FD, char *Buf, size_t Size) {
  while (true) {
    ssize_t N = ::read(FD, Buf, Size);
    if (N >= 0)
      return static_cast<size_t>(N);
    if (errno != EINTR)
      return lastError();
  }
}

ErrorOr<size_t> writeSome(int FD, const char *Data, size_t Size) {
  while (true) {
    ssize_t N = ::write(FD, Data, Size);
    if (N >= 0)
      return static_cast<size_t>(N);
    if (errno != EINTR)
      return lastError();
  }
}

ErrorOr<size_t> readAll(int FD, char *Buf, size_t Size) {
  size_t Got = 0;
  while (Got < Size) {
    ErrorOr<size_t> N = readSome(FD, Buf + Got, Size - Got);
    if (!N)
      return N.getError();
    if (*N == 0)
      break;
    Got += *N;
  }
  return Got;
}

std::error_code writeAll(int FD, StringRef Data) {
  while (!Data.empty()) {
    ErrorOr<size_t> N = writeSome(FD, Data.data(), Data.size());
    if (!N)
      return N.getError();
    if (*N == 0)
      return std::make_error_code(std::errc::no_space_on_device);
    Data = Data.drop_front(*N);
  }
  return std::error_code();
}

} // namespace mlgo
