//===- unittests/Compile/CompileWorkerTest.cpp
//------------------------------===//
//
// compileModule() runs thousands of times in one worker process, so it must
// free everything a compile allocates. The cc1 arguments of a corpus module
// carry -disable-free, which tells clang to leak the AST consumer and the
// TargetMachine on purpose (a process that exits right after need not
// free); a worker that honoured it grew by 200 KB per compile of this small
// module (about 0.6 MB per corpus module), reached gigabytes and was killed
// by the kernel's out-of-memory killer late in a training run.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CompileWorker.h"

#include "TestModule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <malloc.h>

using namespace llvm;
using namespace mlgo;

namespace {

size_t heapBytesInUse() { return ::mallinfo2().uordblks; }

TEST(CompileWorkerTest, RepeatedCompilesDoNotLeak) {
  unittest::TempDir Dir("mlgo-leak", /*Unique=*/true);
  std::string Bitcode = Dir.path("stats.bc").str().str();
  ASSERT_EQ(test::buildStatsBitcode(Bitcode), 0);
  auto Model =
      MemoryBuffer::getFile(MLGO_SOURCE_DIR "/models/inline-oz/model.json");
  ASSERT_TRUE(bool(Model));
  // The shipped model, with its decision log: every part of the worker's
  // compile runs.
  CompileJob Job = test::makeJob(
      "p/stats.o", Bitcode, CompilePolicy::model((*Model)->getBuffer().str()),
      /*WantLog=*/true);
  // As in a corpus module's command (CompileCommand.h).
  Job.CC1Args.insert(Job.CC1Args.begin(), "-disable-free");

  // The first compiles fill process-wide state that lives on (registered
  // targets, option tables, the object path).
  uint64_t Size = 0;
  for (int I = 0; I < 10; ++I) {
    Expected<CompileResult> R = compileModule(Job);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    Size = R->TextSize;
  }
  size_t Before = heapBytesInUse();
  constexpr int N = 100;
  for (int I = 0; I < N; ++I) {
    Expected<CompileResult> R = compileModule(Job);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    ASSERT_EQ(R->TextSize, Size);
  }
  size_t After = heapBytesInUse();
  // Nothing a compile allocates survives it, up to LLVM's own bookkeeping
  // (a few hundred bytes a compile, e.g. the signal handler's list of files
  // to remove): allow 2 KB a compile. A buried TargetMachine alone is about
  // 200 KB.
  EXPECT_LE(After, Before + N * 2048)
      << "heap grew by " << (After - Before) / N << " bytes per compile";
}

} // namespace
