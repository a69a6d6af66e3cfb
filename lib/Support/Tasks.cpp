//===- lib/Support/Tasks.cpp - Work that can run in another process -------===//
//
// The registry of task kinds and the runner of mlgo/Support/Tasks.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Tasks.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

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

void TaskBatcher::runUnits(size_t N, const std::function<void(size_t)> &Unit) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Remaining = N;
  }
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  for (size_t I = 0; I < N; ++I)
    Pool.async([&, I] {
      {
        std::lock_guard<std::mutex> Lock(Mutex);
        ++Active;
      }
      Unit(I);
      std::lock_guard<std::mutex> Lock(Mutex);
      --Active;
      --Remaining;
      Ready.notify_one();
    });
  // This thread runs the batches: each once every running unit waits.
  std::unique_lock<std::mutex> Lock(Mutex);
  for (;;) {
    Ready.wait(Lock, [&] {
      return Remaining == 0 || (!Pending.empty() && Pending.size() == Active);
    });
    if (Pending.empty())
      break;
    std::vector<Waiting *> Batch;
    Batch.swap(Pending);
    Lock.unlock();
    std::vector<Task> Tasks;
    for (Waiting *W : Batch)
      Tasks.push_back(W->TheTask);
    std::vector<TaskOutcome> Out = runTasks(Tasks, Threads);
    Lock.lock();
    for (size_t I = 0; I < Batch.size(); ++I)
      Batch[I]->Outcome = std::move(Out[I]);
    Answered.notify_all();
  }
  Lock.unlock();
  Pool.wait();
}

TaskOutcome TaskBatcher::run(Task T) {
  Waiting W{std::move(T), std::nullopt};
  std::unique_lock<std::mutex> Lock(Mutex);
  Pending.push_back(&W);
  Ready.notify_one();
  Answered.wait(Lock, [&] { return W.Outcome.has_value(); });
  return std::move(*W.Outcome);
}

void setTaskRunner(TaskRunner Runner) { getRunner() = std::move(Runner); }

} // namespace mlgo
