//===- mlgo/Eval/PackageEval.h - Build a program twice, test it -*- C++ -*-===//
//
// The drivers of `mlgo eval package` (a Debian source package with a recipe)
// and `mlgo eval build` (any source tree: CMake, configure or a Makefile).
// Both build the program with stock clang-19 -Oz, with the plugin, and with
// the plugin and a decisions file when one is given, through compiler
// wrappers that append the flags and log each compiler run's peak RSS. The
// build steps are shell: scripts/eval-package.sh runs each package's
// recipe, scripts/packages/PKG.sh (the one the training corpus is built
// with), and scripts/eval-build.sh runs the same build systems on a source
// tree with no recipe. These drivers run them with timeouts, time each
// build (wall clock, same run), read the wrappers' RSS logs, find the
// linked artifacts (ELF executables, shared objects, archives) in each
// build tree and measure their .text, then run every test against every
// build:
//
//   WORK/oz/    the build tree (src/, or build/ for a CMake source tree
//               built out of it), bin/ (compiler wrappers), rss.log,
//               tests/<name>.log
//   WORK/model/ the same with the plugin
//   WORK/tuned/ the same with the plugin and a decisions file (when given)
//   WORK/nolto/ with LTO (below): stock clang-19 without LTO
//   WORK/build-{oz,model,tuned,nolto}.log   each build's output
//
// With LTO (`--lto thin|full`), every compile and link of the first three
// builds gets -flto=thin or -flto and the link flags (by default the
// size-conscious -ffunction-sections -fdata-sections -fuse-ld=lld
// -Wl,--gc-sections -Wl,--icf=all): WORK/oz/ is then stock clang-19 and
// ld.lld-19 LTO, and the model's and tuned builds link through mlgo's
// ld.lld (lib/mlgo/lld/ld.lld beside the plugin), which loads the plugin
// into lld's LTO backend, with the model file and the decisions file
// passed to the link as well (-Wl,-mllvm,-mlgo-...): the model decides in
// the compile steps and in the link. The fourth build, WORK/nolto/, has
// the same level and link flags without LTO. Archives are not measured
// (under LTO they hold bitcode).
//
// With a profile (`--profile`), both builds apply it
// (mlgo/Speed/Profile.h, speedPackageFlags) and carry the address map, and
// after the tests a benchmark workload (the recipe's bench_workload, or
// `--bench CMD`) runs against each: under callgrind (executed instructions
// of the build's own programs), then paired and alternating for wall-clock
// time; the reward (mlgo/Speed/ExecutionCost.h) of the programs it runs is
// read off the builds. profilePackage and profileSourceTree make such a
// profile: the program built at the same level with -fprofile-generate
// (WORK/profile/), its profile workload run, the raw profiles merged.
//
// With `--bolt` as well, each of the two builds is also optimized by BOLT
// (llvm-bolt-19 in instrumentation mode, which needs no hardware counters)
// from a run of the profile workload, and the four builds (PGO, PGO+BOLT,
// the model's or tuned, the same +BOLT) are timed together on the
// benchmark and run under callgrind: whether the tuned build's gain
// survives BOLT, and BOLT's the tuning.
//
// Nothing is silently skipped: a failed build or fetch is an error naming
// the program, the build and its log; a failed test is a TestOutcome.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_PACKAGEEVAL_H
#define MLGO_EVAL_PACKAGEEVAL_H

#include "mlgo/Eval/BuildSystem.h"
#include "mlgo/Eval/ModuleCompiler.h"
#include "mlgo/Eval/PackageReport.h"
#include "mlgo/Speed/BenchStats.h"
#include "mlgo/Speed/CostKind.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/LtoMode.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace mlgo {

/// The link flags of an LTO evaluation without `--link-flags`: the
/// size-conscious build's.
inline constexpr const char *DefaultLtoLinkFlags =
    "-ffunction-sections -fdata-sections -fuse-ld=lld -Wl,--gc-sections "
    "-Wl,--icf=all";

/// What every evaluation (a package or a source tree) is given.
struct BuildEvalOptions {
  /// Build trees and logs (WORK above); each build's directory is replaced.
  std::string WorkDir;
  /// The plugin's policy (embedded model or a model file).
  NamedPolicy Model = {"embedded", CompilePolicy::embedded()};
  /// A decisions file (`mlgo tune`): a third build, with the model and the
  /// file, whose column every table gets.
  std::string DecisionsPath;
  std::string PluginPath;
  /// The optimization level every build appends (-Oz for inlining for
  /// size; -O2 for the eviction model, which stands aside at size levels).
  std::string OptLevel = "-Oz";
  /// Evaluate the eviction model instead of the inlining one: the second
  /// build loads the plugin with -mlgo-evict and LLVM's own inliner
  /// deciding (-mlgo-use-llvm-advisor); Model names the column only.
  bool Evict = false;
  /// The eviction model file (-mlgo-evict-model); empty: the embedded one.
  std::string EvictModelPath;
  /// An indexed profile (absolute, no white space): both builds apply it,
  /// and the speed of both on the benchmark workload is measured.
  std::string ProfilePath;
  /// profilePackage and profileSourceTree: when set, the block counts of the
  /// profile workload are written here too (mlgo/Speed/BlockCounts.h): the
  /// program built with the new profile and the address map (WORK/counts/),
  /// the workload run again under callgrind (WORK/counts-callgrind-N/).
  std::string CountsPath;
  /// Paired wall-clock runs of the benchmark (with a profile).
  unsigned WallRuns = 5;
  /// With a profile: BOLT as well (measureBolt below). Every build links
  /// with --emit-relocs; each build's benchmark programs are instrumented
  /// by llvm-bolt-19, the profile workload runs them (WORK/<build>-bolt-
  /// instrumented/), the merged .fdata (WORK/bolt/) optimizes them into
  /// WORK/<build>-bolt/; the four builds are then timed together
  /// (mlgo/Speed/TimeBench.h) and run under callgrind.
  bool Bolt = false;
  /// With Bolt, or Cost time: when the timing of the builds stops
  /// (--max-runs).
  speed::StoppingRule TimeStop;
  /// With a profile, what the speed table measures the benchmark by beside
  /// the reward (--cost): executed instructions under callgrind and
  /// WallRuns paired wall-clock runs (instructions); the cycle estimate of
  /// callgrind's cache and branch simulation as well (cycles); or the
  /// instructions and, instead of the wall-clock pairs, both builds timed
  /// by mlgo bench's engine (time: mlgo/Speed/TimeBench.h).
  speed::CostKind Cost = speed::CostKind::Instructions;
  /// Shell commands that replace the profile workload (a package's recipe
  /// has one; a source tree has none but these), each run in the build
  /// tree with $MLGO_BUILD_DIR set: `mlgo profile package|build --run`,
  /// and the workload BOLT's instrumented builds run (`--bolt-run`).
  std::vector<std::string> ProfileCommands;
  /// LTO in every build but a fourth, without it (above).
  LtoMode Lto = LtoMode::None;
  /// Words added to every compile and link of every build (with LTO,
  /// DefaultLtoLinkFlags unless given); none may hold white space or shell
  /// characters.
  std::vector<std::string> LinkFlags;
  /// With LTO: mlgo's ld.lld (plugin/ld.lld.in), which the model's and
  /// tuned builds link with.
  std::string LinkerPath;
  unsigned Jobs = 1;
  unsigned BuildTimeoutSeconds = 3600;
  unsigned TestTimeoutSeconds = 600;
  /// Status lines ("building zlib with -Oz").
  std::function<void(llvm::StringRef)> Log;
};

struct PackageEvalOptions : BuildEvalOptions {
  std::string Package;
  /// scripts/eval-package.sh (the recipes' eval steps).
  std::string RecipeScript;
  /// Where fetched sources are cached.
  std::string SourceCache;
  bool RunTests = true;
};

llvm::Expected<PackageReport> evaluatePackage(const PackageEvalOptions &Opts);

/// Which corpus of a package `mlgo tune --package` tunes.
enum class PackageCorpus {
  /// -Oz, every object.
  Size,
  /// -O2, every compile of a source kept, and only the objects the
  /// recipe's speed_objects names (the programs its benchmark runs are
  /// made of).
  Speed,
  /// -Oz, only the objects the recipe's lto_objects names (those its
  /// lto_link links into the shipped artifact; default every object).
  Lto,
};

/// Builds Opts.Package once with stock clang-19 and embedded bitcode (its
/// recipe, as evaluatePackage builds it: WORK/corpus-build/) and extracts
/// its objects, as \p Kind says, as a corpus into \p CorpusDir, for `mlgo
/// tune --package`. Errors name the package, the step and its log.
llvm::Error buildPackageCorpus(const PackageEvalOptions &Opts,
                               llvm::StringRef CorpusDir,
                               PackageCorpus Kind = PackageCorpus::Size);

/// The recipe's lto_link: the shell command that links the shipped
/// artifact of Opts.Package from $MLGO_OBJECTS into $MLGO_PROGRAM with
/// $MLGO_LTO_FLAGS, for `mlgo tune --package --lto`; "" when the recipe
/// has none.
llvm::Expected<std::string> getPackageLtoLink(const PackageEvalOptions &Opts);

/// Builds Opts.Package at Opts.OptLevel with -fprofile-generate (its
/// recipe, from the same source as evaluatePackage's builds:
/// WORK/profile/), runs its recipe's profile workload (profile_workload,
/// by default every test; or Opts.ProfileCommands; log
/// WORK/profile-workload.log) and writes the
/// merged profile to \p Out (and, with Opts.CountsPath, the workload's
/// block counts). Errors name the package, the step and its log.
llvm::Expected<speed::ProfileInfo>
profilePackage(const PackageEvalOptions &Opts, llvm::StringRef Out);

/// The linked artifacts under \p BuildDir (relative paths, sorted): regular
/// files, not symlinks, that are ELF executables, ELF shared objects or
/// archives.
llvm::Expected<std::vector<std::string>>
findLinkedArtifacts(llvm::StringRef BuildDir);

struct SourceEvalOptions : BuildEvalOptions {
  /// What the report calls the program (the source directory's name).
  std::string Name;
  /// The source tree, absolute. A CMake tree is built out of it, in
  /// WORK/<build>/build; any other is copied to WORK/<build>/src (without
  /// the work directory, when it lies inside) and built in the copy.
  std::string SourceDir;
  BuildSystem System = BuildSystem::CMake;
  /// The build systems SourceDir has (findBuildSystems); System must be
  /// one it has.
  std::vector<FoundBuildSystem> BuildSystems;
  /// Extra arguments to ./configure or to cmake, and to make.
  std::vector<std::string> ConfigureArgs, MakeArgs;
  /// Shell commands, each one test: run with `sh -c` in each build tree,
  /// with $MLGO_BUILD_DIR (the tree) and $MLGO_SOURCE_DIR (the sources it
  /// was built from) set; exit status 0 is a pass.
  std::vector<std::string> TestCommands;
  /// Also run each test the CMake build registers, as a test of its own:
  /// listed by ctest in the -Oz build, each run in every build with
  /// `ctest --output-on-failure -I N,N,1` (N: its number).
  bool Ctest = false;
  /// scripts/eval-build.sh.
  std::string BuildScript;
  /// With a profile: the benchmark, a shell command run like a test in
  /// each build tree; the programs of the build it runs are costed.
  std::string BenchCommand;
};

/// Builds Opts.SourceDir two or three ways and runs its test commands
/// against each build. Errors: a build that fails or times out (naming the
/// build and its log), no linked artifact, or a tree to be copied that
/// holds objects of an earlier in-tree build (they would not be rebuilt).
llvm::Expected<PackageReport> evaluateSourceTree(const SourceEvalOptions &Opts);

/// Builds Opts.SourceDir at Opts.OptLevel with -fprofile-generate
/// (WORK/profile/), runs each of \p RunCommands in the build tree as
/// evaluateSourceTree runs a test (log WORK/profile-workload.log) and
/// writes the merged profile to \p Out.
llvm::Expected<speed::ProfileInfo>
profileSourceTree(const SourceEvalOptions &Opts,
                  llvm::ArrayRef<std::string> RunCommands, llvm::StringRef Out);

/// Builds Opts.SourceDir once with stock clang-19 at Opts.OptLevel and
/// embedded bitcode (`eval-build.sh corpus-build`: WORK/corpus-build/, log
/// WORK/build-corpus.log) and extracts its objects as a corpus into
/// \p CorpusDir, for `mlgo tune build`: a CMake build's through the
/// compile_commands.json it writes (as `mlgo corpus extract
/// --compile-commands`: modules named by their path from the top of the
/// build, one package per target), any other's as the objects in its tree.
/// Returns how many modules it extracted. Errors name the program, the
/// step and its log; no module extracted is one.
llvm::Expected<size_t> buildSourceCorpus(const SourceEvalOptions &Opts,
                                         llvm::StringRef CorpusDir);

} // namespace mlgo

#endif // MLGO_EVAL_PACKAGEEVAL_H
