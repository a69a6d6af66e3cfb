//===- mlgo/RegAllocTrain/RewardLog.h - Logs with rewards -------*- C++ -*-===//
//
// `mlgo regalloc log`: the eviction decisions a model makes on one module,
// in LLVM's training-log format, with a reward per function - the log
// LLVM's development mode writes (RegAllocScoring logs the function's
// static score as the reward of its last observation), on stock LLVM.
//
// One llc-19 run makes both halves, so they describe the same allocation:
// `llc-19 -O2 -stop-after=virtregrewriter -load=<plugin> -mlgo-evict
// [-mlgo-evict-model=M] -mlgo-evict-training-log=<tmp>` writes the
// decisions and the MIR; the MIR is scored per function (Score.h). The
// output is the decisions log with a "reward" score (float, shape [1]) in
// its header and, after the last observation of each function that made a
// decision, an outcome line and that function's score: lower is better. A
// function without decisions has a context line and no reward, as in LLVM.
//
// With a profile (docs/speed.md, "The reward in training"), the module (IR
// before optimization) gets it applied first (SpeedReward.h's
// applyProfile), llc runs with the address-map flags, and a second llc run
// with the same options compiles the same allocation to an object: each
// function's reward is then its profile-weighted cycles, and the header's
// score spec is named "profile_cycles" instead of "reward", so a log says
// which reward it carries. Lower is better for both.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCTRAIN_REWARDLOG_H
#define MLGO_REGALLOCTRAIN_REWARDLOG_H

#include "mlgo/RegAlloc/Score.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlgo::regalloc {

struct RewardLogOptions {
  /// The plugin llc loads.
  std::string PluginPath;
  /// The eviction model; empty: the plugin's embedded one.
  std::string ModelPath;
  /// How llc runs (its extra arguments come before the plugin's).
  LLCOptions LLC;
  /// The profile to apply; empty: the static score is the reward.
  std::string Profile;
};

/// The name of the log's score spec: "reward" (the static score, as LLVM's
/// development mode logs it) or, with a profile, "profile_cycles".
llvm::StringRef getRewardName(const RewardLogOptions &Options);

struct RewardLogSummary {
  size_t Functions = 0;    ///< Contexts in the log.
  size_t Observations = 0; ///< Decisions.
  size_t Rewards = 0;      ///< Functions with a decision, hence a reward.
  /// The module's reward: its static score, or with a profile its
  /// profile-weighted cycles.
  double Score = 0;
};

/// Writes the log of \p IRPath (.ll or .bc) to \p OutPath (through a
/// temporary file: never half-written). Errors name the file: llc's and
/// the score's (Score.h), "OUT: cannot write ...", "IR: no function
/// reaches the eviction advisor ...", and "IR: the log names function 'f',
/// which the MIR does not have".
llvm::Expected<RewardLogSummary>
writeRewardLog(llvm::StringRef IRPath, llvm::StringRef OutPath,
               const RewardLogOptions &Options);

} // namespace mlgo::regalloc

#endif // MLGO_REGALLOCTRAIN_REWARDLOG_H
