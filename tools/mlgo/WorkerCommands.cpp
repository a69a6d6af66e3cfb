//===- tools/mlgo/WorkerCommands.cpp - mlgo worker check|bench ------------===//
//
//   mlgo worker check DIR   compiles modules in-process (the training
//                           worker) and with a spawned `clang-19 -cc1` plus
//                           the plugin, and compares their .text sizes;
//   mlgo worker bench DIR   modules/second of the two, in one run; with
//                           --thresholds, a policy-evaluation workload (the
//                           model at each decision threshold, as a training
//                           run's selection compiles it), where the worker
//                           also answers compiles by trajectory replay
//                           (TrajectoryCache.h) and every answer is checked
//                           against the spawned clang's.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Compile/TrajectoryCache.h"
#include "mlgo/Compile/WorkerPool.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/Extract.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Parallel.h"
#include "mlgo/Support/Progress.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

cl::SubCommand CheckCmd("worker check",
                        "Compare the in-process compile worker with spawned "
                        "clang-19 -cc1 (+ plugin) on every module");
cl::SubCommand BenchCmd("worker bench",
                        "Modules/second: in-process worker vs spawning "
                        "clang-19 -cc1 per module");

cl::opt<std::string> CorpusDir(cl::Positional, cl::desc("<corpus dir>"),
                               cl::Required, cl::sub(CheckCmd),
                               cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<std::string> PolicyOpt(
    "policy",
    cl::desc("stock (clang as installed), heuristic (mlgo's advisor, LLVM "
             "deciding) or model=FILE"),
    cl::init("heuristic"), cl::sub(CheckCmd), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<unsigned> Jobs("jobs", cl::desc("parallel compiles (0: one per core)"),
                       cl::init(0), cl::sub(CheckCmd), cl::sub(BenchCmd),
                       cl::cat(Cat));
cl::alias JobsShort("j", cl::aliasopt(Jobs));
cl::opt<unsigned> Sample("sample",
                         cl::desc("use every k-th module so that about N "
                                  "modules are compiled (0: all)"),
                         cl::init(0), cl::sub(CheckCmd), cl::sub(BenchCmd),
                         cl::cat(Cat));
cl::opt<std::string> PluginPath("plugin",
                                cl::desc("the plugin for the spawned clang "
                                         "(default: next to mlgo)"),
                                cl::sub(CheckCmd), cl::sub(BenchCmd),
                                cl::cat(Cat));
cl::list<float> Thresholds(
    "thresholds",
    cl::desc("bench: compile the sample once per decision threshold of the "
             "--policy model (comma-separated), answering by trajectory "
             "replay where sound"),
    cl::CommaSeparated, cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<bool> NoReplay("no-replay",
                       cl::desc("bench: compile every job (no trajectory "
                                "replay)"),
                       cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<bool> NoSpawn(
    "no-spawn",
    cl::desc("bench: time the in-process workers alone (under mpirun, the "
             "worker ranks), without the spawned clang-19 -cc1 to compare "
             "with"),
    cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout", cl::desc("seconds per compile"),
                          cl::init(300), cl::sub(CheckCmd), cl::sub(BenchCmd),
                          cl::cat(Cat));

struct Setup {
  std::vector<CorpusModule> Modules;
  std::string Plugin;
  /// The workload: each module under each of these (the --policy, or the
  /// --thresholds variants of its model), with the arguments that make a
  /// spawned `clang-19 -cc1` do the same.
  std::vector<CompilePolicy> Policies;
  std::vector<std::vector<std::string>> PolicySpawnArgs;
  /// Holds the model files of a --thresholds workload; removed when the
  /// last copy of the setup goes.
  std::shared_ptr<std::string> TmpDir;
};

Expected<Setup> prepare() {
  Setup S;
  Expected<std::vector<CorpusModule>> Modules = loadTrainingCorpus(CorpusDir);
  if (!Modules)
    return Modules.takeError();
  if (Sample && Modules->size() > Sample) {
    size_t Step = Modules->size() / Sample;
    for (size_t I = 0; I < Modules->size() && S.Modules.size() < Sample;
         I += Step)
      S.Modules.push_back((*Modules)[I]);
  } else {
    S.Modules = std::move(*Modules);
  }
  S.Plugin =
      PluginPath.empty() ? getInstallDirs().Plugin : PluginPath.getValue();
  StringRef P = PolicyOpt;
  CompilePolicy ThePolicy;
  if (P == "stock") {
    ThePolicy = CompilePolicy::stock();
  } else if (P == "heuristic") {
    ThePolicy = CompilePolicy::heuristic();
  } else if (P.consume_front("model=")) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(P);
    if (!Buf)
      return Buf.takeError();
    ThePolicy = CompilePolicy::model((*Buf)->getBuffer().str(), P.str());
  } else {
    return makeError("unknown --policy '" + PolicyOpt +
                     "' (stock, heuristic or model=FILE)");
  }
  Expected<std::vector<std::string>> SpawnArgs = ThePolicy.getCC1Args(S.Plugin);
  if (!SpawnArgs)
    return SpawnArgs.takeError();
  if (!SpawnArgs->empty() && !sys::fs::exists(S.Plugin))
    return makeError(S.Plugin + ": plugin not found (use --plugin)");
  if (Thresholds.empty()) {
    S.Policies = {std::move(ThePolicy)};
    S.PolicySpawnArgs = {std::move(*SpawnArgs)};
    return S;
  }
  if (ThePolicy.Kind != PolicyKind::Model)
    return makeError("--thresholds needs --policy model=FILE");
  Expected<Model> M = Model::parse(ThePolicy.getModelJSON(), P);
  if (!M)
    return M.takeError();
  SmallString<128> Dir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-worker-bench", Dir))
    return createStringError(EC, "cannot create a temporary directory: " +
                                     EC.message());
  S.TmpDir =
      std::shared_ptr<std::string>(new std::string(Dir), [](std::string *D) {
        sys::fs::remove_directories(*D);
        delete D;
      });
  for (size_t I = 0; I < Thresholds.size(); ++I) {
    M->Decision.Threshold = Thresholds[I];
    std::string File = (*S.TmpDir + "/model-" + Twine(I) + ".json").str();
    if (Error E = M->save(File))
      return E;
    CompilePolicy Variant = CompilePolicy::model(M->toJSONString(), File);
    Expected<std::vector<std::string>> Args = Variant.getCC1Args(S.Plugin);
    if (!Args)
      return Args.takeError();
    S.Policies.push_back(std::move(Variant));
    S.PolicySpawnArgs.push_back(std::move(*Args));
  }
  return S;
}

/// One compile of the workload: module \p Module under policy \p Policy.
struct Work {
  size_t Module, Policy;
};

/// The workload: every module under each policy, policy by policy.
std::vector<Work> getWorkload(const Setup &S) {
  std::vector<Work> W;
  for (size_t P = 0; P < S.Policies.size(); ++P)
    for (size_t M = 0; M < S.Modules.size(); ++M)
      W.push_back({M, P});
  return W;
}

/// Compiles the workload with a spawned clang-19 -cc1, \p Threads at a
/// time. Returns per-compile .text size, or the error text.
std::vector<std::pair<uint64_t, std::string>>
spawnAll(const Setup &S, ArrayRef<Work> Workload, unsigned Threads) {
  std::vector<std::pair<uint64_t, std::string>> Out(Workload.size());
  SmallString<128> TmpDir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-worker", TmpDir)) {
    for (auto &O : Out)
      O.second = "cannot create a temporary directory: " + EC.message();
    return Out;
  }
  runJobs(Workload.size(), Threads, [&](size_t I) {
    const CorpusModule &M = S.Modules[Workload[I].Module];
    std::string Obj = (TmpDir + "/" + std::to_string(I) + ".o").str();
    CompileRequest R;
    R.CC1Args = M.CC1Args;
    R.BitcodePath = M.BitcodePath;
    R.OutputPath = Obj;
    R.ExtraArgs = S.PolicySpawnArgs[Workload[I].Policy];
    std::vector<std::string> Argv = buildCompileCommand(R);
    if (Error E = runCommand(Argv, Timeout)) {
      Out[I].second = M.Name + ": " + toString(std::move(E));
      return;
    }
    Expected<uint64_t> Size = getTextSize(Obj);
    if (!Size)
      Out[I].second = toString(Size.takeError());
    else
      Out[I].first = *Size;
    sys::fs::remove(Obj);
  });
  sys::fs::remove(TmpDir);
  return Out;
}

/// Compiles the workload in-process; with \p Cache, answering by replay
/// where it can.
std::vector<JobOutcome> runInProcess(const Setup &S, ArrayRef<Work> Workload,
                                     WorkerPool &Pool, TrajectoryCache *Cache) {
  std::vector<CompileJob> Jobs;
  std::vector<std::string> Keys;
  for (const Work &W : Workload) {
    Jobs.push_back(S.Modules[W.Module].makeJob(S.Policies[W.Policy]));
    Keys.push_back(S.Modules[W.Module].ContentHash);
  }
  Progress Shown("in-process");
  auto Update = [&](size_t Done, size_t Total) { Shown.update(Done, Total); };
  std::vector<JobOutcome> Outcomes =
      Cache ? Cache->run(Pool, Jobs, Keys, Update) : Pool.run(Jobs, Update);
  Shown.end();
  return Outcomes;
}

/// What both subcommands start from: the worker pool (created first, so
/// the workers are forked before any thread exists), the setup and its
/// workload.
struct Run {
  std::unique_ptr<WorkerPool> Pool;
  Setup S;
  std::vector<Work> Workload;
};

Expected<Run> start() {
  WorkerPoolOptions PO;
  PO.Workers = Jobs;
  PO.TimeoutSeconds = Timeout;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  Expected<Setup> S = prepare();
  if (!S)
    return S.takeError();
  Run R{std::move(*Pool), std::move(*S), {}};
  R.Workload = getWorkload(R.S);
  return R;
}

int runCheck() {
  Expected<Run> R = start();
  if (!R)
    return fail(R.takeError());
  const Setup &S = R->S;
  std::vector<JobOutcome> In =
      runInProcess(S, R->Workload, *R->Pool, /*Cache=*/nullptr);
  auto Spawned = spawnAll(S, R->Workload, R->Pool->getNumWorkers());
  size_t Same = 0, Differ = 0, Failed = 0;
  uint64_t TotalIn = 0, TotalSpawn = 0;
  for (size_t I = 0; I < R->Workload.size(); ++I) {
    const JobOutcome &A = In[I];
    const auto &B = Spawned[I];
    const std::string &Name = S.Modules[R->Workload[I].Module].Name;
    if (!A.ok() || !B.second.empty()) {
      ++Failed;
      outs() << "failed " << Name << ": "
             << (A.ok() ? "spawned: " + B.second : "in-process: " + A.Error)
             << "\n";
      continue;
    }
    TotalIn += A.Result->TextSize;
    TotalSpawn += B.first;
    if (A.Result->TextSize == B.first) {
      ++Same;
      continue;
    }
    ++Differ;
    outs() << "differs " << Name << ": in-process " << A.Result->TextSize
           << ", clang-19 -cc1 " << B.first << "\n";
  }
  outs() << "modules: " << S.Modules.size() << ", identical .text: " << Same
         << ", different: " << Differ << ", failed: " << Failed << "\n"
         << "total .text: in-process " << TotalIn << ", clang-19 -cc1 "
         << TotalSpawn << "\n";
  return Differ || Failed ? 1 : 0;
}

int runBench() {
  Expected<Run> R = start();
  if (!R)
    return fail(R.takeError());
  const Setup &S = R->S;
  const std::vector<Work> &Workload = R->Workload;
  WorkerPool &Pool = *R->Pool;
  using Clock = std::chrono::steady_clock;
  // Replay only pays where policies repeat modules; a single policy is
  // compiled as is.
  TrajectoryCache Cache;
  bool Replay = !NoReplay && S.Policies.size() > 1;
  auto T0 = Clock::now();
  std::vector<JobOutcome> In =
      runInProcess(S, Workload, Pool, Replay ? &Cache : nullptr);
  auto T1 = Clock::now();
  if (NoSpawn) {
    size_t Failed = 0;
    for (const JobOutcome &O : In)
      Failed += !O.ok();
    double Sec = std::chrono::duration<double>(T1 - T0).count();
    outs() << format("modules: %zu, policies: %zu, compiles: %zu, parallel: "
                     "%u, policy: %s, failed: %zu\n",
                     S.Modules.size(), S.Policies.size(), Workload.size(),
                     Pool.getNumWorkers(), PolicyOpt.c_str(), Failed)
           << format("in-process worker: %8.2f s  %8.2f modules/s\n", Sec,
                     Workload.size() / Sec);
    return Failed ? 1 : 0;
  }
  auto Spawned = spawnAll(S, Workload, Pool.getNumWorkers());
  auto T2 = Clock::now();
  for (size_t I = 0; I < Workload.size(); ++I) {
    if (!In[I].ok() || !Spawned[I].second.empty())
      return fail(makeError("benchmark compile failed: " +
                            (In[I].ok() ? Spawned[I].second : In[I].Error)));
    // Every answer, replayed or compiled, must be clang's.
    if (In[I].Result->TextSize != Spawned[I].first)
      return fail(makeError(
          formatv("{0} (policy {1}): in-process .text {2} but clang-19 -cc1 "
                  "{3}",
                  S.Modules[Workload[I].Module].Name, Workload[I].Policy,
                  In[I].Result->TextSize, Spawned[I].first)
              .str()));
  }
  double InSec = std::chrono::duration<double>(T1 - T0).count();
  double SpawnSec = std::chrono::duration<double>(T2 - T1).count();
  double N = Workload.size();
  outs() << format("modules: %zu, policies: %zu, compiles: %.0f, parallel: "
                   "%u, policy: %s\n",
                   S.Modules.size(), S.Policies.size(), N, Pool.getNumWorkers(),
                   PolicyOpt.c_str());
  if (Replay)
    outs() << format("answered by trajectory replay: %llu of %llu\n",
                     (unsigned long long)Cache.getStats().Hits,
                     (unsigned long long)N);
  outs() << format("in-process worker: %8.2f s  %8.2f modules/s\n", InSec,
                   N / InSec)
         << format("spawn clang-19 -cc1: %6.2f s  %8.2f modules/s\n", SpawnSec,
                   N / SpawnSec)
         << format("speedup: %.2fx\n", SpawnSec / InSec)
         << "every .text size equal to clang-19 -cc1's: yes\n";
  return 0;
}

tool::RegisterGroup RegGroup(
    "worker",
    "Check and benchmark the in-process compile worker against spawned clang");
tool::RegisterSubcommand RegCheck(CheckCmd, runCheck);
tool::RegisterSubcommand RegBench(BenchCmd, runBench);

} // namespace
