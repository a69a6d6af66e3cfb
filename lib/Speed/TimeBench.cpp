//===- lib/Speed/TimeBench.cpp - Time that can be trusted -----------------===//
//
// See mlgo/Speed/TimeBench.h: builds run in seeded rounds, pinned, timed by
// wait4's CPU time, wall clock and (where there is one) a cycle counter,
// until the bootstrap intervals of BenchStats are narrow enough.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/TimeBench.h"

#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/FileDescriptor.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {
namespace speed {

namespace {

using Clock = std::chrono::steady_clock;

/// A user-mode cycle counter on the calling thread that also counts the
/// children it spawns (inherit): their counts are added to it when they
/// end. Between enable() and disable() the thread itself only waits, so
/// what it counts is the child's.
class CycleCounter {
public:
  /// A counter, or why there is none.
  static Expected<CycleCounter> open() {
    struct perf_event_attr Attr;
    std::memset(&Attr, 0, sizeof(Attr));
    Attr.size = sizeof(Attr);
    Attr.type = PERF_TYPE_HARDWARE;
    Attr.config = PERF_COUNT_HW_CPU_CYCLES;
    Attr.disabled = 1;
    Attr.inherit = 1;
    Attr.exclude_kernel = 1;
    Attr.exclude_hv = 1;
    long FD =
        ::syscall(SYS_perf_event_open, &Attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (FD < 0)
      return makeError("perf_event_open has no cycle counter (" +
                       Twine(std::strerror(errno)) + ")");
    CycleCounter C;
    C.FD.reset(static_cast<int>(FD));
    return C;
  }
  void enable() {
    ::ioctl(FD.get(), PERF_EVENT_IOC_RESET, 0);
    ::ioctl(FD.get(), PERF_EVENT_IOC_ENABLE, 0);
  }
  /// Stops counting and reads the count (none if it cannot be read).
  std::optional<double> disable() {
    ::ioctl(FD.get(), PERF_EVENT_IOC_DISABLE, 0);
    uint64_t Count = 0;
    if (::read(FD.get(), &Count, sizeof(Count)) != sizeof(Count))
      return std::nullopt;
    return double(Count);
  }

private:
  FileDescriptor FD;
};

/// The last CPU the calling thread may run on, if it can tell.
std::optional<unsigned> lastAllowedCPU() {
  cpu_set_t Allowed;
  if (::sched_getaffinity(0, sizeof(Allowed), &Allowed) != 0)
    return std::nullopt;
  for (int I = CPU_SETSIZE - 1; I >= 0; --I)
    if (CPU_ISSET(I, &Allowed))
      return unsigned(I);
  return std::nullopt;
}

std::string readFileOrEmpty(const std::string &Path) {
  // As a stream: /proc files say they are empty.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFileAsStream(Path);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

std::string tailLines(StringRef Text, size_t N) {
  Text = Text.rtrim('\n');
  size_t Pos = Text.size();
  for (size_t I = 0; I < N && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  return (Pos == StringRef::npos ? Text : Text.drop_front(Pos + 1)).str();
}

/// One timed run.
struct RunTimes {
  double CPU = 0, Wall = 0;
  std::optional<double> Cycles;
};

} // namespace

std::string readLoadAverage() {
  std::string Text = readFileOrEmpty("/proc/loadavg");
  SmallVector<StringRef, 5> Fields;
  StringRef(Text).split(Fields, ' ', -1, /*KeepEmpty=*/false);
  if (Fields.size() < 3)
    return "?";
  return (Fields[0] + " " + Fields[1] + " " + Fields[2]).str();
}

Expected<BenchResult> runTimeBench(ArrayRef<BenchBuild> Builds,
                                   const BenchOptions &Options,
                                   raw_ostream *Progress) {
  assert(Builds.size() >= 2 && "a bench compares builds with a baseline");
  size_t N = Builds.size();
  BenchResult Result;
  Result.Rule = Options.Stop;
  for (const BenchBuild &B : Builds)
    Result.Names.push_back(B.Name);
  Result.CPUSeconds.resize(N);
  Result.WallSeconds.resize(N);
  Result.Cycles.resize(N);

  if (Options.NoPin)
    Result.NotPinned = "not asked to (--no-pin)";
  else if (Options.CPU)
    Result.PinnedCPU = Options.CPU;
  else if (!(Result.PinnedCPU = lastAllowedCPU()))
    Result.NotPinned = "sched_getaffinity failed";
  std::optional<CycleCounter> Counter;
  if (Expected<CycleCounter> C = CycleCounter::open()) {
    Counter = std::move(*C);
    Result.HaveCycles = true;
  } else {
    Result.NoCycles = toString(C.takeError());
  }

  std::string Reference = Options.WorkDir + "/baseline.out";
  auto OutputOf = [&](size_t Build) {
    return Options.WorkDir + "/build" + std::to_string(Build + 1) + ".out";
  };
  auto ErrorsOf = [&](size_t Build) {
    return Options.WorkDir + "/build" + std::to_string(Build + 1) + ".err";
  };
  bool HaveReference = false;

  // Runs build B once, checks its output and returns its times.
  auto runOnce = [&](size_t B) -> Expected<RunTimes> {
    const BenchBuild &Build = Builds[B];
    auto Fail = [&](const Twine &Why) {
      return makeError("build '" + Build.Name + "': " + Why);
    };
    SpawnOptions SO;
    SO.Stdin = Options.Stdin ? *Options.Stdin : std::string("/dev/null");
    SO.Stdout = OutputOf(B);
    SO.Stderr = ErrorsOf(B);
    SO.OwnProcessGroup = true;
    SO.CPU = Result.PinnedCPU;
    if (Counter)
      Counter->enable();
    Clock::time_point Start = Clock::now();
    Expected<ChildProcess> Child = ChildProcess::spawn(Build.Argv, SO);
    if (!Child) {
      if (Counter)
        Counter->disable();
      return Fail(toString(Child.takeError()));
    }
    std::optional<ProcessResult> End =
        Child->waitUntil(Start + std::chrono::seconds(Options.TimeoutSeconds));
    Clock::time_point Stop = Clock::now();
    std::optional<double> Cycles;
    if (Counter)
      Cycles = Counter->disable();
    if (!End) {
      Child->kill();
      Child->wait();
      return Fail("the workload timed out after " +
                  Twine(Options.TimeoutSeconds) + " s");
    }
    if (!End->succeeded())
      return Fail("the workload " + End->describe() +
                  "; its last lines of standard error:\n" +
                  tailLines(readFileOrEmpty(ErrorsOf(B)), 10));
    RunTimes T;
    T.CPU = Child->getUsage() ? Child->getUsage()->cpuSeconds() : 0;
    T.Wall = std::chrono::duration<double>(Stop - Start).count();
    T.Cycles = Cycles;
    // The baseline's first output is the reference of every other run
    // (moved aside whole; the next run of the baseline writes a new one).
    if (!HaveReference) {
      if (std::error_code EC = sys::fs::rename(OutputOf(B), Reference))
        return makeError(Reference + ": " + EC.message());
      HaveReference = true;
      return T;
    }
    if (readFileOrEmpty(OutputOf(B)) != readFileOrEmpty(Reference)) {
      // Keep the differing output for the reader.
      std::string Kept = Options.WorkDir + "/" + "differs-build" +
                         std::to_string(B + 1) + ".out";
      sys::fs::rename(OutputOf(B), Kept);
      return Fail("its output differs from that of the baseline '" +
                  Builds[0].Name + "' (compare " + Kept + " with " + Reference +
                  ")");
    }
    return T;
  };

  Result.LoadBefore = readLoadAverage();
  // The reference output comes from the baseline, before any other build.
  if (Expected<RunTimes> T = runOnce(0); !T)
    return T.takeError();
  uint64_t OrderState = Options.Seed;
  for (unsigned W = 0; W < Options.WarmupRounds; ++W)
    for (unsigned B : roundOrder(N, OrderState))
      if (Expected<RunTimes> T = runOnce(B); !T)
        return T.takeError();

  Clock::time_point First = Clock::now();
  std::vector<RatioEstimate> Estimates(N - 1);
  while (true) {
    std::vector<RunTimes> Round(N);
    for (unsigned B : roundOrder(N, OrderState)) {
      Expected<RunTimes> T = runOnce(B);
      if (!T)
        return T.takeError();
      Round[B] = *T;
    }
    // A counter that could not be read once is not trusted at all.
    for (size_t B = 0; B < N && Result.HaveCycles; ++B)
      if (!Round[B].Cycles) {
        Result.HaveCycles = false;
        Result.NoCycles = "the cycle counter could not be read";
      }
    for (size_t B = 0; B < N; ++B) {
      Result.CPUSeconds[B].push_back(Round[B].CPU);
      Result.WallSeconds[B].push_back(Round[B].Wall);
      Result.Cycles[B].push_back(Round[B].Cycles.value_or(0));
    }
    ++Result.Rounds;
    const std::vector<std::vector<double>> &Values = Result.decidedValues();
    for (size_t B = 1; B < N; ++B)
      Estimates[B - 1] = bootstrapMedian(pairedRatios(Values[B], Values[0]),
                                         Options.Seed, Options.Resamples);
    double Elapsed =
        std::chrono::duration<double>(Clock::now() - First).count();
    if (Progress) {
      *Progress << "round " << Result.Rounds << ":";
      for (size_t B = 1; B < N; ++B)
        *Progress << formatv(" {0} {1:F4} [{2:F4}, {3:F4}]", Builds[B].Name,
                             Estimates[B - 1].Median, Estimates[B - 1].CI.Low,
                             Estimates[B - 1].CI.High);
      *Progress << "\n";
    }
    Result.Stopped =
        shouldStop(Options.Stop, Result.Rounds, Elapsed, Estimates);
    if (Result.Stopped != StopReason::KeepGoing)
      break;
  }
  Result.LoadAfter = readLoadAverage();

  const std::vector<std::vector<double>> &Values = Result.decidedValues();
  Result.Decided.assign(N, RatioEstimate());
  Result.Wall.assign(N, RatioEstimate());
  for (size_t B = 1; B < N; ++B) {
    Result.Decided[B] = bootstrapMedian(pairedRatios(Values[B], Values[0]),
                                        Options.Seed, Options.Resamples);
    Result.Wall[B] = bootstrapMedian(
        pairedRatios(Result.WallSeconds[B], Result.WallSeconds[0]),
        Options.Seed, Options.Resamples);
  }
  return Result;
}

void BenchResult::print(raw_ostream &OS) const {
  OS << "rounds: " << Rounds << " (stopped " << describe(Stopped, Rule)
     << ")\n";
  if (PinnedCPU)
    OS << "pinned to CPU " << *PinnedCPU << "\n";
  else
    OS << "not pinned: " << NotPinned << "\n";
  if (HaveCycles)
    OS << "measure: cycles (user mode, perf_event_open)\n";
  else
    OS << "measure: CPU time (user + system) of the workload; no cycles: "
       << NoCycles << "\n";
  OS << "load average before: " << LoadBefore << ", after: " << LoadAfter
     << "\n";
  const std::vector<std::vector<double>> &Values = decidedValues();
  for (size_t B = 0; B < Names.size(); ++B) {
    double Median = median(Values[B]);
    double WallMedian = median(WallSeconds[B]);
    OS << (B == 0 ? "baseline " : "build ") << "'" << Names[B] << "': median "
       << (HaveCycles ? formatv("{0:F0} cycles", Median).str()
                      : formatv("{0:F4} s CPU", Median).str())
       << formatv(", {0:F4} s wall", WallMedian);
    if (B == 0) {
      OS << "\n";
      continue;
    }
    const RatioEstimate &E = Decided[B];
    Verdict V = judge(E.CI);
    OS << formatv("\n  {0} ratio to the baseline: {1:F4}, 95% interval "
                  "[{2:F4}, {3:F4}]: ",
                  decidedMeasure(), E.Median, E.CI.Low, E.CI.High)
       << describe(V);
    OS << formatv("\n  wall time ratio (not decided on): {0:F4}, 95% "
                  "interval [{1:F4}, {2:F4}]\n",
                  Wall[B].Median, Wall[B].CI.Low, Wall[B].CI.High);
  }
}

void BenchResult::printJSON(raw_ostream &OS) const {
  json::Array Builds;
  for (size_t B = 0; B < Names.size(); ++B) {
    json::Object O{{"name", Names[B]},
                   {"cpu_seconds", json::Array(CPUSeconds[B])},
                   {"wall_seconds", json::Array(WallSeconds[B])}};
    if (HaveCycles)
      O["cycles"] = json::Array(Cycles[B]);
    if (B > 0) {
      auto estimate = [](const RatioEstimate &E) {
        return json::Object{{"median", E.Median},
                            {"low", E.CI.Low},
                            {"high", E.CI.High},
                            {"verdict", describe(judge(E.CI))}};
      };
      O["ratio"] = estimate(Decided[B]);
      O["wall_ratio"] = estimate(Wall[B]);
    }
    Builds.push_back(std::move(O));
  }
  json::Object Top{
      {"rounds", int64_t(Rounds)},   {"stopped", describe(Stopped, Rule)},
      {"measure", decidedMeasure()}, {"load_before", LoadBefore},
      {"load_after", LoadAfter},     {"builds", std::move(Builds)}};
  if (PinnedCPU)
    Top["pinned_cpu"] = int64_t(*PinnedCPU);
  else
    Top["not_pinned"] = NotPinned;
  if (!HaveCycles)
    Top["no_cycles"] = NoCycles;
  OS << formatv("{0:2}", json::Value(std::move(Top))) << "\n";
}

Error BenchResult::savePlot(StringRef Path) const {
  std::vector<std::string> Columns(Names.begin() + 1, Names.end());
  Columns.push_back("baseline (1)");
  learn::LearningCurve Curve(std::string("mlgo bench: ") + decidedMeasure() +
                                 " ratio to '" + Names[0] +
                                 "' per round, sorted",
                             "rank of the round", Columns);
  const std::vector<std::vector<double>> &Values = decidedValues();
  std::vector<std::vector<double>> Sorted;
  for (size_t B = 1; B < Names.size(); ++B) {
    Sorted.push_back(pairedRatios(Values[B], Values[0]));
    llvm::sort(Sorted.back());
  }
  for (unsigned R = 0; R < Rounds; ++R) {
    std::vector<double> Point;
    for (const std::vector<double> &S : Sorted)
      Point.push_back(S[R]);
    Point.push_back(1);
    Curve.addPoint(R + 1, Point);
  }
  return Curve.saveSVG(Path);
}

} // namespace speed
} // namespace mlgo
