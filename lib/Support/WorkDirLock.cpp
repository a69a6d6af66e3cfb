//===- lib/Support/WorkDirLock.cpp - One run per work directory -----------===//
//
// See mlgo/Support/WorkDirLock.h: the work directory's lock, an flock(2) on
// WORK/mlgo.lock that holds the holder's pid for the messages.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/WorkDirLock.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

/// The pid the lock file names, or "" (an empty or unreadable file).
static std::string readHolder(int FD) {
  char Buf[32];
  ssize_t N = ::pread(FD, Buf, sizeof(Buf) - 1, 0);
  if (N <= 0)
    return "";
  StringRef Text = StringRef(Buf, N).trim();
  unsigned long long Pid;
  if (Text.getAsInteger(10, Pid))
    return "";
  return Text.str();
}

Expected<WorkDirLock> WorkDirLock::acquire(StringRef Dir,
                                           function_ref<void(StringRef)> Note) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create '" + Dir + "': " + EC.message());
  std::string Path = (Dir + "/mlgo.lock").str();
  FileDescriptor FD(sys::RetryAfterSignal(-1, ::open, Path.c_str(),
                                          O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!FD)
    return makeError("cannot open '" + Path + "': " + std::strerror(errno));
  if (sys::RetryAfterSignal(-1, ::flock, FD.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK)
      return makeError("cannot lock '" + Path + "': " + std::strerror(errno));
    std::string Holder = readHolder(FD.get());
    return makeError("work directory '" + Dir +
                     "' is in use by another mlgo (pid " +
                     (Holder.empty() ? std::string("unknown") : Holder) +
                     "); wait for it to end or use another --work-dir");
  }
  std::string Left = readHolder(FD.get());
  if (!Left.empty())
    Note(("taking over work directory '" + Dir + "' from pid " + Left +
          ", which ended without releasing it")
             .str());
  std::string Pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(FD.get(), 0) != 0 ||
      ::pwrite(FD.get(), Pid.data(), Pid.size(), 0) !=
          static_cast<ssize_t>(Pid.size()))
    return makeError("cannot write '" + Path + "': " + std::strerror(errno));
  return WorkDirLock(std::move(Path), std::move(FD));
}

void WorkDirLock::printNote(StringRef Message) {
  errs() << "mlgo: " << Message << "\n";
}

WorkDirLock::~WorkDirLock() {
  if (!FD)
    return;
  // Emptied while still locked: a run that then takes the lock finds no
  // pid and has nothing to take over.
  (void)::ftruncate(FD.get(), 0);
  FD.reset();
}

} // namespace mlgo
