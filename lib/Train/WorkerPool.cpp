//===- lib/Train/WorkerPool.cpp - Fault-isolated compile workers ----------===//
//
// The frame format is documented in WorkerPool.h. The parent keeps every
// worker busy, waits with poll() until a response or the earliest deadline,
// and treats end-of-file on a response pipe as the worker's death.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/WorkerPool.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

static Error makeError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

//===-- Encoding ----------------------------------------------------------===//

namespace {
struct Writer {
  std::string Out;
  void u8(uint8_t V) { Out.push_back(static_cast<char>(V)); }
  void u32(uint32_t V) {
    for (int I = 0; I < 4; ++I)
      Out.push_back(static_cast<char>((V >> (8 * I)) & 0xff));
  }
  void u64(uint64_t V) {
    for (int I = 0; I < 8; ++I)
      Out.push_back(static_cast<char>((V >> (8 * I)) & 0xff));
  }
  void f64(double V) {
    uint64_t Bits;
    std::memcpy(&Bits, &V, 8);
    u64(Bits);
  }
  void f32(float V) {
    uint32_t Bits;
    std::memcpy(&Bits, &V, 4);
    u32(Bits);
  }
  void str(StringRef S) {
    u32(S.size());
    Out.append(S.data(), S.size());
  }
};

struct Reader {
  StringRef In;
  bool Failed = false;
  bool take(size_t N, StringRef &Bytes) {
    if (Failed || In.size() < N) {
      Failed = true;
      return false;
    }
    Bytes = In.take_front(N);
    In = In.drop_front(N);
    return true;
  }
  uint64_t le(size_t N) {
    StringRef B;
    if (!take(N, B))
      return 0;
    uint64_t V = 0;
    for (size_t I = 0; I < N; ++I)
      V |= uint64_t(uint8_t(B[I])) << (8 * I);
    return V;
  }
  uint8_t u8() { return le(1); }
  uint32_t u32() { return le(4); }
  uint64_t u64() { return le(8); }
  double f64() {
    uint64_t Bits = u64();
    double V;
    std::memcpy(&V, &Bits, 8);
    return V;
  }
  float f32() {
    uint32_t Bits = u32();
    float V;
    std::memcpy(&V, &Bits, 4);
    return V;
  }
  std::string str() {
    uint32_t N = u32();
    StringRef B;
    if (!take(N, B))
      return {};
    return B.str();
  }
};
} // namespace

std::string encodeJob(const CompileJob &Job) {
  Writer W;
  W.str(Job.Module);
  W.str(Job.BitcodePath);
  W.u32(Job.CC1Args.size());
  for (const std::string &A : Job.CC1Args)
    W.str(A);
  const Policy &P = Job.ThePolicy;
  W.u8(static_cast<uint8_t>(P.Kind));
  W.str(P.ModelJSON);
  W.u32(P.Flips.size());
  for (uint32_t F : P.Flips)
    W.u32(F);
  W.u8(P.ExploreSeed.has_value());
  W.u64(P.ExploreSeed.value_or(0));
  W.f32(P.ExploreTemperature);
  W.u8(Job.WantLog);
  return std::move(W.Out);
}

Expected<CompileJob> decodeJob(StringRef Payload) {
  Reader R{Payload};
  CompileJob Job;
  Job.Module = R.str();
  Job.BitcodePath = R.str();
  uint32_t NumArgs = R.u32();
  for (uint32_t I = 0; I < NumArgs && !R.Failed; ++I)
    Job.CC1Args.push_back(R.str());
  Policy &P = Job.ThePolicy;
  uint8_t Kind = R.u8();
  if (Kind > static_cast<uint8_t>(PolicyKind::Model))
    return makeError("compile job: unknown policy kind " + Twine(Kind));
  P.Kind = static_cast<PolicyKind>(Kind);
  P.ModelJSON = R.str();
  uint32_t NumFlips = R.u32();
  for (uint32_t I = 0; I < NumFlips && !R.Failed; ++I)
    P.Flips.push_back(R.u32());
  bool HasSeed = R.u8();
  uint64_t Seed = R.u64();
  if (HasSeed)
    P.ExploreSeed = Seed;
  P.ExploreTemperature = R.f32();
  Job.WantLog = R.u8();
  if (R.Failed || !R.In.empty())
    return makeError("compile job: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  return Job;
}

//===-- Pipes -------------------------------------------------------------===//

static bool writeAll(int Fd, StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data = Data.drop_front(N);
  }
  return true;
}

static bool writeFrame(int Fd, StringRef Payload) {
  Writer W;
  W.u32(Payload.size());
  return writeAll(Fd, W.Out) && writeAll(Fd, Payload);
}

/// Reads exactly \p N bytes; false on end of file or error.
static bool readAll(int Fd, char *Buf, size_t N) {
  while (N) {
    ssize_t Got = ::read(Fd, Buf, N);
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got <= 0)
      return false;
    Buf += Got;
    N -= Got;
  }
  return true;
}

static bool readFrame(int Fd, std::string &Payload) {
  char Len[4];
  if (!readAll(Fd, Len, 4))
    return false;
  uint32_t N = 0;
  for (int I = 0; I < 4; ++I)
    N |= uint32_t(uint8_t(Len[I])) << (8 * I);
  Payload.resize(N);
  return readAll(Fd, Payload.data(), N);
}

//===-- The worker process ------------------------------------------------===//

static int WorkerResponseFd = -1;

static void onFatalError(void *, const char *Reason, bool) {
  Writer W;
  W.u8(2);
  W.str(std::string("LLVM fatal error: ") + Reason);
  writeFrame(WorkerResponseFd, W.Out);
  ::_exit(70);
}

[[noreturn]] static void workerMain(int RequestFd, int ResponseFd) {
  WorkerResponseFd = ResponseFd;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  install_fatal_error_handler(onFatalError);
  std::string Payload;
  while (readFrame(RequestFd, Payload)) {
    Writer W;
    Expected<CompileJob> Job = decodeJob(Payload);
    if (!Job) {
      W.u8(1);
      W.str(toString(Job.takeError()));
    } else if (Expected<CompileResult> R = compileModule(*Job)) {
      W.u8(0);
      W.u64(R->TextSize);
      W.u32(R->NumDecisions);
      W.f64(R->Seconds);
      W.str(R->Log);
    } else {
      W.u8(1);
      W.str(toString(R.takeError()));
    }
    if (!writeFrame(ResponseFd, W.Out))
      break;
  }
  ::_exit(0);
}

//===-- The pool ----------------------------------------------------------===//

Expected<std::unique_ptr<WorkerPool>>
WorkerPool::create(const WorkerPoolOptions &Options) {
  std::unique_ptr<WorkerPool> Pool(new WorkerPool(Options));
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

WorkerPool::~WorkerPool() {
  for (Worker &W : Workers)
    stop(W, /*Kill=*/false);
}

Error WorkerPool::spawn(Worker &W) {
  int Req[2], Resp[2];
  if (::pipe2(Req, O_CLOEXEC) != 0)
    return makeError(Twine("cannot create a pipe: ") + std::strerror(errno));
  if (::pipe2(Resp, O_CLOEXEC) != 0) {
    ::close(Req[0]);
    ::close(Req[1]);
    return makeError(Twine("cannot create a pipe: ") + std::strerror(errno));
  }
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
      if (Other.RequestFd >= 0)
        ::close(Other.RequestFd);
      if (Other.ResponseFd >= 0)
        ::close(Other.ResponseFd);
    }
    ::close(Req[1]);
    ::close(Resp[0]);
    workerMain(Req[0], Resp[1]);
  }
  ::close(Req[0]);
  ::close(Resp[1]);
  W.Pid = Pid;
  W.RequestFd = Req[1];
  W.ResponseFd = Resp[0];
  return Error::success();
}

void WorkerPool::stop(Worker &W, bool Kill) {
  if (W.Pid < 0)
    return;
  ::close(W.RequestFd);
  if (Kill)
    ::kill(W.Pid, SIGKILL);
  ::waitpid(W.Pid, nullptr, 0);
  ::close(W.ResponseFd);
  W = Worker();
}

std::string WorkerPool::reap(Worker &W) {
  int Status = 0;
  ::close(W.RequestFd);
  ::waitpid(W.Pid, &Status, 0);
  ::close(W.ResponseFd);
  W = Worker();
  if (WIFSIGNALED(Status))
    return (Twine("the compiler crashed (signal ") + Twine(WTERMSIG(Status)) +
            ", " + strsignal(WTERMSIG(Status)) + ")")
        .str();
  return ("the compile worker exited with status " +
          Twine(WEXITSTATUS(Status)))
      .str();
}

std::vector<JobOutcome>
WorkerPool::run(ArrayRef<CompileJob> Jobs,
                std::function<void(size_t, size_t)> Progress,
                std::function<void(size_t, const JobOutcome &)> OnOutcome) {
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
      if (Running[WI] || Pending.empty() || Workers[WI].Pid < 0)
        continue;
      size_t J = Pending.front();
      Pending.pop_front();
      if (!writeFrame(Workers[WI].RequestFd, encodeJob(Jobs[J]))) {
        Outcomes[J].Error = Jobs[J].Module + ": " + reap(Workers[WI]);
        Finish(J);
        Respawn(WI);
        continue;
      }
      Running[WI] = J;
      Deadline[WI] = Clock::now() + std::chrono::seconds(Options.TimeoutSeconds);
    }
    std::vector<pollfd> Fds;
    std::vector<size_t> FdWorker;
    int WaitMs = -1;
    for (size_t WI = 0; WI < Workers.size(); ++WI) {
      if (!Running[WI])
        continue;
      Fds.push_back({Workers[WI].ResponseFd, POLLIN, 0});
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
          Running[WI].reset();
          Finish(J);
          Respawn(WI);
        }
        continue;
      }
      std::string Payload;
      Running[WI].reset();
      if (!readFrame(Workers[WI].ResponseFd, Payload)) {
        Outcomes[J].Error = Jobs[J].Module + ": " + reap(Workers[WI]);
        Finish(J);
        Respawn(WI);
        continue;
      }
      Reader R{Payload};
      uint8_t Status = R.u8();
      if (Status == 0) {
        CompileResult Result;
        Result.TextSize = R.u64();
        Result.NumDecisions = R.u32();
        Result.Seconds = R.f64();
        Result.Log = R.str();
        if (R.Failed)
          Outcomes[J].Error = Jobs[J].Module + ": malformed worker response";
        else
          Outcomes[J].Result = std::move(Result);
      } else {
        Outcomes[J].Error = R.str();
        if (Status == 2) {
          // The worker reported a fatal error and exits.
          Outcomes[J].Error = Jobs[J].Module + ": " + Outcomes[J].Error;
          reap(Workers[WI]);
          Respawn(WI);
        }
      }
      Finish(J);
    }
  }
  return Outcomes;
}

} // namespace mlgo
