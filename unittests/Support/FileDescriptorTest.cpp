//===- unittests/Support/FileDescriptorTest.cpp - The fd layer ------------===//
//
// FileDescriptor and the read/write loops on real pipes: bytes through,
// short transfers continued, calls interrupted by a signal (installed
// without SA_RESTART, so the kernel returns EINTR) repeated, and errno's
// error for a closed descriptor and a closed peer.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/FileDescriptor.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <string>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;

namespace {

struct Pipe {
  FileDescriptor Read, Write;
  Pipe() {
    int FDs[2];
    EXPECT_EQ(::pipe2(FDs, O_CLOEXEC), 0) << std::strerror(errno);
    Read.reset(FDs[0]);
    Write.reset(FDs[1]);
  }
};

/// isOpen: whether \p FD names an open descriptor.
bool isOpen(int FD) { return ::fcntl(FD, F_GETFD) != -1; }

std::string pattern(size_t Size) {
  std::string S(Size, '\0');
  for (size_t I = 0; I < Size; ++I)
    S[I] = static_cast<char>('a' + I % 23);
  return S;
}

TEST(FileDescriptorTest, ClosesOnDestructionResetAndMove) {
  int Raw;
  {
    Pipe P;
    Raw = P.Read.get();
    ASSERT_TRUE(isOpen(Raw));
    FileDescriptor Moved(std::move(P.Read));
    EXPECT_FALSE(P.Read.valid());
    EXPECT_EQ(Moved.get(), Raw);
    EXPECT_TRUE(isOpen(Raw));
    int W = P.Write.get();
    P.Write.reset();
    EXPECT_FALSE(isOpen(W));
    EXPECT_EQ(P.Write.get(), -1);
  }
  EXPECT_FALSE(isOpen(Raw));

  Pipe Q;
  int R = Q.Read.release();
  EXPECT_EQ(Q.Read.get(), -1);
  EXPECT_TRUE(isOpen(R));
  EXPECT_EQ(::close(R), 0);
  int W = Q.Write.get();
  EXPECT_FALSE(Q.Write.close());
  EXPECT_FALSE(isOpen(W));
  EXPECT_FALSE(Q.Write.valid());
  EXPECT_FALSE(Q.Write.close()) << "closing none is no error";
}

TEST(FileDescriptorTest, BytesThroughAPipe) {
  Pipe P;
  ASSERT_FALSE(writeAll(P.Write.get(), "hello, pipe"));
  P.Write.reset();
  char Buf[32];
  ErrorOr<size_t> N = readAll(P.Read.get(), Buf, sizeof(Buf));
  ASSERT_TRUE(bool(N)) << N.getError().message();
  EXPECT_EQ(StringRef(Buf, *N), "hello, pipe");
  // At the end of the stream: 0 bytes, no error.
  ErrorOr<size_t> End = readSome(P.Read.get(), Buf, sizeof(Buf));
  ASSERT_TRUE(bool(End));
  EXPECT_EQ(*End, 0u);
}

TEST(FileDescriptorTest, ShortWritesAreContinued) {
  // A non-blocking pipe of one page takes one page of a larger write.
  Pipe P;
  ASSERT_GE(::fcntl(P.Write.get(), F_SETPIPE_SZ, 4096), 4096);
  int Capacity = ::fcntl(P.Write.get(), F_GETPIPE_SZ);
  ASSERT_EQ(::fcntl(P.Write.get(), F_SETFL, O_NONBLOCK), 0);
  std::string Data = pattern(3 * static_cast<size_t>(Capacity));
  ErrorOr<size_t> N = writeSome(P.Write.get(), Data.data(), Data.size());
  ASSERT_TRUE(bool(N)) << N.getError().message();
  EXPECT_EQ(*N, static_cast<size_t>(Capacity));
  ErrorOr<size_t> Full = writeSome(P.Write.get(), Data.data(), Data.size());
  EXPECT_EQ(Full.getError(), std::errc::resource_unavailable_try_again);

  // Blocking, with a reader taking small pieces: writeAll writes it all.
  Pipe Q;
  ASSERT_GE(::fcntl(Q.Write.get(), F_SETPIPE_SZ, 4096), 4096);
  std::string Got;
  std::thread Reader([&] {
    char Buf[1000];
    while (ErrorOr<size_t> M = readSome(Q.Read.get(), Buf, sizeof(Buf))) {
      if (*M == 0)
        break;
      Got.append(Buf, *M);
    }
  });
  EXPECT_FALSE(writeAll(Q.Write.get(), Data));
  Q.Write.reset();
  Reader.join();
  EXPECT_EQ(Got, Data);
}

std::atomic<unsigned> Interruptions{0};
void onSignal(int) { ++Interruptions; }

/// SIGUSR1 with a handler and without SA_RESTART while alive: a blocked
/// read(2) or write(2) it interrupts fails with EINTR (or, for a write that
/// has transferred some bytes, returns short).
class InterruptingSignal {
public:
  InterruptingSignal() {
    struct sigaction A;
    std::memset(&A, 0, sizeof(A));
    A.sa_handler = onSignal;
    sigemptyset(&A.sa_mask);
    A.sa_flags = 0;
    ::sigaction(SIGUSR1, &A, &Previous);
  }
  ~InterruptingSignal() { ::sigaction(SIGUSR1, &Previous, nullptr); }

private:
  struct sigaction Previous;
};

TEST(FileDescriptorTest, InterruptedCallsAreRepeated) {
  InterruptingSignal Handler;
  // A reader blocked in readAll is signalled again and again before the
  // bytes arrive; it still returns them all.
  Pipe P;
  std::string Data = pattern(100);
  std::string Got(100, '\0');
  std::atomic<bool> Started{false};
  ErrorOr<size_t> N = std::error_code();
  std::thread Reader([&] {
    Started = true;
    N = readAll(P.Read.get(), Got.data(), Got.size());
  });
  while (!Started)
    std::this_thread::yield();
  unsigned Before = Interruptions;
  for (int I = 0; I < 20; ++I) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ::pthread_kill(Reader.native_handle(), SIGUSR1);
  }
  // Signals sent while one is pending merge: at least one arrived.
  while (Interruptions == Before)
    std::this_thread::yield();
  ASSERT_FALSE(writeAll(P.Write.get(), Data.substr(0, 40)));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::pthread_kill(Reader.native_handle(), SIGUSR1);
  ASSERT_FALSE(writeAll(P.Write.get(), Data.substr(40)));
  Reader.join();
  ASSERT_TRUE(bool(N)) << N.getError().message();
  EXPECT_EQ(*N, 100u);
  EXPECT_EQ(Got, Data);

  // A writer blocked on a full pipe is signalled, some of its writes end
  // short or with EINTR; the reader still sees every byte in order.
  Pipe Q;
  ASSERT_GE(::fcntl(Q.Write.get(), F_SETPIPE_SZ, 4096), 4096);
  std::string Big = pattern(1 << 18);
  std::error_code WriteEC = std::make_error_code(std::errc::io_error);
  std::thread Writer([&] {
    WriteEC = writeAll(Q.Write.get(), Big);
    Q.Write.reset();
  });
  std::string Read;
  char Buf[512];
  unsigned Reads = 0;
  while (ErrorOr<size_t> M = readSome(Q.Read.get(), Buf, sizeof(Buf))) {
    if (*M == 0)
      break;
    Read.append(Buf, *M);
    if (++Reads % 16 == 0)
      ::pthread_kill(Writer.native_handle(), SIGUSR1);
  }
  Writer.join();
  EXPECT_FALSE(WriteEC) << WriteEC.message();
  EXPECT_EQ(Read.size(), Big.size());
  EXPECT_TRUE(Read == Big);
}

TEST(FileDescriptorTest, ErrorsAreErrno) {
  Pipe P;
  int Closed = P.Read.get();
  P.Read.reset();
  char Buf[4];
  EXPECT_EQ(readSome(Closed, Buf, 4).getError(),
            std::errc::bad_file_descriptor);
  EXPECT_EQ(readAll(Closed, Buf, 4).getError(), std::errc::bad_file_descriptor);
  EXPECT_EQ(writeAll(-1, "x"), std::errc::bad_file_descriptor);
  // The reading end is gone: EPIPE (SIGPIPE ignored meanwhile).
  struct sigaction Ignore, Previous;
  std::memset(&Ignore, 0, sizeof(Ignore));
  Ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &Ignore, &Previous);
  std::error_code EC = writeAll(P.Write.get(), "lost");
  ::sigaction(SIGPIPE, &Previous, nullptr);
  EXPECT_EQ(EC, std::errc::broken_pipe);
}

} // namespace
