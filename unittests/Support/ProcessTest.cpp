//===- unittests/Support/ProcessTest.cpp - Child processes ----------------===//
//
// The subprocess layer: how a child ended (exit code, signal number,
// timeout, could not start) with its exact description; redirections;
// deadlines that hold in every thread of a pool at once and leave the
// process's alarm(2) and SIGALRM alone (sys::Wait, even polling, cancels
// the one and replaces the other); a timeout that kills a whole process
// group; adopted fork()ed children; and a handle that never leaves a
// process or a zombie behind. Everything runs real programs (sh, sleep,
// cat); timing bounds are generous, and no test asserts a duration except
// that a timeout did not wait for the full sleep.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;

namespace mlgo {
// For GoogleTest's messages.
void PrintTo(const ProcessResult &R, std::ostream *OS) { *OS << R.describe(); }
} // namespace mlgo

namespace {

using Args = std::vector<std::string>;
using Clock = std::chrono::steady_clock;

std::string readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "<cannot read " + Path.str() + ">";
  return (*Buf)->getBuffer().str();
}

void writeFile(StringRef Path, StringRef Contents) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Contents;
}

/// Whether \p Pid is gone: no such process, or a zombie no one has reaped
/// yet (its parent died; the container's init may be slow to reap).
bool isGone(int Pid) {
  if (::kill(Pid, 0) != 0)
    return errno == ESRCH;
  std::string Stat = readFile("/proc/" + std::to_string(Pid) + "/stat");
  // "PID (COMM) STATE ...": the state follows the last ')'.
  size_t Close = Stat.rfind(')');
  return Close != std::string::npos && Close + 2 < Stat.size() &&
         Stat[Close + 2] == 'Z';
}

/// Waits up to \p Seconds for \p Pid to be gone (a SIGKILL is delivered
/// asynchronously); kills it if it is still there, so that a failing test
/// leaves nothing behind.
bool becomesGone(int Pid, int Seconds = 20) {
  Clock::time_point End = Clock::now() + std::chrono::seconds(Seconds);
  while (Clock::now() < End) {
    if (isGone(Pid))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(Pid, SIGKILL);
  return false;
}

std::string inDir(const unittest::TempDir &Dir, StringRef Name) {
  return Dir.path(Name).str().str();
}

bool isReaped(int Pid) {
  return ::waitpid(Pid, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

//===-- How a child ended -------------------------------------------------===//

TEST(ProcessTest, ReportsTheExitCode) {
  ProcessResult R = runProcess(Args{"sh", "-c", "exit 3"});
  EXPECT_EQ(R.getKind(), ProcessResult::Kind::Exited);
  EXPECT_TRUE(R.hasStarted());
  EXPECT_FALSE(R.isTimedOut());
  EXPECT_EQ(R.getExitCode(), 3);
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "exited with status 3");
  EXPECT_EQ(R.toShellStatus(), 3);
  EXPECT_TRUE(runProcess(Args{"true"}).succeeded());
}

// sys::Wait reports an exit status of 127 as "No such file or directory"
// and 126 as "Program could not be executed", with a return code of -1:
// a shell that reports a missing command looked like a crash.
TEST(ProcessTest, ExitStatuses126And127AreExitStatuses) {
  for (int Code : {126, 127}) {
    ProcessResult R =
        runProcess(Args{"sh", "-c", "exit " + std::to_string(Code)});
    EXPECT_EQ(R, ProcessResult::exited(Code));
    EXPECT_EQ(R.describe(), "exited with status " + std::to_string(Code));
  }
}

// sys::Wait keeps the signal's name only.
TEST(ProcessTest, KeepsTheSignalNumber) {
  ProcessResult R = runProcess(Args{"sh", "-c", "kill -SEGV $$"});
  ASSERT_EQ(R.getKind(), ProcessResult::Kind::Signaled) << R.describe();
  EXPECT_EQ(R.getSignal(), SIGSEGV);
  EXPECT_TRUE(R.hasStarted());
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "was killed by signal 11 (Segmentation fault)");
  EXPECT_EQ(R.toShellStatus(), 139);
}

TEST(ProcessTest, NamesAProgramThatIsNotThere) {
  ProcessResult R = runProcess(Args{"mlgo-no-such-program"});
  EXPECT_EQ(R.getKind(), ProcessResult::Kind::NotStarted);
  EXPECT_FALSE(R.hasStarted());
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "cannot find 'mlgo-no-such-program' in PATH");
  EXPECT_EQ(R.toShellStatus(), 127);

  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string Missing = inDir(Dir, "missing");
  EXPECT_EQ(runProcess(Args{Missing}).describe(),
            "cannot run '" + Missing + "': No such file or directory");
  std::string NotExecutable = inDir(Dir, "script");
  writeFile(NotExecutable, "#!/bin/sh\n");
  EXPECT_EQ(runProcess(Args{NotExecutable}).describe(),
            "cannot run '" + NotExecutable + "': Permission denied");
}

//===-- Redirections ------------------------------------------------------===//

TEST(ProcessTest, RedirectsStandardStreams) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string In = inDir(Dir, "in"), Out = inDir(Dir, "out"),
              Err = inDir(Dir, "err"), Both = inDir(Dir, "both");
  writeFile(In, "input\n");
  RunOptions O;
  O.Stdin = In;
  O.Stdout = Out;
  O.Stderr = Err;
  ProcessResult R = runProcess(Args{"sh", "-c", "cat; echo err >&2"}, O);
  EXPECT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(readFile(Out), "input\n");
  EXPECT_EQ(readFile(Err), "err\n");

  // One file for both: they share it, in order.
  O.Stdin = "/dev/null";
  O.Stdout = O.Stderr = Both;
  R = runProcess(Args{"sh", "-c", "echo out; cat; echo err >&2; echo end"}, O);
  EXPECT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(readFile(Both), "out\nerr\nend\n");
}

// An output file that exists is replaced, not overwritten in place: LLVM's
// redirection alone opens it without truncating, so a shorter output left
// the end of the longer old one behind (a package's test list read back
// with stale names).
TEST(ProcessTest, ReplacesAnOutputFile) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string Out = inDir(Dir, "out"), Err = inDir(Dir, "err");
  for (StringRef P : {Out, Err})
    writeFile(P, "a much longer earlier output\n");
  RunOptions O;
  O.Stdout = Out;
  O.Stderr = Err;
  ProcessResult R = runProcess(Args{"sh", "-c", "echo new; echo e >&2"}, O);
  EXPECT_TRUE(R.succeeded()) << R.describe();
  EXPECT_EQ(readFile(Out), "new\n");
  EXPECT_EQ(readFile(Err), "e\n");
  // A device is left alone.
  O.Stdout = O.Stderr = "/dev/null";
  EXPECT_TRUE(runProcess(Args{"echo", "x"}, O).succeeded());
}

TEST(ProcessTest, NamesARedirectionThatCannotBeOpened) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string NoDir = inDir(Dir, "no-such-dir/out");
  const std::string NoFile = "No such file or directory";
  RunOptions O;
  O.Stdout = NoDir;
  ProcessResult R = runProcess(Args{"true"}, O);
  EXPECT_EQ(R.getKind(), ProcessResult::Kind::NotStarted);
  EXPECT_EQ(R.describe(), "cannot open '" + NoDir + "' for writing: " + NoFile);
  O = RunOptions();
  O.Stdin = inDir(Dir, "missing");
  R = runProcess(Args{"true"}, O);
  EXPECT_EQ(R.describe(),
            "cannot open '" + *O.Stdin + "' for reading: " + NoFile);
}

//===-- Deadlines ---------------------------------------------------------===//

// Each wait has its own deadline, whatever the other threads wait for; and
// none of them touches the alarm or SIGALRM, which belong to the process
// (sys::Wait(PI, 0), the polling wait runProcess used, calls alarm(0) and
// installs its own SIGALRM handler on every call: an alarm pending in the
// process, another thread's ExecuteAndWait timeout or a watchdog, was
// silently cancelled).
TEST(ProcessTest, DeadlinesHoldInEveryThreadOfAPool) {
  struct sigaction Mine, Previous, Seen;
  std::memset(&Mine, 0, sizeof(Mine));
  Mine.sa_handler = [](int) {};
  sigemptyset(&Mine.sa_mask);
  ASSERT_EQ(::sigaction(SIGALRM, &Mine, &Previous), 0);
  ::alarm(1000);

  struct Case {
    Args Argv;
    unsigned Timeout;
    ProcessResult Want;
  };
  std::vector<Case> Cases = {
      {{"sleep", "30"}, 1, ProcessResult::timedOut(1)},
      {{"sleep", "30"}, 2, ProcessResult::timedOut(2)},
      {{"sleep", "30"}, 3, ProcessResult::timedOut(3)},
      {{"sh", "-c", "sleep 1; exit 5"}, 0, ProcessResult::exited(5)},
      {{"sh", "-c", "sleep 1; exit 6"}, 20, ProcessResult::exited(6)},
  };
  std::vector<std::optional<ProcessResult>> Got(Cases.size());
  Clock::time_point Start = Clock::now();
  {
    DefaultThreadPool Pool(hardware_concurrency(Cases.size()));
    for (size_t I = 0; I < Cases.size(); ++I)
      Pool.async([&, I] {
        RunOptions O;
        O.TimeoutSeconds = Cases[I].Timeout;
        Got[I] = runProcess(Cases[I].Argv, O);
      });
    Pool.wait();
  }
  // Not the 30 s of the sleeps.
  EXPECT_LT(Clock::now() - Start, std::chrono::seconds(25));
  for (size_t I = 0; I < Cases.size(); ++I) {
    ASSERT_TRUE(Got[I].has_value());
    EXPECT_EQ(*Got[I], Cases[I].Want) << I << ": " << Got[I]->describe()
                                      << ", want " << Cases[I].Want.describe();
  }
  EXPECT_EQ(Got[1]->describe(), "timed out after 2 s");
  EXPECT_TRUE(Got[1]->isTimedOut());
  EXPECT_EQ(Got[1]->toShellStatus(), 137);

  unsigned Left = ::alarm(0);
  ASSERT_EQ(::sigaction(SIGALRM, &Previous, &Seen), 0);
  EXPECT_GT(Left, 0u) << "the pending alarm was cancelled";
  EXPECT_EQ(Seen.sa_handler, Mine.sa_handler)
      << "SIGALRM's handler was replaced";
}

TEST(ProcessTest, WaitUntilReturnsAtTheDeadlineAndKillEndsTheChild) {
  Expected<ChildProcess> C = ChildProcess::spawn(Args{"sleep", "30"});
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_FALSE(C->poll());
  Clock::time_point Start = Clock::now();
  EXPECT_FALSE(C->waitUntil(Start + std::chrono::milliseconds(200)));
  EXPECT_GE(Clock::now() - Start, std::chrono::milliseconds(200));
  EXPECT_FALSE(C->getResult());
  C->kill();
  EXPECT_EQ(C->wait(), ProcessResult::signaled(SIGKILL));
  EXPECT_EQ(C->getResult(), ProcessResult::signaled(SIGKILL));
  EXPECT_EQ(C->getExitFD(), -1);
  EXPECT_TRUE(isReaped(C->getPid()));
  // Once reaped, nothing more is sent or waited for.
  C->kill();
  EXPECT_EQ(C->poll(), ProcessResult::signaled(SIGKILL));
}

TEST(ProcessTest, ExitDescriptorBecomesReadableWhenTheChildEnds) {
  Expected<ChildProcess> C = ChildProcess::spawn(Args{"sh", "-c", "exit 4"});
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  if (C->getExitFD() < 0)
    GTEST_SKIP() << "this kernel has no pidfd";
  struct pollfd P = {C->getExitFD(), POLLIN, 0};
  ASSERT_EQ(::poll(&P, 1, 20000), 1);
  EXPECT_EQ(C->poll(), ProcessResult::exited(4));
}

//===-- Process groups ----------------------------------------------------===//

// The child starts a grandchild that would outlive it (a build's compiler
// under make): with its own process group, the timeout kills both.
TEST(ProcessTest, TimeoutKillsTheWholeProcessGroup) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string PidFile = inDir(Dir, "pid");
  RunOptions O;
  O.OwnProcessGroup = true;
  O.TimeoutSeconds = 1;
  O.Stdin = "/dev/null";
  O.Stdout = O.Stderr = "/dev/null";
  ProcessResult R = runProcess(
      Args{"sh", "-c", "sleep 30 & echo $! > " + PidFile + "; wait"}, O);
  EXPECT_EQ(R, ProcessResult::timedOut(1)) << R.describe();
  int Grandchild = 0;
  ASSERT_TRUE(to_integer(StringRef(readFile(PidFile)).trim(), Grandchild))
      << readFile(PidFile);
  EXPECT_TRUE(becomesGone(Grandchild)) << "the grandchild survived";
}

TEST(ProcessTest, OwnProcessGroupIsANewSession) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string Out = inDir(Dir, "out");
  RunOptions O;
  O.OwnProcessGroup = true;
  O.Stdout = Out;
  // ps is not everywhere; /proc/self/stat has pid, pgrp and session as
  // fields 1, 5 and 6.
  ProcessResult R =
      runProcess(Args{"sh", "-c",
                      "read -r a b c d pgrp sid rest < /proc/self/stat; "
                      "echo $$ $pgrp $sid"},
                 O);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  std::string Text = readFile(Out);
  SmallVector<StringRef, 3> Ids;
  StringRef(Text).trim().split(Ids, ' ');
  ASSERT_EQ(Ids.size(), 3u) << Text;
  // The shell runs the read builtin, so /proc/self is the shell itself.
  EXPECT_EQ(Ids[1], Ids[0]);
  EXPECT_EQ(Ids[2], Ids[0]);
}

// mlgo killed with SIGKILL runs no handler: the keeper kills the groups of
// the children it had (a killed speed tune's valgrind went on writing).
// Here a forked copy of this process plays mlgo: it runs a child with its
// own group (which starts a grandchild) and is killed while it waits.
TEST(ProcessTest, GroupsDieWhenTheParentIsKilled) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string PidFile = inDir(Dir, "pid");
  pid_t Parent = ::fork();
  ASSERT_GE(Parent, 0);
  if (Parent == 0) {
    RunOptions O;
    O.OwnProcessGroup = true;
    O.Stdin = "/dev/null";
    O.Stdout = O.Stderr = "/dev/null";
    runProcess(Args{"sh", "-c",
                    "sleep 300 & echo $! > " + PidFile + ".tmp; mv " + PidFile +
                        ".tmp " + PidFile + "; wait"},
               O);
    ::_exit(0);
  }
  // Killed once the grandchild runs and the parent sleeps in its wait for
  // the child, i.e. after it told the keeper of the group (the kill must
  // not fall in the one send(2) between the spawn and that).
  auto Waiting = [&] {
    std::string Stat = readFile("/proc/" + std::to_string(Parent) + "/stat");
    size_t Paren = Stat.rfind(')');
    return Paren != std::string::npos && Paren + 2 < Stat.size() &&
           Stat[Paren + 2] == 'S';
  };
  Clock::time_point End = Clock::now() + std::chrono::seconds(20);
  while (!(sys::fs::exists(PidFile) && Waiting()) && Clock::now() < End)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(Parent, SIGKILL);
  ASSERT_EQ(::waitpid(Parent, nullptr, 0), Parent);
  int Grandchild = 0;
  ASSERT_TRUE(to_integer(StringRef(readFile(PidFile)).trim(), Grandchild))
      << readFile(PidFile);
  EXPECT_TRUE(becomesGone(Grandchild)) << "the grandchild outlived mlgo";
}

// A child spawned with DieWithParent dies with the thread that spawned it:
// a host killed mid-session leaves no compiler waiting for it.
TEST(ProcessTest, DieWithParentEndsTheChildWhenTheParentDies) {
  int Pipe[2];
  ASSERT_EQ(::pipe(Pipe), 0);
  pid_t Middle = ::fork();
  ASSERT_GE(Middle, 0);
  if (Middle == 0) {
    ::close(Pipe[0]);
    SpawnOptions O;
    O.DieWithParent = true;
    O.OwnProcessGroup = true;
    O.Stdin = "/dev/null";
    Expected<ChildProcess> C = ChildProcess::spawn(Args{"sleep", "30"}, O);
    int Pid = C ? C->getPid() : -1;
    if (!C)
      consumeError(C.takeError());
    ssize_t Ignored = ::write(Pipe[1], &Pid, sizeof(Pid));
    (void)Ignored;
    // Dies without the handle's destructor, as a SIGKILLed host would.
    ::_exit(0);
  }
  ::close(Pipe[1]);
  int Grandchild = -1;
  ASSERT_EQ(::read(Pipe[0], &Grandchild, sizeof(Grandchild)),
            ssize_t(sizeof(Grandchild)));
  ::close(Pipe[0]);
  int Status;
  ASSERT_EQ(::waitpid(Middle, &Status, 0), Middle);
  ASSERT_GT(Grandchild, 0);
  EXPECT_TRUE(becomesGone(Grandchild)) << "the child outlived its parent";
}

TEST(ProcessTest, DieWithParentRunsAndRedirectsAsSpawnDoes) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string In = inDir(Dir, "in"), Both = inDir(Dir, "both");
  writeFile(In, "input\n");
  SpawnOptions O;
  O.DieWithParent = true;
  O.Stdin = In;
  O.Stdout = O.Stderr = Both;
  Expected<ChildProcess> C = ChildProcess::spawn(
      Args{"sh", "-c", "echo out; cat; echo err >&2; exit 3"}, O);
  ASSERT_TRUE(!!C) << toString(C.takeError());
  EXPECT_EQ(C->wait(), ProcessResult::exited(3));
  EXPECT_EQ(readFile(Both), "out\ninput\nerr\n");
  std::string Missing = inDir(Dir, "missing");
  Expected<ChildProcess> Not = ChildProcess::spawn(Args{Missing}, O);
  ASSERT_FALSE(!!Not);
  EXPECT_EQ(toString(Not.takeError()),
            "cannot run '" + Missing + "': No such file or directory");
}

// The child of a DieWithParent spawn shares its parent's memory until it
// execs (clone(CLONE_VM | CLONE_VFORK)): it must still start as any child
// does, with no blocked signal and SIGPIPE at its default, whatever the
// spawning thread has, and leave the caller's signal state as it was.
TEST(ProcessTest, DieWithParentStartsWithTheDefaultSignalState) {
  unittest::TempDir Dir("mlgo-process", /*Unique=*/true);
  std::string Out = inDir(Dir, "out");
  sigset_t Blocked, Old;
  sigemptyset(&Blocked);
  sigaddset(&Blocked, SIGUSR1);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &Blocked, &Old), 0);
  struct sigaction Ignore, OldPipe;
  std::memset(&Ignore, 0, sizeof(Ignore));
  Ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &Ignore, &OldPipe), 0);
  SpawnOptions O;
  O.DieWithParent = true;
  O.Stdout = Out;
  Expected<ChildProcess> C =
      ChildProcess::spawn(Args{"grep", "^Sig[BI]", "/proc/self/status"}, O);
  sigset_t After;
  ::pthread_sigmask(SIG_SETMASK, &Old, &After);
  struct sigaction PipeAfter;
  ::sigaction(SIGPIPE, &OldPipe, &PipeAfter);
  ASSERT_TRUE(!!C) << toString(C.takeError());
  EXPECT_EQ(C->wait(), ProcessResult::exited(0));
  EXPECT_TRUE(sigismember(&After, SIGUSR1));
  EXPECT_EQ(PipeAfter.sa_handler, SIG_IGN);
  // SigBlk, then SigIgn: hexadecimal masks, bit N-1 for signal N.
  std::string Text = readFile(Out);
  SmallVector<StringRef, 2> Lines;
  StringRef(Text).trim().split(Lines, '\n');
  ASSERT_EQ(Lines.size(), 2u) << Text;
  EXPECT_EQ(Lines[0], "SigBlk:\t0000000000000000");
  uint64_t Ignored = 0;
  ASSERT_TRUE(Lines[1].consume_front("SigIgn:\t")) << Lines[1].str();
  ASSERT_FALSE(Lines[1].getAsInteger(16, Ignored)) << Lines[1].str();
  EXPECT_EQ(Ignored & (uint64_t(1) << (SIGPIPE - 1)), 0u);
}

//===-- Adopted children and handles --------------------------------------===//

TEST(ProcessTest, AdoptsAForkedChild) {
  pid_t Pid = ::fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0)
    ::_exit(7);
  ChildProcess C = ChildProcess::adopt(Pid);
  EXPECT_EQ(C.getPid(), Pid);
  EXPECT_EQ(C.wait(), ProcessResult::exited(7));
  EXPECT_TRUE(isReaped(Pid));

  Pid = ::fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    ::pause();
    ::_exit(0);
  }
  ChildProcess Paused = ChildProcess::adopt(Pid);
  EXPECT_FALSE(Paused.waitUntil(Clock::now() + std::chrono::milliseconds(50)));
  Paused.kill();
  EXPECT_EQ(Paused.wait().describe(), "was killed by signal 9 (Killed)");
}

TEST(ProcessTest, AHandleLeavesNoProcessBehind) {
  int Pid;
  {
    Expected<ChildProcess> C = ChildProcess::spawn(Args{"sleep", "30"});
    ASSERT_TRUE(bool(C)) << toString(C.takeError());
    Pid = C->getPid();
    // Moving a handle moves the child; only the last owner kills it.
    ChildProcess Moved = std::move(*C);
    EXPECT_EQ(Moved.getPid(), Pid);
    EXPECT_FALSE(Moved.poll());
  }
  EXPECT_TRUE(isReaped(Pid));
}

//===-- CPU affinity and CPU time -----------------------------------------===//

TEST(ProcessTest, PinsAChildAndItsChildrenToOneCPU) {
  unittest::TempDir Dir("process-cpu", /*Unique=*/true);
  std::string Out = inDir(Dir, "out");
  // The first CPU this process may use.
  cpu_set_t Allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(Allowed), &Allowed), 0);
  unsigned First = 0;
  while (!CPU_ISSET(First, &Allowed))
    ++First;
  RunOptions O;
  O.Stdout = Out;
  O.CPU = First;
  // grep is a child of the shell: the affinity is inherited.
  EXPECT_TRUE(
      runProcess(Args{"sh", "-c", "grep Cpus_allowed_list /proc/self/status"},
                 O)
          .succeeded());
  EXPECT_EQ(readFile(Out),
            "Cpus_allowed_list:\t" + std::to_string(First) + "\n");
}

TEST(ProcessTest, NamesACPUItCannotUse) {
  SpawnOptions O;
  O.CPU = 1000;
  Expected<ChildProcess> C = ChildProcess::spawn(Args{"true"}, O);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(toString(C.takeError()),
            "cannot run on CPU 1000: Invalid argument");
}

TEST(ProcessTest, ReportsTheCPUTimeOfAReapedChild) {
  Expected<ChildProcess> C = ChildProcess::spawn(
      Args{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"});
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_FALSE(C->getUsage());
  EXPECT_TRUE(C->wait().succeeded());
  ASSERT_TRUE(C->getUsage());
  EXPECT_GT(C->getUsage()->cpuSeconds(), 0.0);
  EXPECT_EQ(C->getUsage()->cpuSeconds(),
            C->getUsage()->UserSeconds + C->getUsage()->SystemSeconds);
}

} // namespace
