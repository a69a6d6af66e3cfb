//===- mlgo/Support/Process.h - Child processes -----------------*- C++ -*-===//
//
// mlgo's one subprocess layer: every program mlgo runs (compilers replayed
// by corpus check and eval, package builds, the compiler `mlgo serve`
// serves) and every worker it forks goes through it, and every way a child
// can end is one ProcessResult.
//
// Evaluation and corpus checks run thousands of compiler processes from a
// thread pool, and package builds spawn whole process trees; none may hang
// the run, and each wait must be independent of the others. So:
//
//  * nothing here uses signals to wait: llvm::sys::ExecuteAndWait's timeout
//    is an alarm(2) signal, which in a multi-threaded process may be
//    delivered to another thread (the wait then never times out) and which
//    concurrent waits overwrite, and even sys::Wait's non-blocking poll
//    calls alarm(0) - cancelling any alarm pending in the process - and
//    leaves its own SIGALRM handler installed. A deadline is a poll(2) on a
//    pidfd (a descriptor that becomes readable when the child ends; Linux
//    5.3) with a timeout, or, where the kernel has no pidfds, a short
//    polling sleep; the child is reaped with waitpid() on its own pid;
//  * a result keeps the number of a fatal signal (sys::Wait keeps only its
//    name) and tells an exit status of 126 or 127 from a failure to start
//    (sys::Wait reports both as "No such file or directory"-like errors);
//  * a child may get its own session and process group, set up by
//    posix_spawn before the program starts (no window in which a kill of
//    the group misses it), and is then killed with its whole group, so that
//    a build's make and compilers die with it;
//  * a child that mlgo forked itself without exec (the training workers) is
//    adopted, and waited for and killed the same way.
//  * a child with its own group dies with mlgo, however mlgo ends: SIGINT,
//    SIGTERM and SIGHUP kill its group from a handler, and a keeper process
//    (forked once) kills it when mlgo ends without running a handler
//    (kill -9, a crash); only a child started in the microseconds between
//    its spawn and its report to the keeper can escape.
//
// Spawning calls posix_spawn directly rather than sys::ExecuteNoWait,
// which can neither start a child in its own session nor truncate an
// output file; PATH lookup is LLVM's (sys::findProgramByName). Neither can
// set a parent-death signal: a child that needs one (DieWithParent) is
// started as glibc's posix_spawn starts any, with clone(CLONE_VM |
// CLONE_VFORK) and exec, never with fork(), whose copy of a large
// caller's page tables (a Python process) costs milliseconds per child.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_PROCESS_H
#define MLGO_SUPPORT_PROCESS_H

#include "mlgo/Support/FileDescriptor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cassert>
#include <chrono>
#include <optional>
#include <string>

struct rusage;

namespace mlgo {

/// How a child process ended, or why it never ran.
class ProcessResult {
public:
  enum class Kind {
    Exited,     ///< It exited with getExitCode().
    Signaled,   ///< A signal it did not handle ended it: getSignal().
    TimedOut,   ///< mlgo killed it at its deadline (getTimeoutSeconds()).
    NotStarted, ///< It could not be started (or, reaped by someone else,
                ///< its end is unknown): getProblem() says why.
  };

  static ProcessResult exited(int Code) { return {Kind::Exited, Code, ""}; }
  static ProcessResult signaled(int Signal) {
    return {Kind::Signaled, Signal, ""};
  }
  static ProcessResult timedOut(unsigned Seconds) {
    return {Kind::TimedOut, static_cast<int>(Seconds), ""};
  }
  static ProcessResult notStarted(std::string Problem) {
    return {Kind::NotStarted, 0, std::move(Problem)};
  }
  /// The end that waitpid() reported as \p WaitStatus.
  static ProcessResult fromWaitStatus(int WaitStatus);

  Kind getKind() const { return TheKind; }
  /// Exited with status 0.
  bool succeeded() const { return TheKind == Kind::Exited && Value == 0; }
  bool hasStarted() const { return TheKind != Kind::NotStarted; }
  bool isSignaled() const { return TheKind == Kind::Signaled; }
  bool isTimedOut() const { return TheKind == Kind::TimedOut; }

  int getExitCode() const {
    assert(TheKind == Kind::Exited && "the process did not exit");
    return Value;
  }
  int getSignal() const {
    assert(TheKind == Kind::Signaled && "no signal ended the process");
    return Value;
  }
  unsigned getTimeoutSeconds() const {
    assert(TheKind == Kind::TimedOut && "the process did not time out");
    return static_cast<unsigned>(Value);
  }
  const std::string &getProblem() const { return Problem; }

  /// What a shell would report: the exit code, 128 + the signal, 128 +
  /// SIGKILL for a timed-out process (mlgo killed it), 127 for one that
  /// never started.
  int toShellStatus() const;

  /// "exited with status 3", "was killed by signal 11 (Segmentation
  /// fault)", "timed out after 10 s", or the problem: "cannot find 'x' in
  /// PATH", "cannot run 'x': Permission denied"...
  std::string describe() const;

  bool operator==(const ProcessResult &Other) const {
    return TheKind == Other.TheKind && Value == Other.Value &&
           Problem == Other.Problem;
  }

private:
  ProcessResult(Kind K, int Value, std::string Problem)
      : TheKind(K), Value(Value), Problem(std::move(Problem)) {}

  Kind TheKind;
  /// The exit code, signal or timeout.
  int Value;
  std::string Problem;
};

struct SpawnOptions {
  /// Redirections; unset: inherited. An output file that exists is
  /// truncated (Stdout and Stderr may name the same file, which they then
  /// share).
  std::optional<std::string> Stdin, Stdout, Stderr;
  /// Start the program in its own session and process group (setsid), and
  /// kill the whole group in ChildProcess::kill().
  bool OwnProcessGroup = false;
  /// Run the program on this CPU alone (and its children, which inherit
  /// the affinity). posix_spawn has no attribute for it, so the spawning
  /// thread pins itself, spawns and restores its own affinity: the child
  /// is pinned from its first instruction on, and other threads are not
  /// touched. spawn() fails if the CPU cannot be used ("cannot run on CPU
  /// n: ...").
  std::optional<unsigned> CPU;
  /// Have the kernel SIGKILL the program when the thread that spawned it
  /// ends (prctl's PR_SET_PDEATHSIG), so that a killed parent - a host
  /// process of the interactive protocol, an os._exit()ing Python - leaves
  /// no compiler behind waiting for it. Only for a child that the spawning
  /// thread waits for itself (the signal follows the thread, not the
  /// process). posix_spawn cannot ask for it: such a child is started with
  /// clone(CLONE_VM | CLONE_VFORK), sharing the caller's memory until it
  /// execs (no copy of the address space), with the same errors.
  bool DieWithParent = false;
};

/// The CPU time a child used, as wait4(2) reported it when the child was
/// reaped: its own and that of the descendants it waited for.
struct ResourceUsage {
  double UserSeconds = 0;
  double SystemSeconds = 0;
  double cpuSeconds() const { return UserSeconds + SystemSeconds; }
};

/// A child process of this one, and the only party that waits for it: it
/// reaps the child exactly once and then keeps its result. Waiting on one
/// handle does not disturb any other (no signals, no waitpid(-1)), so
/// handles may be used from many threads, each handle by one thread at a
/// time. Destroying a handle whose child is still running, or assigning
/// over it, kills and reaps the child: a handle never leaves a process or a
/// zombie behind (a copy of the handle in a fork()ed child does nothing).
class ChildProcess {
public:
  using Clock = std::chrono::steady_clock;

  /// Starts \p Argv; argv[0] is looked up in PATH unless it contains a '/'.
  /// The child gets the default disposition of SIGPIPE and no blocked
  /// signals, whatever the calling thread has. Fails with "cannot find 'x'
  /// in PATH", "cannot open 'f' for writing: ..." or "cannot run 'x': ...".
  static llvm::Expected<ChildProcess> spawn(llvm::ArrayRef<std::string> Argv,
                                            const SpawnOptions &Options = {});

  /// Takes charge of \p Pid, a child of this process not yet waited for
  /// (e.g. returned by fork()); \p OwnProcessGroup if it leads its own
  /// process group.
  static ChildProcess adopt(int Pid, bool OwnProcessGroup = false);

  ChildProcess(ChildProcess &&Other) noexcept;
  ChildProcess &operator=(ChildProcess &&Other) noexcept;
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  ~ChildProcess();

  int getPid() const { return Pid; }

  /// A descriptor that poll(2) reports readable once the child has ended
  /// (until it is reaped), to wait for the child and for other descriptors
  /// in one poll; -1 where the kernel has none, or once the child has been
  /// reaped. Owned by the handle.
  int getExitFD() const { return ExitFD.get(); }

  /// Does not block: the result if the child has ended (reaping it), none
  /// while it runs.
  std::optional<ProcessResult> poll();

  /// Waits until the child ends or \p Deadline passes; none at the deadline
  /// (the child still runs).
  std::optional<ProcessResult> waitUntil(Clock::time_point Deadline);

  /// Waits for the child to end, without bound.
  ProcessResult wait();

  /// Sends SIGKILL to the child - to its whole process group if it has its
  /// own. Does nothing once the child has been reaped (its pid may belong to
  /// another process by then). wait() then reports the kill (or an end the
  /// child reached first).
  void kill();

  /// The result, once the child has been reaped.
  const std::optional<ProcessResult> &getResult() const { return Result; }

  /// The CPU time the child used, once it has been reaped by this handle
  /// (none for a child whose end is unknown).
  const std::optional<ResourceUsage> &getUsage() const { return Usage; }

private:
  ChildProcess(int Pid, bool OwnProcessGroup);
  void reaped(int WaitStatus, const struct rusage &Used);

  int Pid = -1;
  bool OwnProcessGroup = false;
  FileDescriptor ExitFD;
  /// The process that created this handle: a fork()ed copy of the handle
  /// must not kill or reap the child of its parent.
  int Owner = -1;
  std::optional<ProcessResult> Result;
  std::optional<ResourceUsage> Usage;
};

struct RunOptions : SpawnOptions {
  /// Kill the program (its whole group with OwnProcessGroup) when it runs
  /// longer than this; 0: no limit.
  unsigned TimeoutSeconds = 0;
};

/// Runs \p Argv to completion (see ChildProcess::spawn) and says how it
/// ended: a program killed at the timeout is TimedOut, one that could not
/// start is NotStarted. Safe to call from many threads at once. A child
/// with OwnProcessGroup, which no terminal signal reaches, is killed with
/// its whole group when SIGINT, SIGTERM or SIGHUP ends this process.
ProcessResult runProcess(llvm::ArrayRef<std::string> Argv,
                         const RunOptions &Options = {});

/// Runs \p Argv as runProcess does (stdin /dev/null, stderr discarded) and
/// returns what it wrote on stdout; an error says how it ended if it did
/// not succeed. For short outputs, e.g. a tool's `--version`.
llvm::Expected<std::string> runForOutput(llvm::ArrayRef<std::string> Argv,
                                         unsigned TimeoutSeconds = 60);

} // namespace mlgo

#endif // MLGO_SUPPORT_PROCESS_H
