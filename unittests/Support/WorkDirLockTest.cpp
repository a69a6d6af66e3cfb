//===- unittests/Support/WorkDirLockTest.cpp - One run per directory -----===//

#include "mlgo/Support/WorkDirLock.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <functional>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;

namespace {

std::string readLock(const std::string &Dir) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B =
      MemoryBuffer::getFile(Dir + "/mlgo.lock");
  return B ? (*B)->getBuffer().str() : "<none>";
}

class WorkDirLockTest : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> D;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("mlgo-lock-test", D));
    Dir = std::string(D) + "/work";
  }
  void TearDown() override {
    sys::fs::remove_directories(sys::path::parent_path(Dir));
  }
  std::string Dir;
  std::vector<std::string> Notes;
  std::function<void(StringRef)> Note = [this](StringRef N) {
    Notes.push_back(N.str());
  };
};

TEST_F(WorkDirLockTest, SecondHolderIsRefusedWithThePid) {
  Expected<WorkDirLock> First = WorkDirLock::acquire(Dir, Note);
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  std::string Pid = std::to_string(::getpid());
  EXPECT_EQ(readLock(Dir), Pid + "\n");
  // flock's locks belong to the open file: a second open in this process
  // conflicts as another process's would.
  Expected<WorkDirLock> Second = WorkDirLock::acquire(Dir, Note);
  ASSERT_FALSE(bool(Second));
  EXPECT_EQ(toString(Second.takeError()),
            "work directory '" + Dir + "' is in use by another mlgo (pid " +
                Pid + "); wait for it to end or use another --work-dir");
  EXPECT_TRUE(Notes.empty());
}

TEST_F(WorkDirLockTest, ReleasedLockIsTakenWithoutANote) {
  {
    Expected<WorkDirLock> First = WorkDirLock::acquire(Dir, Note);
    ASSERT_TRUE(bool(First)) << toString(First.takeError());
  }
  EXPECT_EQ(readLock(Dir), "");
  Expected<WorkDirLock> Again = WorkDirLock::acquire(Dir, Note);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_TRUE(Notes.empty());
}

TEST_F(WorkDirLockTest, LockOfAnEndedProcessIsTakenOver) {
  ASSERT_FALSE(sys::fs::create_directories(Dir));
  {
    std::error_code EC;
    raw_fd_ostream OS(Dir + "/mlgo.lock", EC);
    ASSERT_FALSE(EC);
    OS << "4242\n";
  }
  Expected<WorkDirLock> L = WorkDirLock::acquire(Dir, Note);
  ASSERT_TRUE(bool(L)) << toString(L.takeError());
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_EQ(Notes[0], "taking over work directory '" + Dir +
                          "' from pid 4242, which ended without releasing it");
  EXPECT_EQ(readLock(Dir), std::to_string(::getpid()) + "\n");
}

TEST_F(WorkDirLockTest, UncreatableDirectoryIsAnError) {
  ASSERT_FALSE(sys::fs::create_directories(Dir));
  {
    std::error_code EC;
    raw_fd_ostream OS(Dir + "/file", EC);
    ASSERT_FALSE(EC);
  }
  Expected<WorkDirLock> L = WorkDirLock::acquire(Dir + "/file/sub", Note);
  ASSERT_FALSE(bool(L));
  EXPECT_EQ(toString(L.takeError()),
            "cannot create '" + Dir + "/file/sub': Not a directory");
}

} // namespace
