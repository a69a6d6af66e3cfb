//===- lib/Eval/PackageEval.cpp - Build a program twice, test it ----------===//
//
// Runs the package steps of scripts/eval-package.sh (the recipes of
// scripts/packages/) or the build steps of scripts/eval-build.sh (a source
// tree) with timeouts and logs, and measures what they built (see
// mlgo/Eval/PackageEval.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/PackageEval.h"

#include "mlgo/Corpus/Extract.h"
#include "mlgo/Eval/ClangModuleCompiler.h"
#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Speed/BlockCounts.h"
#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Speed/CycleEstimate.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Speed/TimeBench.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {

using speed::CallgrindRun;
using speed::runCallgrind;

/// Runs \p Argv in its own process group (killed whole on timeout), with
/// stdout and stderr to \p LogPath (stdout to \p StdoutPath instead when
/// given).
static ProcessResult runLogged(ArrayRef<std::string> Argv, StringRef LogPath,
                               unsigned TimeoutSeconds,
                               StringRef StdoutPath = "") {
  RunOptions O;
  O.Stdin = "/dev/null";
  O.Stdout = (StdoutPath.empty() ? LogPath : StdoutPath).str();
  O.Stderr = LogPath.str();
  O.TimeoutSeconds = TimeoutSeconds;
  O.OwnProcessGroup = true;
  return runProcess(Argv, O);
}

Expected<std::vector<std::string>> findLinkedArtifacts(StringRef BuildDir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(BuildDir, EC,
                                                /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    // CMake's compiler probes (CMakeFiles/<version>/CompilerIdC/a.out, ...)
    // are not the package's artifacts.
    if (It->type() == sys::fs::file_type::directory_file &&
        sys::path::filename(It->path()) == "CMakeFiles") {
      It.no_push();
      continue;
    }
    if (It->type() != sys::fs::file_type::regular_file)
      continue;
    file_magic Magic;
    if (std::error_code MagicEC = identify_magic(It->path(), Magic))
      return makeError(It->path() + ": " + MagicEC.message());
    if (Magic != file_magic::elf_executable &&
        Magic != file_magic::elf_shared_object && Magic != file_magic::archive)
      continue;
    StringRef Rel = StringRef(It->path()).drop_front(BuildDir.size());
    Out.push_back(Rel.ltrim('/').str());
  }
  if (EC)
    return makeError(BuildDir + ": " + EC.message());
  llvm::sort(Out);
  return Out;
}

/// Fetches Opts.Package's source (WORK/fetch.log); returns its directory.
/// \p ForProfile: for `mlgo profile package`, which also takes a training
/// package whose recipe has a profile workload but no tests.
static Expected<std::string> fetchSource(const PackageEvalOptions &Opts,
                                         bool ForProfile = false) {
  const std::string &Pkg = Opts.Package;
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());
  SmallString<128> SrcFile(Opts.WorkDir), FetchLog(Opts.WorkDir);
  sys::path::append(SrcFile, "source-dir.txt");
  sys::path::append(FetchLog, "fetch.log");
  if (Opts.Log)
    Opts.Log("fetching the Debian source of " + Pkg);
  std::vector<std::string> Argv = {"bash", Opts.RecipeScript, "fetch", Pkg,
                                   Opts.SourceCache};
  if (ForProfile)
    Argv.push_back("--for-profile");
  ProcessResult Fetch =
      runLogged(Argv, FetchLog, Opts.BuildTimeoutSeconds, SrcFile);
  if (!Fetch.succeeded())
    return makeError(Pkg + ": fetching the source " + Fetch.describe() + ":\n" +
                     readTail(FetchLog, 10));
  std::string Src = readTail(SrcFile, 1);
  if (Src.empty() || !sys::fs::is_directory(Src))
    return makeError(Pkg + ": the recipe gave no source directory (see " +
                     FetchLog + ")");
  return Src;
}

/// The recipe's \p Key (speed-objects, lto-objects, lto-link): its one
/// line, or "" when the recipe has none.
static Expected<std::string> getRecipeKey(const PackageEvalOptions &Opts,
                                          StringRef Key, StringRef What) {
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());
  std::string Log = Opts.WorkDir + "/" + Key.str() + ".log",
              Out = Opts.WorkDir + "/" + Key.str() + ".txt";
  ProcessResult R = runLogged(
      {"bash", Opts.RecipeScript, Key.str(), Opts.Package}, Log, 60, Out);
  if (!R.succeeded())
    return makeError(Opts.Package + ": the recipe's " + What + " " +
                     R.describe() + ":\n" + readTail(Log, 5));
  return readTail(Out, 1);
}

Expected<std::string> getPackageLtoLink(const PackageEvalOptions &Opts) {
  return getRecipeKey(Opts, "lto-link", "lto_link");
}

Error buildPackageCorpus(const PackageEvalOptions &Opts, StringRef CorpusDir,
                         PackageCorpus Kind) {
  const std::string &Pkg = Opts.Package;
  const bool ForSpeed = Kind == PackageCorpus::Speed;
  Expected<std::string> Src = fetchSource(Opts, /*ForProfile=*/ForSpeed);
  if (!Src)
    return Src.takeError();
  std::string Out = Opts.WorkDir + "/corpus-build";
  std::string BuildLog = Opts.WorkDir + "/build-corpus.log";
  StringRef Level = ForSpeed ? "-O2" : "-Oz";
  if (Opts.Log)
    Opts.Log(
        ("building " + Pkg + " with " + Level + " and embedded bitcode").str());
  ProcessResult R = runLogged({"env", ("MLGO_EVAL_OPT_LEVEL=" + Level).str(),
                               "bash", Opts.RecipeScript, "corpus-build", Pkg,
                               *Src, Out, std::to_string(Opts.Jobs)},
                              BuildLog, Opts.BuildTimeoutSeconds);
  if (!R.succeeded())
    return makeError(Pkg + ": the corpus build " + R.describe() +
                     "; last lines of " + BuildLog + ":\n" +
                     readTail(BuildLog, 15));
  // For speed, every compile of a source is kept (bzip2's -fPIC *.sho
  // beside its *.o), then only the objects of the programs the benchmark
  // runs: the search tunes the compile that runs. Under LTO, only the
  // objects of the shipped artifact's link.
  Expected<std::vector<ObjectInput>> Objects =
      findObjects(Out + "/src", /*AnyName=*/ForSpeed);
  if (!Objects)
    return Objects.takeError();
  if (Kind != PackageCorpus::Size) {
    StringRef Key = ForSpeed ? "speed_objects" : "lto_objects";
    Expected<std::string> Pattern =
        getRecipeKey(Opts, ForSpeed ? "speed-objects" : "lto-objects", Key);
    if (!Pattern)
      return Pattern.takeError();
    if (!Pattern->empty()) {
      Regex Re("^(" + *Pattern + ")$");
      std::string Why;
      if (!Re.isValid(Why))
        return makeError(Pkg + ": the recipe's " + Key + " '" + *Pattern +
                         "' is no extended regular expression: " + Why);
      llvm::erase_if(*Objects, [&](const ObjectInput &O) {
        return !Re.match(O.ModuleName);
      });
      if (Objects->empty())
        return makeError(Pkg + ": the recipe's " + Key + " '" + *Pattern +
                         "' names none of the objects the build made in " +
                         Out + "/src");
    }
  }
  if (Opts.Log)
    Opts.Log(
        ("extracting " + Twine(Objects->size()) + " objects of " + Pkg).str());
  ExtractOptions EO;
  EO.OutputDir = CorpusDir.str();
  EO.Threads = Opts.Jobs;
  EO.Deduplicate = !ForSpeed;
  Expected<ExtractResult> E = extractCorpus(*Objects, EO);
  if (!E)
    return E.takeError();
  if (E->Modules.empty())
    return makeError(Pkg +
                     ": the corpus build left no object with embedded "
                     "bitcode in " +
                     Out + "/src");
  return Error::success();
}

namespace {

/// One test, as runBuilds runs it.
struct TestCase {
  std::string Name;
  /// Its log in each build's tests/ directory.
  std::string LogName;
  /// A test the CMake build registers: its number in `ctest -N` (from 1);
  /// 0 for any other.
  unsigned CtestNumber = 0;
};

/// How to build and test one program: what differs between a Debian
/// package (its recipe) and a source tree.
struct BuildPlan {
  std::string Name;
  /// The command that builds into \p Dir with the policy \p PolicyArgs:
  /// none for -Oz; the plugin and the model file ("" for the embedded one);
  /// those and the decisions file.
  std::function<std::vector<std::string>(const std::string &Dir,
                                         ArrayRef<std::string> PolicyArgs)>
      BuildArgv;
  /// The build tree below a build's directory, where its artifacts are and
  /// its tests run: "src" or "build".
  std::string Tree;
  std::vector<TestCase> Tests;
  /// The command that runs one test against the build in \p Dir.
  std::function<std::vector<std::string>(const std::string &Dir,
                                         const TestCase &Test)>
      TestArgv;
  /// When set, adds to Tests once the first build (-Oz) is done, given its
  /// directory: tests that only a build can list.
  std::function<Error(const std::string &Dir, std::vector<TestCase> &Tests)>
      ListBuiltTests;
  /// With a profile: the command that runs the benchmark against the build
  /// in \p Dir, its outputs in \p Scratch.
  std::function<std::vector<std::string>(const std::string &Dir,
                                         const std::string &Scratch)>
      BenchArgv;
  /// The files the benchmark runs the code of, relative to the build tree;
  /// none: the build's programs that callgrind saw run.
  std::vector<std::string> BenchPrograms;
  /// The command that profiles the build in \p Dir (made with
  /// -fprofile-generate): the profile workload.
  std::function<std::vector<std::vector<std::string>>(const std::string &Dir)>
      ProfileWorkload;
};

} // namespace

/// The builds of one evaluation, named by what they build with: the
/// baseline (stock clang at Opts.OptLevel), the model (the plugin) and,
/// with a decisions file, tuned (the plugin and the file); with LTO, the
/// build without it.
enum class BuildKind { Baseline, Model, Tuned, NoLto };

/// What a kind of build is called on disk and which fields of the report
/// it fills.
struct BuildFields {
  /// Its directory, WORK/<name>/, and log, WORK/build-<name>.log.
  const char *DirName;
  BuildStats PackageReport::*Stats;
  uint64_t ArtifactSizes::*Size;
  bool TestOutcome::*Passed;
  /// Where a failing test's log goes; none for the baseline (a test that
  /// fails there says nothing about the plugin).
  std::string TestOutcome::*FailureLog;
};

static BuildFields getFields(BuildKind Kind) {
  switch (Kind) {
  case BuildKind::Baseline:
    return {"oz", &PackageReport::Baseline, &ArtifactSizes::Baseline,
            &TestOutcome::BaselinePassed, nullptr};
  case BuildKind::Model:
    return {"model", &PackageReport::Model, &ArtifactSizes::Model,
            &TestOutcome::ModelPassed, &TestOutcome::ModelLog};
  case BuildKind::Tuned:
    return {"tuned", &PackageReport::Tuned, &ArtifactSizes::Tuned,
            &TestOutcome::TunedPassed, &TestOutcome::TunedLog};
  case BuildKind::NoLto:
    return {"nolto", &PackageReport::NoLto, &ArtifactSizes::NoLto,
            &TestOutcome::NoLtoPassed, nullptr};
  }
  llvm_unreachable("unknown build kind");
}

/// Whether \p Opts evaluate a file for speed: the profiled baseline
/// against the plugin applying the file (in the model build's place, with
/// LLVM's own advisors wherever the file has no entries).
static bool isSpeedTuned(const BuildEvalOptions &Opts) {
  return !Opts.ProfilePath.empty() && !Opts.DecisionsPath.empty();
}

/// The policy arguments of the build scripts for a build of \p Kind: none
/// for the baseline; the plugin and the model file ("" for the embedded
/// one, and for the eviction model, which the environment names); those
/// and the decisions file.
static std::vector<std::string> getPolicyArgs(BuildKind Kind,
                                              const BuildEvalOptions &Opts) {
  if (Kind == BuildKind::Baseline || Kind == BuildKind::NoLto)
    return {};
  std::vector<std::string> Args = {
      Opts.PluginPath, Opts.Evict ? "" : Opts.Model.Policy.ModelPath};
  if (Kind == BuildKind::Tuned ||
      (Kind == BuildKind::Model && isSpeedTuned(Opts)))
    Args.push_back(Opts.DecisionsPath);
  return Args;
}

/// The words the compiler wrappers add to every compile and link of a
/// build of \p Kind (MLGO_EVAL_EXTRA_FLAGS): the link flags; with LTO,
/// its flag (but for the build without it), and for a build with the
/// plugin, mlgo's ld.lld and the model and decisions files given to the
/// link too.
static std::vector<std::string> getExtraFlags(BuildKind Kind,
                                              const BuildEvalOptions &Opts) {
  std::vector<std::string> Flags = Opts.LinkFlags;
  if (Opts.Lto == LtoMode::None || Kind == BuildKind::NoLto)
    return Flags;
  Flags.push_back(std::string(getLtoFlag(Opts.Lto)));
  if (Kind == BuildKind::Baseline)
    return Flags;
  Flags.push_back("--ld-path=" + Opts.LinkerPath);
  // Cannot fail: the model is named by a file, and there is no Fixed.
  llvm::append_range(
      Flags, cantFail(CompilePolicy::forBuild(
                          Opts.Model.Policy.ModelPath,
                          Kind == BuildKind::Tuned ? Opts.DecisionsPath : "")
                          .getLinkerArgs()));
  return Flags;
}

/// Whether \p Word can go into MLGO_EVAL_EXTRA_FLAGS, which the wrappers
/// split on white space.
static bool isPlainWord(StringRef Word) {
  return !Word.empty() &&
         Word.find_first_of(" \t\n'\"\\$`*?[") == StringRef::npos;
}

/// The median of \p V (the mean of the middle two for an even count).
static double median(std::vector<double> V) {
  assert(!V.empty() && "the median of nothing");
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

/// The reward of the files \p Programs of \p Tree: their profile-weighted
/// instructions and cycles, summed; an error if no function has a count.
static Error measureReward(StringRef Name, StringRef ProfilePath,
                           const std::string &Tree,
                           ArrayRef<std::string> Programs,
                           speed::BlockCoster &Coster, double &Instructions,
                           double &Cycles) {
  size_t Profiled = 0;
  for (const std::string &P : Programs) {
    std::string Path = Tree + "/" + P;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
        MemoryBuffer::getFile(Path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buf)
      return makeError(Path + ": " + Buf.getError().message());
    Expected<speed::ObjectCost> Cost =
        speed::measureExecutionCost((*Buf)->getMemBufferRef(), &Coster);
    if (!Cost)
      return Cost.takeError();
    Instructions += Cost->Instructions;
    Cycles += Cost->Cycles;
    Profiled += Cost->Profiled;
  }
  if (Profiled == 0)
    return makeError(Name + ": no function of " + Tree + "/{" +
                     join(Programs, ",") + "} has a count of the profile " +
                     ProfilePath + ": it is not a profile of this program");
  return Error::success();
}

/// The options of mlgo bench's engine for \p Opts's timed runs, its files
/// in WORK/\p SubDir (created).
static Expected<speed::BenchOptions>
getBenchOptions(const BuildEvalOptions &Opts, StringRef SubDir) {
  speed::BenchOptions O;
  O.Stop = Opts.TimeStop;
  O.WorkDir = Opts.WorkDir + "/" + SubDir.str();
  O.TimeoutSeconds = Opts.TestTimeoutSeconds;
  if (std::error_code EC = sys::fs::create_directories(O.WorkDir))
    return makeError(O.WorkDir + ": " + EC.message());
  return O;
}

/// --cost time: the benchmark timed on both builds by mlgo bench's engine,
/// in WORK/time/.
static Error timeSpeed(const BuildEvalOptions &Opts, const BuildPlan &Plan,
                       const std::string &BaseDir, const std::string &ModelDir,
                       PackageReport &Report) {
  std::string Scratch = Opts.WorkDir + "/bench";
  Expected<speed::BenchOptions> O = getBenchOptions(Opts, "time");
  if (!O)
    return O.takeError();
  if (Opts.Log)
    Opts.Log("timing " + Plan.Name + ": " + Report.BaselineName + ", " +
             Report.ModelName);
  Expected<speed::BenchResult> T = speed::runTimeBench(
      {{Report.BaselineName, Plan.BenchArgv(BaseDir, Scratch)},
       {Report.ModelName, Plan.BenchArgv(ModelDir, Scratch)}},
      *O);
  if (!T)
    return makeError(Plan.Name + ": " + toString(T.takeError()));
  SpeedReport &S = Report.Speed;
  S.Time = T->Decided[1];
  S.TimeMeasure = T->decidedMeasure();
  S.TimeRounds = T->Rounds;
  return Error::success();
}

/// The benchmark against both builds: callgrind, the reward, and paired
/// wall-clock runs, alternating (--cost cycles: the cycle estimate too;
/// --cost time: mlgo bench's engine instead of the wall-clock runs).
static Error measureSpeed(const BuildEvalOptions &Opts, const BuildPlan &Plan,
                          const std::string &BaseDir,
                          const std::string &ModelDir, PackageReport &Report) {
  auto Log = [&](const Twine &Message) {
    if (Opts.Log)
      Opts.Log(Message.str());
  };
  const std::string &Name = Plan.Name;
  SpeedReport &S = Report.Speed;
  std::string Scratch = Opts.WorkDir + "/bench";
  std::string BaseTree = BaseDir + "/" + Plan.Tree,
              ModelTree = ModelDir + "/" + Plan.Tree;
  Log("benchmarking " + Name + " under callgrind with " + Report.BaselineName);
  Expected<CallgrindRun> Base =
      runCallgrind(Name, Plan.BenchArgv(BaseDir, Scratch), BaseTree,
                   BaseDir + "/callgrind", Opts.TestTimeoutSeconds * 20);
  if (!Base)
    return Base.takeError();
  Log("benchmarking " + Name + " under callgrind with " + Report.ModelName);
  Expected<CallgrindRun> Model =
      runCallgrind(Name, Plan.BenchArgv(ModelDir, Scratch), ModelTree,
                   ModelDir + "/callgrind", Opts.TestTimeoutSeconds * 20);
  if (!Model)
    return Model.takeError();
  if (Expected<std::unique_ptr<MemoryBuffer>> Log =
          readWholeFile(Opts.WorkDir + "/build-oz.log"))
    S.Mismatches = speed::findProfileMismatches((*Log)->getBuffer());
  else
    return Log.takeError();
  S.BaselineExecuted = Base->Instructions;
  S.ModelExecuted = Model->Instructions;
  S.Cost = Opts.Cost;
  if (Opts.Cost == speed::CostKind::Cycles) {
    for (const std::string *Dir : {&BaseDir, &ModelDir}) {
      bool IsBase = Dir == &BaseDir;
      Log("benchmarking " + Name + " under callgrind's cache simulation with " +
          (IsBase ? Report.BaselineName : Report.ModelName));
      Expected<speed::SimulatedRun> Run = speed::runCallgrindSimulated(
          Name, Plan.BenchArgv(*Dir, Scratch), *Dir + "/" + Plan.Tree,
          *Dir + "/simulate", Opts.TestTimeoutSeconds * 20);
      if (!Run)
        return Run.takeError();
      (IsBase ? S.BaselineCycles : S.ModelCycles) = Run->cycles();
    }
  }

  S.Programs = Plan.BenchPrograms.empty() ? Base->Programs : Plan.BenchPrograms;
  Expected<std::unique_ptr<speed::BlockCoster>> Coster =
      speed::BlockCoster::create(sys::getDefaultTargetTriple(), "");
  if (!Coster)
    return Coster.takeError();
  if (Error E =
          measureReward(Name, Opts.ProfilePath, BaseTree, S.Programs, **Coster,
                        S.BaselineRewardInstructions, S.BaselineRewardCycles))
    return E;
  if (Error E =
          measureReward(Name, Opts.ProfilePath, ModelTree, S.Programs, **Coster,
                        S.ModelRewardInstructions, S.ModelRewardCycles))
    return E;

  if (Opts.Cost == speed::CostKind::Time)
    return timeSpeed(Opts, Plan, BaseDir, ModelDir, Report);
  S.WallRuns = std::max(1u, Opts.WallRuns);
  std::vector<double> BaseTimes, ModelTimes, Ratios;
  for (unsigned I = 0; I < S.WallRuns; ++I) {
    Log("timing " + Name + ": run " + Twine(I + 1) + " of " +
        Twine(S.WallRuns));
    double Seconds[2];
    const std::string *Dirs[2] = {&BaseDir, &ModelDir};
    for (int K = 0; K < 2; ++K) {
      std::string Out = *Dirs[K] + "/bench-wall.log";
      auto Start = std::chrono::steady_clock::now();
      ProcessResult R = runLogged(Plan.BenchArgv(*Dirs[K], Scratch), Out,
                                  Opts.TestTimeoutSeconds);
      Seconds[K] = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
      if (!R.succeeded())
        return makeError(Name + ": the benchmark " + R.describe() +
                         "; last lines of " + Out + ":\n" + readTail(Out, 10));
    }
    BaseTimes.push_back(Seconds[0]);
    ModelTimes.push_back(Seconds[1]);
    Ratios.push_back(Seconds[1] / Seconds[0]);
  }
  S.BaselineWallMedian = median(BaseTimes);
  S.ModelWallMedian = median(ModelTimes);
  S.WallRatioMedian = median(Ratios);
  return Error::success();
}

/// llvm-bolt-19 as its real file, e.g. /usr/lib/llvm-19/bin/llvm-bolt: BOLT
/// looks for its instrumentation runtime in the lib/ beside the directory
/// it was run from, and Debian's /usr/bin/llvm-bolt-19 is a symbolic link
/// whose own ../lib has none.
static Expected<std::string> findBolt() {
  ErrorOr<std::string> Bolt = sys::findProgramByName("llvm-bolt-19");
  if (!Bolt)
    return makeError("llvm-bolt-19: not found on the PATH (--bolt needs "
                     "Debian's bolt-19 and libbolt-19-dev)");
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(*Bolt, Real))
    return makeError(*Bolt + ": " + EC.message());
  SmallString<256> Runtime(
      sys::path::parent_path(sys::path::parent_path(Real)));
  sys::path::append(Runtime, "lib", "libbolt_rt_instr.a");
  if (!sys::fs::exists(Runtime))
    return makeError(Runtime +
                     ": no such file (BOLT's instrumentation runtime; "
                     "install libbolt-19-dev)");
  return std::string(Real);
}

/// Runs \p Argv (a BOLT tool) with its output in \p LogPath; an error names
/// \p Name, \p What it did and the log's last lines.
static Error runBoltStep(StringRef Name, ArrayRef<std::string> Argv,
                         const std::string &LogPath, unsigned TimeoutSeconds,
                         const Twine &What) {
  ProcessResult R = runLogged(Argv, LogPath, TimeoutSeconds);
  if (!R.succeeded())
    return makeError(Name + ": " + What + " " + R.describe() +
                     "; last lines of " + LogPath + ":\n" +
                     readTail(LogPath, 10));
  return Error::success();
}

/// \p Dir copied to \p Copy (replaced), as `cp -a` copies.
static Error copyBuild(StringRef Name, const std::string &Dir,
                       const std::string &Copy, const std::string &LogPath) {
  if (std::error_code EC = sys::fs::remove_directories(Copy))
    return makeError(Copy + ": " + EC.message());
  return runBoltStep(Name, {"cp", "-a", Dir, Copy}, LogPath, 3600,
                     "copying " + Dir + " to " + Copy);
}

/// Optimizes Plan's \p Programs of the build in \p Dir with BOLT into
/// \p Dir-bolt: instrumented into \p Dir-bolt-instrumented, where the
/// profile workload runs them; the profiles merged per program into
/// WORK/bolt/<build>/.
static Error boltBuild(const BuildEvalOptions &Opts, const BuildPlan &Plan,
                       StringRef Bolt, const std::string &Dir,
                       ArrayRef<std::string> Programs) {
  const std::string &Name = Plan.Name;
  std::string Build = sys::path::filename(Dir).str();
  std::string Work = Opts.WorkDir + "/bolt/" + Build;
  std::string Instrumented = Dir + "-bolt-instrumented", Bolted = Dir + "-bolt";
  if (std::error_code EC = sys::fs::remove_directories(Work))
    return makeError(Work + ": " + EC.message());
  if (std::error_code EC = sys::fs::create_directories(Work + "/profiles"))
    return makeError(Work + "/profiles: " + EC.message());
  if (Error E = copyBuild(Name, Dir, Instrumented, Work + "/copy.log"))
    return E;
  if (Error E = copyBuild(Name, Dir, Bolted, Work + "/copy.log"))
    return E;
  for (size_t I = 0; I < Programs.size(); ++I) {
    std::string In = Dir + "/" + Plan.Tree + "/" + Programs[I];
    std::string Profile =
        Work + "/profiles/" + std::to_string(I + 1) + ".fdata";
    if (Opts.Log)
      Opts.Log("instrumenting " + Programs[I] + " of " + Name + " (" + Build +
               ") with BOLT");
    if (Error E = runBoltStep(
            Name,
            {Bolt.str(), In, "-instrument", "--instrumentation-file=" + Profile,
             "--instrumentation-file-append-pid", "-o",
             Instrumented + "/" + Plan.Tree + "/" + Programs[I]},
            Work + "/instrument-" + std::to_string(I + 1) + ".log",
            Opts.BuildTimeoutSeconds, "llvm-bolt-19 -instrument " + In))
      return E;
  }
  if (Opts.Log)
    Opts.Log("running the profile workload of " + Name + " (" + Build +
             ", BOLT-instrumented)");
  std::string WorkloadLog = Work + "/workload.log";
  for (const std::vector<std::string> &Argv :
       Plan.ProfileWorkload(Instrumented))
    if (Error E = runBoltStep(Name, Argv, WorkloadLog, Opts.BuildTimeoutSeconds,
                              "the profile workload (BOLT-instrumented)"))
      return E;
  for (size_t I = 0; I < Programs.size(); ++I) {
    // Each process writes <profile>.<pid>.fdata as it exits.
    std::string Prefix = std::to_string(I + 1) + ".fdata.";
    std::vector<std::string> Parts;
    std::error_code EC;
    for (sys::fs::directory_iterator It(Work + "/profiles", EC), End;
         It != End && !EC; It.increment(EC))
      if (sys::path::filename(It->path()).starts_with(Prefix))
        Parts.push_back(It->path());
    if (EC)
      return makeError(Work + "/profiles: " + EC.message());
    if (Parts.empty())
      return makeError(Name + ": the profile workload ran no code of " +
                       Instrumented + "/" + Plan.Tree + "/" + Programs[I] +
                       " (BOLT has no profile of it; see " + WorkloadLog + ")");
    llvm::sort(Parts);
    std::string Merged = Work + "/" + std::to_string(I + 1) + ".fdata";
    std::vector<std::string> Merge = {"merge-fdata-19", "-q", "-o", Merged};
    llvm::append_range(Merge, Parts);
    if (Error E = runBoltStep(Name, Merge, Work + "/merge.log", 600,
                              "merge-fdata-19 of " + Programs[I]))
      return E;
    std::string In = Dir + "/" + Plan.Tree + "/" + Programs[I];
    if (Opts.Log)
      Opts.Log("optimizing " + Programs[I] + " of " + Name + " (" + Build +
               ") with BOLT");
    if (Error E = runBoltStep(
            Name,
            {Bolt.str(), In, "-data=" + Merged, "-reorder-blocks=ext-tsp",
             "-reorder-functions=hfsort", "-split-functions", "-split-all-cold",
             "-split-eh", "-dyno-stats", "-o",
             Bolted + "/" + Plan.Tree + "/" + Programs[I]},
            Work + "/optimize-" + std::to_string(I + 1) + ".log",
            Opts.BuildTimeoutSeconds, "llvm-bolt-19 " + In))
      return E;
  }
  return Error::success();
}

/// With `--bolt`: the builds in \p BaseDir and \p ModelDir optimized by
/// BOLT, then all four run under callgrind and timed together on the
/// benchmark.
static Error measureBolt(const BuildEvalOptions &Opts, const BuildPlan &Plan,
                         const std::string &BaseDir,
                         const std::string &ModelDir, PackageReport &Report) {
  const std::string &Name = Plan.Name;
  if (!Plan.ProfileWorkload)
    return makeError(Name + ": --bolt needs a profile workload to run the "
                            "instrumented builds on (--bolt-run)");
  Expected<std::string> Bolt = findBolt();
  if (!Bolt)
    return Bolt.takeError();
  BoltReport &B = Report.Bolt;
  B.Programs = Report.Speed.Programs;
  for (const std::string *Dir : {&BaseDir, &ModelDir})
    if (Error E = boltBuild(Opts, Plan, *Bolt, *Dir, B.Programs))
      return E;

  std::string Scratch = Opts.WorkDir + "/bench";
  B.Names = {Report.BaselineName, Report.BaselineName + "+BOLT",
             Report.ModelName, Report.ModelName + "+BOLT"};
  const std::string Dirs[4] = {BaseDir, BaseDir + "-bolt", ModelDir,
                               ModelDir + "-bolt"};
  for (int K = 0; K < 4; ++K) {
    if (Opts.Log)
      Opts.Log("benchmarking " + Name + " under callgrind with " + B.Names[K]);
    Expected<CallgrindRun> Run = runCallgrind(
        Name, Plan.BenchArgv(Dirs[K], Scratch), Dirs[K] + "/" + Plan.Tree,
        Opts.WorkDir + "/bolt/callgrind-" + std::to_string(K + 1),
        Opts.TestTimeoutSeconds * 20);
    if (!Run)
      return Run.takeError();
    B.Executed.push_back(Run->Instructions);
  }

  std::vector<speed::BenchBuild> Builds;
  for (int K = 0; K < 4; ++K)
    Builds.push_back({B.Names[K], Plan.BenchArgv(Dirs[K], Scratch)});
  Expected<speed::BenchOptions> O = getBenchOptions(Opts, "bolt/time");
  if (!O)
    return O.takeError();
  if (Opts.Log)
    Opts.Log("timing " + Name + ": " + join(B.Names, ", "));
  Expected<speed::BenchResult> T = speed::runTimeBench(Builds, *O);
  if (!T)
    return makeError(Name + ": " + toString(T.takeError()));
  B.Measure = T->decidedMeasure();
  B.Rounds = T->Rounds;
  B.Stopped = speed::describe(T->Stopped, T->Rule);
  B.LoadBefore = T->LoadBefore;
  B.LoadAfter = T->LoadAfter;
  B.Time = T->Decided;
  const std::vector<std::vector<double>> &V = T->decidedValues();
  B.ModelAfterBolt = speed::bootstrapMedian(speed::pairedRatios(V[3], V[1]),
                                            O->Seed, O->Resamples);
  B.BoltAfterModel = speed::bootstrapMedian(speed::pairedRatios(V[3], V[2]),
                                            O->Seed, O->Resamples);
  return Error::success();
}

/// Builds \p Plan with Opts.OptLevel, no eviction model and the compiler
/// flags \p SpeedFlags into \p Dir, logging to \p BuildLog; \p ExtraEnv
/// (NAME=VALUE) goes into the build's environment. \p What names the build
/// in the log and in errors ("-O2 -fprofile-generate").
static Error buildWithSpeedFlags(const BuildEvalOptions &Opts,
                                 const BuildPlan &Plan, const std::string &Dir,
                                 const std::string &BuildLog,
                                 const std::string &SpeedFlags,
                                 ArrayRef<std::string> ExtraEnv,
                                 const Twine &What) {
  std::vector<std::string> Argv = {
      "env", "MLGO_EVAL_OPT_LEVEL=" + Opts.OptLevel,
      "MLGO_EVAL_EVICT=", "MLGO_EVAL_SPEED_FLAGS=" + SpeedFlags};
  llvm::append_range(Argv, ExtraEnv);
  llvm::append_range(Argv, Plan.BuildArgv(Dir, {}));
  if (Opts.Log)
    Opts.Log("building " + Plan.Name + " with " + What.str());
  ProcessResult R = runLogged(Argv, BuildLog, Opts.BuildTimeoutSeconds);
  if (!R.succeeded())
    return makeError(Plan.Name + ": the build with " + What + " " +
                     R.describe() + "; last lines of " + BuildLog + ":\n" +
                     readTail(BuildLog, 15));
  return Error::success();
}

/// Builds \p Plan with Opts.OptLevel and the profile \p Profile (stock
/// clang, the address map: speedPackageFlags) into WORK/counts, runs the
/// profile workload there under callgrind, every process dumping its
/// per-instruction costs, and writes the block counts of the build's
/// programs and libraries to Opts.CountsPath.
static Error recordBlockCounts(const BuildEvalOptions &Opts,
                               const BuildPlan &Plan, StringRef Profile) {
  auto Log = [&](const Twine &Message) {
    if (Opts.Log)
      Opts.Log(Message.str());
  };
  const std::string &Name = Plan.Name;
  std::string Dir = Opts.WorkDir + "/counts";
  std::string BuildLog = Opts.WorkDir + "/build-counts.log";
  // The build runs in its own directories: the profile by its full path.
  SmallString<256> FullProfile(Profile);
  if (std::error_code EC = sys::fs::make_absolute(FullProfile))
    return makeError(Profile + ": " + EC.message());
  if (FullProfile.str().find_first_of(" \t\n'\"\\$`*?[") != StringRef::npos)
    return makeError(FullProfile +
                     ": the profile's path has a character the build's "
                     "compiler flags cannot hold (white space or a shell "
                     "special character)");
  if (Error E = buildWithSpeedFlags(
          Opts, Plan, Dir, BuildLog,
          join(speed::speedPackageFlags(FullProfile), " "), {},
          Opts.OptLevel + " and the profile, for its block counts"))
    return E;
  std::string Tree = Dir + "/" + Plan.Tree;
  std::vector<std::string> Dumps;
  std::vector<std::vector<std::string>> Workload = Plan.ProfileWorkload(Dir);
  for (size_t I = 0; I < Workload.size(); ++I) {
    std::string LogDir =
        Opts.WorkDir + "/counts-callgrind-" + std::to_string(I + 1);
    Log("running the profile workload of " + Name + " under callgrind (" +
        Twine(I + 1) + " of " + Twine(Workload.size()) + ")");
    // Callgrind runs the workload some 50 times slower than it ran.
    Expected<speed::CallgrindRun> Run = speed::runCallgrind(
        Name, Workload[I], Tree, LogDir, Opts.BuildTimeoutSeconds * 20, true);
    if (!Run)
      return Run.takeError();
    std::error_code EC;
    for (sys::fs::directory_iterator It(LogDir, EC), End; It != End && !EC;
         It.increment(EC))
      if (StringRef(It->path()).ends_with(".callgrind"))
        Dumps.push_back(It->path());
    if (EC)
      return makeError(LogDir + ": " + EC.message());
  }
  llvm::sort(Dumps);
  speed::BlockCountsSummary Summary;
  Expected<speed::MeasuredCounts> Counts = speed::countBlocks(
      Dumps, [&](StringRef Object) { return Object.starts_with(Tree + "/"); },
      &Summary);
  if (!Counts)
    return Counts.takeError();
  if (Summary.Objects.empty())
    return makeError(Name + ": the profile workload ran no code of " + Tree +
                     " under callgrind");
  if (Error E = speed::writeMeasuredCounts(Opts.CountsPath, *Counts))
    return E;
  std::string Left;
  if (Summary.Ambiguous)
    Left = "; " + std::to_string(Summary.Ambiguous) +
           " names left out (defined more than once)";
  Log(Opts.CountsPath + ": " + Twine(Summary.Blocks) + " blocks of " +
      Twine(Summary.Functions) + " functions in " +
      Twine(Summary.Objects.size()) + " programs and libraries" + Left);
  return Error::success();
}

/// Builds \p Plan with Opts.OptLevel -fprofile-generate into WORK/profile
/// (the program's own runs during the build write their raw profiles
/// aside), runs its profile workload and merges the profile into \p Out.
static Expected<speed::ProfileInfo>
runProfile(const BuildEvalOptions &Opts, const BuildPlan &Plan, StringRef Out) {
  auto Log = [&](const Twine &Message) {
    if (Opts.Log)
      Opts.Log(Message.str());
  };
  const std::string &Name = Plan.Name;
  std::string Dir = Opts.WorkDir + "/profile";
  std::string BuildLog = Opts.WorkDir + "/build-profile.log";
  if (Error E =
          buildWithSpeedFlags(Opts, Plan, Dir, BuildLog, "-fprofile-generate",
                              {"LLVM_PROFILE_FILE=" + Opts.WorkDir +
                               "/profile-build-runs/%m-%p.profraw"},
                              Opts.OptLevel + " -fprofile-generate"))
    return E;
  std::string WorkloadLog = Opts.WorkDir + "/profile-workload.log";
  Log("running the profile workload of " + Name);
  RunOptions O;
  O.Stdin = "/dev/null";
  O.Stdout = WorkloadLog;
  O.Stderr = WorkloadLog;
  O.TimeoutSeconds = Opts.BuildTimeoutSeconds;
  O.OwnProcessGroup = true;
  Expected<speed::ProfileInfo> Info =
      speed::collectProfile(Plan.ProfileWorkload(Dir), O, Out);
  if (!Info)
    return makeError(Name + ": " + toString(Info.takeError()) +
                     "; last lines of " + WorkloadLog + ":\n" +
                     readTail(WorkloadLog, 10));
  if (!Opts.CountsPath.empty())
    if (Error E = recordBlockCounts(Opts, Plan, Out))
      return E;
  return Info;
}

/// Builds \p Plan with -Oz, the model and (with a decisions file) tuned,
/// measures each build and runs every test against each.
static Expected<PackageReport> runBuilds(const BuildEvalOptions &Opts,
                                         const BuildPlan &Plan) {
  auto Log = [&](const Twine &Message) {
    if (Opts.Log)
      Opts.Log(Message.str());
  };
  const std::string &Pkg = Plan.Name;
  PackageReport Report;
  Report.Package = Pkg;
  const bool SpeedTuned = isSpeedTuned(Opts);
  Report.ModelName = SpeedTuned ? std::string("tuned") : Opts.Model.Name;
  Report.BaselineName = Opts.OptLevel;
  if (Opts.Lto != LtoMode::None) {
    if (Opts.Evict || !Opts.ProfilePath.empty())
      return makeError(Pkg + ": an LTO evaluation is of the inlining model "
                             "for size; it has no eviction model or profile");
    Report.BaselineName = "stock " + std::string(getLtoFlag(Opts.Lto));
    Report.HasNoLto = true;
    Report.NoLtoName = Opts.OptLevel + " no LTO";
  }
  for (const std::string &W : getExtraFlags(BuildKind::Tuned, Opts))
    if (!isPlainWord(W))
      return makeError(Pkg + ": '" + W +
                       "': a link flag or path with white space or shell "
                       "characters cannot go into the compiler wrappers");
  if (Opts.Evict && !Opts.DecisionsPath.empty() && !SpeedTuned)
    return makeError(Pkg + ": a decisions file is for the inlining model; "
                           "the eviction model's build has none");
  struct Config {
    BuildKind Kind;
    /// What the report and the log call it: the level, the model's name,
    /// "tuned".
    StringRef Name;
    std::string Dir;
    std::map<std::string, uint64_t> Sizes;
  };
  Report.HasTuned = !Opts.DecisionsPath.empty() && !SpeedTuned;
  // A file the plugin would reject fails now, not after two builds.
  if (!Opts.DecisionsPath.empty()) {
    Expected<DecisionsFile> F = DecisionsFile::load(Opts.DecisionsPath);
    if (!F)
      return F.takeError();
    if (SpeedTuned && !F->isForSpeed())
      return makeError(Opts.DecisionsPath +
                       ": decisions tuned for size; a profiled evaluation "
                       "builds at -O2 and needs a file for speed (`mlgo "
                       "tune --objective speed`)");
  }
  if (!Opts.ProfilePath.empty()) {
    if (Report.HasTuned)
      return makeError(Pkg + ": a profiled evaluation has no tuned build");
    if (!Plan.BenchArgv)
      return makeError(Pkg + ": a profiled evaluation needs a benchmark");
    if (StringRef(Opts.ProfilePath).find_first_of(" \t\n'\"\\$`*?[") !=
        StringRef::npos)
      return makeError(Opts.ProfilePath +
                       ": a profile path with white space or shell "
                       "characters cannot go into the compiler wrappers");
    // A profile that is no profile fails now, not in the first compile.
    Expected<speed::ProfileInfo> Info =
        speed::readProfileInfo(Opts.ProfilePath);
    if (!Info)
      return Info.takeError();
    Log("profile " + Opts.ProfilePath + ": " + Twine(Info->Functions) +
        " functions, " + Twine(Info->ExecutedFunctions) + " executed");
  }
  std::vector<Config> Configs = {
      {BuildKind::Baseline, Report.BaselineName, "", {}},
      {BuildKind::Model, Opts.Model.Name, "", {}}};
  if (Report.HasTuned)
    Configs.push_back({BuildKind::Tuned, Report.TunedName, "", {}});
  if (Report.HasNoLto)
    Configs.push_back({BuildKind::NoLto, Report.NoLtoName, "", {}});
  for (Config &Cfg : Configs)
    Cfg.Dir = Opts.WorkDir + "/" + getFields(Cfg.Kind).DirName;
  std::vector<TestCase> Tests = Plan.Tests;

  for (Config &Cfg : Configs) {
    BuildFields Fields = getFields(Cfg.Kind);
    BuildStats &Stats = Report.*Fields.Stats;
    // The recipes' compiler wrappers (package-recipes.sh,
    // recipes_eval_setup) read the level and the eviction model from the
    // environment.
    std::vector<std::string> Argv = {
        "env", "MLGO_EVAL_OPT_LEVEL=" + Opts.OptLevel,
        "MLGO_EVAL_EVICT=" + (!Opts.Evict || SpeedTuned ? std::string()
                              : Opts.EvictModelPath.empty()
                                  ? std::string("embedded")
                                  : Opts.EvictModelPath),
        // A file for speed tuned on a model file needs that model.
        "MLGO_EVAL_EVICT_MODEL=" +
            (SpeedTuned ? Opts.EvictModelPath : std::string()),
        "MLGO_EVAL_SPEED_FLAGS=" +
            (Opts.ProfilePath.empty()
                 ? std::string()
                 : join(speed::speedPackageFlags(Opts.ProfilePath), " ") +
                       // BOLT rewrites a program whose relocations the
                       // link kept.
                       (Opts.Bolt ? " -Wl,--emit-relocs" : "")),
        "MLGO_EVAL_EXTRA_FLAGS=" + join(getExtraFlags(Cfg.Kind, Opts), " ")};
    llvm::append_range(Argv,
                       Plan.BuildArgv(Cfg.Dir, getPolicyArgs(Cfg.Kind, Opts)));
    std::string BuildLog = Opts.WorkDir + "/build-" + Fields.DirName + ".log";
    Log("building " + Pkg + " with " + Cfg.Name);
    auto Start = std::chrono::steady_clock::now();
    ProcessResult R = runLogged(Argv, BuildLog, Opts.BuildTimeoutSeconds);
    Stats.WallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    if (!R.succeeded())
      return makeError(Pkg + ": the build with " + Cfg.Name + " " +
                       R.describe() + "; last lines of " + BuildLog + ":\n" +
                       readTail(BuildLog, 15));
    std::string RSSLog = Cfg.Dir + "/rss.log";
    Expected<std::unique_ptr<MemoryBuffer>> RSS = readWholeFile(RSSLog);
    if (!RSS)
      return RSS.takeError();
    Stats.PeakRSSKiB = parsePeakRSS((*RSS)->getBuffer(), &Stats.CompilerRuns);
    if (Stats.CompilerRuns == 0)
      return makeError(Pkg + ": the build with " + Cfg.Name +
                       " ran no compiler (" + RSSLog + " is empty; see " +
                       BuildLog + ")");
    if (Cfg.Kind == BuildKind::Baseline && Plan.ListBuiltTests)
      if (Error E = Plan.ListBuiltTests(Cfg.Dir, Tests))
        return E;

    std::string Tree = Cfg.Dir + "/" + Plan.Tree;
    Expected<std::vector<std::string>> Artifacts = findLinkedArtifacts(Tree);
    if (!Artifacts)
      return Artifacts.takeError();
    for (const std::string &A : *Artifacts) {
      // An LTO build's archives hold bitcode; its final artifacts are the
      // executables and shared objects linked from them.
      file_magic Magic;
      if (Opts.Lto != LtoMode::None && !identify_magic(Tree + "/" + A, Magic) &&
          Magic == file_magic::archive)
        continue;
      Expected<uint64_t> Size = measureTextSize(Tree + "/" + A);
      if (!Size)
        return Size.takeError();
      Cfg.Sizes[A] = *Size;
    }
  }

  // Artifacts every build has, paired by path; the others are listed.
  const Config &Baseline = Configs.front();
  for (const auto &[Path, Size] : Baseline.Sizes) {
    ArtifactSizes A{Path, 0, 0, 0};
    bool All = true;
    for (const Config &Cfg : Configs) {
      auto It = Cfg.Sizes.find(Path);
      if (It == Cfg.Sizes.end()) {
        All = false;
        break;
      }
      A.*getFields(Cfg.Kind).Size = It->second;
    }
    if (All)
      Report.Artifacts.push_back(A);
  }
  std::set<std::string> Paths;
  for (const Config &C : Configs)
    for (const auto &Entry : C.Sizes)
      Paths.insert(Entry.first);
  for (const std::string &Path : Paths) {
    std::vector<std::string> With;
    for (const Config &C : Configs)
      if (C.Sizes.count(Path))
        With.push_back(C.Name.str());
    if (With.size() < Configs.size())
      Report.UnpairedArtifacts.push_back(Path + " (" + join(With, ", ") +
                                         " only)");
  }
  if (Report.Artifacts.empty())
    return makeError(Pkg +
                     ": the builds produced no linked binary or library "
                     "(looked in " +
                     Baseline.Dir + "/" + Plan.Tree + ")");

  for (const TestCase &Case : Tests) {
    TestOutcome T;
    T.Name = Case.Name;
    for (const Config &Cfg : Configs) {
      BuildFields Fields = getFields(Cfg.Kind);
      std::string Dir = Cfg.Dir + "/tests";
      if (std::error_code EC = sys::fs::create_directories(Dir))
        return makeError(Pkg + ": cannot create the test log directory " + Dir +
                         ": " + EC.message());
      std::string TestLog = Dir + "/" + Case.LogName;
      Log("testing " + Pkg + " built with " + Cfg.Name + ": " + Case.Name);
      ProcessResult R = runLogged(Plan.TestArgv(Cfg.Dir, Case), TestLog,
                                  Opts.TestTimeoutSeconds);
      T.*Fields.Passed = R.succeeded();
      if (Fields.FailureLog && !R.succeeded())
        T.*Fields.FailureLog =
            TestLog + " (" + R.describe() + "):\n" + readTail(TestLog, 10);
    }
    Report.Tests.push_back(std::move(T));
  }
  if (!Opts.ProfilePath.empty()) {
    if (Error E =
            measureSpeed(Opts, Plan, Configs[0].Dir, Configs[1].Dir, Report))
      return E;
    Report.HasSpeed = true;
    if (Opts.Bolt) {
      if (Error E =
              measureBolt(Opts, Plan, Configs[0].Dir, Configs[1].Dir, Report))
        return E;
      Report.HasBolt = true;
    }
  }
  return Report;
}

/// The plan of Opts.Package's builds from the source \p Src: its recipe's
/// build, tests (listed now, when \p ListTests, so that a recipe error
/// shows before any build), benchmark and profile workload.
static Expected<BuildPlan> makePackagePlan(const PackageEvalOptions &Opts,
                                           const std::string &Src,
                                           bool ListTests) {
  const std::string &Pkg = Opts.Package;
  SmallString<128> FetchLog(Opts.WorkDir);
  sys::path::append(FetchLog, "fetch.log");
  BuildPlan Plan;
  Plan.Name = Pkg;
  Plan.Tree = "src";
  if (ListTests) {
    SmallString<128> List(Opts.WorkDir);
    sys::path::append(List, "tests.txt");
    ProcessResult R = runLogged({"bash", Opts.RecipeScript, "tests", Pkg},
                                FetchLog, 60, List);
    if (!R.succeeded())
      return makeError(Pkg + ": listing the tests " + R.describe() + ":\n" +
                       readTail(FetchLog, 10));
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(List);
    if (!Buf)
      return Buf.takeError();
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines)
      Plan.Tests.push_back({L.trim().str(), L.trim().str() + ".log"});
  }
  if (!Opts.ProfilePath.empty()) {
    SmallString<128> List(Opts.WorkDir);
    sys::path::append(List, "bench-programs.txt");
    ProcessResult R = runLogged(
        {"bash", Opts.RecipeScript, "bench-programs", Pkg}, FetchLog, 60, List);
    if (!R.succeeded())
      return makeError(Pkg + ": listing the benchmark's programs " +
                       R.describe() + ":\n" + readTail(FetchLog, 10));
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(List);
    if (!Buf)
      return Buf.takeError();
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines)
      Plan.BenchPrograms.push_back(L.trim().str());
  }
  std::string Script = Opts.RecipeScript, Jobs = std::to_string(Opts.Jobs);
  Plan.BuildArgv = [=](const std::string &Dir, ArrayRef<std::string> Policy) {
    std::vector<std::string> Argv = {"bash", Script, "build", Pkg,
                                     Src,    Dir,    Jobs};
    llvm::append_range(Argv, Policy);
    return Argv;
  };
  Plan.TestArgv = [=](const std::string &Dir, const TestCase &Test) {
    return std::vector<std::string>{"bash", Script, "test",
                                    Pkg,    Dir,    Test.Name};
  };
  Plan.BenchArgv = [=](const std::string &Dir, const std::string &Scratch) {
    return std::vector<std::string>{"bash", Script, "bench", Pkg,
                                    Src,    Dir,    Scratch};
  };
  Plan.ProfileWorkload = [=](const std::string &Dir) {
    return std::vector<std::vector<std::string>>{
        {"bash", Script, "profile-workload", Pkg, Dir}};
  };
  return Plan;
}

Expected<PackageReport> evaluatePackage(const PackageEvalOptions &Opts) {
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());
  Expected<std::string> Source = fetchSource(Opts);
  if (!Source)
    return Source.takeError();
  Expected<BuildPlan> Plan = makePackagePlan(Opts, *Source, Opts.RunTests);
  if (!Plan)
    return Plan.takeError();
  return runBuilds(Opts, *Plan);
}

Expected<speed::ProfileInfo> profilePackage(const PackageEvalOptions &Opts,
                                            StringRef Out) {
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());
  Expected<std::string> Source = fetchSource(Opts, /*ForProfile=*/true);
  if (!Source)
    return Source.takeError();
  PackageEvalOptions Plain = Opts;
  Plain.ProfilePath.clear();
  Expected<BuildPlan> Plan = makePackagePlan(Plain, *Source, false);
  if (!Plan)
    return Plan.takeError();
  if (!Opts.ProfileCommands.empty()) {
    std::string Script = Opts.RecipeScript, Pkg = Opts.Package;
    std::vector<std::string> Commands = Opts.ProfileCommands;
    Plan->ProfileWorkload = [=](const std::string &Dir) {
      std::vector<std::vector<std::string>> Argvs;
      for (const std::string &C : Commands)
        Argvs.push_back({"bash", Script, "profile-run", Pkg, Dir, C});
      return Argvs;
    };
  }
  return runProfile(Opts, *Plan, Out);
}

/// The file that marks a work directory of `mlgo eval build`: a copy of a
/// source tree leaves out every directory holding it (the current work
/// directory and earlier ones), and so does the search for stale objects.
static constexpr const char *WorkMarker = ".mlgo-eval-work";

static bool isWorkDir(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, WorkMarker);
  return sys::fs::exists(P);
}

/// The first object file (ELF relocatable) under \p Dir, outside work
/// directories and .git: a build made in the tree before, whose objects a
/// copy would keep and make would not rebuild. "" if there is none; an
/// error names a directory or file that cannot be read (the copy would
/// fail on it too).
static Expected<std::string> findStaleObject(StringRef Dir) {
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC,
                                                /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    if (It->type() == sys::fs::file_type::directory_file) {
      if (sys::path::filename(It->path()) == ".git" || isWorkDir(It->path()))
        It.no_push();
      continue;
    }
    if (It->type() != sys::fs::file_type::regular_file)
      continue;
    file_magic Magic;
    if (std::error_code MagicEC = identify_magic(It->path(), Magic))
      return makeError(It->path() + ": " + MagicEC.message());
    if (Magic == file_magic::elf_relocatable)
      return It->path();
  }
  if (EC)
    return makeError(Dir + ": " + EC.message());
  return "";
}

/// Adds the tests that the CMake build in \p Tree registers to \p Tests,
/// in ctest's order (`ctest --show-only=json-v1`, output and log in
/// \p Dir); an error names the program and the build tree when there are
/// none or ctest fails.
static Error listCtests(StringRef Name, const std::string &Tree,
                        const std::string &Dir, std::vector<TestCase> &Tests) {
  std::string List = Dir + "/ctest-tests.json", Log = Dir + "/ctest-list.log";
  ProcessResult R = runLogged(
      {"ctest", "--test-dir", Tree, "--show-only=json-v1"}, Log, 60, List);
  if (!R.succeeded())
    return makeError(Name + ": --ctest: listing the tests of " + Tree + " " +
                     R.describe() + ":\n" + readTail(Log, 10));
  Expected<json::Value> V = readJSONFile(List);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  const json::Array *A = O ? O->getArray("tests") : nullptr;
  if (!A)
    return makeError(List + ": no 'tests' array (ctest --show-only=json-v1)");
  unsigned N = 0;
  for (const json::Value &T : *A) {
    ++N;
    const json::Object *TO = T.getAsObject();
    std::optional<StringRef> TestName =
        TO ? TO->getString("name") : std::nullopt;
    if (!TestName)
      return makeError(List + ": test " + Twine(N) + " has no name");
    Tests.push_back(
        {TestName->str(), "ctest-" + std::to_string(N) + ".log", N});
  }
  if (N == 0)
    return makeError(Name +
                     ": --ctest: the build registers no test (ctest "
                     "lists none in " +
                     Tree + ")");
  return Error::success();
}

/// The plan of Opts.SourceDir's builds (checked: its build system, no
/// stale objects in a tree to be copied), its work directory marked.
static Expected<BuildPlan> makeSourcePlan(const SourceEvalOptions &Opts) {
  if (!sys::fs::is_directory(Opts.SourceDir))
    return makeError(Opts.SourceDir + ": no such directory");
  auto System =
      llvm::find_if(Opts.BuildSystems, [&](const FoundBuildSystem &S) {
        return S.System == Opts.System;
      });
  if (System == Opts.BuildSystems.end())
    return makeError(Opts.SourceDir + ": the build systems found for it (" +
                     Twine(Opts.BuildSystems.size()) + ") have no " +
                     getBuildSystemName(Opts.System));
  if (!System->Found)
    return makeError(Opts.SourceDir + ": not a " +
                     getBuildSystemName(Opts.System) + " build (no " +
                     join(System->EntryPoints, " or ") + ")");
  bool InPlace = Opts.System != BuildSystem::CMake;
  if (Opts.Ctest && InPlace)
    return makeError("--ctest: the tests ctest runs are a CMake build's, and "
                     "this is a " +
                     getBuildSystemName(Opts.System) + " build");
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());

  SmallString<256> Marker(Opts.WorkDir);
  sys::path::append(Marker, WorkMarker);
  if (Error E =
          writeFileAtomically(Marker, "a work directory of mlgo eval build\n"))
    return E;

  std::string Src = Opts.SourceDir;
  if (InPlace) {
    Expected<std::string> Stale = findStaleObject(Src);
    if (!Stale)
      return Stale.takeError();
    if (!Stale->empty())
      return makeError(Src + ": holds an object file of an earlier build (" +
                       *Stale +
                       "); a copy of the tree would keep it unrebuilt: "
                       "clean the tree (make distclean) or give a fresh "
                       "checkout");
  }

  BuildPlan Plan;
  Plan.Name = Opts.Name;
  Plan.Tree = InPlace ? "src" : "build";
  for (size_t I = 0; I < Opts.TestCommands.size(); ++I)
    Plan.Tests.push_back(
        {Opts.TestCommands[I], "test-" + std::to_string(I + 1) + ".log"});
  std::string Script = Opts.BuildScript, Tree = Plan.Tree;
  std::string SystemName = getBuildSystemName(Opts.System).str();
  std::string Jobs = std::to_string(Opts.Jobs);
  std::vector<std::string> ConfigureArgs = Opts.ConfigureArgs,
                           MakeArgs = Opts.MakeArgs;
  Plan.BuildArgv = [=](const std::string &Dir, ArrayRef<std::string> Policy) {
    std::vector<std::string> Argv = {"bash", Script, "build", SystemName,
                                     Src,    Dir,    Jobs};
    llvm::append_range(Argv, Policy);
    Argv.resize(Argv.size() + 3 - Policy.size());
    for (const std::string &A : ConfigureArgs) {
      Argv.push_back("configure");
      Argv.push_back(A);
    }
    for (const std::string &A : MakeArgs) {
      Argv.push_back("make");
      Argv.push_back(A);
    }
    return Argv;
  };
  // A shell command run in a build tree, as a test is.
  auto InTree = [=](const std::string &Dir, const std::string &Command) {
    std::string Where = Dir + "/" + Tree;
    return std::vector<std::string>{
        "bash", Script, "test", Where, InPlace ? Where : Src, Command};
  };
  Plan.TestArgv = [=](const std::string &Dir, const TestCase &Test) {
    if (Test.CtestNumber) {
      std::string N = std::to_string(Test.CtestNumber);
      return std::vector<std::string>{
          "ctest", "--test-dir",      Dir + "/" + Tree, "--output-on-failure",
          "-I",    N + "," + N + ",1"};
    }
    return InTree(Dir, Test.Name);
  };
  if (Opts.Ctest) {
    std::string Name = Opts.Name;
    Plan.ListBuiltTests = [=](const std::string &Dir,
                              std::vector<TestCase> &Tests) {
      return listCtests(Name, Dir + "/" + Tree, Dir, Tests);
    };
  }
  if (!Opts.BenchCommand.empty()) {
    std::string Bench = Opts.BenchCommand;
    Plan.BenchArgv = [=](const std::string &Dir, const std::string &) {
      return InTree(Dir, Bench);
    };
  }
  if (!Opts.ProfileCommands.empty()) {
    std::vector<std::string> Commands = Opts.ProfileCommands;
    Plan.ProfileWorkload = [=](const std::string &Dir) {
      std::vector<std::vector<std::string>> Argvs;
      for (const std::string &C : Commands)
        Argvs.push_back(InTree(Dir, C));
      return Argvs;
    };
  }
  return Plan;
}

Expected<PackageReport> evaluateSourceTree(const SourceEvalOptions &Opts) {
  Expected<BuildPlan> Plan = makeSourcePlan(Opts);
  if (!Plan)
    return Plan.takeError();
  return runBuilds(Opts, *Plan);
}

Expected<speed::ProfileInfo>
profileSourceTree(const SourceEvalOptions &Opts,
                  ArrayRef<std::string> RunCommands, StringRef Out) {
  if (RunCommands.empty())
    return makeError(Opts.Name + ": no workload command to profile with");
  Expected<BuildPlan> Plan = makeSourcePlan(Opts);
  if (!Plan)
    return Plan.takeError();
  std::vector<std::string> Commands(RunCommands.begin(), RunCommands.end());
  auto TestArgv = Plan->TestArgv;
  Plan->ProfileWorkload = [=](const std::string &Dir) {
    std::vector<std::vector<std::string>> Argvs;
    for (const std::string &C : Commands)
      Argvs.push_back(TestArgv(Dir, TestCase{C, "", 0}));
    return Argvs;
  };
  return runProfile(Opts, *Plan, Out);
}

Expected<size_t> buildSourceCorpus(const SourceEvalOptions &Opts,
                                   StringRef CorpusDir) {
  Expected<BuildPlan> Plan = makeSourcePlan(Opts);
  if (!Plan)
    return Plan.takeError();
  std::string Out = Opts.WorkDir + "/corpus-build";
  std::string BuildLog = Opts.WorkDir + "/build-corpus.log";
  // The plan's build command without a policy (the three empty policy
  // arguments), as a corpus build.
  std::vector<std::string> Argv = Plan->BuildArgv(Out, {});
  assert(Argv.size() >= 10 && Argv[2] == "build" && "a source build command");
  Argv[2] = "corpus-build";
  Argv.erase(Argv.begin() + 7, Argv.begin() + 10);
  Argv.insert(Argv.begin(), {"env", "MLGO_EVAL_OPT_LEVEL=" + Opts.OptLevel});
  if (Opts.Log)
    Opts.Log("building " + Opts.Name + " with " + Opts.OptLevel +
             " and embedded bitcode");
  ProcessResult R = runLogged(Argv, BuildLog, Opts.BuildTimeoutSeconds);
  if (!R.succeeded())
    return makeError(Opts.Name + ": the corpus build `" + join(Argv, " ") +
                     "` " + R.describe() + "; last lines of " + BuildLog +
                     ":\n" + readTail(BuildLog, 15));
  std::string Tree = Out + "/" + Plan->Tree;
  std::vector<SkippedObject> Skipped;
  Expected<std::vector<ObjectInput>> Objects =
      Opts.System == BuildSystem::CMake
          ? readCompileCommands(Tree + "/compile_commands.json", Skipped)
          : findObjects(Tree);
  if (!Objects)
    return Objects.takeError();
  ExtractOptions EO;
  EO.OutputDir = CorpusDir.str();
  EO.Threads = Opts.Jobs;
  Expected<ExtractResult> E = extractCorpus(*Objects, EO, std::move(Skipped));
  if (!E)
    return E.takeError();
  if (E->Modules.empty())
    return makeError(Opts.Name +
                     ": the corpus build left no object with embedded "
                     "bitcode in " +
                     Tree + " (see " + CorpusDir + "/extraction_report.json)");
  return E->Modules.size();
}

} // namespace mlgo
