//===- tools/mlgo/TuneCommands.cpp - mlgo tune, mlgo tune check -----------===//
//
//   mlgo tune --corpus DIR --work-dir W -o decisions [--max-compiles N]
//   mlgo tune --package PKG --work-dir W -o decisions ...
//   mlgo tune --objective speed --profile P --corpus DIR --work-dir W -o d
//   mlgo tune check --corpus DIR decisions
//   mlgo tune check --corpus DIR --profile P decisions   (a file for speed)
//   mlgo tune fit-ranker TRIES... -o ranker.json
//
// Per-program inlining search (mlgo/Tune/Tuner.h, docs/tune.md). Rerunning
// the same command after an interruption resumes from W.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Tune/MoveRanker.h"
#include "mlgo/Tune/SpeedTune.h"
#include "mlgo/Tune/TuneCheck.h"
#include "mlgo/Tune/Tuner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <set>

using namespace llvm;
using namespace mlgo;
using tool::fail;
using tool::parseWord;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

cl::SubCommand TuneCmd("tune", "Search the decisions that make a program "
                               "smallest or fastest; write a decisions file "
                               "('mlgo tune build DIR' does every step for "
                               "a source tree, 'mlgo tune check' lists "
                               "stale entries)");
cl::opt<std::string> Corpus("corpus", cl::desc("the program's corpus"),
                            cl::value_desc("dir"), cl::sub(TuneCmd),
                            cl::cat(Cat));
cl::opt<std::string>
    Package("package",
            cl::desc("a Debian package instead of a corpus: built with its "
                     "eval recipe and embedded bitcode into W/package, its "
                     "corpus extracted to W/corpus (reused by reruns); for "
                     "speed at -O2, the objects its recipe's speed_objects "
                     "names, in W/corpus-O2, and without --profile profiled "
                     "on its tests into W/profile.profdata"),
            cl::value_desc("name"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir",
                             cl::desc("where compiles, curves and the report "
                                      "go (resumable; reruns are incremental)"),
                             cl::value_desc("dir"), cl::Required,
                             cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> Output("o",
                            cl::desc("the decisions file (for a corpus "
                                     "of Debian packages, with its "
                                     "packages.tsv: a directory, one file "
                                     "per package)"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<uint64_t> MaxCompiles("max-compiles",
                              cl::desc("the search's compiles (after two "
                                       "per module for the baseline)"),
                              cl::init(0), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<double> Budget("budget",
                       cl::desc("--objective size: the search's wall-clock "
                                "minutes (not reproducible; --max-compiles "
                                "is)"),
                       cl::value_desc("minutes"), cl::init(0), cl::sub(TuneCmd),
                       cl::cat(Cat));
cl::opt<std::string>
    ModelPath("model",
              cl::desc("the model the search starts from instead of the "
                       "plugin's embedded one: an inlining model for size, "
                       "an eviction model for speed (a text model file; "
                       "builds with the decisions file need the same "
                       "-mllvm -mlgo-model=FILE, for speed "
                       "-mlgo-evict-model=FILE)"),
              cl::value_desc("file"), cl::sub(TuneCmd), cl::cat(Cat));
// --order and --ranker are hidden (--help-hidden): the ranker's order is
// the default and measured best (docs/lab/2026-12-03.md, kernel3); the
// other orders and a ranker of one's own serve the ranker's recipe
// (scripts/train-tune-ranker.sh, mlgo tune fit-ranker).
cl::opt<std::string>
    Order("order",
          cl::desc("--objective size: how each module's moves are ordered: "
                   "'ranker' (the move ranker's expected bytes saved, the "
                   "default), 'logit' (the model's least certain decisions "
                   "first) or 'trajectory' (as the compile decided them)"),
          cl::value_desc("ranker|logit|trajectory"), cl::init("ranker"),
          cl::Hidden, cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> RankerPath("ranker",
                                cl::desc("--objective size: a move ranker "
                                         "model instead of the shipped one "
                                         "(mlgo tune fit-ranker)"),
                                cl::value_desc("file"), cl::Hidden,
                                cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<unsigned> Workers("jobs", cl::desc("compile workers"), cl::init(0),
                          cl::sub(TuneCmd), cl::cat(Cat));
cl::alias WorkersShort("j", cl::aliasopt(Workers));
cl::opt<unsigned> Timeout(
    "timeout",
    cl::desc("seconds one compile, or one run of --workload, may take "
             "before it is killed and reported (by default 300 for a "
             "compile, 0: no limit; a workload run 20 times the untuned "
             "program's, at least 60, the untuned run 600)"),
    cl::value_desc("seconds"), cl::init(300), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("no progress, no report on stdout"),
                    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    Objective("objective",
              cl::desc("'size' (inlining decisions at -Oz, the linked "
                       ".text; the default) or 'speed' (inlining and "
                       "eviction decisions at -O2 with --profile, the "
                       "profile-weighted executed instructions, and with "
                       "--link and --workload the program measured under "
                       "callgrind; docs/tune.md)"),
              cl::value_desc("size|speed"), cl::init("size"), cl::sub(TuneCmd),
              cl::cat(Cat));
cl::opt<std::string> Profile("profile",
                             cl::desc("--objective speed: the program's "
                                      "indexed profile (-fprofile-use)"),
                             cl::value_desc("file"), cl::sub(TuneCmd),
                             cl::cat(Cat));

cl::opt<std::string>
    Link("link",
         cl::desc("--objective speed, with --workload: a shell command that "
                  "links the objects in $MLGO_OBJECTS (one per corpus "
                  "module of the profiled program, named as the module with "
                  ".o added, in the module's directories: $(find "
                  "\"$MLGO_OBJECTS\" -name '*.o') finds them all) into "
                  "$MLGO_PROGRAM; with --lto, the link whose final artifact "
                  "$MLGO_PROGRAM is measured: the objects are the LTO "
                  "compile steps' bitcode, and $MLGO_LTO_FLAGS (the LTO "
                  "mode, mlgo's ld.lld, the decisions, the ThinLTO cache) "
                  "must be among its flags"),
         cl::value_desc("command"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    TuneLto("lto",
            cl::desc("--objective size: the cost is the .text of the final "
                     "artifact --link makes with -flto=thin ('thin') or "
                     "-flto ('full'), the decisions in every compile step "
                     "and in the link"),
            cl::value_desc("thin|full"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    Workload("workload",
             cl::desc("--objective speed: a shell command that runs "
                      "$MLGO_PROGRAM on a workload (and fails if its "
                      "results are wrong); the tuned and untuned programs "
                      "are measured under callgrind and modules measured "
                      "worse are reverted"),
             cl::value_desc("command"), cl::sub(TuneCmd), cl::cat(Cat));

cl::list<std::string> WorkloadInputs(
    "workload-input",
    cl::desc("--objective speed, with --workload: a file the workload "
             "reads (repeatable); its bytes are part of each measurement's "
             "key, so a changed file is measured again"),
    cl::value_desc("file"), cl::sub(TuneCmd), cl::cat(Cat));

cl::opt<std::string>
    Cost("cost",
         cl::desc("--objective speed, with --workload: what the check judges "
                  "the programs by: 'instructions' (executed, under callgrind; "
                  "the default), 'cycles' (callgrind's cache and branch "
                  "simulation weighted into cycles) or 'time' (CPU time, each "
                  "tuned program alternated with the untuned one as mlgo bench "
                  "does; a module is kept only when its 95% interval lies "
                  "below 1)"),
         cl::value_desc("instructions|cycles|time"), cl::init("instructions"),
         cl::sub(TuneCmd), cl::cat(Cat));

/// Refuses a --model file \p Path of the other objective's kind: size
/// starts from an inlining model, speed from an eviction model (a decision
/// per register column).
Error checkModelKind(StringRef Path, bool ForSpeed) {
  if (Path.empty())
    return Error::success();
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  bool Evicts = M->Decision.isPerColumn();
  if (Evicts == ForSpeed)
    return Error::success();
  StringRef Kind = Evicts ? "an eviction" : "an inlining";
  StringRef Want = ForSpeed ? "an eviction" : "an inlining";
  return createStringError(
      inconvertibleErrorCode(),
      formatv("{0}: {1} model (feature set '{2}'); for {3}, --model is {4} "
              "model",
              Path, Kind, M->Metadata.FeatureSet, ForSpeed ? "speed" : "size",
              Want));
}

Expected<std::string>
getPackageCorpus(PackageCorpus Kind = PackageCorpus::Size);
Expected<std::string> getPackageProfile();

int runSpeedTune() {
  if (Workload.empty() != Link.empty())
    return fail("--workload and --link go together: --link makes the "
                "program that --workload runs");
  if (Workload.empty() && !WorkloadInputs.empty())
    return fail("--workload-input is for --workload");
  Expected<speed::CostKind> TheCost = tool::parseCost(Cost);
  if (!TheCost)
    return fail(TheCost.takeError());
  if (Workload.empty() && Cost.getNumOccurrences())
    return fail("--cost is for --workload: it judges the workload check");
  if (Corpus.empty() == Package.empty())
    return fail("--objective speed tunes a corpus of the program's -O2 build: "
                "give one of --corpus and --package");
  if (Profile.empty() && Package.empty())
    return fail("--objective speed needs --profile P.profdata");
  if (!RankerPath.empty() || Budget != 0 || Order.getNumOccurrences())
    return fail("--order, --ranker and --budget are for --objective size");
  if (Error E = checkModelKind(ModelPath, /*ForSpeed=*/true))
    return fail(std::move(E));
  SpeedTuneOptions O;
  O.CorpusDir = Corpus;
  O.Profile = Profile;
  if (!Package.empty()) {
    Expected<std::string> Dir = getPackageCorpus(PackageCorpus::Speed);
    if (!Dir)
      return fail(Dir.takeError());
    O.CorpusDir = *Dir;
    if (Profile.empty()) {
      Expected<std::string> P = getPackageProfile();
      if (!P)
        return fail(P.takeError());
      O.Profile = *P;
    }
  }
  O.WorkDir = WorkDir;
  O.Output = Output;
  O.MaxCompiles = MaxCompiles;
  O.Jobs = Workers ? Workers : 2;
  O.TimeoutSeconds = Timeout;
  O.Verbose = !Quiet;
  O.Link = Link;
  O.Workload = Workload;
  // One --timeout bounds a compile and a workload run; unset, each has
  // its own default (the compile's 300 s, the workload's 20 times the
  // untuned run).
  O.WorkloadTimeout = Timeout.getNumOccurrences() ? unsigned(Timeout) : 0;
  O.Cost = *TheCost;
  for (const std::string &In : WorkloadInputs) {
    SmallString<256> Abs(In);
    sys::fs::make_absolute(Abs);
    O.WorkloadInputs.push_back(std::string(Abs));
  }
  raw_string_ostream Identity(O.BuildIdentity);
  tool::printVersion(Identity);
  O.EvictModel = ModelPath;
  if (Error E = runSpeedTuning(O))
    return fail(std::move(E));
  return 0;
}

/// The options of --package's builds, in W/package.
PackageEvalOptions getPackageOptions() {
  SmallString<256> Work(WorkDir);
  sys::fs::make_absolute(Work);
  PackageEvalOptions P;
  P.Package = Package;
  P.RecipeScript = getInstallDirs().Data + "/scripts/eval-package.sh";
  P.SourceCache = getInstallDirs().Cache + "/src";
  P.WorkDir = (Work + "/package").str();
  P.Jobs = 2;
  if (!Quiet)
    P.Log = [](StringRef Line) { errs() << "mlgo tune: " << Line << '\n'; };
  return P;
}

/// Builds --package's corpus into W/corpus (for speed: W/corpus-O2, of
/// the recipe's speed_objects; under --lto with the recipe's link:
/// W/corpus-lto, of its lto_objects), unless a run before did.
Expected<std::string> getPackageCorpus(PackageCorpus Kind) {
  SmallString<256> Work(WorkDir);
  sys::fs::make_absolute(Work);
  std::string CorpusDir = (Work + (Kind == PackageCorpus::Speed ? "/corpus-O2"
                                   : Kind == PackageCorpus::Lto ? "/corpus-lto"
                                                                : "/corpus"))
                              .str();
  if (sys::fs::exists(CorpusDir + "/corpus_description.json"))
    return CorpusDir;
  if (Error E = buildPackageCorpus(getPackageOptions(), CorpusDir, Kind))
    return E;
  return CorpusDir;
}

/// --package under --lto without --link: the recipe's lto_link.
Expected<std::string> getPackageLink(StringRef Mode) {
  PackageEvalOptions P = getPackageOptions();
  Expected<std::string> L = getPackageLtoLink(P);
  if (!L)
    return L.takeError();
  if (L->empty())
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0}: its recipe (scripts/packages/{0}.sh) has no lto_link, "
                "the link of its shipped artifact under --lto {1}: give "
                "--link CMD",
                Package, Mode));
  if (!StringRef(*L).contains("MLGO_LTO_FLAGS"))
    return createStringError(
        inconvertibleErrorCode(),
        formatv("{0}: the lto_link of its recipe (scripts/packages/{0}.sh) "
                "does not link with $MLGO_LTO_FLAGS: {1}",
                Package, *L));
  return *L;
}

/// --package for speed without --profile: W/profile.profdata, the package
/// profiled on its recipe's profile workload (its test suite), as `mlgo
/// profile package` makes it, unless a run before did.
Expected<std::string> getPackageProfile() {
  SmallString<256> Work(WorkDir);
  sys::fs::make_absolute(Work);
  std::string Out = (Work + "/profile.profdata").str();
  if (sys::fs::exists(Out))
    return Out;
  PackageEvalOptions P = getPackageOptions();
  P.WorkDir = (Work + "/profile").str();
  P.OptLevel = "-O2";
  Expected<speed::ProfileInfo> Info = profilePackage(P, Out);
  if (!Info)
    return Info.takeError();
  return Out;
}

int runTune() {
  Expected<bool> Speed = parseWord<bool>("objective", Objective,
                                         {{"size", false}, {"speed", true}});
  if (!Speed)
    return fail(Speed.takeError());
  if (*Speed)
    return runSpeedTune();
  Expected<LtoMode> Lto = TuneLto.empty()
                              ? LtoMode::None
                              : parseWord<LtoMode>("lto", TuneLto,
                                                   {{"thin", LtoMode::Thin},
                                                    {"full", LtoMode::Full}});
  if (!Lto)
    return fail(Lto.takeError());
  // With --package, the link is the recipe's unless --link gives one.
  if (*Lto != LtoMode::None && (Package.empty() || !Link.empty()) &&
      (Link.empty() || !StringRef(Link).contains("MLGO_LTO_FLAGS")))
    return fail("--lto measures the final artifact of a link: give --link "
                "CMD, which links $MLGO_OBJECTS into $MLGO_PROGRAM with "
                "$MLGO_LTO_FLAGS");
  if (!Profile.empty() || !Workload.empty() ||
      (!Link.empty() && *Lto == LtoMode::None) || !WorkloadInputs.empty())
    return fail("--profile, --workload and --link are for --objective speed "
                "(--link also for --lto)");
  if (Cost.getNumOccurrences())
    return fail("--cost is for --objective speed with --workload");
  if (Error E = checkModelKind(ModelPath, /*ForSpeed=*/false))
    return fail(std::move(E));
  if (Corpus.empty() == Package.empty())
    return fail("give one of --corpus and --package");
  TuneOptions O;
  O.CorpusDir = Corpus;
  O.Link = Link;
  if (!Package.empty()) {
    // Under --lto with the recipe's link, the corpus is the objects that
    // link takes; with a --link of one's own, every object.
    const bool RecipeLink = *Lto != LtoMode::None && Link.empty();
    if (RecipeLink) {
      Expected<std::string> L = getPackageLink(TuneLto);
      if (!L)
        return fail(L.takeError());
      O.Link = *L;
      O.LinkSource = "the lto_link of scripts/packages/" + Package + ".sh";
      // The source tree the corpus was built in: the recipe names the
      // link's other inputs below it.
      O.LinkEnv.push_back("MLGO_SOURCE=" + getPackageOptions().WorkDir +
                          "/corpus-build/src");
    }
    Expected<std::string> Dir =
        getPackageCorpus(RecipeLink ? PackageCorpus::Lto : PackageCorpus::Size);
    if (!Dir)
      return fail(Dir.takeError());
    O.CorpusDir = *Dir;
    O.ProgramName = Package;
  }
  O.WorkDir = WorkDir;
  O.Output = Output;
  // A corpus of Debian packages (scripts/corpus-debian.sh writes its
  // packages.tsv) is tuned package by package: each package's modules are
  // one program and -o is a directory of one decisions file per package.
  O.PerPackage = sys::fs::exists(O.CorpusDir + "/packages.tsv");
  if (O.PerPackage && !Quiet)
    errs() << "mlgo tune: " << O.CorpusDir
           << "/packages.tsv: a corpus of packages, each its own program "
              "with its own decisions file in "
           << Output << "/\n";
  O.MaxCompiles = MaxCompiles;
  O.BudgetMinutes = Budget;
  O.ModelPath = ModelPath;
  Expected<TuneGuide> TheOrder =
      parseWord<TuneGuide>("order", Order,
                           {{"ranker", TuneGuide::Ranker},
                            {"logit", TuneGuide::Logit},
                            {"trajectory", TuneGuide::Trajectory}});
  if (!TheOrder)
    return fail(TheOrder.takeError());
  O.Guide = *TheOrder;
  if (!RankerPath.empty() && O.Guide != TuneGuide::Ranker)
    return fail("--ranker is for --order ranker");
  O.RankerPath = RankerPath;
  O.Workers = Workers;
  O.TimeoutSeconds = Timeout;
  O.Verbose = !Quiet;
  O.Lto = *Lto;
  if (Error E = runTuning(O))
    return fail(std::move(E));
  return 0;
}

tool::RegisterSubcommand RegTune(TuneCmd, runTune);

cl::SubCommand CheckCmd("tune check",
                        "List the entries of a decisions file that match no "
                        "call site of a corpus");
cl::opt<std::string> CheckCorpus("corpus", cl::desc("the program's corpus"),
                                 cl::value_desc("dir"), cl::Required,
                                 cl::sub(CheckCmd), cl::cat(Cat));
cl::opt<std::string> CheckFile(cl::Positional, cl::desc("<decisions file>"),
                               cl::Required, cl::sub(CheckCmd), cl::cat(Cat));
cl::opt<std::string> CheckModel("model",
                                cl::desc("the model the build uses, if not "
                                         "the embedded one: for a file for "
                                         "speed, the eviction model "
                                         "(-mlgo-evict-model)"),
                                cl::value_desc("file"), cl::sub(CheckCmd),
                                cl::cat(Cat));
cl::opt<std::string>
    CheckLTO("lto",
             cl::desc("check the file for the compile steps of a -flto=thin "
                      "('thin') or -flto ('full') build"),
             cl::value_desc("thin|full"), cl::sub(CheckCmd), cl::cat(Cat));
cl::opt<std::string> CheckProfile("profile",
                                  cl::desc("the profile a file for speed "
                                           "applies with (-fprofile-use)"),
                                  cl::value_desc("file"), cl::sub(CheckCmd),
                                  cl::cat(Cat));

int runCheck() {
  Expected<DecisionsFile> F = DecisionsFile::load(CheckFile);
  if (!F)
    return fail(F.takeError());
  if (F->isForSpeed()) {
    if (CheckProfile.empty())
      return fail(CheckFile + ": a file for speed; give the profile its "
                              "builds use (--profile)");
    if (Error E = checkModelKind(CheckModel, /*ForSpeed=*/true))
      return fail(std::move(E));
    if (!CheckLTO.empty())
      return fail(CheckFile + ": a file for speed; --lto checks files for "
                              "size");
    Expected<size_t> Stale = checkSpeedDecisions(
        CheckCorpus, CheckFile, CheckProfile, CheckModel, outs());
    if (!Stale)
      return fail(Stale.takeError());
    return *Stale ? 1 : 0;
  }
  if (!CheckProfile.empty())
    return fail(CheckFile + ": a file for size; --profile is for files for "
                            "speed");
  if (Error E = checkModelKind(CheckModel, /*ForSpeed=*/false))
    return fail(std::move(E));
  if (!CheckLTO.empty() && CheckLTO != "thin" && CheckLTO != "full")
    return fail("--lto must be 'thin' or 'full', not '" + CheckLTO + "'");
  Expected<size_t> Stale =
      checkDecisions(CheckCorpus, CheckFile, CheckModel, outs(), CheckLTO);
  if (!Stale)
    return fail(Stale.takeError());
  return *Stale ? 1 : 0;
}

tool::RegisterSubcommand RegCheck(CheckCmd, runCheck);

cl::SubCommand FitCmd("tune fit-ranker",
                      "Fit the guided order's move ranker to tries logs "
                      "(W/tries-<order>.tsv of earlier runs)");
cl::list<std::string> FitTries(cl::Positional, cl::desc("<tries log>..."),
                               cl::OneOrMore, cl::sub(FitCmd), cl::cat(Cat));
cl::opt<std::string> FitOutput("o", cl::desc("the ranker model"),
                               cl::value_desc("file"), cl::Required,
                               cl::sub(FitCmd), cl::cat(Cat));
cl::opt<double> FitClip("clip-bytes",
                        cl::desc("a kept try counts at most this many bytes"),
                        cl::init(200), cl::sub(FitCmd), cl::cat(Cat));

int runFitRanker() {
  std::vector<TriesRow> Rows;
  std::set<std::string> Programs;
  size_t Kept = 0;
  for (const std::string &Path : FitTries) {
    Expected<std::vector<TriesRow>> R = readTriesLog(Path);
    if (!R)
      return fail(R.takeError());
    for (TriesRow &Row : *R) {
      Programs.insert(Row.Program);
      Kept += Row.Kept;
      Rows.push_back(std::move(Row));
    }
  }
  RankerFitOptions O;
  O.ClipBytes = FitClip;
  std::string Names;
  for (const std::string &P : Programs)
    Names += (Names.empty() ? "" : ", ") + P;
  O.Description =
      "The expected linked .text bytes one try of a tuning move saves "
      "(mlgo tune's guided order tries the largest first), fitted by least "
      "squares to the tries of earlier tuning runs.";
  O.Recipe =
      formatv("mlgo tune fit-ranker --clip-bytes {0}: {1} tries ({2} "
              "kept) of the programs {3}",
              FitClip == std::floor(FitClip) ? std::to_string(int64_t(FitClip))
                                             : formatModelDouble(FitClip),
              Rows.size(), Kept, Names)
          .str();
  Expected<Model> M = fitMoveRanker(Rows, O);
  if (!M)
    return fail(M.takeError());
  if (Error E = M->save(FitOutput))
    return fail(std::move(E));
  return 0;
}

tool::RegisterSubcommand RegFit(FitCmd, runFitRanker);

} // namespace
