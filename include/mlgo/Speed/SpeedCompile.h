//===- mlgo/Speed/SpeedCompile.h - A compile for speed, as a task -*- C++ -*-=//
//
// The compile of `mlgo tune --objective speed` (mlgo/Tune/SpeedTune.h): a
// corpus module's own cc1 command with the profile applied (-fprofile-use,
// a function without counts an error), the basic-block address map with
// the profile's frequencies (so that the object's profile-weighted cost
// can be read off it, mlgo/Speed/ExecutionCost.h), and the plugin under a
// CompilePolicy (whose getCC1Args spells every plugin flag: the inlining
// entries, the training logs, the eviction model).
//
// It is a task (mlgo/Support/Tasks.h, kind "clang-speed-compile"): the
// compiler runs as a subprocess - the plugin's eviction options are the
// process's - wherever tasks run, on this machine's threads or on the
// worker ranks of a run across machines, which get the bitcode, the
// profile, the decisions file and the eviction model as the task's inputs.
// The answer carries the object and the logs back; the caller measures,
// caches and judges them.
//
// The task's arguments: the timeout in seconds, then clang's argv, where
// %{mlgo-object}, %{mlgo-ilog} and %{mlgo-elog} stand for the object, the
// inliner's training log and the eviction training log, each task's own
// temporary files. The answer:
//
//   answer := str stderr , str object , file ilog , file ilog.sites ,
//             file elog
//   file   := u8 present , [str bytes]
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_SPEEDCOMPILE_H
#define MLGO_SPEED_SPEEDCOMPILE_H

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlgo::speed {

/// What a speed compile needs besides its module and policy.
struct SpeedCompileSetup {
  std::string CorpusDir;
  CorpusDescription Description;
  /// The indexed profile (absolute path).
  std::string Profile;
  std::string Clang = "clang-19";
  std::string PluginPath;
  unsigned TimeoutSeconds = 300;
};

/// Where the policy's training logs go in a task: its own files.
constexpr const char SpeedInlineLog[] = "%{mlgo-ilog}";
constexpr const char SpeedEvictLog[] = "%{mlgo-elog}";

/// The task that compiles corpus module \p Module under \p Policy (its
/// TrainingLogPath and EvictTrainingLogPath SpeedInlineLog and
/// SpeedEvictLog, or empty; its DecisionsPath a file of this machine).
/// A stock policy loads no plugin.
llvm::Expected<Task> makeSpeedCompileTask(const SpeedCompileSetup &Setup,
                                          llvm::StringRef Module,
                                          const CompilePolicy &Policy);

/// A speed compile's answer.
struct SpeedCompileAnswer {
  /// The compiler's diagnostics (it succeeded).
  std::string Stderr;
  std::string Object;
  /// The logs the policy asked for (none if the compiler wrote none).
  std::optional<std::string> InlineLog, InlineSites, EvictLog;
};
llvm::Expected<SpeedCompileAnswer> decodeSpeedCompileAnswer(llvm::StringRef);

} // namespace mlgo::speed

#endif // MLGO_SPEED_SPEEDCOMPILE_H
