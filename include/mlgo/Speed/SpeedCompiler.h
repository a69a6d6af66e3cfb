//===- mlgo/Speed/SpeedCompiler.h - Cached speed compiles -------*- C++ -*-===//
//
// The compile engine of `mlgo tune --objective speed` and of `mlgo tune
// check` for a speed file: one corpus module compiled under a
// CompilePolicy (mlgo/Inline/CompilePolicy.h, the one place that spells
// the plugin's flags) as a task (mlgo/Speed/SpeedCompile.h, on this
// machine's threads or the worker ranks), its object's profile-weighted
// cost read off the address map (mlgo/Speed/ExecutionCost.h), and the
// inliner's and the eviction model's decisions read off their training
// logs. What the caller judges is a CompiledModule.
//
// A policy is one of three: stock clang-19 (no plugin); mlgo's advisor
// with LLVM's heuristic and the policy's inlining entries (Fixed), with
// LLVM's eviction; or the same with the eviction model (EvictModel) and
// Fixed's eviction entries. The plugin's compiles record their decisions
// (the logs change none).
//
// The cache (SpeedCache, WORK/speed/): every compile's result is kept
// under the MD5 of what it depends on, so a rerun after kill -9 reads what
// was done. The key hashes the module's content hash, the run's salt (the
// profile's bytes, mlgo's build identity and the compiler's version) and
// the compile's own text:
//
//   stock:  "llvm\n"
//   plugin: "sites\n" <printSites> ( "evict llvm\n"
//                                  | "evict model\n" <printEvictions>
//                                  | "evict model " <hex> ")\n"
//                                    <printEvictions> )
//
// (the last for a model file: <hex> the MD5 in its getEvictionModelMeta;
// the embedded model's keys predate the option). Under DIR/<2 hex>/<key>:
//
//   <key>.cost        "<instructions> <cycles>\n", then per function with
//                     a cost "<instructions> <name>\n" (decimal, one
//                     digit after the point); written last: its presence
//                     says the compile is done
//   <key>.o           the object
//   <key>.ilog        the inliner's training log, <key>.ilog.sites its
//                     sites (plugin compiles)
//   <key>.log         the eviction model's training log (model compiles)
//
// every file written atomically (a temporary of this process, renamed).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_SPEEDCOMPILER_H
#define MLGO_SPEED_SPEEDCOMPILER_H

#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Speed/SpeedCompile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlgo {

class TaskBatcher;

/// One eviction decision of a trajectory, as the training log recorded it.
struct EvictionStep {
  std::string Function;
  /// The decision's place among its function's decisions.
  uint32_t Ordinal = 0;
  /// The hash of its features (mlgo/RegAllocModel/EvictionFeatures.h).
  uint64_t Hash = 0;
  /// The answer, and the candidates it was chosen among.
  int64_t Choice = 0;
  int64_t Mask[EvictionColumns] = {};
};

class LogReader;

/// Walks the decisions of an eviction training log (the plugin's
/// development mode; its last tensor is the answer), in order: for each,
/// \p Step gets its function, its place among the function's decisions
/// and the hash of every tensor but the answer, with \p R on the decision's
/// record (getFeatureData). Stops at \p Step's first error or \p R's.
llvm::Error
walkEvictionLog(LogReader &R,
                llvm::function_ref<llvm::Error(llvm::StringRef Function,
                                               uint32_t Ordinal, uint64_t Hash)>
                    Step);

/// Whether entry \p E fixed a decision of \p Trajectory: one of its
/// function and ordinal, with its features and its answer. An entry that
/// fixed none is stale.
bool isApplied(const EvictDecision &E, llvm::ArrayRef<EvictionStep> Trajectory);

namespace speed {

class BlockCoster;
struct ObjectCost;

/// What one speed compile gave.
struct CompiledModule {
  /// Profile-weighted instructions and cycles of the module's object.
  double Instructions = 0, Cycles = 0;
  /// Per function with a cost: profile-weighted instructions.
  std::map<std::string, double> FunctionCost;
  /// The model's eviction decisions (empty for LLVM's eviction).
  std::vector<EvictionStep> Trajectory;
  /// The inliner's policy decisions, in the order they were taken; empty
  /// for the stock compile.
  std::vector<DecidedSite> Sites;
  /// The object, in the cache.
  std::string Object;
  /// The eviction training log the trajectory was read from, in the cache
  /// (empty for LLVM's eviction).
  std::string EvictLog;
};

/// What the compiles of one run share: where they are kept and what their
/// keys hold besides a module and its entries.
struct SpeedCache {
  /// The cache's directory (WORK/speed).
  std::string Dir;
  /// getEvictionModelMeta of the eviction model: the `model` of the
  /// decisions files the compiles read.
  std::string ModelMeta;
  /// Whether the eviction model is a file (its MD5 joins the keys) rather
  /// than the embedded one.
  bool ModelFile = false;
  /// What every key holds besides the module and the entries
  /// (getSpeedKeySalt; empty for a cache nothing reads back).
  std::string KeySalt;
};

/// The salt of a run's keys: the MD5 (hex) of the bytes of the profile
/// \p Profile, then \p Identity (mlgo's build identity, the compiler's
/// version), so that a rerun with another profile, mlgo or clang reads no
/// old result.
llvm::Expected<std::string> getSpeedKeySalt(llvm::StringRef Profile,
                                            llvm::StringRef Identity);

/// The cost file of \p C (the format above).
std::string formatCostFile(const ObjectCost &C);
/// Reads cost file \p Text (of file \p Path, for the error) into \p Out's
/// totals and FunctionCost.
llvm::Error parseCostFile(llvm::StringRef Text, llvm::StringRef Path,
                          CompiledModule &Out);

/// The compiles of one corpus module, cached.
class ModuleSpeedCompiler {
public:
  /// Corpus module \p Name, whose getModuleContentHash is \p ContentHash
  /// and whose source file name, as the plugin resolves it in these
  /// compiles, is \p LookupKey (the module of the decisions files they
  /// read). The compiles are tasks of \p Setup, asked through \p Batcher.
  ModuleSpeedCompiler(const SpeedCompileSetup &Setup, const SpeedCache &Cache,
                      TaskBatcher &Batcher, std::string Name,
                      std::string ContentHash, std::string LookupKey);
  ~ModuleSpeedCompiler();

  /// The module compiled under \p P (stock; or the plugin with P.Fixed's
  /// entries and, with P.EvictModel, the eviction model), or read back
  /// from the cache. Errors name the module.
  llvm::Expected<CompiledModule> compile(const CompilePolicy &P);

  /// The cache key (hex MD5) of the compile under \p P.
  std::string getKey(const CompilePolicy &P) const;

  /// Whether entries that fix no decision are expected (tune check, a
  /// search's later passes) rather than an error.
  bool AllowStale = false;

private:
  llvm::Error run(const CompilePolicy &P, llvm::StringRef Dir,
                  llvm::StringRef Base);
  llvm::Expected<CompiledModule> load(llvm::StringRef Base, bool WithSites,
                                      bool WithLog) const;

  const SpeedCompileSetup &Setup;
  const SpeedCache &Cache;
  TaskBatcher &Batcher;
  std::string Name, ContentHash, LookupKey;
  /// The instruction costs of the target, made at the first compile.
  std::unique_ptr<BlockCoster> Coster;
};

} // namespace speed
} // namespace mlgo

#endif // MLGO_SPEED_SPEEDCOMPILER_H
