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

cl::SubCommand TuneCmd("tune", "Search the inlining decisions that make a "
                               "program smallest; write a decisions file "
                               "('mlgo tune check' lists stale entries)");
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
                            cl::desc("the decisions file (with "
                                     "--per-package: a directory)"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<uint64_t> MaxCompiles("max-compiles",
                              cl::desc("the search's compiles (after two "
                                       "per module for the baseline)"),
                              cl::init(0), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<double> Budget("budget",
                       cl::desc("the search's wall-clock minutes (not "
                                "reproducible; --max-compiles is)"),
                       cl::value_desc("minutes"), cl::init(0), cl::sub(TuneCmd),
                       cl::cat(Cat));
cl::opt<uint64_t> Seed("seed", cl::desc("breaks ties in the order of moves"),
                       cl::init(1), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> Unguided("unguided",
                       cl::desc("try moves in trajectory order, not in the "
                                "order the model ranks them"),
                       cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> Compare("compare",
                      cl::desc("also search in the other order, same budget; "
                               "plot both in W/guided-vs-unguided.svg"),
                      cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> PerPackage("per-package",
                         cl::desc("each top-level directory of the corpus is "
                                  "its own program (Debian package corpora)"),
                         cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> ModelPath("model",
                               cl::desc("a text model instead of the plugin's "
                                        "embedded one"),
                               cl::value_desc("file"), cl::sub(TuneCmd),
                               cl::cat(Cat));
cl::opt<std::string>
    Guide("guide",
          cl::desc("how the guided order ranks moves: 'ranker' (expected "
                   "bytes saved, the default) or 'logit' (the model's "
                   "least certain decisions first)"),
          cl::value_desc("ranker|logit"), cl::init("ranker"), cl::sub(TuneCmd),
          cl::cat(Cat));
cl::opt<std::string> RankerPath("ranker",
                                cl::desc("a move ranker model instead of the "
                                         "shipped one (mlgo tune fit-ranker)"),
                                cl::value_desc("file"), cl::sub(TuneCmd),
                                cl::cat(Cat));
cl::opt<bool> Components("components",
                         cl::desc("first search each module's independent "
                                  "components of decisions, then the moves"),
                         cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<unsigned>
    ExhaustiveSites("exhaustive-sites",
                    cl::desc("--components: components of at most this many "
                             "sites are searched exhaustively (default 6)"),
                    cl::init(6), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    ComponentGraph("component-graph",
                   cl::desc("--components: join functions by the bitcode's "
                            "calls and references ('references', the "
                            "default), only through static functions and "
                            "variables ('statics') or by decided sites "
                            "only ('sites')"),
                   cl::value_desc("references|statics|sites"),
                   cl::init("references"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> FunctionLevel(
    "function-level",
    cl::desc("--components: compile a component's configurations on a "
             "slice of its module that holds its functions only (the "
             "combination is compiled whole)"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> Interleave(
    "interleave",
    cl::desc("--components: search components in rounds between the "
             "move search's steps, highest expected gain per compile "
             "first, when they promise more than the moves gain"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> PerModuleLinkOnce(
    "per-module-linkonce",
    cl::desc("write each module's decisions at sites of C++ inline "
             "functions (linkonce_odr) in its own entries, instead of once "
             "for the program (the file's 'program' section)"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> ProgramMoves(
    "program-moves",
    cl::desc("also try moves that decide one call site of a C++ inline "
             "function (linkonce_odr) alike in every module with a copy "
             "of it"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> Predict(
    "predict",
    cl::desc("predict each move's gain with IR2Native before compiling it: "
             "'off' (the default), 'rank' (moves predicted not to help are "
             "tried last) or 'skip' (never tried)"),
    cl::value_desc("off|rank|skip"), cl::init("off"), cl::sub(TuneCmd),
    cl::cat(Cat));
cl::opt<double> PredictionCost(
    "prediction-cost",
    cl::desc("--predict: what one prediction counts in --max-compiles, as "
             "a fraction of a compile (default 0.5: the IR half of one)"),
    cl::value_desc("fraction"), cl::init(0.5), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> PredictSlices(
    "predict-slices",
    cl::desc("--predict: predict a move on a slice, charged by its "
             "instructions: 'components' (its component of the statics "
             "graph) or 'moves' (the functions it changes and the bodies "
             "they inline; docs/tune.md)"),
    cl::value_desc("components|moves"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string> LoggedFilter(
    "logged-filter",
    cl::desc("before any prediction or compile, judge each move by the "
             "size scores its trajectory's compile logged (IR2Native's "
             "predicted saving per inlining, at no extra compile): 'off' "
             "(the default), 'rank' (moves predicted to grow their module "
             "are tried last), 'skip' (never tried), 'promote' (skip, "
             "and try the moves predicted to shrink it first) or 'only' "
             "(try only the moves predicted to shrink it, and LLVM's "
             "heuristic) or 'predict' (only, and each plan's first "
             "--logged-predict-inline moves that inline, tried if --predict "
             "predicts them to help; only those are predicted)"),
    cl::value_desc("off|rank|skip|promote|only|predict"), cl::init("off"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<unsigned> LoggedPredictInline(
    "logged-predict-inline",
    cl::desc("with --logged-filter predict: the moves that inline each plan "
             "leaves to --predict (default 5)"),
    cl::value_desc("N"), cl::init(5), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> LoggedDeclined(
    "logged-declined",
    cl::desc("with --logged-filter: the sites the model declined log the "
             "estimated saving of inlining them too, so that moves that "
             "inline are judged as well (docs/tune.md)"),
    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<unsigned> Workers("jobs", cl::desc("compile workers"), cl::init(0),
                          cl::sub(TuneCmd), cl::cat(Cat));
cl::alias WorkersShort("j", cl::aliasopt(Workers));
cl::opt<unsigned> Timeout(
    "timeout",
    cl::desc("seconds a compile may take before it is killed and reported "
             "(0: no limit)"),
    cl::init(300), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("no progress, no report on stdout"),
                    cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    Objective("objective",
              cl::desc("'size' (inlining decisions at -Oz, the linked "
                       ".text) or 'speed' (eviction decisions at -O2 with "
                       "--profile, the profile-weighted executed "
                       "instructions; docs/tune.md)"),
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
                  "module, named as the module with .o added) into "
                  "$MLGO_PROGRAM"),
         cl::value_desc("command"), cl::sub(TuneCmd), cl::cat(Cat));
cl::opt<std::string>
    Workload("workload",
             cl::desc("--objective speed: a shell command that runs "
                      "$MLGO_PROGRAM on a workload (and fails if its "
                      "results are wrong); the tuned and untuned programs "
                      "are measured under callgrind and modules measured "
                      "worse are reverted"),
             cl::value_desc("command"), cl::sub(TuneCmd), cl::cat(Cat));

cl::opt<unsigned> WorkloadTimeout(
    "workload-timeout",
    cl::desc("--objective speed, with --workload: the seconds one run of "
             "the workload may take before it is killed and the tune stops "
             "(default 0: 20 times the untuned program's run, at least 60; "
             "the untuned run 600)"),
    cl::value_desc("seconds"), cl::init(0), cl::sub(TuneCmd), cl::cat(Cat));
cl::list<std::string> WorkloadInputs(
    "workload-input",
    cl::desc("--objective speed, with --workload: a file the workload "
             "reads (repeatable); its bytes are part of each measurement's "
             "key, so a changed file is measured again"),
    cl::value_desc("file"), cl::sub(TuneCmd), cl::cat(Cat));

cl::opt<std::string> EvictModel(
    "evict-model",
    cl::desc("--objective speed: the eviction model whose allocation the "
             "search starts from and inverts (a model file, as the plugin's "
             "-mlgo-evict-model; default: the embedded one); builds with the "
             "file need -mllvm -mlgo-evict-model=FILE"),
    cl::value_desc("file"), cl::sub(TuneCmd), cl::cat(Cat));

Expected<std::string> getPackageCorpus(bool ForSpeed = false);
Expected<std::string> getPackageProfile();

int runSpeedTune() {
  if (Workload.empty() != Link.empty())
    return fail("--workload and --link go together: --link makes the "
                "program that --workload runs");
  if (Workload.empty() &&
      (WorkloadTimeout.getNumOccurrences() || !WorkloadInputs.empty()))
    return fail("--workload-timeout and --workload-input are for --workload");
  if (Corpus.empty() == Package.empty())
    return fail("--objective speed tunes a corpus of the program's -O2 build: "
                "give one of --corpus and --package");
  if (Profile.empty() && Package.empty())
    return fail("--objective speed needs --profile P.profdata");
  if (PerPackage || Compare || Unguided || !ModelPath.empty() ||
      !RankerPath.empty() || Budget != 0 || Components || FunctionLevel ||
      Interleave || ProgramMoves || Predict != "off" ||
      !PredictSlices.empty() || LoggedFilter != "off" || LoggedDeclined)
    return fail("--per-package, --compare, --unguided, --model, --ranker, "
                "--predict, --logged-filter, --budget, --components and "
                "--program-moves are for "
                "--objective size");
  SpeedTuneOptions O;
  O.CorpusDir = Corpus;
  O.Profile = Profile;
  if (!Package.empty()) {
    Expected<std::string> Dir = getPackageCorpus(/*ForSpeed=*/true);
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
  O.Seed = Seed;
  O.Jobs = Workers ? Workers : 2;
  O.TimeoutSeconds = Timeout;
  O.Verbose = !Quiet;
  O.Link = Link;
  O.Workload = Workload;
  O.WorkloadTimeout = WorkloadTimeout;
  for (const std::string &In : WorkloadInputs) {
    SmallString<256> Abs(In);
    sys::fs::make_absolute(Abs);
    O.WorkloadInputs.push_back(std::string(Abs));
  }
  raw_string_ostream Identity(O.BuildIdentity);
  tool::printVersion(Identity);
  O.EvictModel = EvictModel;
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
/// the recipe's speed_objects), unless a run before did.
Expected<std::string> getPackageCorpus(bool ForSpeed) {
  SmallString<256> Work(WorkDir);
  sys::fs::make_absolute(Work);
  std::string CorpusDir = (Work + (ForSpeed ? "/corpus-O2" : "/corpus")).str();
  if (sys::fs::exists(CorpusDir + "/corpus_description.json"))
    return CorpusDir;
  if (Error E = buildPackageCorpus(getPackageOptions(), CorpusDir, ForSpeed))
    return E;
  return CorpusDir;
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
  if (!Profile.empty() || !Workload.empty() || !Link.empty() ||
      WorkloadTimeout.getNumOccurrences() || !WorkloadInputs.empty())
    return fail("--profile, --workload and --link are for --objective speed");
  if (!EvictModel.empty())
    return fail("--evict-model is for --objective speed (for size, the "
                "inlining model is --model)");
  if (Corpus.empty() == Package.empty())
    return fail("give one of --corpus and --package");
  TuneOptions O;
  O.CorpusDir = Corpus;
  if (!Package.empty()) {
    Expected<std::string> Dir = getPackageCorpus();
    if (!Dir)
      return fail(Dir.takeError());
    O.CorpusDir = *Dir;
    O.ProgramName = Package;
  }
  O.WorkDir = WorkDir;
  O.Output = Output;
  O.PerPackage = PerPackage;
  O.MaxCompiles = MaxCompiles;
  O.BudgetMinutes = Budget;
  O.Seed = Seed;
  O.Order = Unguided ? TuneOrder::Unguided : TuneOrder::Guided;
  O.Compare = Compare;
  O.ModelPath = ModelPath;
  Expected<bool> UseRanker =
      parseWord<bool>("guide", Guide, {{"ranker", true}, {"logit", false}});
  if (!UseRanker)
    return fail(UseRanker.takeError());
  O.UseRanker = *UseRanker;
  if (!RankerPath.empty() && !O.UseRanker)
    return fail("--ranker is for --guide ranker");
  O.RankerPath = RankerPath;
  enum class Graph { References, Statics, Sites };
  Expected<Graph> TheGraph =
      parseWord<Graph>("component-graph", ComponentGraph,
                       {{"references", Graph::References},
                        {"statics", Graph::Statics},
                        {"sites", Graph::Sites}});
  if (!TheGraph)
    return fail(TheGraph.takeError());
  if (ExhaustiveSites > 20)
    return fail("--exhaustive-sites is at most 20 (2^20 compiles per "
                "component)");
  O.Components = Components;
  O.ExhaustiveSites = ExhaustiveSites;
  O.ReferenceGraph = *TheGraph != Graph::Sites;
  O.StaticsGraph = *TheGraph == Graph::Statics;
  if (FunctionLevel && !Components)
    return fail("--function-level is for --components");
  if (FunctionLevel && !O.ReferenceGraph)
    return fail("--function-level needs --component-graph references or "
                "statics (a slice holds what its component needs)");
  O.FunctionLevel = FunctionLevel;
  if (Interleave && !Components)
    return fail("--interleave is for --components");
  O.Interleave = Interleave;
  O.WholeProgram = !PerModuleLinkOnce;
  O.ProgramMoves = ProgramMoves;
  Expected<TunePredict> ThePredict =
      parseWord<TunePredict>("predict", Predict,
                             {{"off", TunePredict::Off},
                              {"rank", TunePredict::Rank},
                              {"skip", TunePredict::Skip}});
  if (!ThePredict)
    return fail(ThePredict.takeError());
  O.Predict = *ThePredict;
  if (!(PredictionCost >= 0) || !std::isfinite(PredictionCost))
    return fail(formatv("--prediction-cost must be a number >= 0, not {0}",
                        PredictionCost.getValue())
                    .str());
  O.PredictionCost = PredictionCost;
  if (!PredictSlices.empty()) {
    if (O.Predict == TunePredict::Off)
      return fail("--predict-slices is for --predict rank or skip");
    Expected<TunePredictOn> On =
        parseWord<TunePredictOn>("predict-slices", PredictSlices,
                                 {{"components", TunePredictOn::Components},
                                  {"moves", TunePredictOn::Moves}});
    if (!On)
      return fail(On.takeError());
    O.PredictOn = *On;
  }
  Expected<TunePredict> TheFilter =
      parseWord<TunePredict>("logged-filter", LoggedFilter,
                             {{"off", TunePredict::Off},
                              {"rank", TunePredict::Rank},
                              {"skip", TunePredict::Skip},
                              {"promote", TunePredict::Skip},
                              {"only", TunePredict::Skip},
                              {"predict", TunePredict::Skip}});
  if (!TheFilter)
    return fail(TheFilter.takeError());
  O.LoggedFilter = *TheFilter;
  O.LoggedPromote = LoggedFilter == "promote";
  O.LoggedOnly = LoggedFilter == "only" || LoggedFilter == "predict";
  if (LoggedFilter == "predict") {
    if (O.Predict == TunePredict::Off)
      return fail("--logged-filter predict needs --predict rank or skip");
    if (LoggedPredictInline == 0)
      return fail("--logged-predict-inline must be at least 1");
    O.LoggedPredictInline = LoggedPredictInline;
  } else if (LoggedPredictInline.getNumOccurrences()) {
    return fail("--logged-predict-inline is for --logged-filter predict");
  }
  if (LoggedDeclined && O.LoggedFilter == TunePredict::Off)
    return fail("--logged-declined needs --logged-filter");
  O.LoggedDeclined = LoggedDeclined;
  O.Workers = Workers;
  O.TimeoutSeconds = Timeout;
  O.Verbose = !Quiet;
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
                                         "the embedded one"),
                                cl::value_desc("file"), cl::sub(CheckCmd),
                                cl::cat(Cat));

cl::opt<std::string>
    CheckEvictModel("evict-model",
                    cl::desc("a file for speed: the eviction model the build "
                             "uses (-mlgo-evict-model), if not the embedded "
                             "one"),
                    cl::value_desc("file"), cl::sub(CheckCmd), cl::cat(Cat));
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
    if (!CheckModel.empty())
      return fail(CheckFile + ": a file for speed; --model is for files for "
                              "size (the eviction model is --evict-model)");
    Expected<size_t> Stale = checkSpeedDecisions(
        CheckCorpus, CheckFile, CheckProfile, CheckEvictModel, outs());
    if (!Stale)
      return fail(Stale.takeError());
    return *Stale ? 1 : 0;
  }
  if (!CheckProfile.empty())
    return fail(CheckFile + ": a file for size; --profile is for files for "
                            "speed");
  if (!CheckEvictModel.empty())
    return fail(CheckFile + ": a file for size; --evict-model is for files "
                            "for speed");
  Expected<size_t> Stale =
      checkDecisions(CheckCorpus, CheckFile, CheckModel, outs());
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
