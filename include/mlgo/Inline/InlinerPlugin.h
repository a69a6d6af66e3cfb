//===- mlgo/Inline/InlinerPlugin.h - Hooking the advisor into LLVM -*- C++
//-*-===//
//
// Registers mlgo's inline advisor with a PassBuilder through LLVM's
// PluginInlineAdvisorAnalysis, so every inliner of the -O2/-Os/-Oz pipelines
// (and explicit `inline` passes) asks our advisor.
//
// Two ways to configure it:
//  * the plugin entry point (plugin/Plugin.cpp) calls registerInliner(PB),
//    which reads the -mlgo-* command-line options;
//  * the in-process compile worker (lib/Train) builds an InlinerConfig
//    directly - a model held in memory, a training log written to a string,
//    a decision override - and calls registerInliner(PB, Config).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_INLINERPLUGIN_H
#define MLGO_INLINE_INLINERPLUGIN_H

#include "mlgo/Inline/MLGOInlineAdvisor.h"
#include "mlgo/Protocol/InteractiveRunner.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace mlgo {

class Model;

/// Everything that decides how the advisor is built for a compilation.
struct InlinerConfig {
  /// Decision source, exploration, features, logging.
  MLGOInlineAdvisorOptions Options;
  /// InlineDecisionSource::Model: the model to evaluate. TheModel (held in
  /// memory) wins over ModelPath (a file, interpreted); with neither, the
  /// model embedded in the plugin.
  std::shared_ptr<const Model> TheModel;
  std::string ModelPath;
  /// InlineDecisionSource::Interactive: <base>.out / <base>.in.
  std::string ChannelBase;
  /// How long to wait for one advice of the host (0: for ever).
  unsigned ChannelTimeoutSeconds = InteractiveRunner::DefaultTimeoutSeconds;
  /// Use LLVM's own DefaultInlineAdvisor (no mlgo advisor at all).
  bool UseLLVMAdvisor = false;
  /// The options ask for a policy explicitly (a model file, a host, LLVM's
  /// heuristic through mlgo's advisor, a training log, a decisions file,
  /// flips or exploration). Without one, pipelines built for speed
  /// (-O1/-O2/-O3) keep LLVM's own advisor: the embedded model is trained
  /// for size and must not decide a speed build's inlining.
  bool ExplicitPolicy = false;
  /// A decisions file (-mlgo-decisions) and its path: each module's
  /// entries, found by its source path, become Options.Fixed.
  std::shared_ptr<const DecisionsFile> Decisions;
  std::string DecisionsPath;
  /// When set, the training log is appended to this string (owned by the
  /// caller, alive until the compilation ends) instead of written to
  /// Options.TrainingLogPath.
  std::string *LogBuffer = nullptr;
};

/// The configuration the -mlgo-* options describe. Fails on conflicting
/// options, with the message the plugin reports.
llvm::Expected<InlinerConfig> getInlinerConfigFromOptions();

/// Makes \p PB's module analysis managers use mlgo's inline advisor,
/// configured by the -mlgo-* options (read when the advisor is built, so a
/// configuration error stops the compilation with report_fatal_error).
void registerInliner(llvm::PassBuilder &PB);

/// Adds a check of the plugin's other options (the eviction model's) to
/// the one registerInliner(PB) runs at the start of every pipeline: an
/// error it returns is reported as an error of the compilation, like the
/// inliner's own setup errors (no crash banner, no output).
void registerSetupCheck(std::function<llvm::Error()> Check);

/// The decisions file the -mlgo-decisions option names, loaded once (null
/// without the option or when the options are in error, which the
/// inliner reports), and its path in \p Path. The eviction half of the
/// plugin applies its eviction entries.
std::shared_ptr<const DecisionsFile> getDecisionsFromOptions(std::string &Path);

/// Same, with an explicit configuration. \p Config must outlive every
/// compilation run with \p PB.
void registerInliner(llvm::PassBuilder &PB,
                     std::shared_ptr<const InlinerConfig> Config);

} // namespace mlgo

#endif // MLGO_INLINE_INLINERPLUGIN_H
