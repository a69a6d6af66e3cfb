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
