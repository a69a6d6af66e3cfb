//===- lib/Support/TempDirs.cpp - Scratch directories that go away --------===//
//
// See mlgo/Support/TempDirs.h. The trees a signal handler must remove live
// in a fixed table of plain char arrays (no allocation in the handler), and
// the handler walks them with raw system calls.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/TempDirs.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <atomic>
#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace mlgo {

namespace {

constexpr size_t MaxPath = 512;

struct LiveSlot {
  std::atomic<bool> Used{false};
  std::atomic<bool> Ready{false};
  char Path[MaxPath];
};

LiveSlot Live[TempDir::MaxLive];
const int Signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction Previous[std::size(Signals)];
std::atomic<bool> Installed{false};

/// The record getdents64 fills.
struct DirEntry64 {
  uint64_t Inode;
  int64_t Offset;
  unsigned short Length;
  unsigned char Type;
  char Name[1];
};

bool isDotOrDotDot(const char *Name) {
  return Name[0] == '.' &&
         (Name[1] == '\0' || (Name[1] == '.' && Name[2] == '\0'));
}

/// Removes \p Name (relative to \p ParentFD) and everything under it, with
/// async-signal-safe calls only. Directories deeper than 16 levels are left.
void removeTreeAt(int ParentFD, const char *Name, int Depth) {
  int FD =
      ::openat(ParentFD, Name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (FD >= 0) {
    alignas(8) char Buf[1024];
    // Entries removed while reading may make getdents skip others: read
    // from the start again until a pass removes nothing.
    for (int Pass = 0; Pass < 64; ++Pass) {
      ::lseek(FD, 0, SEEK_SET);
      bool Removed = false;
      while (true) {
        long N = ::syscall(SYS_getdents64, FD, Buf, sizeof(Buf));
        if (N <= 0)
          break;
        for (long At = 0; At < N;) {
          auto *D = reinterpret_cast<DirEntry64 *>(Buf + At);
          At += D->Length;
          if (isDotOrDotDot(D->Name))
            continue;
          if (D->Type != DT_DIR && ::unlinkat(FD, D->Name, 0) == 0) {
            Removed = true;
            continue;
          }
          if (Depth < 16) {
            removeTreeAt(FD, D->Name, Depth + 1);
            Removed = true;
          }
        }
      }
      if (!Removed)
        break;
    }
    ::close(FD);
  }
  ::unlinkat(ParentFD, Name, AT_REMOVEDIR);
}

void onTerminatingSignal(int Sig) {
  int SavedErrno = errno;
  for (LiveSlot &S : Live)
    if (S.Ready.load())
      removeTreeAt(AT_FDCWD, S.Path, 0);
  for (size_t I = 0; I < std::size(Signals); ++I)
    if (Signals[I] == Sig)
      ::sigaction(Sig, &Previous[I], nullptr);
  errno = SavedErrno;
  ::raise(Sig);
}

void installOnce() {
  bool Expected = false;
  if (!Installed.compare_exchange_strong(Expected, true))
    return;
  for (size_t I = 0; I < std::size(Signals); ++I) {
    struct sigaction Action;
    std::memset(&Action, 0, sizeof(Action));
    Action.sa_handler = onTerminatingSignal;
    sigemptyset(&Action.sa_mask);
    Action.sa_flags = SA_RESETHAND;
    ::sigaction(Signals[I], &Action, &Previous[I]);
  }
}

std::string tempRoot() {
  SmallString<128> Root;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Root);
  return Root.str().str();
}

/// The pid in \p Name if it is PREFIX-PID-XXXXXX.
std::optional<int> ownerOf(StringRef Name, StringRef Prefix) {
  if (!Name.consume_front(Prefix) || !Name.consume_front("-"))
    return std::nullopt;
  auto [Digits, Rest] = Name.split('-');
  int Pid;
  if (Rest.size() != 6 || Digits.getAsInteger(10, Pid) || Pid <= 0)
    return std::nullopt;
  return Pid;
}

/// Whether process \p Pid still runs. A zombie does not: a SIGKILLed
/// worker rank whose parent (Open MPI's daemon) has not reaped it yet
/// answers kill(0) but will never remove its directory.
bool isRunning(int Pid) {
  if (::kill(Pid, 0) != 0 && errno == ESRCH)
    return false;
  char Path[64];
  std::snprintf(Path, sizeof(Path), "/proc/%d/stat", Pid);
  int FD = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return true;
  char Buf[512];
  ssize_t N = ::read(FD, Buf, sizeof(Buf) - 1);
  ::close(FD);
  if (N <= 0)
    return true;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so the
  // state follows the last ')'.
  StringRef Stat(Buf, size_t(N));
  size_t Close = Stat.rfind(')');
  if (Close == StringRef::npos || Close + 2 >= Stat.size())
    return true;
  return Stat[Close + 2] != 'Z';
}

/// Removes this user's directories under the temporary root named
/// Prefix-PID-* whose owner PID (not this process) \p Remove accepts, and
/// says how many went. Not sys::fs::remove_directories: it leaves FIFOs
/// (a channel's) and other files that are not regular.
unsigned removeOwnedTempDirs(StringRef Prefix,
                             llvm::function_ref<bool(int)> Remove) {
  std::string Root = tempRoot();
  unsigned Removed = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Root, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    std::optional<int> Pid = ownerOf(Name, Prefix);
    if (!Pid || *Pid == ::getpid())
      continue;
    struct stat St;
    if (::lstat(It->path().c_str(), &St) != 0 || !S_ISDIR(St.st_mode) ||
        St.st_uid != ::getuid() || !Remove(*Pid))
      continue;
    removeTreeAt(AT_FDCWD, It->path().c_str(), 0);
    Removed += !sys::fs::exists(It->path());
  }
  return Removed;
}

} // namespace

unsigned collectStaleTempDirs(StringRef Prefix) {
  return removeOwnedTempDirs(Prefix, [](int Pid) { return !isRunning(Pid); });
}

unsigned removeTempDirsOf(StringRef Prefix, ArrayRef<int> Owners) {
  if (Owners.empty())
    return 0;
  return removeOwnedTempDirs(
      Prefix, [&](int Pid) { return llvm::is_contained(Owners, Pid); });
}

Expected<TempDir> TempDir::create(StringRef Prefix) {
  assert(!Prefix.contains('/') && !Prefix.empty() && !isDigit(Prefix.back()) &&
         "a prefix the pid can follow");
  collectStaleTempDirs(Prefix);
  std::string Root = tempRoot();
  std::string Template =
      (Root + "/" + Prefix + "-" + Twine(::getpid()) + "-XXXXXX").str();
  if (Template.size() >= MaxPath)
    return makeError("cannot create a directory under " + Root +
                     ": the path is too long");
  int Slot = -1;
  for (int I = 0; I < MaxLive && Slot < 0; ++I) {
    bool Expected = false;
    if (Live[I].Used.compare_exchange_strong(Expected, true))
      Slot = I;
  }
  if (Slot < 0)
    return makeError("cannot create a directory under " + Root + ": " +
                     Twine(MaxLive) + " are in use in this process");
  std::vector<char> Buf(Template.begin(), Template.end());
  Buf.push_back('\0');
  if (!::mkdtemp(Buf.data())) {
    Live[Slot].Used = false;
    return makeError("cannot create a directory under " + Root + ": " +
                     std::strerror(errno));
  }
  installOnce();
  std::memcpy(Live[Slot].Path, Buf.data(), Buf.size());
  Live[Slot].Ready = true;
  TempDir D;
  D.Path = Buf.data();
  D.Slot = Slot;
  return D;
}

TempDir::TempDir(TempDir &&Other) noexcept
    : Path(std::move(Other.Path)), Slot(Other.Slot) {
  Other.Path.clear();
  Other.Slot = -1;
}

TempDir &TempDir::operator=(TempDir &&Other) noexcept {
  if (this != &Other) {
    remove();
    Path = std::move(Other.Path);
    Slot = Other.Slot;
    Other.Path.clear();
    Other.Slot = -1;
  }
  return *this;
}

TempDir::~TempDir() { remove(); }

void TempDir::remove() {
  if (Slot >= 0) {
    Live[Slot].Ready = false;
    Live[Slot].Used = false;
    Slot = -1;
  }
  if (!Path.empty())
    removeTreeAt(AT_FDCWD, Path.c_str(), 0);
  Path.clear();
}

} // namespace mlgo
