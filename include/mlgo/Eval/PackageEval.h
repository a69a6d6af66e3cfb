//===- mlgo/Eval/PackageEval.h - Build a package twice, test it -*- C++ -*-===//
//
// The driver of `mlgo eval package`. The package steps (fetching the
// Debian source, configuring and building it with given compilers, listing
// and running its tests) are scripts/eval-package.sh, which runs each
// package's recipe, scripts/packages/PKG.sh (the one the training corpus is
// built with); this driver runs them with timeouts, times each build (wall
// clock, same run), reads the compiler wrappers' RSS logs, finds the
// linked artifacts (ELF executables, shared objects, archives) in each
// build tree and measures their .text, then runs every test against both
// builds:
//
//   WORK/oz/    src/ (the build tree), bin/ (compiler wrappers), rss.log,
//               build.log, tests/<name>.log
//   WORK/model/ the same with the plugin
//   WORK/tuned/ the same with the plugin and a decisions file (when given)
//
// Nothing is silently skipped: a failed build or fetch is an error naming
// the package, the step and its log; a failed test is a TestOutcome.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_PACKAGEEVAL_H
#define MLGO_EVAL_PACKAGEEVAL_H

#include "mlgo/Eval/ModuleCompiler.h"
#include "mlgo/Eval/PackageReport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace mlgo {

struct PackageEvalOptions {
  std::string Package;
  /// scripts/eval-package.sh (the recipes' eval steps).
  std::string RecipeScript;
  /// Where fetched sources are cached.
  std::string SourceCache;
  /// Build trees and logs (WORK above); replaced.
  std::string WorkDir;
  /// The plugin's policy (embedded model or a model file).
  NamedPolicy Model = {"embedded", CompilePolicy::embedded()};
  /// A decisions file (`mlgo tune`): a third build, with the model and the
  /// file, whose column every table gets.
  std::string DecisionsPath;
  std::string PluginPath;
  unsigned Jobs = 1;
  unsigned BuildTimeoutSeconds = 3600;
  unsigned TestTimeoutSeconds = 600;
  bool RunTests = true;
  /// Status lines ("building zlib with -Oz").
  std::function<void(llvm::StringRef)> Log;
};

llvm::Expected<PackageReport> evaluatePackage(const PackageEvalOptions &Opts);

/// Builds Opts.Package once with stock clang-19 -Oz and embedded bitcode
/// (its recipe, as evaluatePackage builds it: WORK/corpus-build/) and
/// extracts its objects as a corpus into \p CorpusDir, for `mlgo tune
/// --package`. Errors name the package, the step and its log.
llvm::Error buildPackageCorpus(const PackageEvalOptions &Opts,
                               llvm::StringRef CorpusDir);

/// The linked artifacts under \p BuildDir (relative paths, sorted): regular
/// files, not symlinks, that are ELF executables, ELF shared objects or
/// archives.
llvm::Expected<std::vector<std::string>>
findLinkedArtifacts(llvm::StringRef BuildDir);

} // namespace mlgo

#endif // MLGO_EVAL_PACKAGEEVAL_H
