//===- mlgo/Support/Tasks.h - Work that can run elsewhere -------*- C++ -*-===//
//
// Most of mlgo's compiles are CompileJobs (mlgo/Compile/WorkerPool.h): a
// module compiled in-process under an inlining policy. Some commands
// compile otherwise - `mlgo eval corpus` replays a module with `clang-19
// -cc1` and measures its object, `mlgo regalloc train` runs llc-19 with an
// eviction model and scores the result - and a run across machines
// (mlgo/Distributed) must run those where the compiles run too. A Task is
// such a unit of work, by name: a function registered under a kind, given
// string arguments, answering with a string. Where it runs, the files it
// reads (Inputs) travel with it and every argument that mentions an
// input's path is rewritten to the local copy's.
//
// A kind is registered once, by the file that defines it, with a static
// RegisterTask - so that every process of this mlgo, a worker rank too,
// knows it - and the callers make their tasks with that kind's name:
//
//   static RegisterTask Score("regalloc-score", [](ArrayRef<std::string>
//                                                       Args) { ... });
//   std::vector<TaskOutcome> Out = runTasks(Tasks, Jobs, Progress);
//
// runTasks runs them here on a thread pool (runJobs), or, when a run across
// machines installed a runner (setTaskRunner), there. Either way each task
// is the same call of the same function, so the answers are the same.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_TASKS_H
#define MLGO_SUPPORT_TASKS_H

#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// One unit of work of a registered kind.
struct Task {
  /// The kind's registered name.
  std::string Kind;
  /// What errors name (a corpus module).
  std::string Module;
  /// Files the task reads, by their path in this process. Elsewhere they
  /// are copied, and every argument that mentions one mentions the copy.
  std::vector<std::string> Inputs;
  std::vector<std::string> Args;
};

/// What became of one task.
struct TaskOutcome {
  /// The task's answer.
  std::optional<std::string> Result;
  /// Why there is none, naming the module.
  std::string Error;
  bool ok() const { return Result.has_value(); }
};

/// A kind: answers its arguments, or says why it cannot. Called from many
/// threads at once.
using TaskFunction =
    std::function<llvm::Expected<std::string>(llvm::ArrayRef<std::string>)>;

/// Registers \p Function as \p Kind at static initialization.
struct RegisterTask {
  RegisterTask(llvm::StringRef Kind, TaskFunction Function);
};

/// Runs the function of \p Kind on \p Args in this process; an error if no
/// such kind is registered in this mlgo.
llvm::Expected<std::string> runTaskHere(llvm::StringRef Kind,
                                        llvm::ArrayRef<std::string> Args);

/// Called with a task's index and outcome as soon as it is known (so that
/// callers can persist it); calls are serialized.
using TaskOutcomeCallback = std::function<void(size_t, const TaskOutcome &)>;

/// Runs every task and returns the outcomes in task order: on \p Threads
/// threads here (0: one per hardware thread), or through the installed
/// runner. \p Progress as runJobs calls it. Called from one thread at a
/// time.
std::vector<TaskOutcome>
runTasks(llvm::ArrayRef<Task> Tasks, unsigned Threads,
         const ProgressCallback &Progress = nullptr,
         const TaskOutcomeCallback &OnOutcome = nullptr);

/// Tasks asked one at a time by many threads, run as batches: a search
/// that runs its units (modules) on threads, each unit's tasks one after
/// the other (each depends on the last one's answer), asks through this,
/// and runTasks gets every waiting unit's task at once, to run on its
/// threads here or on the worker ranks. A batch goes when every unit
/// running waits for an answer. runTasks is called on the thread that
/// called runUnits (MPI's calls stay on the main thread), and a task's
/// answer depends on the task alone, so the batches' shape changes no
/// result.
class TaskBatcher {
public:
  /// \p Threads: the units that run at once, and runTasks' threads here.
  explicit TaskBatcher(unsigned Threads) : Threads(std::max(1u, Threads)) {}
  /// Runs \p Unit(0) ... \p Unit(N-1) on the threads, and their tasks.
  void runUnits(size_t N, const std::function<void(size_t)> &Unit);
  /// Runs \p T with the other waiting units' tasks; from a unit.
  TaskOutcome run(Task T);

private:
  struct Waiting {
    Task TheTask;
    std::optional<TaskOutcome> Outcome;
  };

  unsigned Threads;
  std::mutex Mutex;
  /// Signals the caller of runUnits (a batch is ready, or a unit ended)
  /// and the units (their answers came).
  std::condition_variable Ready, Answered;
  std::vector<Waiting *> Pending;
  /// Units running, and units not yet ended.
  size_t Active = 0, Remaining = 0;
};

/// What runTasks calls instead of running tasks here.
using TaskRunner = std::function<std::vector<TaskOutcome>(
    llvm::ArrayRef<Task>, const ProgressCallback &,
    const TaskOutcomeCallback &)>;
/// Installs \p Runner for every later runTasks (none: here again).
void setTaskRunner(TaskRunner Runner);

} // namespace mlgo

#endif // MLGO_SUPPORT_TASKS_H
