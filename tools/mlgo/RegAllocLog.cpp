//===- tools/mlgo/RegAllocLog.cpp - mlgo regalloc log
//----------------------===//
//
//   mlgo regalloc log IR -o OUT.log [--model M] [--llc-arg=A]... [--timeout S]
//                    [--profile P]
//
// The eviction decisions of a model (default: the embedded one) on one
// module, in LLVM's training-log format with each function's static score
// (with --profile P: its profile-weighted cycles) as its reward
// (mlgo/RegAllocTrain/RewardLog.h, docs/regalloc.md).
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/RegAllocTrain/RewardLog.h"
#include "mlgo/Support/InstallDirs.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand LogCmd("regalloc log",
                      "Log a model's eviction decisions on a module, with "
                      "each function's static score as its reward");
cl::opt<std::string> Input(cl::Positional, cl::Required,
                           cl::desc("<.ll or .bc file>"), cl::sub(LogCmd),
                           cl::cat(Cat));
cl::opt<std::string> Output("o", cl::Required, cl::desc("where the log goes"),
                            cl::value_desc("file"), cl::sub(LogCmd),
                            cl::cat(Cat));
cl::opt<std::string> ModelPath("model",
                               cl::desc("the eviction model (default: the "
                                        "embedded one)"),
                               cl::value_desc("model.json"), cl::sub(LogCmd),
                               cl::cat(Cat));
cl::list<std::string> LLCArgs("llc-arg",
                              cl::desc("pass <arg> to llc-19 (repeatable)"),
                              cl::value_desc("arg"), cl::sub(LogCmd),
                              cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("seconds for llc-19 (0: no limit)"),
                          cl::init(300), cl::sub(LogCmd), cl::cat(Cat));
cl::opt<std::string>
    Profile("profile",
            cl::desc("apply this profile to the module (IR before "
                     "optimization); each function's reward is then its "
                     "profile-weighted cycles"),
            cl::value_desc("P.profdata"), cl::sub(LogCmd), cl::cat(Cat));

int runLog() {
  regalloc::RewardLogOptions O;
  O.PluginPath = getInstallDirs().Plugin;
  O.ModelPath = ModelPath;
  O.LLC.ExtraArgs.assign(LLCArgs.begin(), LLCArgs.end());
  O.LLC.TimeoutSeconds = Timeout;
  O.Profile = Profile;
  Expected<regalloc::RewardLogSummary> S =
      regalloc::writeRewardLog(Input, Output, O);
  if (!S)
    return fail(S.takeError());
  outs() << formatv("{0}: {1} functions, {2} decisions, {3} rewards; "
                    "module {4} {5:f2}\n",
                    Output, S->Functions, S->Observations, S->Rewards,
                    Profile.empty() ? "score" : "profile-weighted cycles",
                    S->Score);
  return 0;
}

tool::RegisterSubcommand RegisterLog(LogCmd, runLog);

} // namespace
