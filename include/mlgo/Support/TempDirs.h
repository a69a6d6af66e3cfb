//===- mlgo/Support/TempDirs.h - Scratch directories ------------*- C++ -*-===//
//
// mlgo's scratch directories under $TMPDIR (a rank's copies of bitcode,
// the raw profiles of a workload, a protocol channel's FIFOs) must not
// outlive the run that made them, whichever way it ends:
//
//  * normally, or by an error: the TempDir's destructor removes the tree;
//  * by SIGINT, SIGTERM or SIGHUP: a handler removes every live tree,
//    with system calls only (openat, getdents64, unlinkat: a signal
//    handler may call nothing else), then hands the signal on to the
//    handler that was there before (LLVM's, which removes its own
//    temporary files) and re-raises it;
//  * by SIGKILL (or a power cut), where nothing of the process runs: the
//    tree's name carries the pid of its owner, "PREFIX-PID-XXXXXX", and the
//    next TempDir::create of the same prefix removes every such tree of
//    this user whose owner is no longer alive.
//
// A tree of a live process is never touched, so two runs at once keep
// their own; a pid reused by an unrelated process since keeps a stale
// tree until that process ends, the safe way round. Trees on a $TMPDIR
// shared by several hosts (NFS) are told apart by pid only: keep $TMPDIR
// local.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_TEMPDIRS_H
#define MLGO_SUPPORT_TEMPDIRS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlgo {

/// A directory of this process under $TMPDIR (or /tmp), mode 0700, removed
/// with everything in it when destroyed or when a terminating signal ends
/// the process (see above).
class TempDir {
public:
  /// Removes the stale trees of \p Prefix (collectStaleTempDirs), then
  /// creates $TMPDIR/PREFIX-PID-XXXXXX. \p Prefix holds no '/' and does not
  /// end in a digit (the pid follows it). At most MaxLive directories live
  /// at once in a process; more is an error, as is a failing mkdtemp
  /// ("cannot create a directory under DIR: REASON").
  static llvm::Expected<TempDir> create(llvm::StringRef Prefix);

  TempDir() = default;
  TempDir(TempDir &&Other) noexcept;
  TempDir &operator=(TempDir &&Other) noexcept;
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir();

  const std::string &path() const { return Path; }
  bool empty() const { return Path.empty(); }
  /// Removes the tree now (and stops watching it).
  void remove();

  /// How many directories a process may hold at once.
  static constexpr int MaxLive = 32;

private:
  std::string Path;
  int Slot = -1;
};

/// Removes the trees $TMPDIR/PREFIX-PID-* of this user whose process PID is
/// not alive; returns how many.
unsigned collectStaleTempDirs(llvm::StringRef Prefix);

/// Removes the trees $TMPDIR/PREFIX-PID-* of this user whose PID is one of
/// \p Owners, alive or not (rank 0 ending a job removes the directories of
/// the worker ranks on its host, which mpirun may SIGKILL before their own
/// handlers run); returns how many.
unsigned removeTempDirsOf(llvm::StringRef Prefix, llvm::ArrayRef<int> Owners);

} // namespace mlgo

#endif // MLGO_SUPPORT_TEMPDIRS_H
