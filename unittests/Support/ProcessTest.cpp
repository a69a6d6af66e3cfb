//===- unittests/Support/ProcessTest.cpp - Run a program with a timeout ---===//
//
// runProcess's exit codes, redirections and messages, and its timeout,
// which must work from several threads at once (unlike ExecuteAndWait's
// alarm).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"


using namespace llvm;
using namespace mlgo;

namespace {

using Args = std::vector<std::string>;

TEST(ProcessTest, ReportsTheExitCode) {
  RunResult R = runProcess(Args{"sh", "-c", "exit 3"}, RunOptions());
  EXPECT_TRUE(R.Started);
  EXPECT_FALSE(R.TimedOut);
  EXPECT_EQ(R.ExitCode, 3);
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "exited with 3");
  EXPECT_TRUE(runProcess(Args{"true"}, RunOptions()).succeeded());
}

TEST(ProcessTest, RedirectsOutput) {
  SmallString<128> Out;
  ASSERT_FALSE(sys::fs::createTemporaryFile("mlgo-process", "out", Out));
  RunOptions O;
  O.Stdin = "/dev/null";
  O.Stdout = std::string(Out);
  O.Stderr = std::string(Out);
  RunResult R = runProcess(Args{"sh", "-c", "echo out; cat; echo err >&2"}, O);
  EXPECT_TRUE(R.succeeded()) << R.describe();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Out);
  ASSERT_TRUE(bool(Buf));
  EXPECT_EQ((*Buf)->getBuffer(), "out\nerr\n");
  sys::fs::remove(Out);
}

// An output file that exists is replaced, not overwritten in place: LLVM's
// redirection alone opens it without truncating, so a shorter output left
// the end of the longer old one behind (a package's test list read back
// with stale names).
TEST(ProcessTest, ReplacesAnOutputFile) {
  SmallString<128> Out, Err;
  ASSERT_FALSE(sys::fs::createTemporaryFile("mlgo-process", "out", Out));
  ASSERT_FALSE(sys::fs::createTemporaryFile("mlgo-process", "err", Err));
  for (StringRef P : {Out.str(), Err.str()}) {
    std::error_code EC;
    raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC);
    OS << "a much longer earlier output\n";
  }
  RunOptions O;
  O.Stdout = std::string(Out);
  O.Stderr = std::string(Err);
  RunResult R = runProcess(Args{"sh", "-c", "echo new; echo e >&2"}, O);
  EXPECT_TRUE(R.succeeded()) << R.describe();
  for (auto [P, Want] : {std::pair(Out.str(), "new\n"), {Err.str(), "e\n"}}) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(P);
    ASSERT_TRUE(bool(Buf));
    EXPECT_EQ((*Buf)->getBuffer(), Want);
    sys::fs::remove(P);
  }
  // A device is left alone.
  O.Stdout = O.Stderr = "/dev/null";
  EXPECT_TRUE(runProcess(Args{"echo", "x"}, O).succeeded());
}

TEST(ProcessTest, NamesAProgramThatIsNotThere) {
  RunResult R = runProcess(Args{"mlgo-no-such-program"}, RunOptions());
  EXPECT_FALSE(R.Started);
  EXPECT_FALSE(R.succeeded());
  EXPECT_EQ(R.describe(), "cannot find 'mlgo-no-such-program' in PATH");
}

TEST(ProcessTest, TimesOutInEveryThread) {
  RunResult Results[2];
  {
    DefaultThreadPool Pool(hardware_concurrency(2));
    for (RunResult &R : Results)
      Pool.async([&R] {
        RunOptions O;
        O.TimeoutSeconds = 1;
        R = runProcess(Args{"sleep", "30"}, O);
      });
    Pool.wait();
  }
  for (const RunResult &R : Results) {
    EXPECT_TRUE(R.Started);
    EXPECT_TRUE(R.TimedOut);
    EXPECT_FALSE(R.succeeded());
    EXPECT_EQ(R.describe(), "timed out after 1 s");
  }
}

} // namespace
