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
#include "mlgo/Inline/Decisions.h"
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
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {

/// The last \p N lines of the file at \p Path ("" if unreadable).
static std::string readTail(StringRef Path, size_t N) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  StringRef Text = (*Buf)->getBuffer().rtrim('\n');
  size_t Pos = Text.size();
  for (size_t I = 0; I < N && Pos != StringRef::npos && Pos > 0; ++I)
    Pos = Text.rfind('\n', Pos - 1);
  return (Pos == StringRef::npos ? Text : Text.drop_front(Pos + 1)).str();
}

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
static Expected<std::string> fetchSource(const PackageEvalOptions &Opts) {
  const std::string &Pkg = Opts.Package;
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());
  SmallString<128> SrcFile(Opts.WorkDir), FetchLog(Opts.WorkDir);
  sys::path::append(SrcFile, "source-dir.txt");
  sys::path::append(FetchLog, "fetch.log");
  if (Opts.Log)
    Opts.Log("fetching the Debian source of " + Pkg);
  ProcessResult Fetch =
      runLogged({"bash", Opts.RecipeScript, "fetch", Pkg, Opts.SourceCache},
                FetchLog, Opts.BuildTimeoutSeconds, SrcFile);
  if (!Fetch.succeeded())
    return makeError(Pkg + ": fetching the source " + Fetch.describe() + ":\n" +
                     readTail(FetchLog, 10));
  std::string Src = readTail(SrcFile, 1);
  if (Src.empty() || !sys::fs::is_directory(Src))
    return makeError(Pkg + ": the recipe gave no source directory (see " +
                     FetchLog + ")");
  return Src;
}

Error buildPackageCorpus(const PackageEvalOptions &Opts, StringRef CorpusDir) {
  const std::string &Pkg = Opts.Package;
  Expected<std::string> Src = fetchSource(Opts);
  if (!Src)
    return Src.takeError();
  std::string Out = Opts.WorkDir + "/corpus-build";
  std::string BuildLog = Opts.WorkDir + "/build-corpus.log";
  if (Opts.Log)
    Opts.Log("building " + Pkg + " with -Oz and embedded bitcode");
  ProcessResult R = runLogged({"bash", Opts.RecipeScript, "corpus-build", Pkg,
                               *Src, Out, std::to_string(Opts.Jobs)},
                              BuildLog, Opts.BuildTimeoutSeconds);
  if (!R.succeeded())
    return makeError(Pkg + ": the corpus build " + R.describe() +
                     "; last lines of " + BuildLog + ":\n" +
                     readTail(BuildLog, 15));
  Expected<std::vector<ObjectInput>> Objects = findObjects(Out + "/src");
  if (!Objects)
    return Objects.takeError();
  if (Opts.Log)
    Opts.Log(
        ("extracting " + Twine(Objects->size()) + " objects of " + Pkg).str());
  ExtractOptions EO;
  EO.OutputDir = CorpusDir.str();
  EO.Threads = Opts.Jobs;
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
};

} // namespace

/// The builds of one evaluation, named by what they build with: the
/// baseline (stock clang at Opts.OptLevel), the model (the plugin) and,
/// with a decisions file, tuned (the plugin and the file).
enum class BuildKind { Baseline, Model, Tuned };

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
  }
  llvm_unreachable("unknown build kind");
}

/// The policy arguments of the build scripts for a build of \p Kind: none
/// for the baseline; the plugin and the model file ("" for the embedded
/// one, and for the eviction model, which the environment names); those
/// and the decisions file.
static std::vector<std::string> getPolicyArgs(BuildKind Kind,
                                              const BuildEvalOptions &Opts) {
  if (Kind == BuildKind::Baseline)
    return {};
  std::vector<std::string> Args = {
      Opts.PluginPath, Opts.Evict ? "" : Opts.Model.Policy.ModelPath};
  if (Kind == BuildKind::Tuned)
    Args.push_back(Opts.DecisionsPath);
  return Args;
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
  Report.ModelName = Opts.Model.Name;
  Report.BaselineName = Opts.OptLevel;
  if (Opts.Evict && !Opts.DecisionsPath.empty())
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
  Report.HasTuned = !Opts.DecisionsPath.empty();
  // A file the plugin would reject fails now, not after two builds.
  if (Report.HasTuned) {
    Expected<DecisionsFile> F = DecisionsFile::load(Opts.DecisionsPath);
    if (!F)
      return F.takeError();
  }
  std::vector<Config> Configs = {{BuildKind::Baseline, Opts.OptLevel, "", {}},
                                 {BuildKind::Model, Opts.Model.Name, "", {}}};
  if (Report.HasTuned)
    Configs.push_back({BuildKind::Tuned, Report.TunedName, "", {}});
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
        "MLGO_EVAL_EVICT=" + (!Opts.Evict ? std::string()
                              : Opts.EvictModelPath.empty()
                                  ? std::string("embedded")
                                  : Opts.EvictModelPath)};
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
  return Report;
}

Expected<PackageReport> evaluatePackage(const PackageEvalOptions &Opts) {
  const std::string &Pkg = Opts.Package;
  if (std::error_code EC = sys::fs::create_directories(Opts.WorkDir))
    return makeError(Opts.WorkDir + ": " + EC.message());

  SmallString<128> FetchLog(Opts.WorkDir);
  sys::path::append(FetchLog, "fetch.log");
  Expected<std::string> Source = fetchSource(Opts);
  if (!Source)
    return Source.takeError();
  const std::string &Src = *Source;

  BuildPlan Plan;
  Plan.Name = Pkg;
  Plan.Tree = "src";
  // The test list, before building, so a recipe error shows early.
  if (Opts.RunTests) {
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
  Plan.BuildArgv = [&](const std::string &Dir, ArrayRef<std::string> Policy) {
    std::vector<std::string> Argv = {
        "bash", Opts.RecipeScript,        "build", Pkg, Src,
        Dir,    std::to_string(Opts.Jobs)};
    llvm::append_range(Argv, Policy);
    return Argv;
  };
  Plan.TestArgv = [&](const std::string &Dir, const TestCase &Test) {
    return std::vector<std::string>{"bash", Opts.RecipeScript, "test", Pkg,
                                    Dir,    Test.Name};
  };
  return runBuilds(Opts, Plan);
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

Expected<PackageReport> evaluateSourceTree(const SourceEvalOptions &Opts) {
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

  StringRef Src = Opts.SourceDir;
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
  Plan.BuildArgv = [&](const std::string &Dir, ArrayRef<std::string> Policy) {
    std::vector<std::string> Argv = {"bash",
                                     Opts.BuildScript,
                                     "build",
                                     getBuildSystemName(Opts.System).str(),
                                     Src.str(),
                                     Dir,
                                     std::to_string(Opts.Jobs)};
    llvm::append_range(Argv, Policy);
    Argv.resize(Argv.size() + 3 - Policy.size());
    for (const std::string &A : Opts.ConfigureArgs) {
      Argv.push_back("configure");
      Argv.push_back(A);
    }
    for (const std::string &A : Opts.MakeArgs) {
      Argv.push_back("make");
      Argv.push_back(A);
    }
    return Argv;
  };
  Plan.TestArgv = [&](const std::string &Dir, const TestCase &Test) {
    std::string Tree = Dir + "/" + Plan.Tree;
    if (Test.CtestNumber) {
      std::string N = std::to_string(Test.CtestNumber);
      return std::vector<std::string>{"ctest", "--test-dir",
                                      Tree,    "--output-on-failure",
                                      "-I",    N + "," + N + ",1"};
    }
    return std::vector<std::string>{
        "bash", Opts.BuildScript,           "test",
        Tree,   InPlace ? Tree : Src.str(), Test.Name};
  };
  if (Opts.Ctest)
    Plan.ListBuiltTests = [&](const std::string &Dir,
                              std::vector<TestCase> &Tests) {
      return listCtests(Opts.Name, Dir + "/" + Plan.Tree, Dir, Tests);
    };
  return runBuilds(Opts, Plan);
}

} // namespace mlgo
