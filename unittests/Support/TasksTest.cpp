//===- unittests/Support/TasksTest.cpp ------------------------------------===//
//
// Tasks run here: by kind, in order, each outcome told as it is known, and
// a kind this mlgo does not have is an error that names it.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Tasks.h"

#include "mlgo/Support/Error.h"

#include "gtest/gtest.h"

#include <set>

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

} // namespace
