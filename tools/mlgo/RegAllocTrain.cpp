//===- tools/mlgo/RegAllocTrain.cpp - mlgo regalloc train -----------------===//
//
//   mlgo regalloc train --corpus DIR --work-dir W -o model.json
//       [--init MODEL] [--validation-packages a,b] [--train-modules N]
//       [--validation-modules N] [--generations G] [--pairs P]
//       [--fit-ties] [--hidden N] [--select training|validation] [--sigma S]
//       [--aggregate mean|max|softmax] [--temperature T]
//       [--sigma-floor F] [--step S] [--seed N]
//       [--jobs N]
//       [--quiet]
//
// Improves a per-column eviction model on LLVM's static regalloc score of
// corpus modules (mlgo/RegAllocTrain/EvictTrainer.h, docs/regalloc.md).
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/RegAllocTrain/EvictTrainer.h"
#include "mlgo/Support/InstallDirs.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using tool::fail;
using tool::parseWord;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand TrainCmd("regalloc train",
                        "Improve an eviction model on the static regalloc "
                        "score of a corpus (evolution strategies)");
cl::opt<std::string> Corpus("corpus", cl::Required,
                            cl::desc("the corpus (mlgo corpus extract)"),
                            cl::value_desc("dir"), cl::sub(TrainCmd),
                            cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir", cl::Required,
                             cl::desc("optimized modules, candidates, the "
                                      "score cache, curve.csv, report.md"),
                             cl::value_desc("dir"), cl::sub(TrainCmd),
                             cl::cat(Cat));
cl::opt<std::string> Output("o", cl::Required,
                            cl::desc("where the trained model goes"),
                            cl::value_desc("model.json"), cl::sub(TrainCmd),
                            cl::cat(Cat));
cl::opt<std::string> Init("init",
                          cl::desc("the starting model (default: the shipped "
                                   "models/regalloc-evict/model.json)"),
                          cl::value_desc("model.json"), cl::sub(TrainCmd),
                          cl::cat(Cat));
cl::list<std::string> Validation("validation-packages", cl::CommaSeparated,
                                 cl::desc("packages held out for validation"),
                                 cl::value_desc("a,b"), cl::sub(TrainCmd),
                                 cl::cat(Cat));
cl::opt<unsigned> TrainModules("train-modules",
                               cl::desc("training modules (default 40)"),
                               cl::init(40), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned> ValidationModules("validation-modules",
                                    cl::desc("validation modules (default 40)"),
                                    cl::init(40), cl::sub(TrainCmd),
                                    cl::cat(Cat));
cl::opt<unsigned> Generations("generations",
                              cl::desc("generations (default 10)"),
                              cl::init(10), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned> Pairs("pairs",
                        cl::desc("antithetic pairs per generation (default 4)"),
                        cl::init(4), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<double> Sigma("sigma",
                      cl::desc("perturbation of a weight, relative to its "
                               "start magnitude (0.3)"),
                      cl::init(0.3), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<double> SigmaFloor("sigma-floor",
                           cl::desc("the scale of weights smaller than this "
                                    "at the start (1e-5)"),
                           cl::init(1e-5), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<double> Step("step", cl::desc("step size (0.3)"), cl::init(0.3),
                     cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<uint64_t> Seed("seed", cl::desc("random seed (1)"), cl::init(1),
                       cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned> Jobs("jobs", cl::desc("parallel compiles (default 2)"),
                       cl::init(2), cl::sub(TrainCmd), cl::cat(Cat));
cl::alias JobsShort("j", cl::aliasopt(Jobs));
cl::opt<bool> FitTies("fit-ties",
                      cl::desc("first fit the tie-breaker on the start "
                               "model's decisions (docs/regalloc.md)"),
                      cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned>
    Hidden("hidden",
           cl::desc("widen the linear start into an MLP of N ReLU units "
                    "(N >= 2) that takes its decisions, and search all its "
                    "layers (docs/regalloc.md; default 0: linear)"),
           cl::value_desc("N"), cl::init(0), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string>
    Reward("reward",
           cl::desc("static (LLVM's static regalloc score, the default), "
                    "speed (profile-weighted cycles of the final code, with "
                    "the corpus's package profiles) or instructions "
                    "(profile-weighted executed instructions, likewise)"),
           cl::init("static"), cl::value_desc("static|speed|instructions"),
           cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string>
    Select("select",
           cl::desc("the model kept: the best training candidate (training, "
                    "the default) or the generation center with the lowest "
                    "validation objective (validation)"),
           cl::init("training"), cl::value_desc("training|validation"),
           cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> Aggregate(
    "aggregate",
    cl::desc("how the ratios model / LLVM default of the packages (static: "
             "the modules) make the objective: their mean (the default), "
             "the worst (max), or the smooth maximum T * log(mean(exp(r / "
             "T))) (softmax)"),
    cl::init("mean"), cl::value_desc("mean|max|softmax"), cl::sub(TrainCmd),
    cl::cat(Cat));
cl::opt<double>
    Temperature("temperature",
                cl::desc("--aggregate softmax: the temperature T (0.01): "
                         "large T is the mean, T -> 0 the max"),
                cl::init(0.01), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<bool> UseBlockCounts(
    "block-counts",
    cl::desc("speed rewards: take each block's count from the corpus's block "
             "counts where a package has them (mlgo corpus profile --counts; "
             "the default), not from the profile's branch probabilities"),
    cl::init(true), cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("print nothing but errors"),
                    cl::sub(TrainCmd), cl::cat(Cat));

int runTrain() {
  regalloc::EvictTrainOptions O;
  O.CorpusDir = Corpus;
  O.WorkDir = WorkDir;
  O.OutputPath = Output;
  O.InitModelPath =
      Init.empty() ? getInstallDirs().Data + "/models/regalloc-evict/model.json"
                   : Init.getValue();
  O.ValidationPackages.assign(Validation.begin(), Validation.end());
  O.TrainModules = TrainModules;
  O.ValidationModules = ValidationModules;
  O.Generations = Generations;
  O.Pairs = Pairs;
  O.Sigma = Sigma;
  O.SigmaFloor = SigmaFloor;
  O.FitTies = FitTies;
  O.Hidden = Hidden;
  O.Step = Step;
  O.Seed = Seed;
  O.Jobs = Jobs ? Jobs : 1;
  O.PluginPath = getInstallDirs().Plugin;
  O.Quiet = Quiet;
  Expected<regalloc::EvictionReward> TheReward =
      regalloc::parseEvictionReward(Reward);
  if (!TheReward)
    return fail(TheReward.takeError());
  O.Reward = *TheReward;
  O.UseBlockCounts = UseBlockCounts;
  Expected<regalloc::RatioAggregate::Kind> TheAggregate =
      regalloc::parseRatioAggregate(Aggregate);
  if (!TheAggregate)
    return fail(TheAggregate.takeError());
  O.Aggregate.TheKind = *TheAggregate;
  if (Temperature.getNumOccurrences() &&
      O.Aggregate.TheKind != regalloc::RatioAggregate::Kind::Softmax)
    return fail("--temperature applies to --aggregate softmax only");
  if (!(Temperature > 0))
    return fail("--temperature must be greater than 0");
  O.Aggregate.Temperature = Temperature;
  Expected<bool> OnValidation = parseWord<bool>(
      "select", Select, {{"training", false}, {"validation", true}});
  if (!OnValidation)
    return fail(OnValidation.takeError());
  O.SelectOnValidation = *OnValidation;
  if (O.Pairs == 0)
    return fail("--pairs must be at least 1");
  if (!(O.SigmaFloor > 0))
    return fail("--sigma-floor must be greater than 0");
  Expected<regalloc::EvictTrainResult> R =
      regalloc::trainEvictionModel(O, outs());
  if (!R)
    return fail(R.takeError());
  return 0;
}

tool::RegisterSubcommand RegisterTrain(TrainCmd, runTrain);

} // namespace
