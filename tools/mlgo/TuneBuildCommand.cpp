//===- tools/mlgo/TuneBuildCommand.cpp - mlgo tune build ------------------===//
//
//   mlgo tune build DIR [--objective size|speed] [--max-compiles N]
//                       [--budget MIN] [--profile P | --run CMD]
//                       [--ctest] [--test CMD]... [--work-dir W]
//
// Your own program tuned in one command, as the steps of the README's long
// walkthrough run one after the other, each a library call that the
// separate commands make too:
//
//   1. corpus   the source tree built once with clang-19 and embedded
//               bitcode, its corpus extracted (buildSourceCorpus, as `mlgo
//               corpus extract --compile-commands` for a CMake build)
//   2. profile  for speed without --profile: the tree built with
//               -fprofile-generate and the --run commands run on it
//               (profileSourceTree, as `mlgo profile build`)
//   3. tune     the search (runTuning or runSpeedTuning, as `mlgo tune`)
//   4. eval     the tree built with the baseline flags, the plugin and the
//               plugin with the decisions, the tests run on each
//               (evaluateSourceTree, as `mlgo eval build --decisions`)
//   5. flags    the decisions file's flags for the user's own build: a CMake
//               toolchain file and a CFLAGS line, the exact flags the tuned
//               build of step 4 compiled with
//
// All of it lives in W (default mlgo-tune-NAME): W/corpus, W/profile.profdata,
// W/tune, W/eval, W/decisions.txt, W/toolchain.cmake, W/flags.txt. A rerun
// reuses what a completed step left there (the corpus, the profile, the
// tuner's own incremental work directory, the evaluation when the decisions
// file and the evaluation's options are unchanged), so an interrupted or a
// failed run continues where it stopped. A step that fails is named, with
// the command it ran and its log, in the error.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Corpus/Extract.h"
#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/Tune/SpeedTune.h"
#include "mlgo/Tune/Tuner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

cl::SubCommand BuildCmd(
    "tune build",
    "Tune your own program in one command: build a CMake, configure or "
    "Makefile source tree with embedded bitcode, tune its decisions, build "
    "it with them, run its tests on both builds and print the flags for "
    "your build");
cl::opt<std::string> Source(cl::Positional, cl::Required,
                            cl::desc("<source dir>"), cl::sub(BuildCmd),
                            cl::cat(Cat));
cl::opt<std::string>
    Objective("objective",
              cl::desc("'size' (inlining decisions at -Oz, the linked .text; "
                       "the default) or 'speed' (eviction decisions at -O2 "
                       "with a profile: --profile or --run)"),
              cl::value_desc("size|speed"), cl::init("size"), cl::sub(BuildCmd),
              cl::cat(Cat));
cl::opt<uint64_t> MaxCompiles("max-compiles",
                              cl::desc("the search's compiles (after the "
                                       "baseline's; reproducible)"),
                              cl::init(0), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<double> Budget("budget",
                       cl::desc("--objective size: the search's wall-clock "
                                "minutes (not reproducible; --max-compiles "
                                "is)"),
                       cl::value_desc("minutes"), cl::init(0),
                       cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> ModelPath("model",
                               cl::desc("--objective size: a text model "
                                        "instead of the plugin's embedded "
                                        "one (mlgo train)"),
                               cl::value_desc("file"), cl::sub(BuildCmd),
                               cl::cat(Cat));
cl::opt<std::string> Profile("profile",
                             cl::desc("--objective speed: the program's "
                                      "indexed profile (mlgo profile build)"),
                             cl::value_desc("file"), cl::sub(BuildCmd),
                             cl::cat(Cat));
cl::list<std::string>
    RunCommands("run",
                cl::desc("--objective speed: a shell command that runs the "
                         "program on a typical input, in the build tree with "
                         "$MLGO_BUILD_DIR set (repeatable): profiled into "
                         "W/profile.profdata, and the first is the "
                         "benchmark of the evaluation"),
                cl::value_desc("command"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> Bench("bench",
                           cl::desc("--objective speed: the benchmark of the "
                                    "evaluation (default: the first --run)"),
                           cl::value_desc("command"), cl::sub(BuildCmd),
                           cl::cat(Cat));
const std::string CostHelp = "--objective speed: " + tool::CostTableHelp;
cl::opt<std::string> Cost("cost", cl::desc(CostHelp),
                          cl::value_desc("instructions|cycles|time"),
                          cl::init("instructions"), cl::sub(BuildCmd),
                          cl::cat(Cat));
cl::opt<unsigned> MaxRuns("max-runs",
                          cl::desc("--cost time: stop timing after this many "
                                   "runs of each build (default: 100)"),
                          cl::init(100), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string> Tests(
    "test",
    cl::desc("a shell command that tests a build, run in each build tree "
             "with $MLGO_BUILD_DIR and $MLGO_SOURCE_DIR set; exit status 0 "
             "passes (repeatable)"),
    cl::value_desc("command"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<bool> Ctest("ctest",
                    cl::desc("also run each test the CMake build registers "
                             "(ctest) as a test of its own"),
                    cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string>
    SystemName("build-system",
               cl::desc("configure (autotools), cmake or make (default: the "
                        "first of these whose entry point the source has)"),
               cl::value_desc("name"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string>
    ConfigureArgs("configure-arg",
                  cl::desc("an argument for ./configure or cmake "
                           "(repeatable)"),
                  cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string>
    MakeArgs("make-arg",
             cl::desc("an argument for make: a target or VAR=value "
                      "(repeatable)"),
             cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> CompileCommands(
    "compile-commands",
    cl::desc("reuse a build of your own made with -Xclang "
             "-fembed-bitcode=all (at -Oz; for speed -O2): the corpus is "
             "extracted from its compile_commands.json instead of a build"),
    cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> Work("work-dir",
                          cl::desc("every step's files (default: "
                                   "mlgo-tune-<name> in the current "
                                   "directory); a rerun resumes from it"),
                          cl::value_desc("dir"), cl::sub(BuildCmd),
                          cl::cat(Cat));
cl::opt<std::string> Output("o",
                            cl::desc("the decisions file (default: "
                                     "W/decisions.txt)"),
                            cl::value_desc("file"), cl::sub(BuildCmd),
                            cl::cat(Cat));
cl::opt<unsigned> Jobs("jobs",
                       cl::desc("make -j and compile workers "
                                "(default: 2)"),
                       cl::init(2), cl::sub(BuildCmd), cl::cat(Cat));
cl::alias JobsShort("j", cl::aliasopt(Jobs));
cl::opt<unsigned> BuildTimeout("build-timeout",
                               cl::desc("seconds per build (0: no limit)"),
                               cl::init(3600), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<unsigned> TestTimeout("test-timeout",
                              cl::desc("seconds per test (0: no limit)"),
                              cl::init(600), cl::sub(BuildCmd), cl::cat(Cat));

/// What every step is given: the options, parsed once.
struct Context {
  /// The evaluation's options (its work directory W/eval); the corpus and
  /// profile builds take a copy with another work directory.
  SourceEvalOptions Eval;
  /// W, absolute.
  std::string WorkDir;
  bool Speed = false;
  /// The decisions file, absolute.
  std::string Decisions;
  /// The profile the speed steps apply, absolute (given or W's).
  std::string ProfilePath;
  std::string Plugin;
};

std::string getAbsolutePath(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// The first line of the file at \p Path; "" if it cannot be read.
std::string readFirstLine(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return "";
  return (*B)->getBuffer().split('\n').first.str();
}

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// The steps in order, each announced and timed on stderr; a failure names
/// the step.
class Steps {
public:
  explicit Steps(unsigned Total) : Total(Total) {}

  Error run(StringRef Name, const Twine &What, function_ref<Error()> Step) {
    ++Number;
    std::string Tag = formatv("[{0}/{1}] {2}", Number, Total, Name).str();
    errs() << "mlgo tune build: " << Tag << ": " << What << '\n';
    double Start = now();
    if (Error E = Step())
      return makeError("step " + Tag + " failed: " + toString(std::move(E)));
    LastSeconds = now() - Start;
    errs() << "mlgo tune build: " << Tag << ": done ("
           << formatv("{0:f1}", LastSeconds) << " s)\n";
    return Error::success();
  }
  /// How long the last step took.
  double LastSeconds = 0;

private:
  unsigned Total, Number = 0;
};

/// Step 1 with --compile-commands: the corpus of a build the user made,
/// as `mlgo corpus extract --compile-commands` extracts it.
Error extractCorpus(StringRef Database, StringRef CorpusDir) {
  std::vector<SkippedObject> Skipped;
  Expected<std::vector<ObjectInput>> Objects =
      readCompileCommands(Database, Skipped);
  if (!Objects)
    return Objects.takeError();
  ExtractOptions EO;
  EO.OutputDir = CorpusDir.str();
  EO.Threads = std::max(1u, unsigned(Jobs));
  Expected<ExtractResult> R =
      mlgo::extractCorpus(*Objects, EO, std::move(Skipped));
  if (!R)
    return R.takeError();
  if (R->Modules.empty())
    return makeError(Database +
                     ": no object with embedded bitcode (build "
                     "with -Xclang -fembed-bitcode=all; see " +
                     CorpusDir + "/extraction_report.json)");
  errs() << "mlgo tune build: " << R->Modules.size() << " modules in "
         << CorpusDir << '\n';
  return Error::success();
}

/// Step 1: W/corpus (W/corpus-O2 for speed), unless a run before made it.
/// Returns the corpus; \p BuildSeconds gets the time of the build (the
/// time of the one before, kept in W, when reused).
Error makeCorpus(const Context &C, std::string &CorpusDir,
                 double &BuildSeconds) {
  CorpusDir = C.WorkDir + (C.Speed ? "/corpus-O2" : "/corpus");
  std::string Seconds = C.WorkDir + "/corpus-build-seconds.txt";
  if (sys::fs::exists(CorpusDir + "/corpus_description.json")) {
    errs() << "mlgo tune build: reusing " << CorpusDir << '\n';
    to_float(readFirstLine(Seconds), BuildSeconds);
    return Error::success();
  }
  if (!CompileCommands.empty())
    return extractCorpus(CompileCommands, CorpusDir);
  SourceEvalOptions O = C.Eval;
  O.WorkDir = C.WorkDir;
  double Start = now();
  Expected<size_t> N = buildSourceCorpus(O, CorpusDir);
  if (!N)
    return N.takeError();
  BuildSeconds = now() - Start;
  errs() << "mlgo tune build: " << *N << " modules in " << CorpusDir << '\n';
  return writeFileAtomically(Seconds, formatv("{0:f1}\n", BuildSeconds).str());
}

/// Step 2 (speed, no --profile): W/profile.profdata from the --run
/// commands, unless a run before made it.
Error makeProfile(const Context &C) {
  if (sys::fs::exists(C.ProfilePath)) {
    errs() << "mlgo tune build: reusing " << C.ProfilePath << '\n';
    return Error::success();
  }
  SourceEvalOptions O = C.Eval;
  O.WorkDir = C.WorkDir + "/profile-build";
  Expected<speed::ProfileInfo> Info =
      profileSourceTree(O, RunCommands, C.ProfilePath);
  if (!Info)
    return makeError(toString(Info.takeError()) + "\n(its logs: " + O.WorkDir +
                     "/build-profile.log, " + O.WorkDir +
                     "/profile-workload.log)");
  errs() << "mlgo tune build: " << C.ProfilePath << ": " << Info->Functions
         << " functions, " << Info->ExecutedFunctions << " executed\n";
  return Error::success();
}

/// Step 3: the search, in W/tune (incremental: a rerun replays its
/// compiles).
Error tune(const Context &C, StringRef CorpusDir) {
  std::string TuneDir = C.WorkDir + "/tune";
  if (C.Speed) {
    SpeedTuneOptions O;
    O.CorpusDir = CorpusDir.str();
    O.Profile = C.ProfilePath;
    O.WorkDir = TuneDir;
    O.Output = C.Decisions;
    O.ProgramName = C.Eval.Name;
    O.MaxCompiles = MaxCompiles;
    O.Jobs = std::max(1u, unsigned(Jobs));
    raw_string_ostream Identity(O.BuildIdentity);
    tool::printVersion(Identity);
    O.PluginPath = C.Plugin;
    return runSpeedTuning(O);
  }
  TuneOptions O;
  O.CorpusDir = CorpusDir.str();
  O.WorkDir = TuneDir;
  O.Output = C.Decisions;
  O.ProgramName = C.Eval.Name;
  O.MaxCompiles = MaxCompiles;
  O.BudgetMinutes = Budget;
  O.ModelPath = C.Eval.Model.Policy.ModelPath;
  O.Workers = std::max(1u, unsigned(Jobs));
  return runTuning(O);
}

/// What decides whether an evaluation can be reused: the decisions and
/// profile bytes and every option the builds and tests take.
std::string getEvalKey(const Context &C) {
  MD5 Hash;
  for (const std::string &File : {C.Decisions, C.ProfilePath}) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(File);
    Hash.update(B ? (*B)->getBuffer() : StringRef("-"));
    Hash.update(StringRef("\0", 1));
  }
  const SourceEvalOptions &E = C.Eval;
  std::vector<std::string> Words = {E.SourceDir,
                                    E.PluginPath,
                                    E.OptLevel,
                                    E.Model.Policy.ModelPath,
                                    E.BenchCommand,
                                    Ctest ? "ctest" : "",
                                    speed::getCostName(E.Cost),
                                    std::to_string(E.TimeStop.MaxRounds)};
  for (const auto *List : {&E.ConfigureArgs, &E.MakeArgs, &E.TestCommands})
    llvm::append_range(Words, *List);
  for (const std::string &W : Words) {
    Hash.update(W);
    Hash.update(StringRef("\0", 1));
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

/// Step 4: the evaluation, W/eval/report.txt; reused when its key (W/eval/
/// report.key, written only when every test passed) matches. \p OK: no
/// test failed.
Error evaluate(const Context &C, bool &OK) {
  std::string Report = C.Eval.WorkDir + "/report.txt",
              KeyFile = C.Eval.WorkDir + "/report.key";
  std::string Key = getEvalKey(C);
  if (readFirstLine(KeyFile) == Key && sys::fs::exists(Report)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Report);
    if (B) {
      errs() << "mlgo tune build: reusing " << Report << '\n';
      outs() << (*B)->getBuffer();
      OK = true;
      return Error::success();
    }
  }
  Expected<PackageReport> R = evaluateSourceTree(C.Eval);
  if (!R)
    return makeError(toString(R.takeError()) + "\n(the builds' logs: " +
                     C.Eval.WorkDir + "/build-*.log)");
  std::string Text;
  raw_string_ostream OS(Text);
  R->print(OS, ReportFormat::Table);
  outs() << Text;
  for (const TestOutcome *T : R->getPossibleMiscompiles())
    WithColor::error(errs(), "mlgo")
        << "possible miscompile: " << R->Package << ": test '" << T->Name
        << "' fails with " << (T->ModelPassed ? R->TunedName : R->ModelName)
        << "; log " << (T->ModelPassed ? T->TunedLog : T->ModelLog) << '\n';
  OK = R->getPossibleMiscompiles().empty() && R->getBaselineFailures().empty();
  if (Error E = writeFileAtomically(Report, Text))
    return E;
  return OK ? writeFileAtomically(KeyFile, Key + "\n") : Error::success();
}

/// A word for a shell command line: as it is when it needs no quotes,
/// else in single quotes.
std::string quoteForShell(StringRef Word) {
  if (!Word.empty() &&
      Word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
                             "wxyz0123456789_.,:=+/-") == StringRef::npos)
    return Word.str();
  std::string Out = "'";
  for (char Ch : Word)
    Out += Ch == '\'' ? std::string("'\\''") : std::string(1, Ch);
  return Out + "'";
}

/// The flags of the tuned build (step 4's wrappers append them to every
/// compile): the level, the profile's for speed, the plugin and the file.
std::vector<std::string> getTunedFlags(const Context &C) {
  std::vector<std::string> Flags = {C.Eval.OptLevel};
  if (C.Speed)
    Flags.push_back("-fprofile-use=" + C.ProfilePath);
  // Cannot fail: the model is named by a file, and there is no Fixed.
  llvm::append_range(
      Flags, cantFail(CompilePolicy::forBuild(C.Eval.Model.Policy.ModelPath,
                                              C.Decisions)
                          .getDriverArgs(C.Plugin)));
  return Flags;
}

/// Step 5: W/toolchain.cmake and W/flags.txt, printed too. CMake's build
/// type flags come after CMAKE_C_FLAGS and would override the level, so
/// the toolchain file sets the build type's flags, with -DNDEBUG as the
/// evaluation's builds have it: MinSizeRel for size, Release for speed.
Error writeFlags(const Context &C) {
  std::string Flags;
  for (const std::string &F : getTunedFlags(C))
    Flags += (Flags.empty() ? "" : " ") + F;
  std::string Toolchain = C.WorkDir + "/toolchain.cmake";
  std::string Text = "# mlgo tune build: the tuned build of " + C.Eval.Name +
                     " (" + (C.Speed ? "speed" : "size") +
                     "); cmake -DCMAKE_TOOLCHAIN_FILE=<this file>\n"
                     "set(CMAKE_C_COMPILER clang-19)\n"
                     "set(CMAKE_CXX_COMPILER clang++-19)\n";
  StringRef Type = C.Speed ? "Release" : "MinSizeRel";
  Text += ("set(CMAKE_BUILD_TYPE " + Type + " CACHE STRING \"\")\n").str();
  for (StringRef Lang : {"C", "CXX"})
    Text += ("set(CMAKE_" + Lang + "_FLAGS_" + Type.upper() + " \"" + Flags +
             " -DNDEBUG\" CACHE STRING \"\")\n")
                .str();
  if (Error E = writeFileAtomically(Toolchain, Text))
    return E;
  std::string Line =
      "CC=clang-19 CXX=clang++-19 CFLAGS=" + quoteForShell(Flags) +
      " CXXFLAGS=" + quoteForShell(Flags);
  if (Error E = writeFileAtomically(C.WorkDir + "/flags.txt", Line + "\n"))
    return E;
  outs() << "\ndecisions: " << C.Decisions << '\n'
         << "CMake: cmake -DCMAKE_TOOLCHAIN_FILE=" << Toolchain << " ...\n"
         << "configure or make: " << Line << '\n';
  outs().flush();
  return Error::success();
}

/// The options checked and parsed into \p C.
Error parseOptions(Context &C) {
  Expected<bool> Speed = tool::parseWord<bool>(
      "objective", Objective, {{"size", false}, {"speed", true}});
  if (!Speed)
    return Speed.takeError();
  C.Speed = *Speed;
  if (!C.Speed && (!Profile.empty() || !RunCommands.empty() || !Bench.empty()))
    return makeError("--profile, --run and --bench are for --objective speed");
  if (!C.Speed && (Cost.getNumOccurrences() || MaxRuns.getNumOccurrences()))
    return makeError("--cost and --max-runs are for --objective speed");
  Expected<speed::CostKind> TheCost = tool::parseCost(Cost);
  if (!TheCost)
    return TheCost.takeError();
  if (MaxRuns.getNumOccurrences() && *TheCost != speed::CostKind::Time)
    return makeError("--max-runs is for --cost time");
  if (C.Speed && !ModelPath.empty())
    return makeError("--model is for --objective size (the inlining model)");
  if (C.Speed && Budget != 0)
    return makeError("--budget is for --objective size (a speed search "
                     "stops at --max-compiles)");
  if (C.Speed && Profile.empty() == RunCommands.empty())
    return makeError("--objective speed needs one of --profile P.profdata "
                     "and --run CMD (the workload it is profiled on)");
  if (C.Speed && RunCommands.empty() && Bench.empty())
    return makeError("--profile needs --bench: the benchmark the evaluation "
                     "measures");
  SourceEvalOptions &E = C.Eval;
  E.SourceDir = getAbsolutePath(Source);
  if (!sys::fs::is_directory(E.SourceDir))
    return makeError(Source + ": no such directory (the source tree)");
  Expected<std::vector<FoundBuildSystem>> Found = findBuildSystems(
      E.SourceDir, getInstallDirs().Data + "/scripts/package-recipes.sh");
  if (!Found)
    return Found.takeError();
  E.BuildSystems = std::move(*Found);
  Expected<BuildSystem> System =
      SystemName.empty() ? detectBuildSystem(E.SourceDir, E.BuildSystems)
                         : parseBuildSystem(SystemName);
  if (!System)
    return System.takeError();
  E.System = *System;
  E.Name = sys::path::filename(E.SourceDir).str();
  C.WorkDir =
      getAbsolutePath(Work.empty() ? "mlgo-tune-" + E.Name : std::string(Work));
  if (C.WorkDir == E.SourceDir)
    return makeError(Work + ": the work directory is the source tree; give "
                            "another --work-dir");
  E.WorkDir = C.WorkDir + "/eval";
  C.Decisions = getAbsolutePath(Output.empty() ? C.WorkDir + "/decisions.txt"
                                               : std::string(Output));
  C.Plugin = getAbsolutePath(getInstallDirs().Plugin);
  if (!sys::fs::is_regular_file(C.Plugin))
    return makeError(C.Plugin + ": no such file (mlgo's plugin)");
  E.PluginPath = C.Plugin;
  if (!ModelPath.empty()) {
    std::string Path = getAbsolutePath(ModelPath);
    Expected<CompilePolicy> P = CompilePolicy::loadModel(Path);
    if (!P)
      return P.takeError();
    E.Model = {sys::path::stem(Path).str(), std::move(*P)};
  }
  E.DecisionsPath = C.Decisions;
  E.ConfigureArgs = ConfigureArgs;
  E.MakeArgs = MakeArgs;
  E.TestCommands = Tests;
  E.Ctest = Ctest;
  E.BuildScript = getInstallDirs().Data + "/scripts/eval-build.sh";
  E.Jobs = std::max(1u, unsigned(Jobs));
  E.BuildTimeoutSeconds = BuildTimeout;
  E.TestTimeoutSeconds = TestTimeout;
  E.Log = [](StringRef Line) { errs() << "mlgo tune build: " << Line << '\n'; };
  if (C.Speed) {
    E.OptLevel = "-O2";
    E.Evict = true;
    E.Model.Name = "tuned"; // the plugin with the decisions
    C.ProfilePath =
        getAbsolutePath(Profile.empty() ? C.WorkDir + "/profile.profdata"
                                        : std::string(Profile));
    E.ProfilePath = C.ProfilePath;
    E.BenchCommand = Bench.empty() ? RunCommands.front() : Bench;
    E.Cost = *TheCost;
    E.TimeStop.MaxRounds = std::max(1u, unsigned(MaxRuns));
    E.TimeStop.MinRounds = std::min(E.TimeStop.MinRounds, E.TimeStop.MaxRounds);
  }
  return Error::success();
}

int runTuneBuild() {
  Context C;
  if (Error E = parseOptions(C))
    return fail(std::move(E));
  bool ProfileStep = C.Speed && !RunCommands.empty();
  errs() << "mlgo tune build: " << C.Eval.Name << ": "
         << getBuildSystemName(C.Eval.System) << " build, for "
         << (C.Speed ? "speed" : "size") << "; work directory " << C.WorkDir
         << '\n';
  if (std::error_code EC = sys::fs::create_directories(C.WorkDir))
    return fail(C.WorkDir + ": " + EC.message());
  Steps S(ProfileStep ? 5 : 4);
  std::string CorpusDir;
  double BuildSeconds = 0;
  if (Error E = S.run("corpus",
                      CompileCommands.empty()
                          ? "building with " + C.Eval.OptLevel +
                                " and embedded bitcode, extracting the corpus"
                          : "extracting the corpus of " + CompileCommands,
                      [&] { return makeCorpus(C, CorpusDir, BuildSeconds); }))
    return fail(std::move(E));
  if (ProfileStep)
    if (Error E =
            S.run("profile", "building with -fprofile-generate, running --run",
                  [&] { return makeProfile(C); }))
      return fail(std::move(E));
  if (Error E = S.run("tune", "searching " + CorpusDir + " into " + C.Decisions,
                      [&] { return tune(C, CorpusDir); }))
    return fail(std::move(E));
  bool OK = false;
  // Builds like the corpus build (for speed, the profiled baseline and
  // the tuned build, then the benchmark), then the tests.
  unsigned Builds = C.Speed ? 2 : 3;
  std::string Left =
      BuildSeconds > 0 ? "; " + Progress::formatTimeLeft(Builds * BuildSeconds)
                       : std::string();
  std::string What =
      C.Speed ? "two builds (-O2 with the profile; and with the plugin and "
                "the decisions), the tests and the benchmark"
              : "three builds (-Oz, the plugin, the plugin and the "
                "decisions) and the tests";
  if (Error E = S.run("eval", What + Left, [&] { return evaluate(C, OK); }))
    return fail(std::move(E));
  if (Error E = S.run("flags", "the flags of the tuned build",
                      [&] { return writeFlags(C); }))
    return fail(std::move(E));
  return OK ? 0 : 1;
}

tool::RegisterSubcommand RegBuild(BuildCmd, runTuneBuild);

} // namespace
