//===- lib/Compile/WorkerPool.cpp - Fault-isolated compile workers
//----------===//
//
// The frame format is documented in WorkerPool.h. The parent keeps every
// worker busy, waits with poll() until a response or the earliest deadline,
// and treats end-of-file on a response pipe as the worker's death.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/WorkerPool.h"

#include "mlgo/Compile/CodegenMemo.h"
#include "mlgo/Compile/PreInlineCache.h"

#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/FileDescriptor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

//===-- Encoding ----------------------------------------------------------===//

std::string encodeJob(const CompileJob &Job) {
  ByteWriter W;
  W.putString(Job.Module);
  W.putString(Job.BitcodePath);
  W.putU32(Job.CC1Args.size());
  for (const std::string &A : Job.CC1Args)
    W.putString(A);
  const CompilePolicy &P = Job.ThePolicy;
  W.putU8(static_cast<uint8_t>(P.Kind));
  W.putString(P.getModelJSON());
  W.putU32(P.Flips.size());
  for (uint32_t F : P.Flips)
    W.putU32(F);
  W.putU8(P.ExploreSeed.has_value());
  W.putU64(P.ExploreSeed.value_or(0));
  W.putF32(P.ExploreTemperature);
  W.putU8(Job.WantLog);
  W.putU8(Job.WantSites);
  W.putU8(Job.PredictOnly);
  // 2: with the declined sites' scores.
  W.putU8(Job.WantSizeScore ? (Job.WantDeclinedScore ? 2 : 1) : 0);
  W.putU8(P.Fixed != nullptr);
  if (P.Fixed) {
    W.putString(P.Fixed->Module);
    W.putString(P.Fixed->printSites());
  }
  return toStringRef(W.Bytes).str();
}

Expected<CompileJob> decodeJob(StringRef Payload) {
  auto Malformed = [&] {
    return makeError("compile job: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  };
  ByteReader R(Payload);
  CompileJob Job;
  uint32_t NumArgs = 0;
  if (!R.getString(Job.Module) || !R.getString(Job.BitcodePath) ||
      !R.getU32(NumArgs))
    return Malformed();
  for (uint32_t I = 0; I < NumArgs; ++I)
    if (!R.getString(Job.CC1Args.emplace_back()))
      return Malformed();
  CompilePolicy &P = Job.ThePolicy;
  uint8_t Kind = 0;
  if (!R.getU8(Kind))
    return Malformed();
  if (Kind > static_cast<uint8_t>(PolicyKind::Embedded))
    return makeError("compile job: unknown policy kind " +
                     Twine(unsigned(Kind)));
  P.Kind = static_cast<PolicyKind>(Kind);
  uint32_t NumFlips = 0;
  std::string JSON;
  if (!R.getString(JSON) || !R.getU32(NumFlips))
    return Malformed();
  if (!JSON.empty())
    P.ModelJSON = std::make_shared<const std::string>(std::move(JSON));
  for (uint32_t I = 0; I < NumFlips; ++I)
    if (!R.getU32(P.Flips.emplace_back()))
      return Malformed();
  uint8_t HasSeed = 0, WantLog = 0, WantSites = 0, PredictOnly = 0,
          WantSizeScore = 0, HasFixed = 0;
  uint64_t Seed = 0;
  if (!R.getU8(HasSeed) || !R.getU64(Seed) || !R.getF32(P.ExploreTemperature) ||
      !R.getU8(WantLog) || !R.getU8(WantSites) || !R.getU8(PredictOnly) ||
      !R.getU8(WantSizeScore) || !R.getU8(HasFixed))
    return Malformed();
  if (HasFixed) {
    std::string Module, Sites;
    if (!R.getString(Module) || !R.getString(Sites))
      return Malformed();
    Expected<DecisionsFile> F = DecisionsFile::parse(
        "mlgo-decisions 1\nmodule " + encodeName(Module) + "\n" + Sites,
        "compile job decisions");
    if (!F)
      return F.takeError();
    if (F->Modules.size() != 1)
      return Malformed();
    P.Fixed = F->Modules.front();
  }
  if (R.remaining())
    return Malformed();
  if (HasSeed)
    P.ExploreSeed = Seed;
  Job.WantLog = WantLog;
  Job.WantSites = WantSites;
  Job.PredictOnly = PredictOnly;
  Job.WantSizeScore = WantSizeScore != 0;
  Job.WantDeclinedScore = WantSizeScore == 2;
  return Job;
}

std::string encodeResponse(const WorkerResponse &Response) {
  ByteWriter W;
  W.putU8(static_cast<uint8_t>(Response.TheStatus));
  if (Response.TheStatus != WorkerResponse::Status::Ok) {
    W.putString(Response.Error);
    return toStringRef(W.Bytes).str();
  }
  const CompileResult &R = Response.Result;
  W.putU64(R.TextSize);
  W.putU32(R.NumDecisions);
  W.putF64(R.Seconds);
  W.putF64(R.PredictedText);
  W.putString(R.Log);
  W.putU32(R.Grouped.size());
  for (const auto &[Hash, Bytes] : R.Grouped) {
    W.putU64(Hash);
    W.putU64(Bytes);
  }
  W.putU32(R.Sites.size());
  for (const DecidedSite &S : R.Sites) {
    W.putString(S.Site.Caller);
    W.putString(S.Site.Callee);
    W.putU32(S.Site.Ordinal);
    W.putU8(S.Site.Inline | S.Fixed << 1);
    W.putF32(S.Logit);
  }
  return toStringRef(W.Bytes).str();
}

Expected<WorkerResponse> decodeResponse(StringRef Payload) {
  ByteReader R(Payload);
  auto Malformed = [&](const Twine &What) {
    return makeError("worker response: malformed frame of " +
                     Twine(Payload.size()) + " bytes: " + What + " at byte " +
                     Twine(R.getPos()));
  };
  WorkerResponse Response;
  uint8_t Status = 0;
  if (!R.getU8(Status))
    return Malformed("no status");
  if (Status > static_cast<uint8_t>(WorkerResponse::Status::Environment))
    return makeError("worker response: unknown status " +
                     Twine(unsigned(Status)));
  Response.TheStatus = static_cast<WorkerResponse::Status>(Status);
  if (Response.TheStatus != WorkerResponse::Status::Ok) {
    if (!R.getString(Response.Error))
      return Malformed("truncated error message");
  } else {
    CompileResult &Result = Response.Result;
    uint32_t NumGrouped = 0;
    if (!R.getU64(Result.TextSize) || !R.getU32(Result.NumDecisions) ||
        !R.getF64(Result.Seconds) || !R.getF64(Result.PredictedText) ||
        !R.getString(Result.Log) || !R.getU32(NumGrouped))
      return Malformed("truncated result");
    // Each grouped section takes 16 bytes: a count the frame cannot hold
    // is malformed, and never sizes an allocation.
    if (NumGrouped > R.remaining() / 16)
      return Malformed(Twine(NumGrouped) + " grouped sections in " +
                       Twine(R.remaining()) + " bytes");
    Result.Grouped.resize(NumGrouped);
    for (GroupedSection &G : Result.Grouped)
      if (!R.getU64(G.first) || !R.getU64(G.second))
        return Malformed("truncated grouped sections");
    uint32_t NumSites = 0;
    if (!R.getU32(NumSites))
      return Malformed("truncated result");
    // Each site takes at least 17 bytes (two empty strings, ordinal, flags,
    // logit).
    if (NumSites > R.remaining() / 17)
      return Malformed(Twine(NumSites) + " call sites in " +
                       Twine(R.remaining()) + " bytes");
    Result.Sites.resize(NumSites);
    for (DecidedSite &S : Result.Sites) {
      uint8_t Flags = 0;
      if (!R.getString(S.Site.Caller) || !R.getString(S.Site.Callee) ||
          !R.getU32(S.Site.Ordinal) || !R.getU8(Flags) || !R.getF32(S.Logit))
        return Malformed("truncated call sites");
      if (Flags > 3)
        return Malformed("call site flags " + Twine(unsigned(Flags)));
      S.Site.Inline = Flags & 1;
      S.Fixed = Flags & 2;
    }
  }
  if (R.remaining())
    return Malformed(Twine(R.remaining()) + " trailing bytes");
  return Response;
}

//===-- Pipes -------------------------------------------------------------===//

static bool writeFrame(int Fd, StringRef Payload) {
  ByteWriter W;
  W.putU32(Payload.size());
  return !writeAll(Fd, toStringRef(W.Bytes)) && !writeAll(Fd, Payload);
}

/// Reads exactly \p N bytes; false on end of file or error.
static bool readExactly(int Fd, char *Buf, size_t N) {
  ErrorOr<size_t> Got = readAll(Fd, Buf, N);
  return Got && *Got == N;
}

static bool readFrame(int Fd, std::string &Payload) {
  char Len[4];
  if (!readExactly(Fd, Len, 4))
    return false;
  uint32_t N = 0;
  ByteReader(StringRef(Len, 4)).getU32(N);
  Payload.resize(N);
  return readExactly(Fd, Payload.data(), N);
}

//===-- The worker process ------------------------------------------------===//

static int WorkerResponseFd = -1;
/// The module of the job being compiled: every error a worker answers
/// with names it, fatal ones too.
static std::string WorkerModule;

static void onFatalError(void *, const char *Reason, bool) {
  WorkerResponse Response;
  // What raw_fd_ostream reports when the object it wrote cannot be
  // flushed: a full disk, or a file size limit.
  StringRef IOFailure = "IO failure on output stream: ";
  if (StringRef(Reason).starts_with(IOFailure)) {
    Response.TheStatus = WorkerResponse::Status::Environment;
    Response.Error = (WorkerModule + ": cannot write the compiled object " +
                      getScratchObjectPath() + ": " +
                      StringRef(Reason).drop_front(IOFailure.size()))
                         .str();
    sys::fs::remove(getScratchObjectPath());
  } else {
    Response.TheStatus = WorkerResponse::Status::Fatal;
    Response.Error = WorkerModule + ": LLVM fatal error: " + Reason;
  }
  writeFrame(WorkerResponseFd, encodeResponse(Response));
  ::_exit(70);
}

/// MLGO_WORKER_FAULT=crash:MODULE or hang:MODULE makes the worker that gets
/// a job of MODULE die of SIGSEGV, or stop answering, before it compiles:
/// a compiler that crashes or hangs on one module, for the fault tests
/// (bench/faults.sh, docs/hardening.md). Unset, it costs one getenv per
/// worker.
static void injectFault(StringRef Module) {
  static const std::pair<std::string, std::string> Fault = [] {
    const char *V = std::getenv("MLGO_WORKER_FAULT");
    auto [Kind, Mod] = StringRef(V ? V : "").split(':');
    return std::make_pair(Kind.str(), Mod.str());
  }();
  if (Fault.second.empty() || Fault.second != Module)
    return;
  if (Fault.first == "crash") {
    // As a bad memory access does: LLVM's handler prints its stack dump and
    // restores the default action, and the fault happens again.
    ::raise(SIGSEGV);
    ::raise(SIGSEGV);
  }
  if (Fault.first == "hang")
    for (;;)
      ::pause();
}

[[noreturn]] static void workerMain(int RequestFd, int ResponseFd) {
  WorkerResponseFd = ResponseFd;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  install_fatal_error_handler(onFatalError);
  std::string Payload;
  while (readFrame(RequestFd, Payload)) {
    WorkerResponse Response;
    Expected<CompileJob> Job = decodeJob(Payload);
    if (!Job) {
      Response.TheStatus = WorkerResponse::Status::Error;
      Response.Error = toString(Job.takeError());
    } else {
      WorkerModule = Job->Module;
      injectFault(Job->Module);
      if (Expected<CompileResult> R = compileModule(*Job)) {
        Response.Result = std::move(*R);
      } else {
        Error E = R.takeError();
        Response.TheStatus = E.isA<OutputWriteError>()
                                 ? WorkerResponse::Status::Environment
                                 : WorkerResponse::Status::Error;
        Response.Error = toString(std::move(E));
      }
    }
    if (!writeFrame(ResponseFd, encodeResponse(Response)) ||
        Response.TheStatus == WorkerResponse::Status::Environment)
      break;
  }
  reportCodegenMemoStats();
  reportPreInlineCacheStats();
  ::_exit(0);
}

//===-- The pool ----------------------------------------------------------===//

std::optional<size_t> pickJob(std::deque<size_t> &Pending,
                              ArrayRef<CompileJob> Jobs,
                              std::vector<JobOutcome> &Outcomes,
                              const JobGate &Gate, bool &WantLog,
                              function_ref<void(size_t)> Finish,
                              function_ref<bool(size_t)> Fits, size_t Window) {
  size_t Seen = 0;
  for (auto It = Pending.begin(); It != Pending.end();) {
    size_t C = *It;
    if (Fits) {
      if (++Seen > Window)
        break;
      if (!Fits(C)) {
        ++It;
        continue;
      }
    }
    WantLog = Jobs[C].WantLog;
    GateAction A = Gate ? Gate(C, Outcomes[C], WantLog) : GateAction::Send;
    if (A == GateAction::Defer) {
      ++It;
      continue;
    }
    It = Pending.erase(It);
    if (A == GateAction::Send)
      return C;
    Finish(C);
  }
  return std::nullopt;
}

WorkerPool::~WorkerPool() = default;

static WorkerPoolFactory &getFactory() {
  static WorkerPoolFactory Factory;
  return Factory;
}

void setWorkerPoolFactory(WorkerPoolFactory Factory) {
  getFactory() = std::move(Factory);
}

Expected<std::unique_ptr<WorkerPool>>
WorkerPool::create(const WorkerPoolOptions &Options) {
  if (getFactory())
    return getFactory()(Options);
  return createLocal(Options);
}

Expected<std::unique_ptr<WorkerPool>>
WorkerPool::createLocal(const WorkerPoolOptions &Options) {
  Expected<std::unique_ptr<ProcessWorkerPool>> Pool =
      ProcessWorkerPool::create(Options);
  if (!Pool)
    return Pool.takeError();
  return std::unique_ptr<WorkerPool>(std::move(*Pool));
}

Expected<std::unique_ptr<ProcessWorkerPool>>
ProcessWorkerPool::create(const WorkerPoolOptions &Options) {
  std::unique_ptr<ProcessWorkerPool> Pool(new ProcessWorkerPool(Options));
  unsigned N = Options.Workers ? Options.Workers
               : llvm::get_physical_cores() > 0
                   ? unsigned(llvm::get_physical_cores())
                   : 1u;
  if (N < 1)
    N = 1;
  Pool->Workers.resize(N);
  for (Worker &W : Pool->Workers)
    if (Error E = Pool->spawn(W))
      return E;
  return Pool;
}

ProcessWorkerPool::~ProcessWorkerPool() {
  for (Worker &W : Workers)
    stop(W, /*Kill=*/false);
}

Error ProcessWorkerPool::spawn(Worker &W) {
  int Fds[2];
  if (::pipe2(Fds, O_CLOEXEC) != 0)
    return makeError(Twine("cannot create a pipe: ") + std::strerror(errno));
  FileDescriptor ReqRead(Fds[0]), ReqWrite(Fds[1]);
  if (::pipe2(Fds, O_CLOEXEC) != 0)
    return makeError(Twine("cannot create a pipe: ") + std::strerror(errno));
  FileDescriptor RespRead(Fds[0]), RespWrite(Fds[1]);
  // Make sure nothing buffered is written twice.
  outs().flush();
  errs().flush();
  pid_t Pid = ::fork();
  if (Pid < 0)
    return makeError(Twine("cannot fork a compile worker: ") +
                     std::strerror(errno));
  if (Pid == 0) {
    // Close the other workers' ends, so their pipes see end of file when
    // the parent closes them.
    for (Worker &Other : Workers) {
      Other.Request.reset();
      Other.Response.reset();
    }
    ReqWrite.reset();
    RespRead.reset();
    workerMain(ReqRead.release(), RespWrite.release());
  }
  W.Process = ChildProcess::adopt(Pid);
  W.Request = std::move(ReqWrite);
  W.Response = std::move(RespRead);
  return Error::success();
}

void ProcessWorkerPool::stop(Worker &W, bool Kill) {
  if (!W.Process)
    return;
  // Without requests, an idle worker exits.
  W.Request.reset();
  if (Kill)
    W.Process->kill();
  W.Process->wait();
  release(W);
}

void ProcessWorkerPool::release(Worker &W) { W = Worker(); }

std::vector<int> ProcessWorkerPool::getWorkerPids() const {
  std::vector<int> Pids;
  for (const Worker &W : Workers)
    Pids.push_back(W.Process ? W.Process->getPid() : -1);
  return Pids;
}

std::string ProcessWorkerPool::reap(Worker &W, bool &Transient) {
  W.Request.reset();
  ProcessResult R = W.Process->wait();
  release(W);
  Transient = R.isSignaled() && R.getSignal() == SIGKILL;
  if (Transient)
    return "the compile worker was killed (signal 9, Killed: the kernel's "
           "out-of-memory killer, or another process)";
  if (R.isSignaled())
    return (Twine("the compiler crashed (signal ") + Twine(R.getSignal()) +
            ", " + strsignal(R.getSignal()) + ")")
        .str();
  return "the compile worker " + R.describe();
}

std::vector<JobOutcome> ProcessWorkerPool::run(
    ArrayRef<CompileJob> Jobs, std::function<void(size_t, size_t)> Progress,
    std::function<void(size_t, JobOutcome &)> OnOutcome, JobGate Gate) {
  using Clock = std::chrono::steady_clock;
  std::vector<JobOutcome> Outcomes(Jobs.size());
  std::deque<size_t> Pending;
  for (size_t I = 0; I < Jobs.size(); ++I)
    Pending.push_back(I);
  // Per worker: the job it runs (or none) and its deadline.
  std::vector<std::optional<size_t>> Running(Workers.size());
  std::vector<Clock::time_point> Deadline(Workers.size());
  size_t Done = 0;

  auto Finish = [&](size_t Job) {
    ++Done;
    if (OnOutcome)
      OnOutcome(Job, Outcomes[Job]);
    if (Progress)
      Progress(Done, Jobs.size());
  };
  auto Respawn = [&](size_t WI) {
    ++Respawns;
    if (Error E = spawn(Workers[WI])) {
      // No worker in this slot any more; the others carry on.
      errs() << "mlgo: " << toString(std::move(E)) << "\n";
    }
  };

  while (Done < Jobs.size()) {
    // Hand out work.
    for (size_t WI = 0; WI < Workers.size(); ++WI) {
      if (Running[WI] || !Workers[WI].Process)
        continue;
      bool WantLog = false;
      std::optional<size_t> J =
          pickJob(Pending, Jobs, Outcomes, Gate, WantLog, Finish);
      if (!J)
        break;
      std::string Frame;
      if (WantLog == Jobs[*J].WantLog) {
        Frame = encodeJob(Jobs[*J]);
      } else {
        CompileJob Copy = Jobs[*J];
        Copy.WantLog = WantLog;
        Frame = encodeJob(Copy);
      }
      if (!writeFrame(Workers[WI].Request.get(), Frame)) {
        Outcomes[*J].Error =
            Jobs[*J].Module + ": " + reap(Workers[WI], Outcomes[*J].Transient);
        Finish(*J);
        Respawn(WI);
        continue;
      }
      Running[WI] = *J;
      Deadline[WI] =
          Clock::now() + std::chrono::seconds(Options.TimeoutSeconds);
    }
    if (Done == Jobs.size())
      break;
    std::vector<pollfd> Fds;
    std::vector<size_t> FdWorker;
    int WaitMs = -1;
    for (size_t WI = 0; WI < Workers.size(); ++WI) {
      if (!Running[WI])
        continue;
      Fds.push_back({Workers[WI].Response.get(), POLLIN, 0});
      FdWorker.push_back(WI);
      if (Options.TimeoutSeconds) {
        auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        Deadline[WI] - Clock::now())
                        .count();
        int Ms = Left < 0 ? 0 : int(std::min<long long>(Left, 1 << 30));
        WaitMs = WaitMs < 0 ? Ms : std::min(WaitMs, Ms);
      }
    }
    if (Fds.empty()) {
      // No live worker could take the pending jobs.
      for (size_t J : Pending) {
        Outcomes[J].Error = Jobs[J].Module + ": no compile worker is running";
        Outcomes[J].Transient = true;
        Finish(J);
      }
      Pending.clear();
      continue;
    }
    int N = ::poll(Fds.data(), Fds.size(), WaitMs);
    if (N < 0 && errno != EINTR)
      report_fatal_error(Twine("mlgo: poll failed: ") + std::strerror(errno));
    for (size_t K = 0; K < Fds.size(); ++K) {
      size_t WI = FdWorker[K];
      size_t J = *Running[WI];
      if (Fds[K].revents == 0) {
        if (Options.TimeoutSeconds && Clock::now() >= Deadline[WI]) {
          stop(Workers[WI], /*Kill=*/true);
          Outcomes[J].Error = Jobs[J].Module + ": timed out after " +
                              std::to_string(Options.TimeoutSeconds) +
                              " s; the compile was killed";
          Outcomes[J].Transient = true;
          Running[WI].reset();
          Finish(J);
          Respawn(WI);
        }
        continue;
      }
      std::string Payload;
      Running[WI].reset();
      if (!readFrame(Workers[WI].Response.get(), Payload)) {
        Outcomes[J].Error =
            Jobs[J].Module + ": " + reap(Workers[WI], Outcomes[J].Transient);
        Finish(J);
        Respawn(WI);
        continue;
      }
      Expected<WorkerResponse> Response = decodeResponse(Payload);
      if (!Response) {
        Outcomes[J].Error =
            Jobs[J].Module + ": " + toString(Response.takeError());
      } else if (Response->TheStatus == WorkerResponse::Status::Ok) {
        Outcomes[J].Result = std::move(Response->Result);
      } else {
        Outcomes[J].Error = std::move(Response->Error);
        if (Response->TheStatus == WorkerResponse::Status::Environment) {
          Outcomes[J].Environment = true;
          Outcomes[J].Transient = true;
        }
        if (Response->TheStatus == WorkerResponse::Status::Fatal ||
            Response->TheStatus == WorkerResponse::Status::Environment) {
          // The worker exits after either.
          bool Ignored;
          reap(Workers[WI], Ignored);
          Respawn(WI);
        }
      }
      Finish(J);
    }
  }
  return Outcomes;
}

} // namespace mlgo
