//===- tools/mlgo/ProfileCommands.cpp - mlgo profile ----------------------===//
//
//   mlgo profile run -o P.profdata [--timeout=S] -- COMMAND [ARG]...
//   mlgo profile merge RAW.profraw... -o P.profdata
//   mlgo profile show P.profdata
//   mlgo profile package PKG -o P.profdata [--counts C.tsv] [--work-dir DIR]
//   mlgo profile build DIR --run CMD... -o P.profdata [--counts C.tsv] ...
//
// IR-level profiles for mlgo's speed work (mlgo/Speed/Profile.h). `run` runs
// a workload command - anything that runs programs built with
// `-fprofile-generate` (a test suite, a benchmark script) - with
// LLVM_PROFILE_FILE pointing into a fresh directory, merges every raw
// profile the programs wrote into one indexed profile and checks it; the
// command must succeed, and must have run instrumented code. `merge` merges
// raw profiles written elsewhere; `show` checks a profile and says what it
// holds. `package` and `build` make the profile of a Debian package (its
// recipe's profile workload, by default its test suite) or of a source tree
// (the --run commands): built at -O2 -fprofile-generate by its own build
// system, as `mlgo eval package|build --profile` builds it later with the
// profile (mlgo/Eval/PackageEval.h). With --counts, the program is built
// once more with the new profile and the workload run again under
// callgrind, for the block counts of what ran (mlgo/Speed/BlockCounts.h).
// An output is written only when everything succeeded.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/BuildSystem.h"
#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Process.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
tool::RegisterGroup ProfileGroup("profile", "Profiles of workloads, for speed");

cl::SubCommand RunCmd("profile run",
                      "Run a workload of -fprofile-generate programs and "
                      "merge what it recorded into one profile");
cl::list<std::string> Command(cl::Positional, cl::OneOrMore,
                              cl::desc("-- <command> [arg]..."),
                              cl::sub(RunCmd), cl::cat(Cat));
cl::opt<std::string> RunOut("o", cl::Required,
                            cl::desc("the indexed profile to write"),
                            cl::value_desc("file.profdata"), cl::sub(RunCmd),
                            cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("seconds the workload may run (0: no "
                                   "limit)"),
                          cl::init(3600), cl::sub(RunCmd), cl::cat(Cat));

cl::SubCommand MergeCmd("profile merge",
                        "Merge raw profiles into one indexed profile");
cl::list<std::string> Raw(cl::Positional, cl::OneOrMore,
                          cl::desc("<file.profraw>..."), cl::sub(MergeCmd),
                          cl::cat(Cat));
cl::opt<std::string> MergeOut("o", cl::Required,
                              cl::desc("the indexed profile to write"),
                              cl::value_desc("file.profdata"),
                              cl::sub(MergeCmd), cl::cat(Cat));

cl::SubCommand ShowCmd("profile show",
                       "Check an indexed profile and say what it holds");
cl::opt<std::string> ShowFile(cl::Positional, cl::Required,
                              cl::desc("<file.profdata>"), cl::sub(ShowCmd),
                              cl::cat(Cat));

cl::SubCommand PackageCmd(
    "profile package",
    "Build a Debian package at -O2 -fprofile-generate with its own build "
    "system, run its recipe's profile workload, and merge the profile");
cl::opt<std::string> PackageName(cl::Positional, cl::Required,
                                 cl::desc("<package>"), cl::sub(PackageCmd),
                                 cl::cat(Cat));
cl::opt<std::string> PackageOut("o", cl::Required,
                                cl::desc("the indexed profile to write"),
                                cl::value_desc("file.profdata"),
                                cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageCounts(
    "counts",
    cl::desc("also build with the new profile and write the block counts of "
             "the workload run again under callgrind (for mlgo speed cost "
             "--counts and the corpus: mlgo corpus profile --counts)"),
    cl::value_desc("counts.tsv"), cl::sub(PackageCmd), cl::cat(Cat));
cl::list<std::string> PackageRun(
    "run",
    cl::desc("the workload instead of the recipe's profile workload (its "
             "tests): a shell command run in the package's build tree with "
             "$MLGO_BUILD_DIR set (repeatable; each must succeed)"),
    cl::value_desc("command"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageWork(
    "work-dir",
    cl::desc("the build tree and logs (default: <build>/profile/<package>)"),
    cl::value_desc("dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string>
    PackageCache("source-cache",
                 cl::desc("Debian source cache (default: <build>/src)"),
                 cl::value_desc("dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned> PackageJobs("jobs", cl::desc("make -j (default: 2)"),
                              cl::init(2), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned> PackageTimeout(
    "timeout",
    cl::desc("seconds the build, and the workload, may run (0: no limit)"),
    cl::init(3600), cl::sub(PackageCmd), cl::cat(Cat));

cl::SubCommand BuildCmd(
    "profile build",
    "Build your source tree (CMake, configure or a Makefile) at -O2 "
    "-fprofile-generate, run --run commands in it, and merge the profile");
cl::opt<std::string> BuildSource(cl::Positional, cl::Required,
                                 cl::desc("<source dir>"), cl::sub(BuildCmd),
                                 cl::cat(Cat));
cl::list<std::string> BuildRun(
    "run",
    cl::desc("the workload: a shell command run in the build tree with "
             "$MLGO_BUILD_DIR and $MLGO_SOURCE_DIR set, as mlgo eval build "
             "runs a test (repeatable; each must succeed)"),
    cl::value_desc("command"), cl::OneOrMore, cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildOut("o", cl::Required,
                              cl::desc("the indexed profile to write"),
                              cl::value_desc("file.profdata"),
                              cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildCounts(
    "counts",
    cl::desc("also build with the new profile and write the block counts of "
             "the --run commands run again under callgrind"),
    cl::value_desc("counts.tsv"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildSystemName(
    "build-system",
    cl::desc("configure (autotools), cmake or make (default: the first of "
             "these whose entry point the source has)"),
    cl::value_desc("name"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string>
    BuildConfigureArgs("configure-arg",
                       cl::desc("an argument for ./configure or cmake "
                                "(repeatable)"),
                       cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string>
    BuildMakeArgs("make-arg", cl::desc("an argument for make (repeatable)"),
                  cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildWork(
    "work-dir",
    cl::desc("the build tree and logs (default: mlgo-profile-<name> in the "
             "current directory)"),
    cl::value_desc("dir"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<unsigned> BuildJobs("jobs", cl::desc("make -j (default: 2)"),
                            cl::init(2), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<unsigned> BuildTimeout(
    "timeout",
    cl::desc("seconds the build, and the workload, may run (0: no limit)"),
    cl::init(3600), cl::sub(BuildCmd), cl::cat(Cat));

/// \p Path made absolute and free of "." and ".." components.
std::string getAbsolutePath(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

void printInfo(raw_ostream &OS, StringRef Path, const ProfileInfo &I) {
  OS << Path << ": " << I.Functions << " functions, " << I.ExecutedFunctions
     << " executed; largest count " << I.MaxCount << "\n";
}

/// Merges \p Files into \p Out and checks the result (removed if bad).
int mergeAndCheck(ArrayRef<std::string> Files, StringRef Out) {
  if (Error E = mergeRawProfiles(Files, Out))
    return fail(std::move(E));
  Expected<ProfileInfo> Info = readProfileInfo(Out);
  if (!Info) {
    sys::fs::remove(Out);
    return fail(Info.takeError());
  }
  printInfo(outs(), Out, *Info);
  return 0;
}

int runRun() {
  RunOptions Options;
  Options.TimeoutSeconds = Timeout;
  Options.OwnProcessGroup = true;
  Expected<ProfileInfo> Info =
      collectProfile({std::vector<std::string>(Command.begin(), Command.end())},
                     Options, RunOut);
  if (!Info)
    return fail(Info.takeError());
  printInfo(outs(), RunOut, *Info);
  return 0;
}

int runMerge() {
  return mergeAndCheck(std::vector<std::string>(Raw.begin(), Raw.end()),
                       MergeOut);
}

int runShow() {
  Expected<ProfileInfo> Info = readProfileInfo(ShowFile);
  if (!Info)
    return fail(Info.takeError());
  printInfo(outs(), ShowFile, *Info);
  return 0;
}

int runPackage() {
  PackageEvalOptions Opts;
  Opts.Package = PackageName;
  Opts.RecipeScript = getInstallDirs().Data + "/scripts/eval-package.sh";
  Opts.SourceCache =
      getAbsolutePath(PackageCache.empty() ? getInstallDirs().Cache + "/src"
                                           : std::string(PackageCache));
  Opts.WorkDir = getAbsolutePath(
      PackageWork.empty() ? getInstallDirs().Cache + "/profile/" + PackageName
                          : std::string(PackageWork));
  Opts.OptLevel = "-O2";
  Opts.CountsPath = PackageCounts;
  Opts.ProfileCommands.assign(PackageRun.begin(), PackageRun.end());
  Opts.Jobs = std::max(1u, unsigned(PackageJobs));
  Opts.BuildTimeoutSeconds = PackageTimeout;
  Opts.Log = [](StringRef Line) { errs() << "profile: " << Line << '\n'; };
  Expected<ProfileInfo> Info = profilePackage(Opts, PackageOut);
  if (!Info)
    return fail(Info.takeError());
  printInfo(outs(), PackageOut, *Info);
  return 0;
}

int runBuild() {
  SourceEvalOptions Opts;
  Opts.SourceDir = getAbsolutePath(BuildSource);
  if (!sys::fs::is_directory(Opts.SourceDir))
    return fail(BuildSource + ": no such directory (the source tree)");
  Expected<std::vector<FoundBuildSystem>> Found = findBuildSystems(
      Opts.SourceDir, getInstallDirs().Data + "/scripts/package-recipes.sh");
  if (!Found)
    return fail(Found.takeError());
  Opts.BuildSystems = std::move(*Found);
  Expected<BuildSystem> System =
      BuildSystemName.empty()
          ? detectBuildSystem(Opts.SourceDir, Opts.BuildSystems)
          : parseBuildSystem(BuildSystemName);
  if (!System)
    return fail(System.takeError());
  Opts.System = *System;
  Opts.Name = sys::path::filename(Opts.SourceDir).str();
  Opts.WorkDir = getAbsolutePath(BuildWork.empty() ? "mlgo-profile-" + Opts.Name
                                                   : std::string(BuildWork));
  if (Opts.WorkDir == Opts.SourceDir)
    return fail(BuildWork + ": the work directory is the source tree; give "
                            "another --work-dir");
  Opts.ConfigureArgs = BuildConfigureArgs;
  Opts.MakeArgs = BuildMakeArgs;
  Opts.BuildScript = getInstallDirs().Data + "/scripts/eval-build.sh";
  Opts.OptLevel = "-O2";
  Opts.CountsPath = BuildCounts;
  Opts.Jobs = std::max(1u, unsigned(BuildJobs));
  Opts.BuildTimeoutSeconds = BuildTimeout;
  Opts.Log = [](StringRef Line) { errs() << "profile: " << Line << '\n'; };
  Expected<ProfileInfo> Info = profileSourceTree(
      Opts, std::vector<std::string>(BuildRun.begin(), BuildRun.end()),
      BuildOut);
  if (!Info)
    return fail(Info.takeError());
  printInfo(outs(), BuildOut, *Info);
  return 0;
}

tool::RegisterSubcommand RegisteredRun(RunCmd, runRun);
tool::RegisterSubcommand RegisteredPackage(PackageCmd, runPackage);
tool::RegisterSubcommand RegisteredBuild(BuildCmd, runBuild);
tool::RegisterSubcommand RegisteredMerge(MergeCmd, runMerge);
tool::RegisterSubcommand RegisteredShow(ShowCmd, runShow);

} // namespace
