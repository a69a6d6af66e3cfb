//===- mlgo/Support/Process.h - Run a program with a timeout ----*- C++ -*-===//
//
// Evaluation and corpus checks run thousands of compiler processes from a
// thread pool, and package builds spawn whole process trees; none may hang
// the run. llvm::sys::ExecuteAndWait's timeout is an alarm(2) signal, which
// in a multi-threaded process may be delivered to another thread (the wait
// then never times out) and which concurrent waits overwrite. runProcess
// instead polls the child without blocking (sys::Wait with a zero timeout)
// until it exits or the deadline passes, then kills it - with its whole
// process group when asked, so that a build's make and compilers die with
// it.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_PROCESS_H
#define MLGO_SUPPORT_PROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlgo {

struct RunOptions {
  /// Redirections; unset: inherited. An output file that exists is
  /// replaced (Stdout and Stderr may name the same file).
  std::optional<std::string> Stdin, Stdout, Stderr;
  /// 0: no limit.
  unsigned TimeoutSeconds = 0;
  /// Run the program in its own session and process group (through
  /// setsid(1)) and kill the whole group on timeout.
  bool OwnProcessGroup = false;
};

/// How a run ended.
struct RunResult {
  /// The program's exit code; negative if it did not exit normally.
  int ExitCode = 0;
  /// False if the program could not be started at all (Problem says why).
  bool Started = false;
  bool TimedOut = false;
  /// Why the program did not run or did not exit normally (empty if it did).
  std::string Problem;

  bool succeeded() const { return ExitCode == 0 && Problem.empty(); }
  /// "exited with 2", "timed out after 10 s", "cannot find 'x' in PATH"...
  std::string describe() const;
};

/// Runs \p Argv; argv[0] is looked up in PATH unless it contains a '/'.
RunResult runProcess(llvm::ArrayRef<std::string> Argv,
                     const RunOptions &Options);

} // namespace mlgo

#endif // MLGO_SUPPORT_PROCESS_H
