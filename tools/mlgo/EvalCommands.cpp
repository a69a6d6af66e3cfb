//===- tools/mlgo/EvalCommands.cpp - mlgo eval ... ------------------------===//
//
// The evaluation commands:
//   eval corpus DIR   every corpus module compiled at -Oz and under each
//                     model; .text tables (terminal, Markdown, CSV) and an
//                     SVG chart
//   eval package PKG  a Debian source package built end to end twice; .text
//                     of its binaries and libraries, build time, peak
//                     compiler RSS, and its test suite against both builds
//   eval build DIR    the same for any source tree (CMake, configure or a
//                     Makefile) and the test commands the user gives
// The work is in the MLGOEval library (and the package recipes in
// scripts/packages/, run by scripts/eval-package.sh); this file parses
// options and prints.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Eval/ClangModuleCompiler.h"
#include "mlgo/Eval/CorpusEval.h"
#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Eval/SizeChart.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

//===-- eval corpus -------------------------------------------------------===//

cl::SubCommand CorpusCmd(
    "eval corpus",
    "Compile every corpus module at -Oz and with each model; .text tables");
cl::opt<std::string> CorpusDir(cl::Positional, cl::Required,
                               cl::desc("<corpus dir>"), cl::sub(CorpusCmd),
                               cl::cat(Cat));
cl::list<std::string> CorpusModels(
    "model",
    cl::desc("a text model to evaluate (repeatable; default: the plugin's "
             "embedded model); 'embedded' names the embedded model"),
    cl::value_desc("file"), cl::sub(CorpusCmd), cl::cat(Cat));
cl::opt<std::string> CorpusBaseline(
    "baseline",
    cl::desc("what the models are compared with: 'oz' (stock clang -Oz, "
             "the default) or 'embedded' (the plugin's embedded model)"),
    cl::init("oz"), cl::sub(CorpusCmd), cl::cat(Cat));
cl::opt<std::string> CorpusFormat("format", cl::desc("table, markdown or csv"),
                                  cl::init("table"), cl::sub(CorpusCmd),
                                  cl::cat(Cat));
cl::opt<std::string> CorpusChart("chart",
                                 cl::desc("write an SVG bar chart to <file>"),
                                 cl::value_desc("file"), cl::sub(CorpusCmd),
                                 cl::cat(Cat));
cl::opt<bool> CorpusPerModule("per-module",
                              cl::desc("print a row per module as well"),
                              cl::sub(CorpusCmd), cl::cat(Cat));
cl::opt<unsigned> CorpusJobs("jobs",
                             cl::desc("parallel compiles (0: all "
                                      "cores)"),
                             cl::init(0), cl::sub(CorpusCmd), cl::cat(Cat));
cl::alias CorpusJobsShort("j", cl::aliasopt(CorpusJobs));
cl::opt<std::string> CorpusModulesFrom(
    "modules-from",
    cl::desc("evaluate the modules listed in <file>, one a line"),
    cl::value_desc("file"), cl::sub(CorpusCmd), cl::cat(Cat));
cl::opt<std::string> CorpusPackages(
    "packages", cl::desc("evaluate the modules of these packages only"),
    cl::value_desc("p1,p2,..."), cl::sub(CorpusCmd), cl::cat(Cat));
cl::opt<unsigned> CorpusTimeout("timeout",
                                cl::desc("seconds per compile (0: no limit)"),
                                cl::init(600), cl::sub(CorpusCmd),
                                cl::cat(Cat));
cl::opt<std::string> CorpusClang("clang", cl::desc("clang driver to run"),
                                 cl::init("clang-19"), cl::sub(CorpusCmd),
                                 cl::cat(Cat));
cl::opt<std::string> CorpusPlugin(
    "plugin", cl::desc("mlgo-plugin.so (default: this mlgo's, ../lib/mlgo/)"),
    cl::value_desc("file"), cl::sub(CorpusCmd), cl::cat(Cat));

//===-- eval package ------------------------------------------------------===//

cl::SubCommand PackageCmd(
    "eval package",
    "Build a Debian source package with -Oz and with the plugin; compare "
    ".text, build time and RSS, and run its test suite against both");
cl::list<std::string> PackageNames(cl::Positional, cl::OneOrMore,
                                   cl::desc("<package>..."),
                                   cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string>
    PackageModel("model",
                 cl::desc("the text model to build with (default: embedded)"),
                 cl::value_desc("file"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageDecisions(
    "decisions",
    cl::desc("also build with the model and this decisions file (mlgo tune); "
             "a directory: <dir>/<package>.decisions for each package that "
             "has one"),
    cl::value_desc("file|dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<bool> PackageEvict(
    "evict",
    cl::desc("evaluate the eviction model instead: build with -O2, and with "
             "-O2 and the plugin's eviction model (LLVM's inliner deciding)"),
    cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageEvictModel(
    "evict-model",
    cl::desc("with --evict: the eviction model file (default: embedded)"),
    cl::value_desc("file"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageProfile(
    "profile",
    cl::desc("evaluate for speed with this indexed profile (a directory: "
             "<dir>/<package>.profdata for each package): both builds at -O2 "
             "with it, the eviction model against LLVM's advisor, then the "
             "recipe's benchmark under callgrind, the reward and wall-clock "
             "runs"),
    cl::value_desc("file|dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<bool> PackageProfileFromTests(
    "profile-from-tests",
    cl::desc("as --profile, with a profile of each package made first by its "
             "recipe's profile workload (by default its test suite), as "
             "mlgo profile package makes it: <work>/<package>.profdata"),
    cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned> PackageWallRuns(
    "wall-runs",
    cl::desc("with a profile: paired wall-clock runs of the benchmark "
             "(default: 5)"),
    cl::init(5), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<bool> PackageBolt(
    "bolt",
    cl::desc("with a profile: also optimize both builds with llvm-bolt-19 "
             "from an instrumented run of the profile workload, and time the "
             "four builds (PGO, PGO+BOLT, the plugin's, the plugin's+BOLT) "
             "together on the benchmark"),
    cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned> PackageMaxRuns(
    "max-runs",
    cl::desc("with --bolt or --cost time: stop timing after this many runs "
             "of each build (default: 100)"),
    cl::init(100), cl::sub(PackageCmd), cl::cat(Cat));
/// --cost of eval package and eval build.
const std::string CostHelp = "with a profile: " + tool::CostTableHelp;
cl::opt<std::string> PackageCost("cost", cl::desc(CostHelp),
                                 cl::value_desc("instructions|cycles|time"),
                                 cl::init("instructions"), cl::sub(PackageCmd),
                                 cl::cat(Cat));
cl::opt<unsigned> PackageJobs("jobs", cl::desc("make -j (default: 2)"),
                              cl::init(2), cl::sub(PackageCmd), cl::cat(Cat));
cl::alias PackageJobsShort("j", cl::aliasopt(PackageJobs));
cl::opt<std::string> PackageWork(
    "work-dir",
    cl::desc("build trees and logs (default: <build>/eval/<package>); "
             "with several packages, <dir>/<package> for each"),
    cl::value_desc("dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string>
    PackageCache("source-cache",
                 cl::desc("Debian source cache (default: <build>/src)"),
                 cl::value_desc("dir"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageFormat("format", cl::desc("table, markdown or csv"),
                                   cl::init("table"), cl::sub(PackageCmd),
                                   cl::cat(Cat));
cl::opt<bool> PackageNoTests("no-tests", cl::desc("skip the test suite"),
                             cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned>
    PackageBuildTimeout("build-timeout",
                        cl::desc("seconds per build (0: no limit)"),
                        cl::init(3600), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<unsigned> PackageTestTimeout("test-timeout",
                                     cl::desc("seconds per test (0: no limit)"),
                                     cl::init(600), cl::sub(PackageCmd),
                                     cl::cat(Cat));
cl::opt<std::string> PackageLto(
    "lto",
    cl::desc("thin or full: build with stock -flto=thin or -flto, with the "
             "model (and the decisions file) in the compile steps and in "
             "lld's LTO link, and with the level and no LTO beside"),
    cl::value_desc("thin|full"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackageLinkFlags(
    "link-flags",
    cl::desc("words added to every compile and link of every build "
             "(with --lto, default: -ffunction-sections -fdata-sections "
             "-fuse-ld=lld -Wl,--gc-sections -Wl,--icf=all)"),
    cl::value_desc("flags"), cl::sub(PackageCmd), cl::cat(Cat));
cl::opt<std::string> PackagePlugin(
    "plugin", cl::desc("mlgo-plugin.so (default: this mlgo's, ../lib/mlgo/)"),
    cl::value_desc("file"), cl::sub(PackageCmd), cl::cat(Cat));

//===-- eval build --------------------------------------------------------===//

cl::SubCommand BuildCmd(
    "eval build",
    "Build your own source tree (CMake, configure or a Makefile) with -Oz and "
    "with the plugin; compare .text, build time and RSS, and run your test "
    "commands against both");
cl::opt<std::string> BuildSource(cl::Positional, cl::Required,
                                 cl::desc("<source dir>"), cl::sub(BuildCmd),
                                 cl::cat(Cat));
cl::opt<std::string> BuildSystemName(
    "build-system",
    cl::desc("configure (autotools), cmake or make (default: the first of "
             "these whose entry point the source has)"),
    cl::value_desc("name"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string>
    BuildName("name",
              cl::desc("what the report calls the program (default: the "
                       "source directory's name)"),
              cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string> BuildConfigureArgs(
    "configure-arg",
    cl::desc("an argument for ./configure or cmake (repeatable), e.g. "
             "--configure-arg=-DBUILD_DOC=OFF"),
    cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string>
    BuildMakeArgs("make-arg",
                  cl::desc("an argument for make: a target or VAR=value "
                           "(repeatable)"),
                  cl::value_desc("arg"), cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string> BuildTests(
    "test",
    cl::desc("a shell command that tests a build, run in each build tree "
             "with $MLGO_BUILD_DIR and $MLGO_SOURCE_DIR set; exit status 0 "
             "passes (repeatable: one test each)"),
    cl::value_desc("command"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<bool> BuildCtest(
    "ctest",
    cl::desc("also run each test the CMake build registers (ctest) as a "
             "test of its own"),
    cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string>
    BuildModel("model",
               cl::desc("the text model to build with (default: embedded)"),
               cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildDecisions(
    "decisions",
    cl::desc("also build with the model and this decisions file (mlgo "
             "tune); with --profile, a file for speed, built instead of the "
             "eviction model and measured against -O2 -fprofile-use"),
    cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildProfile(
    "profile",
    cl::desc("evaluate for speed with this indexed profile (mlgo profile "
             "build): both builds at -O2 with it, the eviction model against "
             "LLVM's advisor, then --bench under callgrind, the reward and "
             "wall-clock runs"),
    cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildBench(
    "bench",
    cl::desc("with --profile: the benchmark, a shell command run in each "
             "build tree as a test is (on another input than the profile's)"),
    cl::value_desc("command"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildEvictModel(
    "evict-model",
    cl::desc("with --profile: the eviction model file (default: embedded)"),
    cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<unsigned> BuildWallRuns(
    "wall-runs",
    cl::desc("with --profile: paired wall-clock runs of the benchmark "
             "(default: 5)"),
    cl::init(5), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<bool> BuildBolt(
    "bolt",
    cl::desc("with --profile: also optimize both builds with llvm-bolt-19 "
             "from an instrumented run of --bolt-run, and time the four "
             "builds (PGO, PGO+BOLT, the plugin's, the plugin's+BOLT) "
             "together on the benchmark"),
    cl::sub(BuildCmd), cl::cat(Cat));
cl::list<std::string> BuildBoltRun(
    "bolt-run",
    cl::desc("with --bolt: the profile workload, a shell command run in the "
             "BOLT-instrumented build trees as a test is (repeatable; give "
             "the commands of mlgo profile build --run)"),
    cl::value_desc("command"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<unsigned> BuildMaxRuns(
    "max-runs",
    cl::desc("with --bolt or --cost time: stop timing after this many runs "
             "of each build (default: 100)"),
    cl::init(100), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildCost("cost", cl::desc(CostHelp),
                               cl::value_desc("instructions|cycles|time"),
                               cl::init("instructions"), cl::sub(BuildCmd),
                               cl::cat(Cat));
cl::opt<std::string> BuildWork(
    "work-dir",
    cl::desc("build trees and logs (default: mlgo-eval-<name> in the current "
             "directory)"),
    cl::value_desc("dir"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildOutput("o",
                                 cl::desc("also write the report to <file>"),
                                 cl::value_desc("file"), cl::sub(BuildCmd),
                                 cl::cat(Cat));
cl::opt<unsigned> BuildJobs("jobs", cl::desc("make -j (default: 2)"),
                            cl::init(2), cl::sub(BuildCmd), cl::cat(Cat));
cl::alias BuildJobsShort("j", cl::aliasopt(BuildJobs));
cl::opt<std::string> BuildFormat("format", cl::desc("table, markdown or csv"),
                                 cl::init("table"), cl::sub(BuildCmd),
                                 cl::cat(Cat));
cl::opt<unsigned> BuildBuildTimeout("build-timeout",
                                    cl::desc("seconds per build (0: no limit)"),
                                    cl::init(3600), cl::sub(BuildCmd),
                                    cl::cat(Cat));
cl::opt<unsigned> BuildTestTimeout("test-timeout",
                                   cl::desc("seconds per test (0: no limit)"),
                                   cl::init(600), cl::sub(BuildCmd),
                                   cl::cat(Cat));
cl::opt<std::string> BuildLto(
    "lto",
    cl::desc("thin or full: build with stock -flto=thin or -flto, with the "
             "model (and the decisions file) in the compile steps and in "
             "lld's LTO link, and with the level and no LTO beside"),
    cl::value_desc("thin|full"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string> BuildLinkFlags(
    "link-flags",
    cl::desc("words added to every compile and link of every build "
             "(with --lto, default: -ffunction-sections -fdata-sections "
             "-fuse-ld=lld -Wl,--gc-sections -Wl,--icf=all)"),
    cl::value_desc("flags"), cl::sub(BuildCmd), cl::cat(Cat));
cl::opt<std::string>
    BuildPlugin("plugin",
                cl::desc("mlgo-plugin.so (default: this mlgo's, ../lib/mlgo/)"),
                cl::value_desc("file"), cl::sub(BuildCmd), cl::cat(Cat));

/// \p Given, else the plugin this build makes; absolute.
Expected<std::string> getPlugin(StringRef Given) {
  std::string P = Given.empty() ? getInstallDirs().Plugin : Given.str();
  if (!sys::fs::exists(P))
    return makeError(P + ": no such file (the plugin; build it, or "
                         "pass --plugin)");
  SmallString<256> Abs(P);
  sys::fs::make_absolute(Abs);
  return std::string(Abs);
}

/// Sets Opts.Lto, Opts.LinkFlags and, with LTO, Opts.LinkerPath (mlgo's
/// ld.lld beside Opts.PluginPath) from `--lto` and `--link-flags`.
Error setLtoOptions(StringRef Lto, StringRef LinkFlags,
                    BuildEvalOptions &Opts) {
  if (Lto.empty()) {
    Opts.Lto = LtoMode::None;
  } else if (Lto == "thin") {
    Opts.Lto = LtoMode::Thin;
  } else if (Lto == "full") {
    Opts.Lto = LtoMode::Full;
  } else {
    return makeError("--lto: unknown mode '" + Lto + "' (thin or full)");
  }
  SmallVector<StringRef> Words;
  StringRef Flags = LinkFlags.empty() && Opts.Lto != LtoMode::None
                        ? StringRef(DefaultLtoLinkFlags)
                        : LinkFlags;
  Flags.split(Words, ' ', -1, /*KeepEmpty=*/false);
  Opts.LinkFlags.assign(Words.begin(), Words.end());
  if (Opts.Lto == LtoMode::None)
    return Error::success();
  SmallString<256> Linker(sys::path::parent_path(Opts.PluginPath));
  sys::path::append(Linker, "lld", "ld.lld");
  if (!sys::fs::can_execute(Linker))
    return makeError(Linker + ": no such program (mlgo's ld.lld, which "
                              "loads the plugin into the LTO link; build "
                              "mlgo-plugin)");
  Opts.LinkerPath = std::string(Linker);
  return Error::success();
}

/// A model file as a report names it: its metadata.name, else the path;
/// "embedded" is the plugin's own model.
Expected<NamedPolicy> getModelPolicy(StringRef Path) {
  if (Path == "embedded")
    return NamedPolicy{"embedded", CompilePolicy::embedded()};
  Expected<CompilePolicy> P = CompilePolicy::loadModel(Path);
  if (!P)
    return P.takeError();
  Expected<json::Value> V = json::parse(P->getModelJSON());
  if (!V)
    return makeError(Path + ": invalid JSON: " + toString(V.takeError()));
  std::string Name = Path.str();
  if (const json::Object *O = V->getAsObject())
    if (const json::Object *Meta = O->getObject("metadata"))
      if (std::optional<StringRef> N = Meta->getString("name"))
        if (!N->empty())
          Name = N->str();
  return NamedPolicy{Name, std::move(*P)};
}

int runEvalCorpus() {
  Expected<ReportFormat> Format = parseReportFormat(CorpusFormat);
  if (!Format)
    return fail(Format.takeError());
  Expected<CorpusDescription> D = CorpusDescription::read(CorpusDir);
  if (!D)
    return fail(D.takeError());

  // Which modules.
  std::vector<std::string> Modules = D->Modules;
  if (!CorpusModulesFrom.empty()) {
    Expected<std::unique_ptr<MemoryBuffer>> Buf =
        readWholeFile(CorpusModulesFrom);
    if (!Buf)
      return fail(toString(Buf.takeError()));
    Modules.clear();
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef L : Lines) {
      L = L.trim();
      if (L.empty() || L.starts_with("#"))
        continue;
      if (!llvm::is_contained(D->Modules, L))
        return fail(CorpusModulesFrom + ": module '" + L +
                    "' is not in the corpus at '" + CorpusDir + "'");
      Modules.push_back(L.str());
    }
  }
  if (!CorpusPackages.empty()) {
    SmallVector<StringRef> Names;
    StringRef(CorpusPackages).split(Names, ',', -1, /*KeepEmpty=*/false);
    StringSet<> Wanted(Names);
    StringSet<> Seen;
    std::vector<std::string> Kept;
    for (const std::string &M : Modules) {
      StringRef P = getModulePackage(M);
      if (Wanted.contains(P)) {
        Kept.push_back(M);
        Seen.insert(P);
      }
    }
    for (StringRef N : Names)
      if (!Seen.contains(N))
        return fail("package '" + N + "' has no module in the corpus at '" +
                    CorpusDir + "'");
    Modules = std::move(Kept);
  }
  if (Modules.empty())
    return fail("no modules to evaluate in '" + CorpusDir + "'");

  // Which policies.
  NamedPolicy Baseline;
  if (CorpusBaseline == "oz")
    Baseline = {"-Oz", CompilePolicy::stock()};
  else if (CorpusBaseline == "embedded")
    Baseline = {"embedded", CompilePolicy::embedded()};
  else
    return fail("unknown baseline '" + CorpusBaseline +
                "'; expected oz or embedded");
  std::vector<NamedPolicy> Models;
  if (CorpusModels.empty())
    Models.push_back({"embedded", CompilePolicy::embedded()});
  for (const std::string &M : CorpusModels) {
    Expected<NamedPolicy> P = getModelPolicy(M);
    if (!P)
      return fail(P.takeError());
    Models.push_back(std::move(*P));
  }
  // Names must tell the columns apart.
  StringSet<> Names = {Baseline.Name};
  for (NamedPolicy &P : Models) {
    std::string Name = P.Name;
    for (unsigned I = 2; Names.contains(Name); ++I)
      Name = P.Name + "#" + std::to_string(I);
    P.Name = Name;
    Names.insert(Name);
  }
  if (Models.size() == 1 &&
      Models[0].Policy.getKey() == Baseline.Policy.getKey())
    return fail("the model and the baseline are the same policy");

  ClangModuleCompiler::Options Opts;
  Opts.Clang = CorpusClang;
  Opts.TimeoutSeconds = CorpusTimeout;
  bool NeedPlugin = Baseline.Policy.usesPlugin() ||
                    llvm::any_of(Models, [](const NamedPolicy &P) {
                      return P.Policy.usesPlugin();
                    });
  if (NeedPlugin) {
    Expected<std::string> Plugin = getPlugin(CorpusPlugin);
    if (!Plugin)
      return fail(Plugin.takeError());
    Opts.PluginPath = *Plugin;
  }
  ClangModuleCompiler Compiler(CorpusDir, *D, Opts);
  CorpusEvalOptions EvalOpts;
  EvalOpts.Jobs = CorpusJobs;
  Progress Shown("compiling");
  EvalOpts.Progress = [&](size_t Done, size_t Total) {
    Shown.update(Done, Total);
  };
  SizeReport Report =
      evaluateCorpus(Compiler, Modules, Baseline, Models, EvalOpts);
  Shown.end();

  Report.print(outs(), *Format, CorpusPerModule);
  outs().flush();
  if (!CorpusChart.empty()) {
    std::string Svg;
    raw_string_ostream OS(Svg);
    BarChart::fromSizeReport(Report).writeSVG(OS);
    if (Error E = writeFileAtomically(CorpusChart, Svg))
      return fail(std::move(E));
  }
  for (const CompileFailure &F : Report.Failures)
    WithColor::error(errs(), "mlgo")
        << F.Module << " (" << F.Policy << "): " << StringRef(F.Message).rtrim()
        << '\n';
  if (!Report.Failures.empty())
    return fail(Twine(Report.ModulesRequested - Report.Modules.size()) +
                " of " + Twine(Report.ModulesRequested) +
                " modules failed to compile");
  return 0;
}

/// Prints \p R and its warnings and verdicts (to \p Copy as well, when
/// given); false if a test failed.
bool printReport(const PackageReport &R, ReportFormat Format,
                 raw_ostream *Copy = nullptr) {
  R.print(outs(), Format);
  outs().flush();
  if (Copy)
    R.print(*Copy, Format);
  for (const std::string &A : R.UnpairedArtifacts)
    WithColor::warning(errs(), "mlgo")
        << R.Package << ": artifact built once only: " << A << '\n';
  std::vector<const TestOutcome *> Bad = R.getPossibleMiscompiles();
  for (const TestOutcome *T : Bad) {
    bool ModelFailed = !T->ModelPassed;
    WithColor::error(errs(), "mlgo")
        << "possible miscompile: " << R.Package << ": test '" << T->Name
        << "' fails with " << (ModelFailed ? R.ModelName : R.TunedName)
        << "; log " << (ModelFailed ? T->ModelLog : T->TunedLog) << '\n';
  }
  return Bad.empty() && R.getBaselineFailures().empty();
}

/// \p Path made absolute and free of "." and ".." components.
std::string getAbsolutePath(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

/// Evaluates one package and prints its report; false if it could not be
/// built or a test failed (the reason is printed).
bool evalOnePackage(const PackageEvalOptions &Opts, ReportFormat Format,
                    std::optional<PackageReport> &Report) {
  Expected<PackageReport> R = evaluatePackage(Opts);
  if (!R) {
    WithColor::error(errs(), "mlgo") << toString(R.takeError()) << '\n';
    return false;
  }
  bool OK = printReport(*R, Format);
  Report = std::move(*R);
  return OK;
}

int runEvalPackage() {
  Expected<ReportFormat> Format = parseReportFormat(PackageFormat);
  if (!Format)
    return fail(Format.takeError());
  Expected<std::string> Plugin = getPlugin(PackagePlugin);
  if (!Plugin)
    return fail(Plugin.takeError());
  PackageEvalOptions Opts;
  Opts.RecipeScript = getInstallDirs().Data + "/scripts/eval-package.sh";
  Opts.SourceCache = PackageCache.empty() ? getInstallDirs().Cache + "/src"
                                          : std::string(PackageCache);
  {
    SmallString<256> Cache(Opts.SourceCache);
    sys::fs::make_absolute(Cache);
    Opts.SourceCache = std::string(Cache);
  }
  Opts.PluginPath = *Plugin;
  if (!PackageModel.empty()) {
    Expected<NamedPolicy> P = getModelPolicy(PackageModel);
    if (!P)
      return fail(P.takeError());
    Opts.Model = *P;
  }
  bool Speed = !PackageProfile.empty() || PackageProfileFromTests;
  if (!PackageProfile.empty() && PackageProfileFromTests)
    return fail("--profile and --profile-from-tests: give one");
  if (!PackageEvictModel.empty() && !PackageEvict && !Speed)
    return fail("--evict-model is for --evict");
  if (PackageEvict || Speed) {
    // With a profile, a decisions file (for speed) is the tuned build.
    if (!PackageModel.empty() || (!Speed && !PackageDecisions.empty()))
      return fail("--evict evaluates the eviction model; --model and "
                  "--decisions are for the inlining model");
    Opts.Evict = true;
    Opts.OptLevel = "-O2";
    Opts.Model.Name = "evict";
    if (!PackageEvictModel.empty()) {
      if (!sys::fs::is_regular_file(PackageEvictModel))
        return fail(PackageEvictModel + ": no such file (the eviction model)");
      Opts.EvictModelPath = getAbsolutePath(PackageEvictModel);
      Opts.Model.Name = "evict " + sys::path::filename(PackageEvictModel).str();
    }
  }
  Opts.Jobs = std::max(1u, unsigned(PackageJobs));
  Opts.BuildTimeoutSeconds = PackageBuildTimeout;
  Opts.TestTimeoutSeconds = PackageTestTimeout;
  Opts.RunTests = !PackageNoTests;
  Opts.WallRuns = std::max(1u, unsigned(PackageWallRuns));
  if (PackageBolt && !Speed)
    return fail("--bolt needs a profile (--profile or --profile-from-tests)");
  Opts.Bolt = PackageBolt;
  Opts.TimeStop.MaxRounds = std::max(1u, unsigned(PackageMaxRuns));
  Opts.TimeStop.MinRounds =
      std::min(Opts.TimeStop.MinRounds, Opts.TimeStop.MaxRounds);
  if (PackageCost.getNumOccurrences() && !Speed)
    return fail("--cost is for a profile (--profile or --profile-from-tests)");
  Expected<speed::CostKind> PackageCostKind = tool::parseCost(PackageCost);
  if (!PackageCostKind)
    return fail(PackageCostKind.takeError());
  Opts.Cost = *PackageCostKind;
  if (!PackageLto.empty() && (PackageEvict || Speed))
    return fail("--lto evaluates the inlining model for size; it has no "
                "--evict or profile");
  if (Error E = setLtoOptions(PackageLto, PackageLinkFlags, Opts))
    return fail(std::move(E));
  Opts.Log = [](StringRef Line) { errs() << "eval: " << Line << '\n'; };

  // Every package is evaluated, whatever happened to the ones before.
  std::vector<std::optional<PackageReport>> Reports(PackageNames.size());
  bool AllOK = true, Printed = false;
  for (size_t I = 0; I < PackageNames.size(); ++I) {
    Opts.Package = PackageNames[I];
    SmallString<256> Work(PackageWork.empty() ? getInstallDirs().Cache + "/eval"
                                              : std::string(PackageWork));
    if (PackageWork.empty() || PackageNames.size() > 1)
      sys::path::append(Work, Opts.Package);
    sys::fs::make_absolute(Work);
    Opts.WorkDir = std::string(Work);
    Opts.DecisionsPath.clear();
    if (!PackageDecisions.empty()) {
      SmallString<256> D(PackageDecisions);
      bool InDir = sys::fs::is_directory(D);
      if (InDir)
        sys::path::append(D, Opts.Package + ".decisions");
      sys::fs::make_absolute(D);
      if (sys::fs::exists(D)) {
        Opts.DecisionsPath = std::string(D);
      } else if (!InDir) {
        WithColor::error(errs(), "mlgo")
            << Opts.Package << ": no decisions file " << D << '\n';
        AllOK = false;
        continue;
      }
      // A package without a file in the directory was not tuned: it is
      // built twice, as without the option.
    }
    Opts.ProfilePath.clear();
    if (!PackageProfile.empty()) {
      SmallString<256> P(PackageProfile);
      if (sys::fs::is_directory(P))
        sys::path::append(P, Opts.Package + ".profdata");
      Opts.ProfilePath = getAbsolutePath(P);
      if (!sys::fs::exists(Opts.ProfilePath)) {
        WithColor::error(errs(), "mlgo")
            << Opts.Package << ": no profile " << Opts.ProfilePath << '\n';
        AllOK = false;
        continue;
      }
    }
    if (PackageProfileFromTests) {
      std::string Out = Opts.WorkDir + "/" + Opts.Package + ".profdata";
      Expected<speed::ProfileInfo> Info = profilePackage(Opts, Out);
      if (!Info) {
        WithColor::error(errs(), "mlgo") << toString(Info.takeError()) << '\n';
        AllOK = false;
        continue;
      }
      errs() << "eval: " << Out << ": " << Info->Functions << " functions, "
             << Info->ExecutedFunctions << " executed\n";
      Opts.ProfilePath = Out;
    }
    if (Printed)
      outs() << '\n';
    AllOK &= evalOnePackage(Opts, *Format, Reports[I]);
    Printed |= Reports[I].has_value();
  }
  if (PackageNames.size() > 1) {
    std::vector<std::pair<std::string, const PackageReport *>> Rows;
    for (size_t I = 0; I < PackageNames.size(); ++I)
      Rows.push_back({PackageNames[I], Reports[I] ? &*Reports[I] : nullptr});
    if (Printed)
      outs() << '\n';
    // An LTO evaluation's baseline is stock LTO, as its reports name it.
    std::string BaselineName = Opts.OptLevel;
    for (const std::optional<PackageReport> &R : Reports)
      if (R) {
        BaselineName = R->BaselineName;
        break;
      }
    getPackageSummaryTable(Rows, BaselineName, Opts.Model.Name)
        .print(outs(), *Format);
    if (Speed) {
      outs() << '\n';
      getSpeedSummaryTable(Rows, Opts.OptLevel, Opts.Model.Name)
          .print(outs(), *Format);
    }
    outs().flush();
  }
  return AllOK ? 0 : 1;
}

int runEvalBuild() {
  Expected<ReportFormat> Format = parseReportFormat(BuildFormat);
  if (!Format)
    return fail(Format.takeError());
  SourceEvalOptions Opts;
  Opts.SourceDir = getAbsolutePath(BuildSource);
  if (!sys::fs::is_directory(Opts.SourceDir))
    return fail(BuildSource + ": no such directory (the source tree)");
  // The package recipes' table says which build systems the tree has.
  Expected<std::vector<FoundBuildSystem>> Found = findBuildSystems(
      Opts.SourceDir, getInstallDirs().Data + "/scripts/package-recipes.sh");
  if (!Found)
    return fail(Found.takeError());
  Opts.BuildSystems = std::move(*Found);
  bool Detected = BuildSystemName.empty();
  Expected<BuildSystem> System =
      Detected ? detectBuildSystem(Opts.SourceDir, Opts.BuildSystems)
               : parseBuildSystem(BuildSystemName);
  if (!System)
    return fail(System.takeError());
  Opts.System = *System;
  Opts.Name = BuildName.empty() ? sys::path::filename(Opts.SourceDir).str()
                                : std::string(BuildName);
  Opts.WorkDir = getAbsolutePath(BuildWork.empty() ? "mlgo-eval-" + Opts.Name
                                                   : std::string(BuildWork));
  if (Opts.WorkDir == Opts.SourceDir)
    return fail(BuildWork + ": the work directory is the source tree; give "
                            "another --work-dir");
  Expected<std::string> Plugin = getPlugin(BuildPlugin);
  if (!Plugin)
    return fail(Plugin.takeError());
  Opts.PluginPath = *Plugin;
  if (!BuildModel.empty()) {
    Expected<NamedPolicy> P = getModelPolicy(BuildModel);
    if (!P)
      return fail(P.takeError());
    Opts.Model = *P;
  }
  if (!BuildBench.empty() && BuildProfile.empty())
    return fail("--bench is for --profile");
  if (!BuildEvictModel.empty() && BuildProfile.empty())
    return fail("--evict-model is for --profile");
  if (!BuildProfile.empty()) {
    if (BuildBench.empty())
      return fail("--profile needs --bench: the benchmark to measure");
    if (!BuildModel.empty())
      return fail("--profile evaluates the eviction model, or with "
                  "--decisions a file for speed; --model is for the "
                  "inlining model");
    Opts.ProfilePath = getAbsolutePath(BuildProfile);
    Opts.BenchCommand = BuildBench;
    Opts.WallRuns = std::max(1u, unsigned(BuildWallRuns));
    Opts.Evict = true;
    Opts.OptLevel = "-O2";
    Opts.Model.Name = "evict";
    if (!BuildEvictModel.empty()) {
      if (!sys::fs::is_regular_file(BuildEvictModel))
        return fail(BuildEvictModel + ": no such file (the eviction model)");
      Opts.EvictModelPath = getAbsolutePath(BuildEvictModel);
      Opts.Model.Name = "evict " + sys::path::filename(BuildEvictModel).str();
    }
  }
  if (BuildBolt && BuildProfile.empty())
    return fail("--bolt is for --profile");
  if (!BuildBoltRun.empty() && !BuildBolt)
    return fail("--bolt-run is for --bolt");
  if (BuildBolt && BuildBoltRun.empty())
    return fail("--bolt needs --bolt-run: the profile workload BOLT's "
                "instrumented builds run");
  Opts.Bolt = BuildBolt;
  Opts.ProfileCommands = BuildBoltRun;
  Opts.TimeStop.MaxRounds = std::max(1u, unsigned(BuildMaxRuns));
  Opts.TimeStop.MinRounds =
      std::min(Opts.TimeStop.MinRounds, Opts.TimeStop.MaxRounds);
  if (BuildCost.getNumOccurrences() && BuildProfile.empty())
    return fail("--cost is for --profile");
  Expected<speed::CostKind> BuildCostKind = tool::parseCost(BuildCost);
  if (!BuildCostKind)
    return fail(BuildCostKind.takeError());
  Opts.Cost = *BuildCostKind;
  if (!BuildDecisions.empty()) {
    if (!sys::fs::is_regular_file(BuildDecisions))
      return fail(BuildDecisions + ": no such file (the decisions file)");
    Opts.DecisionsPath = getAbsolutePath(BuildDecisions);
  }
  Opts.ConfigureArgs = BuildConfigureArgs;
  Opts.MakeArgs = BuildMakeArgs;
  if (Opts.System == BuildSystem::Make && !Opts.ConfigureArgs.empty())
    return fail("--configure-arg: a plain Makefile build has no configure "
                "step (pass make's arguments with --make-arg)");
  if (!BuildLto.empty() && !BuildProfile.empty())
    return fail("--lto evaluates the inlining model for size; it has no "
                "profile");
  if (Error E = setLtoOptions(BuildLto, BuildLinkFlags, Opts))
    return fail(std::move(E));
  Opts.TestCommands = BuildTests;
  Opts.Ctest = BuildCtest;
  Opts.BuildScript = getInstallDirs().Data + "/scripts/eval-build.sh";
  Opts.Jobs = std::max(1u, unsigned(BuildJobs));
  Opts.BuildTimeoutSeconds = BuildBuildTimeout;
  Opts.TestTimeoutSeconds = BuildTestTimeout;
  Opts.Log = [](StringRef Line) { errs() << "eval: " << Line << '\n'; };

  StringRef SystemName = getBuildSystemName(Opts.System);
  errs() << "eval: " << Opts.Name << ": " << SystemName << " build"
         << (Detected ? " (detected)" : "")
         << (Opts.System == BuildSystem::CMake
                 ? ", out of the source tree"
                 : ", in a copy of the source tree")
         << "; work directory " << Opts.WorkDir << '\n';
  // The report file is written whole once the builds are done; a
  // directory it cannot be written in fails now, not after the builds.
  if (!BuildOutput.empty()) {
    StringRef Parent = sys::path::parent_path(BuildOutput);
    if (std::error_code EC = sys::fs::access(Parent.empty() ? "." : Parent,
                                             sys::fs::AccessMode::Write))
      return fail(BuildOutput + ": " + EC.message());
  }
  Expected<PackageReport> R = evaluateSourceTree(Opts);
  if (!R)
    return fail(R.takeError());
  std::string Copy;
  raw_string_ostream CopyOS(Copy);
  bool OK = printReport(*R, *Format, BuildOutput.empty() ? nullptr : &CopyOS);
  if (!BuildOutput.empty())
    if (Error E = writeFileAtomically(BuildOutput, Copy))
      return fail(std::move(E));
  return OK ? 0 : 1;
}

tool::RegisterGroup
    RegisterEval("eval", "Measure a model's code size on corpus modules, on "
                         "Debian packages or on your own source tree built "
                         "end to end");
tool::RegisterSubcommand RegisterCorpus(CorpusCmd, runEvalCorpus);
tool::RegisterSubcommand RegisterPackage(PackageCmd, runEvalPackage);
tool::RegisterSubcommand RegisterBuild(BuildCmd, runEvalBuild);

} // namespace
