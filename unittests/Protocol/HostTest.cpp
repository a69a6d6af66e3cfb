//===- HostTest.cpp - The host side of the protocol -----------------------===//
//
// Forked "compilers" (the real InteractiveRunner, or raw bytes on the FIFOs
// when a test needs to misbehave precisely) against serveProcess and
// serveCommand. Every failure must be reported with an exact message, the
// child must be reaped, and the FIFOs and their directory must be gone.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Protocol/Host.h"

#include "ProtocolTestUtil.h"

#include "mlgo/Protocol/InteractiveRunner.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/wait.h>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::test;

namespace {

std::string errorMessage(Error E) { return toString(std::move(E)); }

bool isReaped(pid_t Pid) {
  return ::waitpid(Pid, nullptr, WNOHANG) == -1 && errno == ECHILD;
}

/// A compiler using the real InteractiveRunner for \p Sessions sessions of
/// \p PerSession decisions each; it checks it got the alternate policy's
/// answers and exits with \p ExitStatus.
void runnerCompiler(const Channel &C, int Sessions, int PerSession,
                    int ExitStatus) {
  int64_t Expected = 1;
  for (int S = 0; S < Sessions; ++S) {
    // FIFOs have no message boundaries: a session opened while the host
    // still holds the previous one's ends joins that stream (see
    // docs/protocol.md). Give the host time to see the end of the last one.
    if (S > 0)
      ::usleep(300 * 1000);
    InteractiveRunner R(sampleFeatures(), sampleAdvice(), C.getOutboundPath(),
                        C.getInboundPath(), [](Error E) {
                          consumeError(std::move(E));
                          ::_exit(50);
                        });
    R.switchContext("ctx");
    for (int I = 0; I < PerSession; ++I) {
      *R.getTensor<int64_t>(0) = I;
      if (R.evaluate<int64_t>() != Expected)
        ::_exit(60 + I);
      Expected = 1 - Expected;
    }
  }
  ::_exit(ExitStatus);
}

/// A compiler speaking raw bytes: opens the channel, sends the header and
/// a context, then \p Full whole observations (reading each advice), then
/// \p PartialBytes bytes of the next one. Returns the FIFO descriptors.
std::pair<int, int> rawCompiler(const Channel &C, size_t Full,
                                size_t PartialBytes) {
  int In = ::open(C.getInboundPath().c_str(), O_RDONLY);
  int Out = ::open(C.getOutboundPath().c_str(), O_WRONLY);
  if (In < 0 || Out < 0)
    ::_exit(40);
  std::string Prefix = sampleStream(0);
  writeAllOrExit(Out, Prefix, 41);
  for (size_t I = 0; I <= Full; ++I) {
    std::string Obs = sampleStream(I + 1).substr(sampleStream(I).size());
    if (I == Full) {
      writeAllOrExit(Out, Obs.substr(0, PartialBytes), 42);
      break;
    }
    writeAllOrExit(Out, Obs, 42);
    char Advice[8];
    size_t Got = 0;
    while (Got < 8) {
      ssize_t N = ::read(In, Advice + Got, 8 - Got);
      if (N <= 0)
        ::_exit(43);
      Got += static_cast<size_t>(N);
    }
  }
  return {In, Out};
}

struct Served {
  Expected<ServeStats> Stats;
  pid_t Pid;
  std::string Directory;
};

template <typename F>
Served serveFork(StringRef PolicySpec, F Compiler, ServeOptions Opts = {}) {
  auto C = Channel::create();
  EXPECT_TRUE(!!C);
  std::string Dir = (*C)->getDirectory();
  EXPECT_TRUE(sys::fs::exists((*C)->getInboundPath()));
  pid_t Pid = ::fork();
  if (Pid == 0) {
    Compiler(**C);
    ::_exit(0);
  }
  auto P = createPolicy(PolicySpec);
  EXPECT_TRUE(!!P);
  Expected<ServeStats> Stats =
      serveProcess(**C, ChildProcess::adopt(Pid), **P, Opts);
  C->reset();
  return {std::move(Stats), Pid, Dir};
}

TEST(HostTest, RoundTripWithInteractiveRunnerAndLog) {
  Watchdog W;
  SmallString<128> LogPath;
  ASSERT_FALSE(sys::fs::createTemporaryFile("serve", "log", LogPath));
  ServeOptions Opts;
  Opts.LogPath = std::string(LogPath);
  Served S = serveFork(
      "alternate", [](const Channel &C) { runnerCompiler(C, 1, 5, 0); }, Opts);
  ASSERT_TRUE(!!S.Stats) << errorMessage(S.Stats.takeError());
  EXPECT_EQ(S.Stats->Decisions, 5u);
  EXPECT_EQ(S.Stats->Contexts, 1u);
  EXPECT_EQ(S.Stats->Sessions, 1u);
  EXPECT_TRUE(S.Stats->Compiler.succeeded());
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));

  // The log: the features as received, then the advice as the last one.
  auto Reader = LogReader::open(LogPath);
  ASSERT_TRUE(!!Reader) << errorMessage(Reader.takeError());
  const LogHeader &H = (*Reader)->getHeader();
  ASSERT_EQ(H.Features.size(), 3u);
  EXPECT_EQ(H.Features[2], sampleAdvice());
  EXPECT_FALSE(H.Advice);
  EXPECT_FALSE(H.Score);
  std::vector<int64_t> Xs, Decisions;
  while (true) {
    auto Rec = (*Reader)->next();
    ASSERT_TRUE(!!Rec) << errorMessage(Rec.takeError());
    if (Rec->TheKind == LogRecord::Kind::End)
      break;
    if (Rec->TheKind == LogRecord::Kind::Context) {
      EXPECT_EQ(Rec->Context, "ctx");
      continue;
    }
    Xs.push_back(
        *reinterpret_cast<const int64_t *>((*Reader)->getFeatureData(0)));
    Decisions.push_back(
        *reinterpret_cast<const int64_t *>((*Reader)->getFeatureData(2)));
  }
  EXPECT_EQ(Xs, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Decisions, (std::vector<int64_t>{1, 0, 1, 0, 1}));
  sys::fs::remove(LogPath);
}

TEST(HostTest, ServesEverySessionOfOneProcess) {
  Watchdog W;
  Served S = serveFork("alternate",
                       [](const Channel &C) { runnerCompiler(C, 2, 3, 0); });
  ASSERT_TRUE(!!S.Stats) << errorMessage(S.Stats.takeError());
  EXPECT_EQ(S.Stats->Sessions, 2u);
  EXPECT_EQ(S.Stats->Decisions, 6u);
  EXPECT_EQ(S.Stats->Contexts, 2u);
}

TEST(HostTest, CompilerExitingMidStreamIsReported) {
  Watchdog W;
  Served S =
      serveFork("always", [](const Channel &C) { runnerCompiler(C, 1, 2, 3); });
  // runnerCompiler expects alternate answers: with "always" the second
  // decision is wrong and it exits with 61 after two observations.
  ASSERT_FALSE(!!S.Stats);
  EXPECT_EQ(errorMessage(S.Stats.takeError()),
            "compiler exited with status 61 after 2 observations");
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));
}

TEST(HostTest, CompilerKilledInsideAnObservationIsReported) {
  Watchdog W;
  Served S = serveFork("always", [](const Channel &C) {
    rawCompiler(C, /*Full=*/2, /*PartialBytes=*/21);
    ::kill(::getpid(), SIGKILL);
  });
  ASSERT_FALSE(!!S.Stats);
  Error E = S.Stats.takeError();
  ASSERT_TRUE(E.isA<CompilerExitError>());
  handleAllErrors(std::move(E), [](const CompilerExitError &CE) {
    EXPECT_EQ(CE.message(),
              "compiler was killed by signal 9 (Killed) after 2 observations");
    EXPECT_EQ(CE.Status.toShellStatus(), 137);
    EXPECT_TRUE(CE.Connected);
  });
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));
}

TEST(HostTest, StalledCompilerIsKilled) {
  Watchdog W;
  ServeOptions Opts;
  Opts.TimeoutSeconds = 1;
  Served S = serveFork(
      "always",
      [](const Channel &C) {
        rawCompiler(C, /*Full=*/1, /*PartialBytes=*/0);
        ::pause();
      },
      Opts);
  ASSERT_FALSE(!!S.Stats);
  EXPECT_EQ(errorMessage(S.Stats.takeError()),
            "the compiler sent nothing for 1 second after 1 observation; "
            "killed it");
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));
}

TEST(HostTest, ProtocolViolationKillsTheCompiler) {
  Watchdog W;
  Served S = serveFork("always", [](const Channel &C) {
    auto [In, Out] = rawCompiler(C, /*Full=*/0, /*PartialBytes=*/0);
    writeAllOrExit(Out, "{\"observation\":7}\n", 44);
    ::pause();
  });
  ASSERT_FALSE(!!S.Stats);
  std::string Message = errorMessage(S.Stats.takeError());
  EXPECT_NE(Message.find("observation number out of order in context 'ctx': "
                         "expected 0, got 7"),
            std::string::npos)
      << Message;
  EXPECT_TRUE(isReaped(S.Pid));
}

TEST(HostTest, PolicyErrorKillsTheCompiler) {
  Watchdog W;
  Served S = serveFork("first-valid",
                       [](const Channel &C) { runnerCompiler(C, 1, 2, 0); });
  ASSERT_FALSE(!!S.Stats);
  EXPECT_EQ(errorMessage(S.Stats.takeError()),
            "policy 'first-valid' needs a 'mask' feature (the regalloc "
            "eviction stream of llc -regalloc-enable-advisor=release), but "
            "this stream has 2 features and none is called 'mask'");
  EXPECT_TRUE(isReaped(S.Pid));
}

TEST(HostTest, CommandThatNeverOpensTheChannel) {
  Watchdog W;
  Served S = serveFork("always", [](const Channel &) { ::_exit(0); });
  ASSERT_FALSE(!!S.Stats);
  EXPECT_EQ(errorMessage(S.Stats.takeError()),
            "command exited with status 0 without ever opening the channel; "
            "is interactive ML advice enabled on its command line (e.g. opt "
            "-enable-ml-inliner=release "
            "-inliner-interactive-channel-base={channel})?");
  EXPECT_TRUE(isReaped(S.Pid));
}

// The host's ends are open before the compiler's: a compiler that opens
// both files and closes them without a byte has still connected (the
// host sees the hang-up), and its status is reported as a connected one's.
TEST(HostTest, CompilerClosingTheChannelUnusedHasConnected) {
  Watchdog W;
  Served S = serveFork("always", [](const Channel &C) {
    int In = ::open(C.getInboundPath().c_str(), O_RDONLY);
    int Out = ::open(C.getOutboundPath().c_str(), O_WRONLY);
    if (In < 0 || Out < 0)
      ::_exit(40);
    ::close(Out);
    ::close(In);
    ::_exit(3);
  });
  ASSERT_FALSE(!!S.Stats);
  Error E = S.Stats.takeError();
  ASSERT_TRUE(E.isA<CompilerExitError>());
  handleAllErrors(std::move(E), [](const CompilerExitError &CE) {
    EXPECT_EQ(CE.message(),
              "compiler exited with status 3 after 0 observations");
    EXPECT_TRUE(CE.Connected);
  });
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));
}

// Once the compiler is connected it is BASE.in's only reader (the host
// opened BASE.in for reading and writing before it): a compiler that
// closes BASE.in and then asks is an EPIPE, reported by name, not advice
// written into a FIFO nobody reads.
TEST(HostTest, CompilerClosingItsInboundIsReported) {
  Watchdog W;
  Served S = serveFork("always", [](const Channel &C) {
    int In = ::open(C.getInboundPath().c_str(), O_RDONLY);
    int Out = ::open(C.getOutboundPath().c_str(), O_WRONLY);
    if (In < 0 || Out < 0)
      ::_exit(40);
    writeAllOrExit(Out, sampleStream(0), 41);
    ::close(In);
    writeAllOrExit(Out, sampleStream(1).substr(sampleStream(0).size()), 42);
    ::usleep(200 * 1000);
    ::_exit(0);
  });
  ASSERT_FALSE(!!S.Stats);
  EXPECT_EQ(errorMessage(S.Stats.takeError()),
            "the compiler closed '" + S.Directory +
                "/channel.in' before reading its advice");
  EXPECT_TRUE(isReaped(S.Pid));
  EXPECT_FALSE(sys::fs::exists(S.Directory));
}

TEST(HostTest, ServeCommandSubstitutesTheChannel) {
  Watchdog W;
  auto P = createPolicy("always");
  ASSERT_TRUE(!!P);
  // Exit 7 only if {channel}.in and {channel}.out are FIFOs.
  std::vector<std::string> Cmd = {
      "sh", "-c", "test -p {channel}.in && test -p '{channel}.out' && exit 7"};
  Expected<ServeStats> Stats = serveCommand(Cmd, **P, ServeOptions());
  ASSERT_FALSE(!!Stats);
  handleAllErrors(Stats.takeError(), [](const CompilerExitError &E) {
    EXPECT_EQ(E.Status.toShellStatus(), 7);
    EXPECT_FALSE(E.Connected);
  });
  EXPECT_EQ(substituteChannel("a{channel}b{channel}", "X"), "aXbX");
}

TEST(HostTest, ServeCommandReportsAMissingProgram) {
  auto P = createPolicy("always");
  ASSERT_TRUE(!!P);
  Expected<ServeStats> Stats =
      serveCommand({"mlgo-no-such-compiler"}, **P, ServeOptions());
  ASSERT_FALSE(!!Stats);
  EXPECT_EQ(errorMessage(Stats.takeError()),
            "cannot find 'mlgo-no-such-compiler' in PATH");
}

TEST(HostTest, SigtermRemovesTheChannel) {
  Watchdog W;
  int Pipe[2];
  ASSERT_EQ(::pipe(Pipe), 0);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    auto C = Channel::create();
    if (!C)
      ::_exit(1);
    writeAllOrExit(Pipe[1], (*C)->getDirectory() + "\n", 2);
    ::pause();
    ::_exit(3);
  }
  ::close(Pipe[1]);
  std::string Dir;
  char Ch;
  while (::read(Pipe[0], &Ch, 1) == 1 && Ch != '\n')
    Dir += Ch;
  ::close(Pipe[0]);
  ASSERT_TRUE(sys::fs::exists(Dir + "/channel.in"));
  ::kill(Pid, SIGTERM);
  int Status = 0;
  ::waitpid(Pid, &Status, 0);
  EXPECT_TRUE(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGTERM);
  EXPECT_FALSE(sys::fs::exists(Dir));
}

} // namespace
