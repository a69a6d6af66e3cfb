//===- mlgo/Support/WorkDirLock.h - One run per work directory --*- C++ -*-===//
//
// `mlgo tune` keeps everything it measured in its work directory and reads
// it back on a rerun; two runs on one directory overwrote each other's
// compiles ("cannot rename '.../<md5>.tmp.o'") and cached a measurement
// that both had added to. So a run holds the directory's lock while it
// works: WORK/mlgo.lock, locked with flock(2) and holding the holder's pid
// (a line of decimal digits).
//
// flock's lock belongs to the open file, so it ends with the process
// however it ends (kill -9 included) and no stale lock can refuse a run;
// the pid is only what the messages say. A second run is refused with the
// directory and the holder's pid. A run that finds the lock free but a pid
// in the file (the run that wrote it ended without releasing it: killed)
// takes it over and says so. Releasing empties the file, then unlocks.
// The descriptor is close-on-exec, so no compiler inherits the lock (a
// process forked without exec does, and so holds it while it lives).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_WORKDIRLOCK_H
#define MLGO_SUPPORT_WORKDIRLOCK_H

#include "mlgo/Support/FileDescriptor.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlgo {

/// The lock of one work directory, held while the object lives.
class WorkDirLock {
public:
  /// Creates \p Dir if needed and takes its lock. Fails with "work
  /// directory 'D' is in use by another mlgo (pid N); wait for it to end
  /// or use another --work-dir" while another process holds it. A lock
  /// left by a process that ended is taken over, and \p Note gets "taking
  /// over work directory 'D' from pid N, which ended without releasing it"
  /// (by default printed on stderr after "mlgo: ").
  static llvm::Expected<WorkDirLock>
  acquire(llvm::StringRef Dir,
          llvm::function_ref<void(llvm::StringRef)> Note = printNote);

  /// Prints "mlgo: <Message>" on stderr.
  static void printNote(llvm::StringRef Message);

  WorkDirLock(WorkDirLock &&) = default;
  WorkDirLock &operator=(WorkDirLock &&) = default;
  ~WorkDirLock();

  /// The lock file: WORK/mlgo.lock.
  const std::string &getPath() const { return Path; }

private:
  WorkDirLock(std::string Path, FileDescriptor FD)
      : Path(std::move(Path)), FD(std::move(FD)) {}

  std::string Path;
  FileDescriptor FD;
};

} // namespace mlgo

#endif // MLGO_SUPPORT_WORKDIRLOCK_H
