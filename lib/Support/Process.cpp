//===- lib/Support/Process.cpp - Child processes --------------------------===//
//
// Spawning with posix_spawn (or clone(CLONE_VM | CLONE_VFORK) for a child
// that must die with its parent), waiting with waitpid() on one pid and poll(2)
// on a pidfd, killing a child or its process group (see
// mlgo/Support/Process.h for why each, and not LLVM's sys::Execute*/Wait).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Process.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

/// What the child of spawnDyingWithParent needs. It shares this memory
/// with its parent (CLONE_VM) until it execs, and reports a failed step
/// in Errno.
struct VforkChild {
  const char *Program;
  char *const *Args;
  int In, Out, Err;
  bool SameOutput;
  bool OwnProcessGroup;
  pid_t Parent;
  int Errno = 0;
};

/// The functions the child of spawnDyingWithParent runs are not
/// instrumented: ASan's bookkeeping of the child's stack would be the
/// parent's, and the coverage counters of a fuzzing build live in the
/// parent's memory too. GCC has no "coverage" sanitizer to turn off.
#if defined(__clang__)
#define MLGO_VFORK_CHILD                                                       \
  __attribute__((no_sanitize("address", "undefined", "coverage")))
#else
#define MLGO_VFORK_CHILD __attribute__((no_sanitize("address", "undefined")))
#endif

/// The child's end after a failed step: its errno to the parent.
[[noreturn]] MLGO_VFORK_CHILD void failVforkChild(VforkChild &C) {
  C.Errno = errno;
  ::_exit(127);
}

/// The child of spawnDyingWithParent, from clone() to execve(). It runs on
/// a stack of its own in its parent's memory, with the parent's thread
/// suspended and every signal blocked, so it makes only system calls:
/// nothing it does may change what the parent sees, except Errno.
MLGO_VFORK_CHILD int runVforkChild(void *Arg) {
  VforkChild &C = *static_cast<VforkChild *>(Arg);
  // A handler of the parent's run here would run on the parent's data:
  // every caught signal goes back to its default before any is unblocked
  // (the child has its own table of handlers: no CLONE_SIGHAND). exec
  // would do the same for caught signals; SIGPIPE, which the caller may
  // ignore, gets its default too.
  struct sigaction Default;
  std::memset(&Default, 0, sizeof(Default));
  Default.sa_handler = SIG_DFL;
  sigemptyset(&Default.sa_mask);
  for (int Sig = 1; Sig < NSIG; ++Sig) {
    struct sigaction Old;
    if (::sigaction(Sig, nullptr, &Old) != 0)
      continue;
    bool Caught = (Old.sa_flags & SA_SIGINFO) ||
                  (Old.sa_handler != SIG_DFL && Old.sa_handler != SIG_IGN);
    if (Caught || Sig == SIGPIPE)
      ::sigaction(Sig, &Default, nullptr);
  }
  if (C.OwnProcessGroup && ::setsid() < 0)
    failVforkChild(C);
  // SIGKILL when the thread that spawned it ends: the host is gone and
  // nobody will ever answer the compiler (stock LLVM spins on the end of
  // file of its inbound FIFO). A parent already gone before the call is
  // noticed by the parent pid changing.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
    failVforkChild(C);
  if (::getppid() != C.Parent)
    ::_exit(127);
  if (C.In >= 0 && ::dup2(C.In, STDIN_FILENO) < 0)
    failVforkChild(C);
  if (C.Out >= 0 && ::dup2(C.Out, STDOUT_FILENO) < 0)
    failVforkChild(C);
  if (C.SameOutput && ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
    failVforkChild(C);
  if (C.Err >= 0 && ::dup2(C.Err, STDERR_FILENO) < 0)
    failVforkChild(C);
  sigset_t Empty;
  sigemptyset(&Empty);
  ::sigprocmask(SIG_SETMASK, &Empty, nullptr);
  ::execve(C.Program, C.Args, environ);
  failVforkChild(C);
}

/// ChildProcess::spawn with DieWithParent. posix_spawn (and with it
/// sys::ExecuteNoWait) cannot ask for a parent-death signal, and fork()
/// copies the page tables of the whole caller - a Python process with
/// numpy and torch loaded, tens of milliseconds of CPU per episode in
/// the parent and in the child's copy-on-write faults. So this does what
/// glibc's posix_spawn does inside: clone(CLONE_VM | CLONE_VFORK), a child
/// that shares the caller's memory on a stack of its own and execs, while
/// the calling thread waits; the child's errno comes back through the
/// shared memory, so an error is the same as posix_spawn's.
Expected<ChildProcess>
spawnDyingWithParent(const std::string &Program, std::vector<char *> &Args,
                     const FileDescriptor &In, const FileDescriptor &Out,
                     const FileDescriptor &Err, const SpawnOptions &Options) {
  VforkChild C;
  C.Program = Program.c_str();
  C.Args = Args.data();
  C.In = In ? In.get() : -1;
  C.Out = Out ? Out.get() : -1;
  C.Err = Err ? Err.get() : -1;
  C.SameOutput =
      Options.Stdout && Options.Stderr && *Options.Stdout == *Options.Stderr;
  C.OwnProcessGroup = Options.OwnProcessGroup;
  C.Parent = ::getpid();

  // The child's stack: only a few pages of it are ever touched.
  constexpr size_t StackSize = 256 * 1024;
  void *Stack =
      ::mmap(nullptr, StackSize, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (Stack == MAP_FAILED)
    return makeError("cannot run '" + Program + "': " + std::strerror(errno));
  auto Unmap = make_scope_exit([&] { ::munmap(Stack, StackSize); });

  // No handler may run in the child while it shares this memory: every
  // signal is blocked from before the clone until it has reset them.
  sigset_t All, Old;
  sigfillset(&All);
  ::pthread_sigmask(SIG_SETMASK, &All, &Old);
  pid_t Pid = ::clone(runVforkChild, static_cast<char *>(Stack) + StackSize,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &C);
  int CloneErrno = errno;
  ::pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  if (Pid < 0)
    return makeError("cannot run '" + Program +
                     "': " + std::strerror(CloneErrno));
  if (C.Errno != 0) {
    int Status;
    sys::RetryAfterSignal(-1, ::waitpid, Pid, &Status, 0);
    return makeError("cannot run '" + Program + "': " + std::strerror(C.Errno));
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

  // The child inherits the spawning thread's CPU affinity.
  std::optional<cpu_set_t> Restore;
  if (Options.CPU) {
    cpu_set_t Old, One;
    if (::sched_getaffinity(0, sizeof(Old), &Old) != 0)
      return makeError("cannot run on CPU " + std::to_string(*Options.CPU) +
                       ": " + std::strerror(errno));
    CPU_ZERO(&One);
    CPU_SET(*Options.CPU, &One);
    if (::sched_setaffinity(0, sizeof(One), &One) != 0)
      return makeError("cannot run on CPU " + std::to_string(*Options.CPU) +
                       ": " + std::strerror(errno));
    Restore = Old;
  }
  pid_t Pid = 0;
  int EC = ::posix_spawn(&Pid, Program.c_str(), &S.Actions, &S.Attributes,
                         Args.data(), environ);
  if (Restore)
    ::sched_setaffinity(0, sizeof(*Restore), &*Restore);
  if (EC)
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
      Result(std::move(Other.Result)), Usage(std::move(Other.Usage)) {
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
  Usage = std::move(Other.Usage);
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

void ChildProcess::reaped(int WaitStatus, const struct rusage &Used) {
  Result = ProcessResult::fromWaitStatus(WaitStatus);
  auto seconds = [](const struct timeval &T) {
    return double(T.tv_sec) + double(T.tv_usec) / 1e6;
  };
  Usage = ResourceUsage{seconds(Used.ru_utime), seconds(Used.ru_stime)};
  ExitFD.reset();
}

std::optional<ProcessResult> ChildProcess::poll() {
  assert(Pid > 0 && "no child");
  if (Result)
    return Result;
  int WaitStatus = 0;
  struct rusage Used;
  pid_t R =
      sys::RetryAfterSignal(-1, ::wait4, Pid, &WaitStatus, WNOHANG, &Used);
  if (R == 0)
    return std::nullopt;
  if (R < 0) {
    Result = ProcessResult::notStarted("cannot wait for process " +
                                       std::to_string(Pid) + ": " +
                                       std::strerror(errno));
    ExitFD.reset();
    return Result;
  }
  reaped(WaitStatus, Used);
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
  struct rusage Used;
  pid_t R = sys::RetryAfterSignal(-1, ::wait4, Pid, &WaitStatus, 0, &Used);
  if (R < 0) {
    Result = ProcessResult::notStarted("cannot wait for process " +
                                       std::to_string(Pid) + ": " +
                                       std::strerror(errno));
    ExitFD.reset();
    return *Result;
  }
  reaped(WaitStatus, Used);
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

//===-- The group keeper: groups that end with mlgo's kill -9 ------------===//
//
// No handler runs when mlgo is killed with SIGKILL (or crashes past its
// handlers), and a child in its own session lives on: a killed speed tune
// left valgrind writing its logs into the directory that the rerun read.
// PR_SET_PDEATHSIG cannot help: posix_spawn cannot set it, it reaches only
// the direct child (not valgrind's children), and it fires when the
// spawning *thread* ends, not the process. So the first child with its own
// group forks a keeper: a process that does nothing but wait for mlgo to
// end (poll(2) on a pidfd of mlgo, or a once-a-second look at getppid()
// without pidfds) while it records the groups mlgo tells it of (4-byte
// messages on a socket: +group while it runs, -group once reaped); when
// mlgo ends, however it ends, the keeper kills every group still recorded
// and exits. It closes every descriptor it inherited (a lock mlgo holds on
// its work directory must end with mlgo, not with the keeper) and ignores
// the terminal's signals, which reach it with mlgo. Forked from a process
// that may run threads, it makes only async-signal-safe calls, on a table
// of fixed size allocated before the fork.

constexpr int KeeperCapacity = 4096;
int KeeperGroups[KeeperCapacity];
std::atomic<int> KeeperSocket{-1};
/// The process KeeperSocket's keeper watches: a process forked from mlgo
/// (a training worker) that runs children starts a keeper of its own.
std::atomic<int> KeeperOwner{0};
std::mutex KeeperMutex;

[[noreturn]] void killKeptGroupsAndExit() {
  for (int G : KeeperGroups)
    if (G > 0)
      ::kill(-G, SIGKILL);
  ::_exit(0);
}

/// Closes the descriptors in [From, To].
void closeRange(int From, int To) {
  if (From > To)
    return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, From, To, 0) == 0)
    return;
#endif
  for (int FD = From; FD <= To && FD < 65536; ++FD)
    ::close(FD);
}

/// Records one message of mlgo's: +group while it runs, -group once reaped.
void recordKeptGroup(int Message) {
  if (Message > 0) {
    for (int &G : KeeperGroups)
      if (G == 0) {
        G = Message;
        return;
      }
    return;
  }
  for (int &G : KeeperGroups)
    if (G == -Message)
      G = 0;
}

/// mlgo has ended: the messages it sent before it ended may still wait on
/// the socket (a loaded machine runs the keeper late, and poll(2) then
/// reports the message and mlgo's end at once), so they are recorded
/// first, then every group still running is killed.
[[noreturn]] void drainKillAndExit(int Socket) {
  int Message = 0;
  for (;;) {
    ssize_t Got = ::recv(Socket, &Message, sizeof(Message), MSG_DONTWAIT);
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      break;
    if (Got == sizeof(Message))
      recordKeptGroup(Message);
  }
  killKeptGroupsAndExit();
}

[[noreturn]] void runKeeper(int Socket, int ParentFD, pid_t Parent) {
  for (int Sig : {SIGINT, SIGHUP, SIGTERM, SIGPIPE, SIGQUIT})
    ::signal(Sig, SIG_IGN);
  int Null = ::open("/dev/null", O_RDWR);
  if (Null >= 0)
    for (int FD : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO})
      ::dup2(Null, FD);
  int Low = std::min(Socket, ParentFD < 0 ? Socket : ParentFD);
  int High = std::max(Socket, ParentFD);
  closeRange(STDERR_FILENO + 1, Low - 1);
  closeRange(Low + 1, High - 1);
  closeRange(High + 1, INT_MAX);
  for (;;) {
    if (::getppid() != Parent)
      drainKillAndExit(Socket);
    struct pollfd P[2] = {{Socket, POLLIN, 0}, {ParentFD, POLLIN, 0}};
    int N = ::poll(P, ParentFD < 0 ? 1 : 2, ParentFD < 0 ? 1000 : -1);
    if (N < 0 && errno != EINTR)
      drainKillAndExit(Socket);
    if (N <= 0)
      continue;
    if (ParentFD >= 0 && P[1].revents)
      drainKillAndExit(Socket);
    if (!P[0].revents)
      continue;
    int Message = 0;
    ssize_t Got = ::recv(Socket, &Message, sizeof(Message), 0);
    if (Got == 0 || (Got < 0 && errno != EINTR))
      killKeptGroupsAndExit();
    if (Got == sizeof(Message))
      recordKeptGroup(Message);
  }
}

void startKeeper() {
  if (KeeperOwner.load() == ::getpid())
    return;
  std::lock_guard<std::mutex> Lock(KeeperMutex);
  if (KeeperOwner.load() == ::getpid())
    return;
  // The parent's, inherited by fork: its keeper watches the parent.
  if (int Inherited = KeeperSocket.exchange(-1); Inherited >= 0)
    ::close(Inherited);
  // Set last: another thread that sees this process as the owner finds
  // the socket set (or none, if the keeper could not start).
  auto Owned = make_scope_exit([] { KeeperOwner.store(::getpid()); });
  int Pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, Pair) != 0)
    return;
  pid_t Parent = ::getpid();
  FileDescriptor ParentFD(openPidFD(Parent));
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::close(Pair[0]);
    runKeeper(Pair[1], ParentFD.get(), Parent);
  }
  ::close(Pair[1]);
  if (Pid < 0) {
    ::close(Pair[0]);
    return;
  }
  KeeperSocket.store(Pair[0]);
}

/// Tells this process's keeper of a group (\p Message > 0) or that the
/// group -\p Message ended.
void tellKeeper(int Message) {
  int Socket = KeeperSocket.load();
  if (Socket < 0)
    return;
  (void)::send(Socket, &Message, sizeof(Message), MSG_NOSIGNAL);
}

/// Records a process group for the handler above and for the keeper while
/// it lives (for the handler, nothing when its table is full: the group is
/// then only killed at its timeout or by the keeper).
class RecordedGroup {
public:
  explicit RecordedGroup(int Group) : Group(Group) {
    std::call_once(GroupHandlersInstalled, installGroupHandlers);
    startKeeper();
    tellKeeper(Group);
    for (int I = 0; I < NumRecordedGroups; ++I) {
      int Free = 0;
      if (RecordedGroups[I].compare_exchange_strong(Free, Group)) {
        Slot = I;
        return;
      }
    }
  }
  ~RecordedGroup() {
    tellKeeper(-Group);
    if (Slot >= 0)
      RecordedGroups[Slot].store(0);
  }
  RecordedGroup(const RecordedGroup &) = delete;
  RecordedGroup &operator=(const RecordedGroup &) = delete;

private:
  int Group;
  int Slot = -1;
};

} // namespace

ProcessResult runProcess(ArrayRef<std::string> Argv,
                         const RunOptions &Options) {
  // The keeper is running before the child is: what is left between the
  // spawn and the keeper hearing of the group is one send(2).
  if (Options.OwnProcessGroup)
    startKeeper();
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

Expected<std::string> runForOutput(ArrayRef<std::string> Argv,
                                   unsigned TimeoutSeconds) {
  SmallString<128> Out;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-output", "txt", Out))
    return makeError("cannot create a temporary file: " + EC.message());
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = std::string(Out);
  RO.Stderr = "/dev/null";
  RO.TimeoutSeconds = TimeoutSeconds;
  ProcessResult R = runProcess(Argv, RO);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Out);
  sys::fs::remove(Out);
  if (!R.succeeded())
    return makeError("'" + join(Argv, " ") + "' " + R.describe());
  if (!Buf)
    return makeError("cannot read the output of '" + join(Argv, " ") +
                     "': " + Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

} // namespace mlgo
