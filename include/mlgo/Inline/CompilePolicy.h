//===- mlgo/Inline/CompilePolicy.h - Who decides inlining -------*- C++ -*-===//
//
// A CompilePolicy says who takes the inlining decisions when one module is
// compiled: stock clang (LLVM's own advisor, no mlgo code), mlgo's advisor
// letting LLVM's heuristic decide, the model embedded in the plugin, or a
// text model. On top of the source, a set of "flips" (decision indices whose
// proposed decision is inverted, as -mlgo-flip does) and optional
// exploration (sampling from the model's logit).
//
// It is one value for every compiler mlgo drives: the in-process compile
// worker (mlgo/Compile/CompileWorker.h) turns it into an InlinerConfig, and a
// spawned `clang-19 -cc1` gets the plugin arguments getCC1Args() gives, so
// training, evaluation and tuning describe a compile the same way. getKey()
// names it in caches (compiles.tsv), so its bytes must not change for an
// existing kind; the embedded kind's key names the model the build embeds,
// and changes with it.
//
// This header and CompilePolicy.cpp need LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_COMPILEPOLICY_H
#define MLGO_INLINE_COMPILEPOLICY_H

#include "mlgo/Inline/Decisions.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// The source of a compile's inlining decisions. The values are part of
/// cache keys and of the compile worker's frames: never renumber them.
enum class PolicyKind : uint8_t {
  /// clang exactly as installed: LLVM's DefaultInlineAdvisor, no mlgo code
  /// in the pipeline. The -Oz baseline.
  Stock = 0,
  /// mlgo's advisor with LLVM's heuristic deciding (same decisions as
  /// Stock; this one can log and flip decisions).
  Heuristic = 1,
  /// A text model, evaluated by the interpreter.
  Model = 2,
  /// The model compiled into the plugin (models/inline-oz by default).
  Embedded = 3,
};

struct CompilePolicy {
  PolicyKind Kind = PolicyKind::Stock;
  /// PolicyKind::Model: the model, as JSON text (model format). Shared
  /// between copies: a training run sends one model with thousands of
  /// different flip sets, and the text is tens of kilobytes.
  std::shared_ptr<const std::string> ModelJSON;
  /// PolicyKind::Model: the file the text came from, for compilers in other
  /// processes (-mlgo-model=FILE); empty for a model held only in memory.
  /// Not part of the key: the text is.
  std::string ModelPath;
  /// Decision indices (in the module, from 0) whose proposed decision is
  /// inverted; sorted, unique. Not for PolicyKind::Stock.
  std::vector<uint32_t> Flips;
  /// Decisions fixed per call site (mlgo/Inline/Decisions.h): a tuning
  /// try's, applied before the flips. Shared between copies.
  std::shared_ptr<const ModuleDecisions> Fixed;
  /// A decisions file holding Fixed for this module, for compilers in other
  /// processes (-mlgo-decisions=FILE); without Fixed, a file the plugin
  /// reads as given (a user's build, an LTO link). Not part of the key:
  /// Fixed is.
  std::string DecisionsPath;
  /// Sample decisions from sigmoid(logit / T) with this seed (Model only).
  std::optional<uint64_t> ExploreSeed;
  float ExploreTemperature = 1.0f;
  /// PolicyKind::Embedded: the MD5 of the model file this build embeds
  /// (set by embedded()). Part of the key, so that a cache written by a
  /// build that embedded another model is not replayed as this one's.
  std::string EmbeddedModelMD5;
  /// Register-allocation eviction in code for speed (the plugin's
  /// -mlgo-evict; mlgo/RegAlloc/EvictionPlugin.h): none leaves it to
  /// LLVM; otherwise the eviction model decides, the one in this file or,
  /// if empty, the one embedded in the plugin, with Fixed's eviction
  /// entries on top. Part of the key when set (the file as named, and
  /// Fixed's eviction entries). For compilers in other processes only
  /// (getCC1Args): the in-process worker has no per-compile eviction.
  std::optional<std::string> EvictModel;
  /// Where a spawned compiler's plugin writes the inliner's training log
  /// (-mlgo-training-log; its call sites go to the file with ".sites"
  /// added) and, with EvictModel, the eviction training log
  /// (-mlgo-evict-training-log); none if empty. Not part of the key.
  std::string TrainingLogPath, EvictTrainingLogPath;

  static CompilePolicy stock() { return {}; }
  static CompilePolicy heuristic() {
    CompilePolicy P;
    P.Kind = PolicyKind::Heuristic;
    return P;
  }
  /// The model compiled into this build's plugin.
  static CompilePolicy embedded();
  /// A model held in memory as \p JSON (and, if it came from one, the file
  /// \p Path).
  static CompilePolicy model(std::string JSON, std::string Path = "") {
    CompilePolicy P;
    P.Kind = PolicyKind::Model;
    P.ModelJSON = std::make_shared<const std::string>(std::move(JSON));
    P.ModelPath = std::move(Path);
    return P;
  }
  /// The policy of a user's build with the plugin: the model in the file
  /// \p ModelPath, or the embedded one if empty, with the decisions file
  /// \p DecisionsPath if not empty. For the flags (getDriverArgs,
  /// getLinkerArgs) only: the model's text is not read.
  static CompilePolicy forBuild(std::string ModelPath,
                                std::string DecisionsPath) {
    CompilePolicy P;
    P.Kind = ModelPath.empty() ? PolicyKind::Embedded : PolicyKind::Model;
    P.ModelPath = std::move(ModelPath);
    P.DecisionsPath = std::move(DecisionsPath);
    return P;
  }
  /// The model in the file \p Path (its text read now, the path made
  /// absolute). The error names the file.
  static llvm::Expected<CompilePolicy> loadModel(llvm::StringRef Path);

  /// The model's text ("" when there is none).
  const std::string &getModelJSON() const {
    static const std::string None;
    return ModelJSON ? *ModelJSON : None;
  }
  /// Whether the compile loads mlgo's plugin (every kind but Stock).
  bool usesPlugin() const { return Kind != PolicyKind::Stock; }
  /// A stable 128-bit hex key of everything above but ModelPath and
  /// DecisionsPath (for caches).
  std::string getKey() const;

  /// The plugin's options for this policy, each to be passed as one -mllvm
  /// argument: the kind's (-mlgo-default-policy, -mlgo-model=FILE), the
  /// decisions file (DecisionsPath, when set), the flips, the exploration,
  /// the training logs and the eviction, in that order. Fails for a model
  /// held only in memory (no ModelPath) and for Fixed decisions with no
  /// DecisionsPath. The three spellings below are the one place that
  /// builds the plugin's flags.
  llvm::Expected<std::vector<std::string>> getPluginOptions() const;
  /// The arguments that make `clang-19 -cc1` compile under this policy with
  /// the plugin at \p PluginPath: none for Stock; else -load and
  /// -fpass-plugin, and "-mllvm OPTION" for each of getPluginOptions().
  llvm::Expected<std::vector<std::string>>
  getCC1Args(llvm::StringRef PluginPath) const;
  /// The same for the clang driver (a user's build): -fplugin and
  /// -fpass-plugin, then "-mllvm OPTION" each; none for Stock.
  llvm::Expected<std::vector<std::string>>
  getDriverArgs(llvm::StringRef PluginPath) const;
  /// The same for the clang driver's link step, where the LTO backend runs
  /// (the plugin loaded by the linker): "-Wl,-mllvm,OPTION" each; none for
  /// Stock.
  llvm::Expected<std::vector<std::string>> getLinkerArgs() const;
};

} // namespace mlgo

#endif // MLGO_INLINE_COMPILEPOLICY_H
