//===- lib/Support/Tasks.cpp - Work that can run in another process -------===//
//
// The registry of task kinds and the runner of mlgo/Support/Tasks.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Tasks.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace llvm;

namespace mlgo {

static StringMap<TaskFunction> &getKinds() {
  static StringMap<TaskFunction> Kinds;
  return Kinds;
}

static TaskRunner &getRunner() {
  static TaskRunner Runner;
  return Runner;
}

RegisterTask::RegisterTask(StringRef Kind, TaskFunction Function) {
  bool New = getKinds().try_emplace(Kind, std::move(Function)).second;
  assert(New && "a task kind registered twice");
  (void)New;
}

Expected<std::string> runTaskHere(StringRef Kind, ArrayRef<std::string> Args) {
  auto It = getKinds().find(Kind);
  if (It == getKinds().end())
    return makeError("no task of kind '" + Kind + "' in this mlgo");
  return It->second(Args);
}

std::vector<TaskOutcome> runTasks(ArrayRef<Task> Tasks, unsigned Threads,
                                  const ProgressCallback &Progress,
                                  const TaskOutcomeCallback &OnOutcome) {
  if (getRunner())
    return getRunner()(Tasks, Progress, OnOutcome);
  std::vector<TaskOutcome> Outcomes(Tasks.size());
  std::mutex Told;
  runJobs(
      Tasks.size(), Threads,
      [&](size_t I) {
        Expected<std::string> R = runTaskHere(Tasks[I].Kind, Tasks[I].Args);
        if (R)
          Outcomes[I].Result = std::move(*R);
        else
          Outcomes[I].Error = toString(R.takeError());
        if (OnOutcome) {
          std::lock_guard<std::mutex> Lock(Told);
          OnOutcome(I, Outcomes[I]);
        }
      },
      Progress);
  return Outcomes;
}

void setTaskRunner(TaskRunner Runner) { getRunner() = std::move(Runner); }

} // namespace mlgo
