//===- lib/Distributed/Cluster.cpp - Compiles on MPI ranks ----------------===//
//
// The MPI side of mlgo/Distributed/Cluster.h, and the only file that
// includes <mpi.h>. Rank 0's scheduler (runOnRanks), under its pool
// (RankPool) and its task runner, hands each free worker rank the next
// job or task, largest bitcode first - or, among the next few, one whose
// bitcode the rank already holds - and waits for answers by polling
// (MPI_Iprobe), never in a blocking call: a rank that dies or stops
// answering is noticed by its silence, and nothing waits on it forever.
// Worker ranks keep MPI on their main thread (MPI_THREAD_FUNNELED) and
// compile on a second one, through this machine's pool, so that they beat
// while a long compile runs.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Distributed/Cluster.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/TempDirs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace mlgo::distributed {

bool haveMPI() { return true; }

namespace {

using Clock = std::chrono::steady_clock;

/// How far down the pending jobs a free rank looks for one whose bitcode it
/// already holds, before it takes the next one in order. Bounded, so that
/// largest-first still holds to within this many jobs, and a free rank
/// spends O(window) on its choice.
constexpr size_t AffinityWindow = 64;

/// Seconds without a word from a rank that is compiling, or starting,
/// after which rank 0 gives it up (MLGO_MPI_SILENCE_SECONDS).
unsigned getSilenceSeconds() {
  static const unsigned Seconds = [] {
    const char *V = std::getenv("MLGO_MPI_SILENCE_SECONDS");
    unsigned N = 0;
    if (!V || StringRef(V).getAsInteger(10, N) || N == 0)
      return 30u;
    return N;
  }();
  return Seconds;
}

/// Waits longer the longer nothing happens: an answer that comes soon is
/// picked up at once (the first polls only yield the core), an idle rank
/// does not spin a core another rank needs (then it sleeps, up to 2 ms).
class Backoff {
public:
  void reset() { Polls = 0; }
  void idle() {
    ++Polls;
    if (Polls < 200) {
      std::this_thread::yield();
      return;
    }
    unsigned Micros = std::min(2000u, 10u << std::min(Polls - 200, 8u));
    std::this_thread::sleep_for(std::chrono::microseconds(Micros));
  }

private:
  unsigned Polls = 0;
};

struct Bitcode {
  uint64_t Size = 0;
  /// Empty until the file was first read.
  std::string Hash;
  /// Ranks it was sent to.
  unsigned Holders = 0;
};

/// What this process knows of the run.
struct World {
  int Rank = 0;
  int Size = 1;
  bool Active = false;
  /// Per rank: its host and process id (rank 0's too).
  std::vector<std::string> Hosts;
  std::vector<uint32_t> Pids;
  /// Rank 0: which bitcode each rank holds, by hash, and each file's.
  std::vector<StringSet<>> Holds;
  StringMap<Bitcode> Files;
  /// Rank 0: what MLGO_MPI_STATS prints.
  uint64_t Jobs = 0, BytesSent = 0, BitcodeSent = 0, BytesReceived = 0;
  /// Rank 0: the jobs and tasks sent to each rank.
  std::map<int, uint64_t> JobsOf;
  double RunSeconds = 0;
  /// CPU seconds rank 0 spent on rounds of its loop that handed out or
  /// took in a message: its cost per job, whatever the machine's load.
  double BusyCPUSeconds = 0;

  std::string describe(int R) const {
    return ("rank " + Twine(R) + " on host " + Hosts[R] + " (pid " +
            Twine(Pids[R]) + ")")
        .str();
  }
};

World &getWorld() {
  static World W;
  return W;
}

std::string describeMPIError(int Code) {
  char Text[MPI_MAX_ERROR_STRING];
  int Len = 0;
  if (MPI_Error_string(Code, Text, &Len) != MPI_SUCCESS)
    return "MPI error " + std::to_string(Code);
  return std::string(Text, Len);
}

/// Ends the job from rank 0 after an error: the message, then MPI_Abort,
/// which has the launcher end every rank and exit with status 1 (under
/// `mpirun --enable-recovery` a plain exit would leave mpirun's status 0;
/// MPI_Finalize would wait for the lost rank). Every result so far is in
/// rank 0's caches.
[[noreturn]] void endJob(const Twine &Message) {
  outs().flush();
  WithColor::error(errs(), "mlgo") << Message << "\n";
  errs().flush();
  // mpirun ends the other ranks, maybe with SIGKILL before their handlers
  // remove their scratch directories: rank 0 removes those of the worker
  // ranks on its host now (a dead or stopped rank's included).
  const World &W = getWorld();
  if (W.Active && W.Rank == 0) {
    std::vector<int> Owners;
    for (size_t R = 1; R < W.Pids.size() && R < W.Hosts.size(); ++R)
      if (W.Pids[R] > 0 && W.Hosts[R] == W.Hosts[0])
        Owners.push_back(int(W.Pids[R]));
    removeTempDirsOf("mlgo-rank", Owners);
  }
  MPI_Abort(MPI_COMM_WORLD, 1);
  ::_exit(1);
}

/// A message waiting from \p Source (or any rank), received; false if none.
bool receive(int Source, int &From, Tag &TheTag, std::string &Payload) {
  int Flag = 0;
  MPI_Status Status;
  int Err = MPI_Iprobe(Source, MPI_ANY_TAG, MPI_COMM_WORLD, &Flag, &Status);
  if (Err != MPI_SUCCESS)
    endJob("MPI_Iprobe failed: " + describeMPIError(Err));
  if (!Flag)
    return false;
  int Count = 0;
  MPI_Get_count(&Status, MPI_BYTE, &Count);
  Payload.resize(Count);
  From = Status.MPI_SOURCE;
  TheTag = static_cast<Tag>(Status.MPI_TAG);
  Err = MPI_Recv(Payload.data(), Count, MPI_BYTE, Status.MPI_SOURCE,
                 Status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (Err != MPI_SUCCESS)
    endJob("cannot receive from rank " + Twine(From) + ": " +
           describeMPIError(Err));
  return true;
}

/// A blocking send of a small message; false when MPI says it failed.
bool sendSmall(int To, Tag TheTag, StringRef Payload) {
  return MPI_Send(Payload.data(), Payload.size(), MPI_BYTE, To,
                  static_cast<int>(TheTag), MPI_COMM_WORLD) == MPI_SUCCESS;
}

double getThreadCPUSeconds() {
  timespec T;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return T.tv_sec + T.tv_nsec / 1e9;
}

std::string getHostName() {
  char Name[MPI_MAX_PROCESSOR_NAME];
  int Len = 0;
  if (MPI_Get_processor_name(Name, &Len) != MPI_SUCCESS)
    return "unknown";
  return std::string(Name, Len);
}

//===-- Rank 0: the scheduler ---------------------------------------------===//

/// What rank 0 knows of an input file, for as long as the run lasts (a
/// command may run more than one batch; the ranks keep what they hold).
Bitcode &getBitcode(StringRef Path) {
  auto [It, New] = getWorld().Files.try_emplace(Path);
  if (New) {
    uint64_t Size = 0;
    if (!sys::fs::file_size(Path, Size))
      It->second.Size = Size;
  }
  return It->second;
}

/// One batch of work for the worker ranks: compile jobs or tasks. The
/// scheduler (runOnRanks) decides which rank runs which; the batch knows
/// what its work is and what its answers mean.
class Batch {
public:
  virtual ~Batch() = default;
  virtual size_t size() const = 0;
  /// What messages name.
  virtual StringRef getModule(size_t J) const = 0;
  /// The files job \p J reads where it runs; the first orders the jobs
  /// (largest first) and decides which rank takes them.
  virtual ArrayRef<std::string> getInputs(size_t J) const = 0;
  /// The next of \p Pending to send (as pickJob; jobs answered on rank 0
  /// go to \p Finish).
  virtual std::optional<size_t> pick(std::deque<size_t> &Pending,
                                     function_ref<void(size_t)> Finish,
                                     function_ref<bool(size_t)> Fits,
                                     size_t Window) = 0;
  /// The message of job \p J; \p Bytes[I] is input I's content for a rank
  /// that does not hold it yet.
  virtual std::string encode(size_t J, ArrayRef<std::string> Hashes,
                             ArrayRef<std::optional<std::string>> Bytes) = 0;
  virtual Tag getTag() const = 0;
  /// Job \p J's answer; an error ends the run.
  virtual Error answer(size_t J, StringRef Payload) = 0;
  /// Job \p J failed before any rank ran it.
  virtual void fail(size_t J, std::string Message, bool Transient) = 0;
  /// Job \p J's outcome is final (answered, failed or picked as answered).
  virtual void finish(size_t J, size_t Done) = 0;
};

/// Hands each free worker rank the next job, largest first - or, among
/// the next few, one whose input the rank already holds - until every job
/// of \p B has its outcome.
void runOnRanks(Batch &B) {
  World &W = getWorld();
  auto Start = Clock::now();
  size_t N = B.size();
  // Largest first: the longest compiles start early, and the small ones
  // fill the gaps at the end. Stable, so the jobs of one module keep their
  // order (the gate's trajectory replay relies on the first being first).
  auto SizeOf = [&](size_t J) -> uint64_t {
    ArrayRef<std::string> In = B.getInputs(J);
    return In.empty() ? 0 : getBitcode(In.front()).Size;
  };
  std::vector<size_t> Order(N);
  for (size_t I = 0; I < N; ++I)
    Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(),
                   [&](size_t A, size_t C) { return SizeOf(A) > SizeOf(C); });
  std::deque<size_t> Pending(Order.begin(), Order.end());

  struct Slot {
    std::optional<size_t> Job;
    Clock::time_point Heard;
    MPI_Request Send = MPI_REQUEST_NULL;
    std::string Buffer;
  };
  std::vector<Slot> Slots(W.Size);
  size_t Done = 0;
  auto Finish = [&](size_t J) { B.finish(J, ++Done); };

  Backoff Idle;
  std::string Payload;
  while (Done < N) {
    bool Busy = false;
    double RoundStart = getThreadCPUSeconds();
    // Hand out work to every free rank.
    for (int R = 1; R < W.Size; ++R) {
      Slot &S = Slots[R];
      if (S.Job)
        continue;
      // Affinity: among the next AffinityWindow jobs, first one whose
      // input this rank holds (it need not travel again), then one whose
      // input no rank holds yet (so that modules spread over the ranks
      // instead of every rank getting every module); then the next job in
      // order.
      auto Held = [&](size_t C) {
        ArrayRef<std::string> In = B.getInputs(C);
        if (In.empty())
          return false;
        const Bitcode &F = getBitcode(In.front());
        return !F.Hash.empty() && W.Holds[R].count(F.Hash) > 0;
      };
      auto Unheld = [&](size_t C) {
        ArrayRef<std::string> In = B.getInputs(C);
        return !In.empty() && getBitcode(In.front()).Holders == 0;
      };
      std::optional<size_t> J = B.pick(Pending, Finish, Held, AffinityWindow);
      if (!J)
        J = B.pick(Pending, Finish, Unheld, AffinityWindow);
      if (!J)
        J = B.pick(Pending, Finish, nullptr, SIZE_MAX);
      if (!J)
        break;
      Busy = true;
      // The previous send to this rank completed: the rank answered it.
      if (S.Send != MPI_REQUEST_NULL)
        MPI_Wait(&S.Send, MPI_STATUS_IGNORE);
      ArrayRef<std::string> Inputs = B.getInputs(*J);
      std::vector<std::string> Hashes;
      std::vector<std::optional<std::string>> Bytes;
      std::string Unreadable;
      for (const std::string &Path : Inputs) {
        Bitcode &F = getBitcode(Path);
        Bytes.emplace_back();
        if (F.Hash.empty() || !W.Holds[R].count(F.Hash)) {
          Expected<std::unique_ptr<MemoryBuffer>> Read = readWholeFile(Path);
          if (!Read) {
            Unreadable = toString(Read.takeError());
            break;
          }
          F.Hash = hashBitcode((*Read)->getBuffer());
          // Another path's file may have brought the same bytes.
          if (W.Holds[R].insert(F.Hash).second) {
            Bytes.back() = (*Read)->getBuffer().str();
            W.BitcodeSent += Bytes.back()->size();
            ++F.Holders;
          }
        }
        Hashes.push_back(F.Hash);
      }
      if (!Unreadable.empty()) {
        B.fail(*J, (B.getModule(*J) + ": " + Unreadable).str(), false);
        Finish(*J);
        continue;
      }
      S.Buffer = B.encode(*J, Hashes, Bytes);
      W.BytesSent += S.Buffer.size();
      ++W.Jobs;
      ++W.JobsOf[R];
      int Err =
          MPI_Isend(S.Buffer.data(), S.Buffer.size(), MPI_BYTE, R,
                    static_cast<int>(B.getTag()), MPI_COMM_WORLD, &S.Send);
      if (Err != MPI_SUCCESS)
        endJob("cannot send " + B.getModule(*J) + " to " + W.describe(R) +
               ": " + describeMPIError(Err) + "; " +
               "every result so far is kept: " +
               "run again, with any number of ranks, to resume");
      S.Job = *J;
      S.Heard = Clock::now();
    }
    if (Done == N)
      break;
    bool AnyRunning = false;
    for (int R = 1; R < W.Size; ++R)
      AnyRunning |= Slots[R].Job.has_value();
    if (!AnyRunning) {
      // Every pending job was deferred or answered, and no rank runs one:
      // the gate broke its promise. Do as this machine's pool would do
      // with no worker left.
      for (size_t J : Pending) {
        B.fail(J, (B.getModule(J) + ": no compile worker is running").str(),
               true);
        Finish(J);
      }
      Pending.clear();
      continue;
    }
    int From = 0;
    Tag TheTag;
    while (receive(MPI_ANY_SOURCE, From, TheTag, Payload)) {
      Busy = true;
      W.BytesReceived += Payload.size();
      if (From <= 0 || From >= W.Size)
        continue;
      Slot &S = Slots[From];
      S.Heard = Clock::now();
      if (TheTag == Tag::Beat)
        continue;
      Tag Want = B.getTag() == Tag::Job ? Tag::Outcome : Tag::Answer;
      if (TheTag != Want || !S.Job)
        endJob(W.describe(From) + " sent an unexpected message (tag " +
               Twine(static_cast<int>(TheTag)) + ")");
      size_t J = *S.Job;
      S.Job.reset();
      if (Error E = B.answer(J, Payload))
        endJob(W.describe(From) + " answered " + B.getModule(J) + " with " +
               toString(std::move(E)));
      Finish(J);
    }
    auto Now = Clock::now();
    for (int R = 1; R < W.Size; ++R) {
      const Slot &S = Slots[R];
      if (!S.Job || Now - S.Heard < std::chrono::seconds(getSilenceSeconds()))
        continue;
      endJob("compile worker " + W.describe(R) + " has not answered for " +
             Twine(getSilenceSeconds()) + " s while compiling " +
             B.getModule(*S.Job) +
             ": the rank died, stopped, or its host was lost; every result "
             "so far is kept: run again, with any number of ranks, to resume");
    }
    // A large job travels in fragments that need this rank's progress:
    // do not sleep while one is on its way.
    bool Sending = false;
    for (int R = 1; R < W.Size; ++R) {
      if (Slots[R].Send == MPI_REQUEST_NULL)
        continue;
      int Complete = 0;
      MPI_Test(&Slots[R].Send, &Complete, MPI_STATUS_IGNORE);
      Sending |= !Complete;
    }
    if (Busy) {
      W.BusyCPUSeconds += getThreadCPUSeconds() - RoundStart;
      Idle.reset();
    } else if (Sending) {
      std::this_thread::yield();
    } else {
      Idle.idle();
    }
  }
  for (int R = 1; R < W.Size; ++R)
    if (Slots[R].Send != MPI_REQUEST_NULL)
      MPI_Wait(&Slots[R].Send, MPI_STATUS_IGNORE);
  W.RunSeconds += std::chrono::duration<double>(Clock::now() - Start).count();
}

/// What every batch keeps: an outcome per job, decoded from its answer.
template <typename OutcomeT, Expected<OutcomeT> (*Decode)(StringRef)>
class BatchOf : public Batch {
public:
  explicit BatchOf(size_t N) : Outcomes(N) {}
  Error answer(size_t J, StringRef Payload) override {
    Expected<OutcomeT> O = Decode(Payload);
    if (!O)
      return O.takeError();
    Outcomes[J] = std::move(*O);
    return Error::success();
  }
  std::vector<OutcomeT> takeOutcomes() { return std::move(Outcomes); }

protected:
  std::vector<OutcomeT> Outcomes;
};

/// Compile jobs, through the gate of WorkerPool::run.
class CompileBatch final : public BatchOf<JobOutcome, decodeOutcome> {
public:
  CompileBatch(ArrayRef<CompileJob> Jobs, unsigned TimeoutSeconds,
               std::function<void(size_t, size_t)> Progress,
               std::function<void(size_t, JobOutcome &)> OnOutcome,
               JobGate Gate)
      : BatchOf(Jobs.size()), Jobs(Jobs), TimeoutSeconds(TimeoutSeconds),
        Progress(std::move(Progress)), OnOutcome(std::move(OnOutcome)),
        Gate(std::move(Gate)), WantLog(Jobs.size(), false),
        Inputs(Jobs.size()) {
    for (size_t J = 0; J < Jobs.size(); ++J)
      Inputs[J] = {Jobs[J].BitcodePath};
  }
  size_t size() const override { return Jobs.size(); }
  StringRef getModule(size_t J) const override { return Jobs[J].Module; }
  ArrayRef<std::string> getInputs(size_t J) const override { return Inputs[J]; }
  std::optional<size_t> pick(std::deque<size_t> &Pending,
                             function_ref<void(size_t)> Finish,
                             function_ref<bool(size_t)> Fits,
                             size_t Window) override {
    bool Log = false;
    std::optional<size_t> J =
        pickJob(Pending, Jobs, Outcomes, Gate, Log, Finish, Fits, Window);
    if (J)
      WantLog[*J] = Log;
    return J;
  }
  std::string encode(size_t J, ArrayRef<std::string> Hashes,
                     ArrayRef<std::optional<std::string>> Bytes) override {
    JobMessage M;
    M.TimeoutSeconds = TimeoutSeconds;
    M.Job = Jobs[J];
    M.Job.WantLog = WantLog[J];
    M.BitcodeHash = Hashes.front();
    M.Bitcode = Bytes.front();
    return encodeJobMessage(M);
  }
  Tag getTag() const override { return Tag::Job; }
  void fail(size_t J, std::string Message, bool Transient) override {
    Outcomes[J].Error = std::move(Message);
    Outcomes[J].Transient = Transient;
  }
  void finish(size_t J, size_t Done) override {
    if (OnOutcome)
      OnOutcome(J, Outcomes[J]);
    if (Progress)
      Progress(Done, Jobs.size());
  }

private:
  ArrayRef<CompileJob> Jobs;
  unsigned TimeoutSeconds;
  std::function<void(size_t, size_t)> Progress;
  std::function<void(size_t, JobOutcome &)> OnOutcome;
  JobGate Gate;
  std::vector<bool> WantLog;
  std::vector<std::vector<std::string>> Inputs;
};

/// Tasks (mlgo/Support/Tasks.h), in order.
class TaskBatch final : public BatchOf<TaskOutcome, decodeTaskOutcome> {
public:
  TaskBatch(ArrayRef<Task> Tasks, const ProgressCallback &Progress,
            const TaskOutcomeCallback &OnOutcome)
      : BatchOf(Tasks.size()), Tasks(Tasks), Progress(Progress),
        OnOutcome(OnOutcome) {}
  size_t size() const override { return Tasks.size(); }
  StringRef getModule(size_t J) const override { return Tasks[J].Module; }
  ArrayRef<std::string> getInputs(size_t J) const override {
    return Tasks[J].Inputs;
  }
  std::optional<size_t> pick(std::deque<size_t> &Pending,
                             function_ref<void(size_t)>,
                             function_ref<bool(size_t)> Fits,
                             size_t Window) override {
    size_t Seen = 0;
    for (auto It = Pending.begin(); It != Pending.end(); ++It) {
      if (Fits && (++Seen > Window))
        break;
      if (Fits && !Fits(*It))
        continue;
      size_t J = *It;
      Pending.erase(It);
      return J;
    }
    return std::nullopt;
  }
  std::string encode(size_t J, ArrayRef<std::string> Hashes,
                     ArrayRef<std::optional<std::string>> Bytes) override {
    TaskMessage M;
    M.TheTask = Tasks[J];
    M.Hashes = Hashes.vec();
    M.Bytes = Bytes.vec();
    return encodeTaskMessage(M);
  }
  Tag getTag() const override { return Tag::Task; }
  void fail(size_t J, std::string Message, bool) override {
    Outcomes[J].Error = std::move(Message);
  }
  void finish(size_t J, size_t Done) override {
    if (OnOutcome)
      OnOutcome(J, Outcomes[J]);
    if (Progress)
      Progress(Done, Tasks.size());
  }

private:
  ArrayRef<Task> Tasks;
  const ProgressCallback &Progress;
  const TaskOutcomeCallback &OnOutcome;
};

class RankPool final : public WorkerPool {
public:
  explicit RankPool(const WorkerPoolOptions &Options) : Options(Options) {}
  unsigned getNumWorkers() const override { return getWorld().Size - 1; }
  std::vector<JobOutcome>
  run(ArrayRef<CompileJob> Jobs, std::function<void(size_t, size_t)> Progress,
      std::function<void(size_t, JobOutcome &)> OnOutcome,
      JobGate Gate) override {
    CompileBatch B(Jobs, Options.TimeoutSeconds, std::move(Progress),
                   std::move(OnOutcome), std::move(Gate));
    runOnRanks(B);
    return B.takeOutcomes();
  }
  unsigned getNumRespawns() const override { return 0; }
  std::vector<int> getWorkerPids() const override { return {}; }

private:
  WorkerPoolOptions Options;
};

std::vector<TaskOutcome> runTasksOnRanks(ArrayRef<Task> Tasks,
                                         const ProgressCallback &Progress,
                                         const TaskOutcomeCallback &OnOutcome) {
  TaskBatch B(Tasks, Progress, OnOutcome);
  runOnRanks(B);
  return B.takeOutcomes();
}

//===-- Worker ranks ------------------------------------------------------===//

/// \p Text with every \p From replaced by \p To.
std::string replaceAll(StringRef Text, StringRef From, StringRef To) {
  std::string Out;
  while (!From.empty()) {
    size_t At = Text.find(From);
    if (At == StringRef::npos)
      break;
    Out += Text.take_front(At);
    Out += To;
    Text = Text.drop_front(At + From.size());
  }
  Out += Text;
  return Out;
}

/// MLGO_WORKER_FAULT=kill-rank:MODULE or stop-rank:MODULE makes the worker
/// rank that is sent MODULE die of SIGKILL, or stop (SIGSTOP), before it
/// compiles it: a rank lost mid-run, for the fault tests. The forked
/// workers' faults (crash:, hang:) are WorkerPool.cpp's.
void injectRankFault(StringRef Module) {
  const char *V = std::getenv("MLGO_WORKER_FAULT");
  auto [Kind, Mod] = StringRef(V ? V : "").split(':');
  if (Mod.empty() || Mod != Module)
    return;
  if (Kind == "kill-rank")
    ::raise(SIGKILL);
  if (Kind == "stop-rank")
    ::raise(SIGSTOP);
}

/// The compile thread of a worker rank: one job or task at a time, a job
/// through this machine's pool. The thread lives as long as the rank, since
/// the pool's forked workers die with the thread that forked them
/// (PR_SET_PDEATHSIG).
class Compiler {
public:
  /// What the thread gives back: a job's outcome or a task's.
  struct Result {
    std::optional<JobOutcome> Job;
    std::optional<TaskOutcome> Task;
  };

  Compiler() : Thread([this] { loop(); }) {}
  ~Compiler() {
    {
      std::lock_guard<std::mutex> Lock(M);
      Quit = true;
    }
    CV.notify_all();
    Thread.join();
  }
  void start(CompileJob Job, unsigned TimeoutSeconds) {
    {
      std::lock_guard<std::mutex> Lock(M);
      InJob = std::move(Job);
      Timeout = TimeoutSeconds;
    }
    CV.notify_all();
  }
  void start(Task T) {
    {
      std::lock_guard<std::mutex> Lock(M);
      InTask = std::move(T);
    }
    CV.notify_all();
  }
  std::optional<Result> take() {
    std::lock_guard<std::mutex> Lock(M);
    std::optional<Result> O = std::move(Out);
    Out.reset();
    return O;
  }

private:
  JobOutcome compile(const CompileJob &Job, unsigned T) {
    JobOutcome O;
    if (!Pool || PoolTimeout != T) {
      Pool.reset();
      WorkerPoolOptions PO;
      PO.Workers = 1;
      PO.TimeoutSeconds = T;
      Expected<std::unique_ptr<WorkerPool>> P = WorkerPool::createLocal(PO);
      if (!P) {
        O.Error = Job.Module + ": " + toString(P.takeError());
        O.Transient = O.Environment = true;
        return O;
      }
      Pool = std::move(*P);
      PoolTimeout = T;
    }
    return std::move(Pool->run(Job).front());
  }

  void loop() {
    for (;;) {
      std::optional<CompileJob> Job;
      std::optional<Task> TheTask;
      unsigned T;
      {
        std::unique_lock<std::mutex> Lock(M);
        CV.wait(Lock, [&] { return Quit || InJob || InTask; });
        if (Quit)
          return;
        std::swap(Job, InJob);
        std::swap(TheTask, InTask);
        T = Timeout;
      }
      Result R;
      if (Job) {
        R.Job = compile(*Job, T);
      } else {
        Expected<std::string> A = runTaskHere(TheTask->Kind, TheTask->Args);
        R.Task.emplace();
        if (A)
          R.Task->Result = std::move(*A);
        else
          R.Task->Error = toString(A.takeError());
      }
      std::lock_guard<std::mutex> Lock(M);
      Out = std::move(R);
    }
  }

  std::mutex M;
  std::condition_variable CV;
  std::optional<CompileJob> InJob;
  std::optional<Task> InTask;
  unsigned Timeout = 0;
  std::optional<Result> Out;
  bool Quit = false;
  /// The compile thread's own.
  std::unique_ptr<WorkerPool> Pool;
  unsigned PoolTimeout = 0;
  std::thread Thread;
};

/// A worker rank's copies of the files it was sent, by content hash, in a
/// scratch directory of its own.
class FileStore {
public:
  FileStore(const World &W) : W(W) {
    // Removed on every way out, SIGTERM and SIGINT from mpirun included,
    // and collected by the rank's next run after a SIGKILL
    // (mlgo/Support/TempDirs.h).
    Expected<TempDir> D = TempDir::create("mlgo-rank");
    if (!D) {
      // Rank 0 hears of it with the first job's answer.
      errs() << "mlgo: rank " << W.Rank << " on host " << W.Hosts[W.Rank]
             << ": cannot create a directory for bitcode: "
             << toString(D.takeError()) << "\n";
      return;
    }
    Scratch = std::move(*D);
    Dir = Scratch.path();
  }
  /// The local copy of the file \p Hash (\p Original on rank 0), written
  /// from \p Bytes when sent; the error names \p Module.
  Expected<std::string> get(StringRef Module, StringRef Original,
                            StringRef Hash,
                            const std::optional<std::string> &Bytes) {
    std::string Where =
        ("rank " + Twine(W.Rank) + " on host " + W.Hosts[W.Rank]).str();
    if (Bytes && !Dir.empty()) {
      // The original's extension: tools that look at it (llc reads .ll as
      // text) see what they would on rank 0.
      std::string Local =
          (Dir + "/" + Hash + sys::path::extension(Original)).str();
      if (Error E = writeFileAtomically(Local, *Bytes))
        return makeError(Module + ": " + Where + ": " + toString(std::move(E)));
      Held[Hash] = Local;
    }
    auto It = Held.find(Hash);
    if (It == Held.end())
      return makeError(Module + ": " + Where + " does not hold its input " +
                       Hash);
    return It->second;
  }

private:
  const World &W;
  TempDir Scratch;
  SmallString<128> Dir;
  StringMap<std::string> Held;
};

/// (local copy, path on rank 0) of the current work's inputs.
using Renames = std::vector<std::pair<std::string, std::string>>;

/// \p Text with each input's path on rank 0 written as its local copy's
/// (\p Back: the other way), longest first, so that a path that begins
/// another is not replaced inside it.
std::string rewritePaths(std::string Text, Renames R, bool Back) {
  llvm::sort(R, [&](const auto &A, const auto &B) {
    return (Back ? A.first : A.second).size() >
           (Back ? B.first : B.second).size();
  });
  for (const auto &[Local, Original] : R)
    Text = Back ? replaceAll(Text, Local, Original)
                : replaceAll(Text, Original, Local);
  return Text;
}

int serveWorker() {
  World &W = getWorld();
  bool Echo = std::getenv("MLGO_MPI_ECHO") != nullptr;
  FileStore Files(W);
  Compiler C;
  bool Running = false;
  Renames Names;
  Clock::time_point LastBeat;
  Backoff Idle;
  std::string Payload;
  for (;;) {
    bool Busy = false;
    if (Running)
      if (std::optional<Compiler::Result> O = C.take()) {
        // Errors name the module's own files, as on one machine.
        if (O->Job) {
          if (!O->Job->ok())
            O->Job->Error = rewritePaths(O->Job->Error, Names, /*Back=*/true);
          sendSmall(0, Tag::Outcome, encodeOutcome(*O->Job));
        } else {
          if (!O->Task->ok())
            O->Task->Error = rewritePaths(O->Task->Error, Names, /*Back=*/true);
          sendSmall(0, Tag::Answer, encodeTaskOutcome(*O->Task));
        }
        Running = false;
        Busy = true;
      }
    int From = 0;
    Tag TheTag;
    if (receive(0, From, TheTag, Payload)) {
      Busy = true;
      if (TheTag == Tag::Stop)
        break;
      Names.clear();
      if (TheTag == Tag::Task) {
        TaskOutcome Now;
        Expected<TaskMessage> M = decodeTaskMessage(Payload);
        if (!M) {
          Now.Error = toString(M.takeError());
        } else {
          injectRankFault(M->TheTask.Module);
          for (size_t I = 0; I < M->TheTask.Inputs.size(); ++I) {
            Expected<std::string> Local =
                Files.get(M->TheTask.Module, M->TheTask.Inputs[I], M->Hashes[I],
                          M->Bytes[I]);
            if (!Local) {
              Now.Error = toString(Local.takeError());
              break;
            }
            Names.emplace_back(*Local, M->TheTask.Inputs[I]);
          }
          if (Now.Error.empty()) {
            for (std::string &A : M->TheTask.Args)
              A = rewritePaths(A, Names, /*Back=*/false);
            C.start(std::move(M->TheTask));
            Running = true;
            LastBeat = Clock::now();
          }
        }
        if (!Running)
          sendSmall(0, Tag::Answer, encodeTaskOutcome(Now));
      } else {
        JobOutcome Now;
        Expected<JobMessage> M = decodeJobMessage(Payload);
        if (TheTag != Tag::Job) {
          Now.Error = "rank " + std::to_string(W.Rank) +
                      ": unexpected message (tag " +
                      std::to_string(static_cast<int>(TheTag)) + ")";
          consumeError(M.takeError());
        } else if (!M) {
          Now.Error = toString(M.takeError());
        } else {
          injectRankFault(M->Job.Module);
          Expected<std::string> Local = Files.get(
              M->Job.Module, M->Job.BitcodePath, M->BitcodeHash, M->Bitcode);
          if (!Local) {
            Now.Error = toString(Local.takeError());
            Now.Transient = Now.Environment = true;
          } else if (Echo) {
            // The coordinator's ceiling (bench/mpi-scaling.sh): an answer
            // without a compile.
            Now.Result.emplace();
          } else {
            Names.emplace_back(*Local, M->Job.BitcodePath);
            M->Job.BitcodePath = *Local;
            C.start(std::move(M->Job), M->TimeoutSeconds);
            Running = true;
            LastBeat = Clock::now();
          }
        }
        if (!Running)
          sendSmall(0, Tag::Outcome, encodeOutcome(Now));
      }
    }
    if (Running && Clock::now() - LastBeat >= std::chrono::seconds(1)) {
      sendSmall(0, Tag::Beat, "");
      LastBeat = Clock::now();
    }
    if (Busy)
      Idle.reset();
    else
      Idle.idle();
  }
  return 0;
}

} // namespace

//===-- Start and finish --------------------------------------------------===//

Expected<Role> startCluster(int &Argc, char **&Argv, StringRef Command,
                            StringRef Identity) {
  Launch L = detectLaunch();
  if (Error E = checkLaunch(L)) {
    if (L.Rank != 0) {
      consumeError(std::move(E));
      return Role{1};
    }
    return E;
  }
  if (L.Size <= 1)
    return Role();
  int Provided = 0;
  if (MPI_Init_thread(&Argc, &Argv, MPI_THREAD_FUNNELED, &Provided) !=
      MPI_SUCCESS)
    return makeError("MPI_Init_thread failed");
  World &W = getWorld();
  W.Active = true;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &W.Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &W.Size);
  W.Hosts.assign(W.Size, "unknown");
  W.Pids.assign(W.Size, 0);
  W.Hosts[W.Rank] = getHostName();
  W.Pids[W.Rank] = ::getpid();
  if (W.Rank != 0) {
    HelloMessage H{Identity.str(), W.Hosts[W.Rank], W.Pids[W.Rank]};
    // MLGO_WORKER_FAULT=other-build:K: rank K says it is another mlgo, as a
    // host with another install would (for the test of the refusal).
    const char *Fault = std::getenv("MLGO_WORKER_FAULT");
    if (Fault && StringRef(Fault) == "other-build:" + std::to_string(W.Rank))
      H.Identity =
          "mlgo version 0.0.0-other\n" + Identity.split('\n').second.str();
    sendSmall(0, Tag::Hello, encodeHello(H));
    // Rank 0 may refuse the run: the first message is then stop.
    int Status = serveWorker();
    MPI_Finalize();
    W.Active = false;
    return Role{Status};
  }
  // Rank 0: every rank says who it is, within the silence limit.
  W.Holds.resize(W.Size);
  std::vector<bool> Heard(W.Size);
  Heard[0] = true;
  int Missing = W.Size - 1;
  auto Deadline = Clock::now() + std::chrono::seconds(getSilenceSeconds());
  std::string Payload, Problem;
  Backoff Idle;
  while (Missing) {
    int From = 0;
    Tag TheTag;
    if (!receive(MPI_ANY_SOURCE, From, TheTag, Payload)) {
      if (Clock::now() > Deadline) {
        std::string Ranks;
        for (int R = 1; R < W.Size; ++R)
          if (!Heard[R])
            Ranks += (Ranks.empty() ? "" : ", ") + std::to_string(R);
        endJob("rank(s) " + Ranks + " of " + Twine(W.Size) +
               " did not start within " + Twine(getSilenceSeconds()) + " s");
      }
      Idle.idle();
      continue;
    }
    Expected<HelloMessage> H = decodeHello(Payload);
    if (TheTag != Tag::Hello || !H || Heard[From])
      endJob("rank " + Twine(From) + " did not start as rank 0 expected" +
             (H ? "" : ": " + toString(H.takeError())));
    Heard[From] = true;
    --Missing;
    W.Hosts[From] = H->Host;
    W.Pids[From] = H->Pid;
    if (Problem.empty() && H->Identity != Identity) {
      // Name the first line that differs: the commit, LLVM, a model.
      SmallVector<StringRef, 8> A, B;
      StringRef(H->Identity).split(A, '\n');
      Identity.split(B, '\n');
      size_t I = 0;
      while (I < A.size() && I < B.size() && A[I] == B[I])
        ++I;
      Problem = (W.describe(From) + " runs another mlgo than rank 0: '" +
                 (I < A.size() ? A[I].trim() : "") + "' against '" +
                 (I < B.size() ? B[I].trim() : "") +
                 "'; install the same build on every host")
                    .str();
    }
  }
  // Which ranks each host holds, once at the start of a run on more than
  // one host: when a host is lost, mpirun's message names the host only,
  // and this line names its ranks.
  if (Problem.empty()) {
    std::string Line = describeHosts(W.Hosts);
    if (!Line.empty())
      errs() << "mlgo: mpi: " << Line << "\n";
  }
  if (Problem.empty() && !isDistributedCommand(Command))
    Problem = ("'mlgo " + Command +
               "' does not run its compiles on MPI ranks (those that do: "
               "tune, train, eval corpus, regalloc train, worker bench, "
               "teacher build, teacher dagger); "
               "run it as one process (without mpirun, or with -np 1)")
                  .str();
  if (!Problem.empty())
    return makeError(Problem);
  setWorkerPoolFactory([](const WorkerPoolOptions &Options)
                           -> Expected<std::unique_ptr<WorkerPool>> {
    return std::make_unique<RankPool>(Options);
  });
  setTaskRunner(runTasksOnRanks);
  return Role();
}

int finishCluster(int Status) {
  World &W = getWorld();
  if (!W.Active)
    return Status;
  if (W.Rank == 0) {
    for (int R = 1; R < W.Size; ++R)
      sendSmall(R, Tag::Stop, "");
    if (std::getenv("MLGO_MPI_STATS"))
      errs() << format("mlgo: mpi: %d ranks, %llu jobs in %.3f s, %.1f MB "
                       "sent (%.1f MB bitcode), %.1f MB received, rank 0 "
                       "busy %.3f s of CPU\n",
                       W.Size, (unsigned long long)W.Jobs, W.RunSeconds,
                       W.BytesSent / 1e6, W.BitcodeSent / 1e6,
                       W.BytesReceived / 1e6, W.BusyCPUSeconds);
    if (std::getenv("MLGO_MPI_STATS")) {
      errs() << "mlgo: mpi: jobs per rank:";
      for (int R = 1; R < W.Size; ++R)
        errs() << " " << R << ": " << W.JobsOf[R]
               << (R + 1 < W.Size ? "," : "");
      errs() << "\n";
    }
  }
  MPI_Finalize();
  W.Active = false;
  return Status;
}

} // namespace mlgo::distributed
