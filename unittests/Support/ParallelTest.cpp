//===- unittests/Support/ParallelTest.cpp - N jobs on a thread pool -------===//

#include "mlgo/Support/Parallel.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using namespace mlgo;

namespace {

// Later jobs finish first (job I sleeps (N - I) ms), yet results come back
// in input order.
TEST(ParallelTest, ResultsAreInInputOrder) {
  const size_t N = 16;
  std::vector<std::string> R =
      runJobs<std::string>(N, 4, [&](size_t I) -> std::string {
        std::this_thread::sleep_for(std::chrono::milliseconds(N - I));
        return "job " + std::to_string(I);
      });
  ASSERT_EQ(R.size(), N);
  for (size_t I = 0; I < N; ++I)
    EXPECT_EQ(R[I], "job " + std::to_string(I));
}

// Progress counts 1..N, one call at a time, each after its job finished.
TEST(ParallelTest, ProgressIsSerializedAndCountsUp) {
  const size_t N = 40;
  std::atomic<int> InCallback{0};
  std::atomic<size_t> Finished{0};
  bool Overlapped = false;
  std::vector<size_t> Seen;
  runJobs(
      N, 4, [&](size_t) { ++Finished; },
      [&](size_t Done, size_t Total) {
        if (InCallback.fetch_add(1) != 0)
          Overlapped = true;
        EXPECT_EQ(Total, N);
        EXPECT_LE(Done, Finished.load());
        Seen.push_back(Done);
        // Give another thread the chance to enter if it could.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        InCallback.fetch_sub(1);
      });
  EXPECT_FALSE(Overlapped);
  ASSERT_EQ(Seen.size(), N);
  for (size_t I = 0; I < N; ++I)
    EXPECT_EQ(Seen[I], I + 1);
}

TEST(ParallelTest, EveryJobRunsOnceWithAnyThreadCount) {
  for (unsigned Threads : {0u, 1u, 3u}) {
    std::vector<std::atomic<int>> Runs(25);
    runJobs(Runs.size(), Threads, [&](size_t I) { ++Runs[I]; });
    for (size_t I = 0; I < Runs.size(); ++I)
      EXPECT_EQ(Runs[I].load(), 1)
          << "job " << I << ", " << Threads << " threads";
  }
}

TEST(ParallelTest, NoJobsNoProgress) {
  bool Called = false;
  std::vector<int> R = runJobs<int>(
      0, 2, [](size_t) { return 1; }, [&](size_t, size_t) { Called = true; });
  EXPECT_TRUE(R.empty());
  EXPECT_FALSE(Called);
}

} // namespace
