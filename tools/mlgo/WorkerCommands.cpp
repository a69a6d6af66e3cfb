//===- tools/mlgo/WorkerCommands.cpp - mlgo worker check|bench ------------===//
//
//   mlgo worker check DIR   compiles modules in-process (the training
//                           worker) and with a spawned `clang-19 -cc1` plus
//                           the plugin, and compares their .text sizes;
//   mlgo worker bench DIR   modules/second of the two, in one run.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/Extract.h"
#include "mlgo/Train/TrainingCorpus.h"
#include "mlgo/Train/WorkerPool.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <mutex>

using namespace llvm;
using namespace mlgo;

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
cl::opt<unsigned> Timeout("timeout", cl::desc("seconds per compile"),
                          cl::init(300), cl::sub(CheckCmd), cl::sub(BenchCmd),
                          cl::cat(Cat));

int fail(Error E) {
  WithColor::error(errs(), "mlgo") << toString(std::move(E)) << "\n";
  return 1;
}

struct Setup {
  std::vector<CorpusModule> Modules;
  Policy ThePolicy;
  std::vector<std::string> SpawnArgs; // Added to `clang-19 -cc1`.
  std::string Plugin;
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
  S.Plugin = PluginPath.empty() ? getDefaultPluginPath() : PluginPath.getValue();
  std::vector<std::string> PluginArgs{"-load", S.Plugin,
                                      "-fpass-plugin=" + S.Plugin};
  StringRef P = PolicyOpt;
  if (P == "stock") {
    S.ThePolicy = Policy::stock();
  } else if (P == "heuristic") {
    S.ThePolicy = Policy::heuristic();
    S.SpawnArgs = PluginArgs;
    S.SpawnArgs.insert(S.SpawnArgs.end(), {"-mllvm", "-mlgo-default-policy"});
  } else if (P.consume_front("model=")) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(P);
    if (!Buf)
      return createStringError(Buf.getError(),
                               P + ": " + Buf.getError().message());
    S.ThePolicy = Policy::model((*Buf)->getBuffer().str());
    S.SpawnArgs = PluginArgs;
    S.SpawnArgs.insert(S.SpawnArgs.end(),
                       {"-mllvm", ("-mlgo-model=" + P).str()});
  } else {
    return createStringError(inconvertibleErrorCode(),
                             "unknown --policy '" + PolicyOpt +
                                 "' (stock, heuristic or model=FILE)");
  }
  if (!S.SpawnArgs.empty() && !sys::fs::exists(S.Plugin))
    return createStringError(inconvertibleErrorCode(),
                             S.Plugin + ": plugin not found (use --plugin)");
  return S;
}

/// Compiles every module with a spawned clang-19 -cc1, \p Threads at a time.
/// Returns per-module .text size, or the error text.
std::vector<std::pair<uint64_t, std::string>>
spawnAll(const Setup &S, unsigned Threads) {
  std::vector<std::pair<uint64_t, std::string>> Out(S.Modules.size());
  SmallString<128> TmpDir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-worker", TmpDir)) {
    for (auto &O : Out)
      O.second = "cannot create a temporary directory: " + EC.message();
    return Out;
  }
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  for (size_t I = 0; I < S.Modules.size(); ++I)
    Pool.async([&, I] {
      const CorpusModule &M = S.Modules[I];
      std::string Obj = (TmpDir + "/" + std::to_string(I) + ".o").str();
      CompileRequest R;
      R.CC1Args = M.CC1Args;
      R.BitcodePath = M.BitcodePath;
      R.OutputPath = Obj;
      R.ExtraArgs = S.SpawnArgs;
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
  Pool.wait();
  sys::fs::remove(TmpDir);
  return Out;
}

Expected<std::vector<JobOutcome>> runInProcess(const Setup &S,
                                               WorkerPool &Pool) {
  std::vector<CompileJob> Jobs;
  for (const CorpusModule &M : S.Modules)
    Jobs.push_back(M.makeJob(S.ThePolicy));
  return Pool.run(Jobs, [](size_t Done, size_t Total) {
    if (Done % 50 == 0 || Done == Total)
      errs() << "\rin-process: " << Done << "/" << Total;
    if (Done == Total)
      errs() << "\n";
  });
}

/// The worker pool; created first, so the workers are forked before any
/// thread exists.
Expected<std::unique_ptr<WorkerPool>> createPool() {
  WorkerPoolOptions PO;
  PO.Workers = Jobs;
  PO.TimeoutSeconds = Timeout;
  return WorkerPool::create(PO);
}

int runCheck() {
  auto Pool = createPool();
  if (!Pool)
    return fail(Pool.takeError());
  Expected<Setup> S = prepare();
  if (!S)
    return fail(S.takeError());
  Expected<std::vector<JobOutcome>> In = runInProcess(*S, **Pool);
  if (!In)
    return fail(In.takeError());
  auto Spawned = spawnAll(*S, (*Pool)->getNumWorkers());
  size_t Same = 0, Differ = 0, Failed = 0;
  uint64_t TotalIn = 0, TotalSpawn = 0;
  for (size_t I = 0; I < S->Modules.size(); ++I) {
    const JobOutcome &A = (*In)[I];
    const auto &B = Spawned[I];
    if (!A.ok() || !B.second.empty()) {
      ++Failed;
      outs() << "failed " << S->Modules[I].Name << ": "
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
    outs() << "differs " << S->Modules[I].Name << ": in-process "
           << A.Result->TextSize << ", clang-19 -cc1 " << B.first << "\n";
  }
  outs() << "modules: " << S->Modules.size() << ", identical .text: " << Same
         << ", different: " << Differ << ", failed: " << Failed << "\n"
         << "total .text: in-process " << TotalIn << ", clang-19 -cc1 "
         << TotalSpawn << "\n";
  return Differ || Failed ? 1 : 0;
}

int runBench() {
  auto Pool = createPool();
  if (!Pool)
    return fail(Pool.takeError());
  Expected<Setup> S = prepare();
  if (!S)
    return fail(S.takeError());
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  Expected<std::vector<JobOutcome>> In = runInProcess(*S, **Pool);
  if (!In)
    return fail(In.takeError());
  auto T1 = Clock::now();
  auto Spawned = spawnAll(*S, (*Pool)->getNumWorkers());
  auto T2 = Clock::now();
  for (size_t I = 0; I < S->Modules.size(); ++I)
    if (!(*In)[I].ok() || !Spawned[I].second.empty())
      return fail(createStringError(
          inconvertibleErrorCode(),
          "benchmark compile failed: " +
              ((*In)[I].ok() ? Spawned[I].second : (*In)[I].Error)));
  double InSec = std::chrono::duration<double>(T1 - T0).count();
  double SpawnSec = std::chrono::duration<double>(T2 - T1).count();
  double N = S->Modules.size();
  outs() << format("modules: %.0f, parallel: %u, policy: %s\n", N,
                   (*Pool)->getNumWorkers(), PolicyOpt.c_str())
         << format("in-process worker: %8.2f s  %8.2f modules/s\n", InSec,
                   N / InSec)
         << format("spawn clang-19 -cc1: %6.2f s  %8.2f modules/s\n", SpawnSec,
                   N / SpawnSec)
         << format("speedup: %.2fx\n", SpawnSec / InSec);
  return 0;
}

tool::RegisterSubcommand RegCheck(CheckCmd, runCheck);
tool::RegisterSubcommand RegBench(BenchCmd, runBench);

} // namespace
