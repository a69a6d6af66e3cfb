//===- unittests/Support/TasksTest.cpp ------------------------------------===//
//
// Tasks run here: by kind, in order, each outcome told as it is known, and
// a kind this mlgo does not have is an error that names it. A TaskBatcher
// answers each unit's tasks in turn, in batches of the waiting units' tasks
// run on the thread that called runUnits.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Tasks.h"

#include "mlgo/Support/Error.h"

#include "gtest/gtest.h"

#include <set>
#include <thread>

using namespace llvm;
using namespace mlgo;

namespace {

RegisterTask Join("test-join",
                  [](ArrayRef<std::string> Args) -> Expected<std::string> {
                    if (Args.empty())
                      return makeError("test-join: nothing to join");
                    std::string Out;
                    for (const std::string &A : Args)
                      Out += A;
                    return Out;
                  });

TEST(TasksTest, RunHereByKind) {
  Expected<std::string> R = runTaskHere("test-join", {"a", "b"});
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(*R, "ab");
  Expected<std::string> None = runTaskHere("no-such-kind", {});
  ASSERT_FALSE(bool(None));
  EXPECT_EQ(toString(None.takeError()),
            "no task of kind 'no-such-kind' in this mlgo");
}

TEST(TasksTest, OutcomesInTaskOrderEachToldOnce) {
  std::vector<Task> Tasks;
  for (int I = 0; I < 20; ++I)
    Tasks.push_back({"test-join",
                     "m" + std::to_string(I),
                     {},
                     I == 7 ? std::vector<std::string>()
                            : std::vector<std::string>{std::to_string(I)}});
  std::set<size_t> Told;
  size_t LastDone = 0;
  std::vector<TaskOutcome> Out = runTasks(
      Tasks, 4,
      [&](size_t Done, size_t Total) {
        EXPECT_EQ(Done, LastDone + 1);
        EXPECT_EQ(Total, 20u);
        LastDone = Done;
      },
      [&](size_t I, const TaskOutcome &O) {
        EXPECT_TRUE(Told.insert(I).second);
        EXPECT_EQ(O.ok(), I != 7);
      });
  ASSERT_EQ(Out.size(), 20u);
  EXPECT_EQ(Told.size(), 20u);
  EXPECT_EQ(LastDone, 20u);
  for (size_t I = 0; I < Out.size(); ++I) {
    if (I == 7) {
      EXPECT_FALSE(Out[I].ok());
      EXPECT_EQ(Out[I].Error, "test-join: nothing to join");
      continue;
    }
    ASSERT_TRUE(Out[I].ok());
    EXPECT_EQ(*Out[I].Result, std::to_string(I));
  }
}

TEST(TasksTest, AnInstalledRunnerRunsThem) {
  setTaskRunner([](ArrayRef<Task> Tasks, const ProgressCallback &,
                   const TaskOutcomeCallback &) {
    std::vector<TaskOutcome> Out(Tasks.size());
    for (TaskOutcome &O : Out)
      O.Result = "elsewhere";
    return Out;
  });
  std::vector<TaskOutcome> Out =
      runTasks({Task{"test-join", "m", {}, {"a"}}}, 1);
  setTaskRunner(nullptr);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Result, "elsewhere");
  Out = runTasks({Task{"test-join", "m", {}, {"a"}}}, 1);
  EXPECT_EQ(Out[0].Result, "a");
}

TEST(TasksTest, BatcherAnswersEveryUnitInTurnFromTheCallingThread) {
  // The runner records each batch's size and the thread that ran it.
  std::vector<size_t> Batches;
  std::set<std::thread::id> Runners;
  setTaskRunner([&](ArrayRef<Task> Tasks, const ProgressCallback &,
                    const TaskOutcomeCallback &) {
    Batches.push_back(Tasks.size());
    Runners.insert(std::this_thread::get_id());
    std::vector<TaskOutcome> Out(Tasks.size());
    for (size_t I = 0; I < Tasks.size(); ++I) {
      Expected<std::string> R = runTaskHere(Tasks[I].Kind, Tasks[I].Args);
      if (R)
        Out[I].Result = std::move(*R);
      else
        Out[I].Error = toString(R.takeError());
    }
    return Out;
  });
  // Each of 5 units chains 4 tasks, each on the last one's answer.
  TaskBatcher B(3);
  std::vector<std::string> Chains(5);
  B.runUnits(5, [&](size_t U) {
    std::string Last = std::to_string(U);
    for (int K = 0; K < 4; ++K) {
      TaskOutcome O = B.run(Task{"test-join", "m", {}, {Last, "."}});
      ASSERT_TRUE(O.ok());
      Last = *O.Result;
    }
    Chains[U] = Last;
  });
  setTaskRunner(nullptr);
  for (size_t U = 0; U < 5; ++U)
    EXPECT_EQ(Chains[U], std::to_string(U) + "....");
  size_t Total = 0;
  for (size_t N : Batches) {
    EXPECT_GE(N, 1u);
    EXPECT_LE(N, 3u);
    Total += N;
  }
  EXPECT_EQ(Total, 20u);
  EXPECT_EQ(Runners, std::set<std::thread::id>{std::this_thread::get_id()});
}

} // namespace
