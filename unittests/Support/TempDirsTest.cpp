//===- unittests/Support/TempDirsTest.cpp ---------------------------------===//
//
// TempDir: the tree goes with its owner on every path the process controls
// (destruction, SIGTERM), and a SIGKILLed owner's tree is collected by the
// next create() of its prefix while a live process's is kept.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/TempDirs.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;

namespace {

std::string tempRoot() {
  SmallString<128> Root;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Root);
  return Root.str().str();
}

void writeFile(const std::string &Path) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path << ": " << EC.message();
  OS << "x\n";
}

/// A pid no process has (a child that has exited and been reaped).
int deadPid() {
  pid_t Pid = ::fork();
  if (Pid == 0)
    ::_exit(0);
  ::waitpid(Pid, nullptr, 0);
  return Pid;
}

TEST(TempDirsTest, TheTreeGoesWithItsOwner) {
  std::string Path;
  {
    Expected<TempDir> D = TempDir::create("mlgo-tempdirs-test");
    ASSERT_TRUE(!!D) << toString(D.takeError());
    Path = D->path();
    EXPECT_EQ(Path.rfind(tempRoot() + "/mlgo-tempdirs-test-" +
                             std::to_string(::getpid()) + "-",
                         0),
              0u)
        << Path;
    ASSERT_TRUE(sys::fs::is_directory(Path));
    ASSERT_FALSE(sys::fs::create_directory(Path + "/sub"));
    writeFile(Path + "/sub/f");
    TempDir Moved = std::move(*D);
    EXPECT_TRUE(D->empty());
    EXPECT_TRUE(sys::fs::exists(Path + "/sub/f"));
  }
  EXPECT_FALSE(sys::fs::exists(Path));
}

TEST(TempDirsTest, ATerminatingSignalRemovesTheTree) {
  int Pipe[2];
  ASSERT_EQ(::pipe(Pipe), 0);
  pid_t Child = ::fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    ::close(Pipe[0]);
    Expected<TempDir> D = TempDir::create("mlgo-tempdirs-test");
    if (!D)
      ::_exit(2);
    if (sys::fs::create_directory(D->path() + "/a") ||
        sys::fs::create_directory(D->path() + "/a/b"))
      ::_exit(3);
    for (int I = 0; I < 200; ++I) {
      std::error_code EC;
      raw_fd_ostream OS(D->path() + "/a/b/f" + std::to_string(I), EC);
    }
    std::string P = D->path() + "\n";
    if (::write(Pipe[1], P.data(), P.size()) != ssize_t(P.size()))
      ::_exit(4);
    while (true)
      ::pause();
  }
  ::close(Pipe[1]);
  std::string Path;
  char C;
  while (::read(Pipe[0], &C, 1) == 1 && C != '\n')
    Path += C;
  ::close(Pipe[0]);
  ASSERT_FALSE(Path.empty());
  EXPECT_TRUE(sys::fs::exists(Path + "/a/b/f199"));
  ::kill(Child, SIGTERM);
  int Status = 0;
  ASSERT_EQ(::waitpid(Child, &Status, 0), Child);
  EXPECT_TRUE(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGTERM) << Status;
  EXPECT_FALSE(sys::fs::exists(Path));
}

TEST(TempDirsTest, AKilledOwnersTreeIsCollectedALiveOnesIsKept) {
  std::string Root = tempRoot();
  std::string Stale =
      Root + "/mlgo-tempdirs-test-" + std::to_string(deadPid()) + "-abcDE1";
  std::string Kept =
      Root + "/mlgo-tempdirs-test-" + std::to_string(::getppid()) + "-abcDE2";
  std::string Other =
      Root + "/mlgo-tempdirs-testx-" + std::to_string(deadPid()) + "-abcDE3";
  for (const std::string &D : {Stale, Kept, Other}) {
    ASSERT_FALSE(sys::fs::create_directories(D + "/sub"));
    writeFile(D + "/sub/f");
  }
  // A dead host's channel: FIFOs, which sys::fs::remove refuses.
  ASSERT_EQ(::mkfifo((Stale + "/channel.in").c_str(), 0600), 0);
  {
    Expected<TempDir> D = TempDir::create("mlgo-tempdirs-test");
    ASSERT_TRUE(!!D) << toString(D.takeError());
  }
  EXPECT_FALSE(sys::fs::exists(Stale));
  EXPECT_TRUE(sys::fs::exists(Kept + "/sub/f"));
  EXPECT_TRUE(sys::fs::exists(Other + "/sub/f"));
  sys::fs::remove_directories(Kept);
  sys::fs::remove_directories(Other);
}

// Rank 0 ending a job removes its worker ranks' trees, alive or not, and
// no one else's.
TEST(TempDirsTest, TheNamedOwnersTreesAreRemovedAliveOrNot) {
  std::string Root = tempRoot();
  int Dead = deadPid();
  std::string OfDead =
      Root + "/mlgo-tempdirs-owned-" + std::to_string(Dead) + "-abcDE4";
  std::string OfLive =
      Root + "/mlgo-tempdirs-owned-" + std::to_string(::getppid()) + "-abcDE5";
  std::string NotNamed =
      Root + "/mlgo-tempdirs-owned-" + std::to_string(deadPid()) + "-abcDE6";
  std::string OtherPrefix =
      Root + "/mlgo-tempdirs-ownedx-" + std::to_string(Dead) + "-abcDE7";
  for (const std::string &D : {OfDead, OfLive, NotNamed, OtherPrefix}) {
    ASSERT_FALSE(sys::fs::create_directories(D + "/sub"));
    writeFile(D + "/sub/f");
  }
  EXPECT_EQ(removeTempDirsOf("mlgo-tempdirs-owned", {Dead, int(::getppid())}),
            2u);
  EXPECT_FALSE(sys::fs::exists(OfDead));
  EXPECT_FALSE(sys::fs::exists(OfLive));
  EXPECT_TRUE(sys::fs::exists(NotNamed + "/sub/f"));
  EXPECT_TRUE(sys::fs::exists(OtherPrefix + "/sub/f"));
  EXPECT_EQ(removeTempDirsOf("mlgo-tempdirs-owned", {}), 0u);
  sys::fs::remove_directories(NotNamed);
  sys::fs::remove_directories(OtherPrefix);
}

// A SIGKILLed worker rank that its parent (Open MPI's daemon) has not
// reaped yet is a zombie: it answers kill(0) but will never remove its
// tree, so the tree is collected.
TEST(TempDirsTest, AZombieOwnersTreeIsCollected) {
  pid_t Child = ::fork();
  ASSERT_GE(Child, 0);
  if (Child == 0)
    ::_exit(0);
  // Not reaped yet: wait until it is a zombie.
  siginfo_t Info;
  ASSERT_EQ(::waitid(P_PID, Child, &Info, WEXITED | WNOWAIT), 0);
  std::string Zombie =
      tempRoot() + "/mlgo-tempdirs-zombie-" + std::to_string(Child) + "-abcDE4";
  ASSERT_FALSE(sys::fs::create_directories(Zombie + "/sub"));
  writeFile(Zombie + "/sub/f");
  EXPECT_EQ(collectStaleTempDirs("mlgo-tempdirs-zombie"), 1u);
  EXPECT_FALSE(sys::fs::exists(Zombie));
  int Status = 0;
  ASSERT_EQ(::waitpid(Child, &Status, 0), Child);
}

} // namespace
