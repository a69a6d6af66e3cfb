//===- mlgo/Support/FileDescriptor.h - Owned fds, whole I/O -----*- C++ -*-===//
//
// mlgo's one file-descriptor layer: the owner that closes a descriptor, and
// the read and write loops every pipe, FIFO and appended file goes through
// (the training workers' frames, the interactive channels, the eviction
// plugin's advice, the caches' lines).
//
// A system call on a descriptor can end early two ways that are not
// failures, and each loop used to handle them on its own:
//
//  * EINTR: a signal handler ran while the call was blocked (a profiler's
//    SIGPROF, a debugger, a handler installed without SA_RESTART). Nothing
//    was transferred; the call is repeated.
//  * a short count: write(2) on a pipe or a full disk, and read(2) on a
//    pipe, may transfer fewer bytes than asked. writeAll() and readAll()
//    continue where the call stopped.
//
// Everything else is the caller's to explain, so the functions return
// errno's std::error_code and never a message: the caller knows which
// file or peer the descriptor is ("cannot read from inbound channel
// 'PATH': Bad file descriptor"). A write(2) that returns 0 for a non-empty
// buffer (a file system that accepts nothing more) is reported as ENOSPC.
// A non-blocking descriptor's EAGAIN is returned as it is: a caller that
// waits with poll(2) decides how long.
//
// Opening, locking and waiting for children retry EINTR with LLVM's
// llvm::sys::RetryAfterSignal (llvm/Support/Errno.h).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_FILEDESCRIPTOR_H
#define MLGO_SUPPORT_FILEDESCRIPTOR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorOr.h"

#include <cstddef>
#include <system_error>

namespace mlgo {

/// A file descriptor closed when its owner goes (or is reset); movable,
/// not copyable. -1 is "none".
class FileDescriptor {
public:
  FileDescriptor() = default;
  explicit FileDescriptor(int FD) : FD(FD) {}
  FileDescriptor(FileDescriptor &&Other) noexcept : FD(Other.release()) {}
  FileDescriptor &operator=(FileDescriptor &&Other) noexcept {
    reset(Other.release());
    return *this;
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() { reset(); }

  int get() const { return FD; }
  bool valid() const { return FD >= 0; }
  explicit operator bool() const { return valid(); }
  /// Gives the descriptor up without closing it.
  int release() {
    int Old = FD;
    FD = -1;
    return Old;
  }
  /// Closes the descriptor held (ignoring close(2)'s result) and holds
  /// \p NewFD.
  void reset(int NewFD = -1);
  /// Closes the descriptor held and returns close(2)'s error, which for a
  /// file written through it can be the first report of a failed write
  /// (NFS, a full disk). Holds none afterwards, also on failure (Linux
  /// frees the descriptor even then; closing it again could close another
  /// thread's).
  std::error_code close();

private:
  int FD = -1;
};

/// One read(2) of at most \p Size bytes, repeated after EINTR: the bytes
/// read (0 at the end of the file or stream), or errno's error.
llvm::ErrorOr<size_t> readSome(int FD, char *Buf, size_t Size);

/// One write(2) of at most \p Size bytes, repeated after EINTR: the bytes
/// written (possibly fewer than \p Size), or errno's error.
llvm::ErrorOr<size_t> writeSome(int FD, const char *Data, size_t Size);

/// Reads until \p Size bytes are in \p Buf or the stream ends: the bytes
/// read, fewer than \p Size only at the end; errno's error otherwise.
llvm::ErrorOr<size_t> readAll(int FD, char *Buf, size_t Size);

/// Writes all of \p Data, through short writes and EINTR. On failure, errno's
/// error (ENOSPC for a write(2) that wrote nothing); some of \p Data may
/// have been written then.
std::error_code writeAll(int FD, llvm::StringRef Data);

} // namespace mlgo

#endif // MLGO_SUPPORT_FILEDESCRIPTOR_H
