//===- tools/mlgo/BenchCommand.cpp - mlgo bench ---------------------------===//
//
//   mlgo bench BUILD BUILD... [--arg=A]... [--stdin=FILE] [--ci-width=W]
//       [--min-runs=N] [--max-runs=N] [--max-seconds=S] [--timeout=S]
//       [--seed=N] [--cpu=N | --no-pin] [--svg=FILE] [--json]
//       [--work-dir=DIR]
//
// Times two or more builds of a program (each BUILD a program to run; the
// first is the baseline) on one workload (--arg..., --stdin) with
// mlgo/Speed/TimeBench.h: alternately, pinned, by CPU time or cycles, until
// the 95% interval of each build's median ratio to the baseline is
// narrower than --ci-width or a cap is reached; prints each ratio with its
// interval and verdict ("slower", "faster", "no measurable difference").
// A build that fails, hangs or prints another output than the baseline is
// an error naming it.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Speed/TimeBench.h"
#include "mlgo/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand BenchCmd("bench",
                        "Time builds of a program on a workload, alternately, "
                        "until the ratio's 95% interval is narrow enough");
cl::list<std::string> BuildPrograms(cl::Positional, cl::OneOrMore,
                                    cl::desc("<baseline program> <program>..."),
                                    cl::sub(BenchCmd), cl::cat(Cat));
cl::list<std::string> Args("arg",
                           cl::desc("an argument of the workload, given to "
                                    "every build (repeat for more)"),
                           cl::value_desc("argument"), cl::sub(BenchCmd),
                           cl::cat(Cat));
cl::opt<std::string> StdinFile("stdin",
                               cl::desc("the workload's standard input "
                                        "(default: /dev/null)"),
                               cl::value_desc("file"), cl::sub(BenchCmd),
                               cl::cat(Cat));
cl::opt<double> CIWidth("ci-width",
                        cl::desc("stop once every 95% interval of a ratio is "
                                 "at most this wide (default 0.01)"),
                        cl::init(0.01), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<unsigned> MinRuns("min-runs",
                          cl::desc("runs of each build before stopping "
                                   "(default 5)"),
                          cl::init(5), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<unsigned> MaxRuns("max-runs",
                          cl::desc("stop after this many runs of each build "
                                   "(default 200)"),
                          cl::init(200), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<double> MaxSeconds("max-seconds",
                           cl::desc("stop after this many seconds of timed "
                                    "runs (default 600; 0: no cap)"),
                           cl::init(600), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("a run longer than this many seconds is an "
                                   "error (default 60)"),
                          cl::init(60), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<uint64_t> Seed("seed",
                       cl::desc("seeds the order of the runs and the "
                                "bootstrap (default 1)"),
                       cl::init(1), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<int> CPU("cpu",
                 cl::desc("the CPU to run on (default: the last one allowed)"),
                 cl::init(-1), cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<bool> NoPin("no-pin", cl::desc("do not pin the runs to one CPU"),
                    cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<std::string> SVG("svg",
                         cl::desc("plot each build's ratios to the baseline, "
                                  "sorted, as SVG"),
                         cl::value_desc("file"), cl::sub(BenchCmd),
                         cl::cat(Cat));
cl::opt<bool> JSON("json", cl::desc("print JSON, with every run's times"),
                   cl::sub(BenchCmd), cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir",
                             cl::desc("keep the runs' outputs here (default: "
                                      "a temporary directory, removed after "
                                      "a bench that succeeded)"),
                             cl::value_desc("dir"), cl::sub(BenchCmd),
                             cl::cat(Cat));
cl::opt<bool> Verbose("v", cl::desc("print the estimates after each round"),
                      cl::sub(BenchCmd), cl::cat(Cat));

int runBench() {
  if (BuildPrograms.size() < 2)
    return fail("bench compares builds: give a baseline and at least one "
                "other program");
  if (CIWidth <= 0)
    return fail("--ci-width must be positive");
  if (MaxRuns && MinRuns > MaxRuns)
    return fail("--min-runs (" + Twine(MinRuns) + ") exceeds --max-runs (" +
                Twine(MaxRuns) + ")");
  if (!MaxRuns && MaxSeconds <= 0)
    return fail("--max-runs=0 needs a --max-seconds cap");
  if (Timeout == 0)
    return fail("--timeout must be at least 1 s");
  if (!StdinFile.empty() && !sys::fs::exists(StdinFile))
    return fail(StdinFile + ": no such file");
  std::vector<BenchBuild> Builds;
  for (const std::string &P : BuildPrograms) {
    BenchBuild B{P, {P}};
    B.Argv.insert(B.Argv.end(), Args.begin(), Args.end());
    Builds.push_back(std::move(B));
  }
  BenchOptions O;
  O.Stop.CIWidth = CIWidth;
  O.Stop.MinRounds = MinRuns;
  O.Stop.MaxRounds = MaxRuns;
  O.Stop.MaxSeconds = MaxSeconds;
  O.TimeoutSeconds = Timeout;
  O.Seed = Seed;
  O.NoPin = NoPin;
  if (CPU >= 0)
    O.CPU = unsigned(CPU);
  if (!StdinFile.empty())
    O.Stdin = StdinFile;
  bool Temporary = WorkDir.empty();
  if (Temporary) {
    SmallString<128> Dir;
    if (std::error_code EC = sys::fs::createUniqueDirectory("mlgo-bench", Dir))
      return fail("cannot create a temporary directory: " + EC.message());
    O.WorkDir = Dir.str().str();
  } else {
    if (std::error_code EC = sys::fs::create_directories(WorkDir))
      return fail(WorkDir + ": " + EC.message());
    O.WorkDir = WorkDir;
  }
  Expected<BenchResult> R =
      runTimeBench(Builds, O, Verbose ? &errs() : nullptr);
  if (!R)
    return fail(R.takeError());
  if (Temporary)
    sys::fs::remove_directories(O.WorkDir);
  if (!SVG.empty())
    if (Error E = R->savePlot(SVG))
      return fail(std::move(E));
  if (JSON)
    R->printJSON(outs());
  else
    R->print(outs());
  return 0;
}

tool::RegisterSubcommand Registered(BenchCmd, runBench);

} // namespace
