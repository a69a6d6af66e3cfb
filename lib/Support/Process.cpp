//===- lib/Support/Process.cpp - Child processes --------------------------===//
//
// Spawning with posix_spawn, waiting with waitpid() on one pid and poll(2)
// on a pidfd, killing a child or its process group (see
// mlgo/Support/Process.h for why each, and not LLVM's sys::Execute*/Wait).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Process.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <mutex>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace mlgo {

//===-- ProcessResult -----------------------------------------------------===//

ProcessResult ProcessResult::fromWaitStatus(int WaitStatus) {
  if (WIFSIGNALED(WaitStatus))
    return signaled(WTERMSIG(WaitStatus));
  return exited(WEXITSTATUS(WaitStatus));
}

int ProcessResult::toShellStatus() const {
  switch (TheKind) {
  case Kind::Exited:
    return Value;
  case Kind::Signaled:
    return 128 + Value;
  case Kind::TimedOut:
    return 128 + SIGKILL;
  case Kind::NotStarted:
    return 127;
  }
  llvm_unreachable("unknown process result kind");
}

std::string ProcessResult::describe() const {
  switch (TheKind) {
  case Kind::Exited:
    return "exited with status " + std::to_string(Value);
  case Kind::Signaled: {
    std::string S = "was killed by signal " + std::to_string(Value);
    if (const char *Name = ::strsignal(Value))
      S += std::string(" (") + Name + ")";
    return S;
  }
  case Kind::TimedOut:
    return "timed out after " + std::to_string(Value) + " s";
  case Kind::NotStarted:
    return Problem;
  }
  llvm_unreachable("unknown process result kind");
}

//===-- Spawning ----------------------------------------------------------===//

namespace {

/// posix_spawn's attribute and file action objects, destroyed on scope exit.
struct SpawnState {
  posix_spawn_file_actions_t Actions;
  posix_spawnattr_t Attributes;
  SpawnState() {
    posix_spawn_file_actions_init(&Actions);
    posix_spawnattr_init(&Attributes);
  }
  ~SpawnState() {
    posix_spawn_file_actions_destroy(&Actions);
    posix_spawnattr_destroy(&Attributes);
  }
  SpawnState(const SpawnState &) = delete;
  SpawnState &operator=(const SpawnState &) = delete;
};

Error openRedirection(const std::string &Path, bool ForWriting,
                      FileDescriptor &FD) {
  int Flags = ForWriting ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
  int Opened =
      sys::RetryAfterSignal(-1, ::open, Path.c_str(), Flags | O_CLOEXEC, 0666);
  // Above the standard descriptors (this process may have closed one):
  // posix_spawn's dup2 of a descriptor onto itself would keep it
  // close-on-exec.
  if (Opened >= 0 && Opened <= STDERR_FILENO) {
    FileDescriptor Low(Opened);
    Opened = ::fcntl(Low.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  }
  if (Opened < 0)
    return makeError("cannot open '" + Path + "' for " +
                     (ForWriting ? "writing" : "reading") + ": " +
                     std::strerror(errno));
  FD.reset(Opened);
  return Error::success();
}

/// A pidfd for \p Pid (close-on-exec), or -1 if the kernel has none.
int openPidFD(int Pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, Pid, 0));
#else
  (void)Pid;
  return -1;
#endif
}

/// ChildProcess::spawn with DieWithParent: posix_spawn cannot ask for a
/// parent-death signal, so fork, set it up in the child (only
/// async-signal-safe calls between fork and exec), and exec. A pipe that
/// exec closes carries the child's errno back if exec fails, so that the
/// error is the same as posix_spawn's.
Expected<ChildProcess>
spawnDyingWithParent(const std::string &Program, std::vector<char *> &Args,
                     const FileDescriptor &In, const FileDescriptor &Out,
                     const FileDescriptor &Err, const SpawnOptions &Options);

} // namespace

namespace {

Expected<ChildProcess>
spawnDyingWithParent(const std::string &Program, std::vector<char *> &Args,
                     const FileDescriptor &In, const FileDescriptor &Out,
                     const FileDescriptor &Err, const SpawnOptions &Options) {
  int Pipe[2];
  if (::pipe2(Pipe, O_CLOEXEC) != 0)
    return makeError("cannot run '" + Program + "': " + std::strerror(errno));
  FileDescriptor ReadEnd(Pipe[0]), WriteEnd(Pipe[1]);
  const pid_t Parent = ::getpid();
  const bool SameOutput =
      Options.Stdout && Options.Stderr && *Options.Stdout == *Options.Stderr;
  pid_t Pid = ::fork();
  if (Pid < 0)
    return makeError("cannot run '" + Program + "': " + std::strerror(errno));
  if (Pid == 0) {
    auto Die = [&] {
      int Errno = errno;
      ssize_t Ignored = ::write(WriteEnd.get(), &Errno, sizeof(Errno));
      (void)Ignored;
      ::_exit(127);
    };
    if (Options.OwnProcessGroup && ::setsid() < 0)
      Die();
    // SIGKILL when the thread that forked ends: the host is gone and
    // nobody will ever answer the compiler (stock LLVM spins on the end of
    // file of its inbound FIFO). A parent already gone before the call is
    // noticed by the parent pid changing.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
      Die();
    if (::getppid() != Parent)
      ::_exit(127);
    if (In && ::dup2(In.get(), STDIN_FILENO) < 0)
      Die();
    if (Out && ::dup2(Out.get(), STDOUT_FILENO) < 0)
      Die();
    if (SameOutput && ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
      Die();
    if (Err && ::dup2(Err.get(), STDERR_FILENO) < 0)
      Die();
    ::signal(SIGPIPE, SIG_DFL);
    sigset_t Empty;
    sigemptyset(&Empty);
    ::sigprocmask(SIG_SETMASK, &Empty, nullptr);
    ::execve(Program.c_str(), Args.data(), environ);
    Die();
  }
  WriteEnd.reset();
  int Errno = 0;
  ErrorOr<size_t> Got =
      readAll(ReadEnd.get(), reinterpret_cast<char *>(&Errno), sizeof(Errno));
  if (Got && *Got == sizeof(Errno)) {
    int Status;
    sys::RetryAfterSignal(-1, ::waitpid, Pid, &Status, 0);
    return makeError("cannot run '" + Program + "': " + std::strerror(Errno));
  }
  return ChildProcess::adopt(Pid, Options.OwnProcessGroup);
}

} // namespace

Expected<ChildProcess> ChildProcess::spawn(ArrayRef<std::string> Argv,
                                           const SpawnOptions &Options) {
  assert(!Argv.empty() && "spawn needs a program");
  std::string Program = Argv[0];
  if (!StringRef(Program).contains('/')) {
    ErrorOr<std::string> Found = sys::findProgramByName(Program);
    if (!Found)
      return makeError("cannot find '" + Program + "' in PATH");
    Program = *Found;
  }

  // Redirections are opened here rather than by posix_spawn, so that an
  // error names the file rather than the program. They are close-on-exec:
  // programs spawned meanwhile by other threads do not inherit them.
  SpawnState S;
  FileDescriptor In, Out, Err;
  if (Options.Stdin) {
    if (Error E = openRedirection(*Options.Stdin, /*ForWriting=*/false, In))
      return E;
    posix_spawn_file_actions_adddup2(&S.Actions, In.get(), STDIN_FILENO);
  }
  if (Options.Stdout) {
    if (Error E = openRedirection(*Options.Stdout, /*ForWriting=*/true, Out))
      return E;
    posix_spawn_file_actions_adddup2(&S.Actions, Out.get(), STDOUT_FILENO);
  }
  if (Options.Stderr) {
    // One open file for both, sharing its offset: two would overwrite each
    // other's output.
    if (Options.Stdout && *Options.Stdout == *Options.Stderr) {
      posix_spawn_file_actions_adddup2(&S.Actions, STDOUT_FILENO,
                                       STDERR_FILENO);
    } else {
      if (Error E = openRedirection(*Options.Stderr, /*ForWriting=*/true, Err))
        return E;
      posix_spawn_file_actions_adddup2(&S.Actions, Err.get(), STDERR_FILENO);
    }
  }

  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  if (Options.DieWithParent)
    return spawnDyingWithParent(Program, Args, In, Out, Err, Options);

  short Flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  sigset_t Empty, Default;
  sigemptyset(&Empty);
  sigemptyset(&Default);
  sigaddset(&Default, SIGPIPE);
  posix_spawnattr_setsigmask(&S.Attributes, &Empty);
  posix_spawnattr_setsigdefault(&S.Attributes, &Default);
  if (Options.OwnProcessGroup)
    Flags |= POSIX_SPAWN_SETSID;
  posix_spawnattr_setflags(&S.Attributes, Flags);

  pid_t Pid = 0;
  if (int EC = ::posix_spawn(&Pid, Program.c_str(), &S.Actions, &S.Attributes,
                             Args.data(), environ))
    return makeError("cannot run '" + Program + "': " + std::strerror(EC));
  return ChildProcess(Pid, Options.OwnProcessGroup);
}

//===-- Waiting and killing -----------------------------------------------===//

ChildProcess::ChildProcess(int Pid, bool OwnProcessGroup)
    : Pid(Pid), OwnProcessGroup(OwnProcessGroup), ExitFD(openPidFD(Pid)),
      Owner(::getpid()) {}

ChildProcess ChildProcess::adopt(int Pid, bool OwnProcessGroup) {
  assert(Pid > 0 && "adopt needs a child's pid");
  return ChildProcess(Pid, OwnProcessGroup);
}

ChildProcess::ChildProcess(ChildProcess &&Other) noexcept
    : Pid(Other.Pid), OwnProcessGroup(Other.OwnProcessGroup),
      ExitFD(std::move(Other.ExitFD)), Owner(Other.Owner),
      Result(std::move(Other.Result)) {
  Other.Pid = -1;
}

ChildProcess &ChildProcess::operator=(ChildProcess &&Other) noexcept {
  if (this == &Other)
    return *this;
  // The child this handle had is killed and reaped with Old.
  ChildProcess Old(std::move(*this));
  Pid = Other.Pid;
  OwnProcessGroup = Other.OwnProcessGroup;
  ExitFD = std::move(Other.ExitFD);
  Owner = Other.Owner;
  Result = std::move(Other.Result);
  Other.Pid = -1;
  return *this;
}

ChildProcess::~ChildProcess() {
  if (Pid > 0 && !Result && Owner == ::getpid()) {
    kill();
    wait();
  }
  ExitFD.reset();
}

void ChildProcess::reaped(int WaitStatus) {
  Result = ProcessResult::fromWaitStatus(WaitStatus);
  ExitFD.reset();
}

std::optional<ProcessResult> ChildProcess::poll() {
  assert(Pid > 0 && "no child");
  if (Result)
    return Result;
  int WaitStatus = 0;
  pid_t R = sys::RetryAfterSignal(-1, ::waitpid, Pid, &WaitStatus, WNOHANG);
  if (R == 0)
    return std::nullopt;
  if (R < 0) {
    Result = ProcessResult::notStarted("cannot wait for process " +
                                       std::to_string(Pid) + ": " +
                                       std::strerror(errno));
    ExitFD.reset();
    return Result;
  }
  reaped(WaitStatus);
  return Result;
}

std::optional<ProcessResult>
ChildProcess::waitUntil(Clock::time_point Deadline) {
  // Without a pidfd: poll the child often at first (short compiles end in
  // milliseconds), then every 10 ms.
  auto Pause = std::chrono::microseconds(500);
  while (true) {
    if (std::optional<ProcessResult> R = poll())
      return R;
    Clock::time_point Now = Clock::now();
    if (Now >= Deadline)
      return std::nullopt;
    auto Left = Deadline - Now;
    if (ExitFD) {
      // Rounded up: a poll that returns just before the deadline would spin.
      auto Ms = std::chrono::ceil<std::chrono::milliseconds>(Left).count();
      struct pollfd P = {ExitFD.get(), POLLIN, 0};
      ::poll(&P, 1, static_cast<int>(std::min<long long>(Ms, INT_MAX)));
      continue;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(Pause, Left));
    Pause = std::min<std::chrono::microseconds>(Pause * 2,
                                                std::chrono::milliseconds(10));
  }
}

ProcessResult ChildProcess::wait() {
  assert(Pid > 0 && "no child");
  if (Result)
    return *Result;
  int WaitStatus = 0;
  pid_t R = sys::RetryAfterSignal(-1, ::waitpid, Pid, &WaitStatus, 0);
  if (R < 0) {
    Result = ProcessResult::notStarted("cannot wait for process " +
                                       std::to_string(Pid) + ": " +
                                       std::strerror(errno));
    ExitFD.reset();
    return *Result;
  }
  reaped(WaitStatus);
  return *Result;
}

void ChildProcess::kill() {
  assert(Pid > 0 && "no child");
  if (Result)
    return;
  // The child first: once it is dying it can start no one else, and the
  // group then holds whatever it started before (a zombie leader keeps the
  // group's id in use).
  ::kill(Pid, SIGKILL);
  if (OwnProcessGroup)
    ::kill(-Pid, SIGKILL);
}

//===-- Running to completion ---------------------------------------------===//

//===-- Process groups that end with mlgo ---------------------------------===//
//
// A child in its own session gets no SIGINT from the terminal, and one that
// outlives an interrupted mlgo goes on building: Ctrl-C on `mlgo eval
// build` used to leave make running. So runProcess records the process
// group of each such child while it waits for it, and the first SIGINT,
// SIGTERM or SIGHUP kills every recorded group, restores the handler it
// replaced (LLVM's, which removes its temporary files, or the default) and
// raises the signal again. A signal this process ignores (SIGINT of a
// background job, SIGHUP under nohup) stays ignored. The handler makes only
// async-signal-safe calls, on a fixed table of atomics.

namespace {

constexpr int NumRecordedGroups = 64;
std::atomic<int> RecordedGroups[NumRecordedGroups];
const int GroupKillSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction ReplacedActions[std::size(GroupKillSignals)];
std::once_flag GroupHandlersInstalled;

void killRecordedGroups(int Sig) {
  for (std::atomic<int> &G : RecordedGroups)
    if (int Group = G.load(); Group > 0)
      ::kill(-Group, SIGKILL);
  for (size_t I = 0; I < std::size(GroupKillSignals); ++I)
    if (GroupKillSignals[I] == Sig)
      ::sigaction(Sig, &ReplacedActions[I], nullptr);
  ::raise(Sig);
}

void installGroupHandlers() {
  for (size_t I = 0; I < std::size(GroupKillSignals); ++I) {
    struct sigaction Current;
    if (::sigaction(GroupKillSignals[I], nullptr, &Current) != 0 ||
        Current.sa_handler == SIG_IGN)
      continue;
    struct sigaction Action;
    std::memset(&Action, 0, sizeof(Action));
    Action.sa_handler = killRecordedGroups;
    sigemptyset(&Action.sa_mask);
    Action.sa_flags = SA_RESETHAND;
    ::sigaction(GroupKillSignals[I], &Action, &ReplacedActions[I]);
  }
}

/// Records a process group for the handler above while it lives (nothing
/// when the table is full: the group is then only killed at its timeout).
class RecordedGroup {
public:
  explicit RecordedGroup(int Group) {
    std::call_once(GroupHandlersInstalled, installGroupHandlers);
    for (int I = 0; I < NumRecordedGroups; ++I) {
      int Free = 0;
      if (RecordedGroups[I].compare_exchange_strong(Free, Group)) {
        Slot = I;
        return;
      }
    }
  }
  ~RecordedGroup() {
    if (Slot >= 0)
      RecordedGroups[Slot].store(0);
  }
  RecordedGroup(const RecordedGroup &) = delete;
  RecordedGroup &operator=(const RecordedGroup &) = delete;

private:
  int Slot = -1;
};

} // namespace

ProcessResult runProcess(ArrayRef<std::string> Argv,
                         const RunOptions &Options) {
  Expected<ChildProcess> Child = ChildProcess::spawn(Argv, Options);
  if (!Child)
    return ProcessResult::notStarted(toString(Child.takeError()));
  // Its own session's leader: the group's id is its pid.
  std::optional<RecordedGroup> Group;
  if (Options.OwnProcessGroup)
    Group.emplace(Child->getPid());
  if (!Options.TimeoutSeconds)
    return Child->wait();
  if (std::optional<ProcessResult> R =
          Child->waitUntil(ChildProcess::Clock::now() +
                           std::chrono::seconds(Options.TimeoutSeconds)))
    return *R;
  Child->kill();
  ProcessResult R = Child->wait();
  // An end the child reached between the last look and the kill is its own.
  if (R.isSignaled() && R.getSignal() == SIGKILL)
    return ProcessResult::timedOut(Options.TimeoutSeconds);
  return R;
}

} // namespace mlgo
