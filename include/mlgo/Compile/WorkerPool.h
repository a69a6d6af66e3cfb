//===- mlgo/Compile/WorkerPool.h - Fault-isolated compile workers -*- C++
//-*-===//
//
// A pool of forked worker processes, each running compileModule() for one
// job at a time, so that a module that crashes LLVM, or hangs it, costs that
// job and not the training run. Workers are forked once and reused (no exec,
// no re-loading of clang or of the model per module); a worker that dies or
// exceeds the time limit is reaped, the job is reported with the reason, and
// a fresh worker takes its place.
//
// Parent and workers talk over two pipes per worker, in frames:
//
//   frame    := u32 length (little-endian) , payload[length]
//   request  := str module , str bitcode , u32 nargs , str arg * nargs ,
//               u8 policy kind , str model json , u32 nflips , u32 flip * n ,
//               u8 has seed , u64 seed , f32 temperature , u8 want log ,
//               u8 want sites , u8 predict only ,
//               u8 want size score (0 no, 1 yes, 2 with declined sites') ,
//               u8 has fixed ,
//               [has fixed: str module key , str entries (decisions-file
//               lines, docs/decisions.md)]
//   response := u8 status (0 ok, 1 error, 2 fatal error: the worker exits) ,
//               ok:    u64 text size , u32 decisions , f64 seconds ,
//                      f64 predicted text , str log ,
//                      u32 ngrouped , (u64 name hash , u64 bytes) * ngrouped ,
//                      u32 nsites , site * nsites
//               error: str message
//   site     := str caller , str callee , u32 ordinal ,
//               u8 flags (1: inlined, 2: fixed) , f32 logit
//   str      := u32 length , bytes
//
// The pool must be created before the process starts any thread (fork
// copies only the calling thread).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_WORKERPOOL_H
#define MLGO_COMPILE_WORKERPOOL_H

#include "mlgo/Compile/CompileWorker.h"
#include "mlgo/Support/FileDescriptor.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

struct WorkerPoolOptions {
  /// Worker processes; 0 means one per core.
  unsigned Workers = 0;
  /// A job running longer than this is killed and reported; 0: no limit.
  unsigned TimeoutSeconds = 300;
};

/// What became of one job.
struct JobOutcome {
  std::optional<CompileResult> Result;
  /// Why there is no result: clang's error, or the worker's crash or
  /// timeout, always naming the module.
  std::string Error;
  /// The failure came from the machine rather than the module, and a retry
  /// may succeed: the job timed out, or its worker was killed by SIGKILL from
  /// outside (the kernel's out-of-memory killer), or no worker was left.
  /// Callers should not cache such failures as the module's result.
  bool Transient = false;
  /// The compile could not write its output (OutputWriteError: a full disk,
  /// a file size limit): transient too, and every compile after it would
  /// fail alike, so callers stop the run with this error.
  bool Environment = false;
  bool ok() const { return Result.has_value(); }
};

/// What WorkerPool::run does with a job it is about to hand to a worker.
enum class GateAction {
  Send,     ///< Compile it.
  Answered, ///< The gate filled in the outcome; do not compile.
  Defer,    ///< Not yet; try the next pending job (the gate must not defer
            ///< when no job is running).
};
/// Called with the job's index, its outcome to fill in (for Answered) and
/// whether to ask the worker for the log (the job's WantLog, may be set).
using JobGate =
    std::function<GateAction(size_t Index, JobOutcome &Answer, bool &WantLog)>;

/// The job a free worker takes next: the first of \p Pending, among those
/// \p Fits accepts within the first \p Window, that \p Gate lets run.
/// Jobs the gate answers are taken out of \p Pending and handed to
/// \p Finish; deferred ones stay. \p WantLog is the taken job's, as the
/// gate may set it. None: nothing to send now. Every pool's choice, so
/// that all treat the gate alike.
std::optional<size_t> pickJob(std::deque<size_t> &Pending,
                              llvm::ArrayRef<CompileJob> Jobs,
                              std::vector<JobOutcome> &Outcomes,
                              const JobGate &Gate, bool &WantLog,
                              llvm::function_ref<void(size_t)> Finish,
                              llvm::function_ref<bool(size_t)> Fits = nullptr,
                              size_t Window = SIZE_MAX);

/// Runs compile jobs somewhere and answers each with what compileModule()
/// gave, or why it gave nothing. The pool of this machine is
/// ProcessWorkerPool; a run across machines (mlgo/Distributed) installs a
/// factory with setWorkerPoolFactory() and create() then returns its pool,
/// so the trainers and the tuner never know where their compiles run.
class WorkerPool {
public:
  /// The pool of this run: the installed factory's, or this machine's.
  static llvm::Expected<std::unique_ptr<WorkerPool>>
  create(const WorkerPoolOptions &Options);
  /// This machine's pool of forked workers, whatever factory is installed.
  static llvm::Expected<std::unique_ptr<WorkerPool>>
  createLocal(const WorkerPoolOptions &Options);
  virtual ~WorkerPool();

  /// Compiles that can run at once.
  virtual unsigned getNumWorkers() const = 0;

  /// Runs every job; outcomes in job order. \p Progress is called after
  /// each job with (done, total); \p OnOutcome as soon as a job's outcome
  /// is known (so that callers can persist it), with the job's index; it
  /// may amend the outcome before run() returns it. \p Gate, if set, sees each
  /// job (in order, skipping deferred ones) when a worker is free, and may
  /// answer it or defer it.
  virtual std::vector<JobOutcome>
  run(llvm::ArrayRef<CompileJob> Jobs,
      std::function<void(size_t, size_t)> Progress = nullptr,
      std::function<void(size_t, JobOutcome &)> OnOutcome = nullptr,
      JobGate Gate = nullptr) = 0;

  /// Workers that had to be replaced so far (crashes and timeouts).
  virtual unsigned getNumRespawns() const = 0;

  /// Process ids of the live workers of this machine, in slot order (-1 for
  /// a slot whose worker could not be respawned); for monitoring them.
  virtual std::vector<int> getWorkerPids() const = 0;
};

/// What WorkerPool::create() calls instead of creating a ProcessWorkerPool.
using WorkerPoolFactory =
    std::function<llvm::Expected<std::unique_ptr<WorkerPool>>(
        const WorkerPoolOptions &)>;
/// Installs \p Factory for every later WorkerPool::create() (none: this
/// machine's pool again).
void setWorkerPoolFactory(WorkerPoolFactory Factory);

/// The pool of forked worker processes on this machine.
class ProcessWorkerPool final : public WorkerPool {
public:
  static llvm::Expected<std::unique_ptr<ProcessWorkerPool>>
  create(const WorkerPoolOptions &Options);
  ~ProcessWorkerPool() override;

  unsigned getNumWorkers() const override { return Workers.size(); }
  std::vector<JobOutcome>
  run(llvm::ArrayRef<CompileJob> Jobs,
      std::function<void(size_t, size_t)> Progress = nullptr,
      std::function<void(size_t, JobOutcome &)> OnOutcome = nullptr,
      JobGate Gate = nullptr) override;
  unsigned getNumRespawns() const override { return Respawns; }
  std::vector<int> getWorkerPids() const override;

private:
  struct Worker {
    /// None for a slot whose worker could not be respawned.
    std::optional<ChildProcess> Process;
    /// This process's ends of the worker's pipes.
    FileDescriptor Request, Response;
  };
  explicit ProcessWorkerPool(const WorkerPoolOptions &Options)
      : Options(Options) {}
  llvm::Error spawn(Worker &W);
  void stop(Worker &W, bool Kill);
  /// Describes how worker \p W ended (reaping it); sets \p Transient when
  /// it was killed by SIGKILL, which mlgo never sends a worker it reaps.
  std::string reap(Worker &W, bool &Transient);
  /// Closes the pipes of \p W and forgets it (it has been reaped).
  void release(Worker &W);

  WorkerPoolOptions Options;
  std::vector<Worker> Workers;
  unsigned Respawns = 0;
};

/// A worker's answer to one job.
struct WorkerResponse {
  /// Fatal: LLVM's fatal error handler ran. Environment: the compile could
  /// not write its object (JobOutcome::Environment). The worker exits after
  /// either.
  enum class Status : uint8_t { Ok = 0, Error = 1, Fatal = 2, Environment = 3 };
  Status TheStatus = Status::Ok;
  /// Status::Ok.
  CompileResult Result;
  /// Every other status.
  std::string Error;
};

/// Encoding of jobs and responses in frames (exposed for tests and the
/// fuzz target fuzz/worker-frames.cpp). Decoding errors say which frame
/// and where it went wrong.
std::string encodeJob(const CompileJob &Job);
llvm::Expected<CompileJob> decodeJob(llvm::StringRef Payload);
std::string encodeResponse(const WorkerResponse &R);
llvm::Expected<WorkerResponse> decodeResponse(llvm::StringRef Payload);

} // namespace mlgo

#endif // MLGO_COMPILE_WORKERPOOL_H
