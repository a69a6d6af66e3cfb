//===- tools/mlgo/RegAllocEval.cpp - mlgo eval regalloc
//--------------------===//
//
//   mlgo eval regalloc CORPUS --work-dir W [--model M] [--packages a,b]
//       [--modules-per-package N] [--format table|markdown|csv] [--jobs N]
//
// LLVM's static regalloc score of corpus modules (opt-19 -O2, then llc-19)
// with LLVM's default eviction advisor and with an eviction model, per
// package, in one run (mlgo/RegAllocTrain/EvictTrainer.h, docs/regalloc.md).
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/Table.h"
#include "mlgo/RegAllocTrain/EvictTrainer.h"
#include "mlgo/Support/InstallDirs.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand EvalCmd("eval regalloc",
                       "Score corpus modules' register allocation with "
                       "LLVM's eviction advisor and with a model; a table "
                       "per package");
cl::opt<std::string> Corpus(cl::Positional, cl::Required,
                            cl::desc("<corpus dir>"), cl::sub(EvalCmd),
                            cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir", cl::Required,
                             cl::desc("optimized modules and the score "
                                      "cache (shareable with mlgo regalloc "
                                      "train)"),
                             cl::value_desc("dir"), cl::sub(EvalCmd),
                             cl::cat(Cat));
cl::opt<std::string> ModelPath("model",
                               cl::desc("the eviction model (default: the "
                                        "shipped models/regalloc-evict/"
                                        "model.json)"),
                               cl::value_desc("model.json"), cl::sub(EvalCmd),
                               cl::cat(Cat));
cl::list<std::string> Packages("packages", cl::CommaSeparated,
                               cl::desc("packages to score (default: all)"),
                               cl::value_desc("a,b"), cl::sub(EvalCmd),
                               cl::cat(Cat));
cl::opt<unsigned> PerPackage("modules-per-package",
                             cl::desc("at most N modules of each package, "
                                      "in corpus order (0: all)"),
                             cl::init(0), cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<std::string> Format("format", cl::desc("table, markdown or csv"),
                            cl::init("table"), cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<unsigned> Jobs("jobs", cl::desc("parallel compiles (default 2)"),
                       cl::init(2), cl::sub(EvalCmd), cl::cat(Cat));
cl::alias JobsShort("j", cl::aliasopt(Jobs));
cl::opt<std::string>
    Reward("reward",
           cl::desc("static (LLVM's static regalloc score, the default), "
                    "speed (profile-weighted cycles of the final code, with "
                    "the corpus's package profiles) or instructions "
                    "(profile-weighted executed instructions, likewise)"),
           cl::init("static"), cl::value_desc("static|speed|instructions"),
           cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<bool> UseBlockCounts(
    "block-counts",
    cl::desc("speed rewards: take each block's count from the corpus's block "
             "counts where a package has them (mlgo corpus profile --counts; "
             "the default), not from the profile's branch probabilities"),
    cl::init(true), cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<bool> Quiet("quiet", cl::desc("print nothing but the table"),
                    cl::sub(EvalCmd), cl::cat(Cat));

std::string ratio(double Model, double Default) {
  if (Default == 0)
    return Model == 0 ? "1.0000" : "-";
  return formatv("{0:f4}", Model / Default).str();
}

int runEval() {
  Expected<ReportFormat> F = parseReportFormat(Format);
  if (!F)
    return fail(F.takeError());
  regalloc::EvictEvalOptions O;
  O.CorpusDir = Corpus;
  O.WorkDir = WorkDir;
  O.ModelPath = ModelPath.empty() ? getInstallDirs().Data +
                                        "/models/regalloc-evict/model.json"
                                  : ModelPath.getValue();
  O.Packages.assign(Packages.begin(), Packages.end());
  O.ModulesPerPackage = PerPackage;
  O.Jobs = Jobs ? Jobs : 1;
  O.PluginPath = getInstallDirs().Plugin;
  O.Quiet = Quiet;
  Expected<regalloc::EvictionReward> TheReward =
      regalloc::parseEvictionReward(Reward);
  if (!TheReward)
    return fail(TheReward.takeError());
  O.Reward = *TheReward;
  O.UseBlockCounts = UseBlockCounts;
  Expected<regalloc::EvictEvalResult> R =
      regalloc::evaluateEvictionModel(O, errs());
  if (!R)
    return fail(R.takeError());
  Table T;
  T.Header = {"package", "modules", "LLVM default", "model", "model / default"};
  for (const auto &P : R->Packages)
    T.addRow({P.Name, std::to_string(P.Modules),
              formatv("{0:f1}", P.Default).str(),
              formatv("{0:f1}", P.Model).str(), ratio(P.Model, P.Default)});
  T.addRuleBeforeNextRow();
  T.addRow({"TOTAL", std::to_string(R->Modules),
            formatv("{0:f1}", R->Default).str(),
            formatv("{0:f1}", R->Model).str(), ratio(R->Model, R->Default)});
  T.print(outs(), *F);
  if (*F != ReportFormat::CSV && regalloc::usesProfile(O.Reward))
    outs() << formatv("\nreward: {2}; mean per package "
                      "of model / default: {0:f4}; {1} module(s) skipped "
                      "(their package has no profile){3}\n",
                      R->MeanRatio, R->WithoutProfile,
                      regalloc::describeEvictionReward(O.Reward),
                      R->NeverRun ? formatv(", {0} never run by their "
                                            "package's workload",
                                            R->NeverRun)
                                        .str()
                                  : std::string())
           << formatv("{0} of {1} module(s) cost exactly as with LLVM's "
                      "advisor\n",
                      R->SameScore, R->Modules)
           << (R->Mismatched.empty()
                   ? std::string()
                   : "profile counts dropped (control flow the profile does "
                     "not match): " +
                         llvm::join(R->Mismatched, ", ") + "\n");
  else if (*F != ReportFormat::CSV)
    outs() << formatv("\nmean per module of model / default: {0:f4} (over "
                      "modules LLVM allocates with a cost); {1} module(s) "
                      "left out (MIR that does not read back)\n",
                      R->MeanRatio, R->LeftOut)
           << formatv("{0} of {1} module(s) score exactly as with LLVM's "
                      "advisor (their allocations agree, or differ only "
                      "where the cost is the same)\n",
                      R->SameScore, R->Modules);
  return 0;
}

tool::RegisterSubcommand RegisterEval(EvalCmd, runEval);

} // namespace
