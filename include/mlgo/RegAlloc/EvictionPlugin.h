//===- mlgo/RegAlloc/EvictionPlugin.h - Eviction inside the compiler -*- C++
//-*-===//
//
// The plugin's register-allocation half: stock LLVM 19's greedy allocator
// asks mlgo's eviction model which live range to evict, inside the compiler
// process, through nothing but LLVM's public interfaces.
//
// How (docs/regalloc.md, "Deployment"): LLVM 19 ships the ML eviction
// advisor in release mode with an interactive channel
// (-regalloc-enable-advisor=release
// -regalloc-evict-interactive-channel-base=B), but no compiled-in model.
// Opt-in: with -mlgo-evict (or -mlgo-evict-model=FILE) the model decides;
// without, the plugin leaves eviction to LLVM (the shipped model does not
// yet beat LLVM's advisor on the static score; docs/regalloc.md).
// When the plugin is loaded (llc-19 -load, clang-19 -fpass-plugin or
// -fplugin, mlgo-clang), installEvictionHook() replaces the constructor
// that the legacy pass registry keeps for the "regalloc-evict" analysis
// (PassInfo::setNormalCtor). When code generation builds its pipeline, the
// new constructor
//
//   1. creates two pipes and a private directory with B.in and B.out:
//      symbolic links to /proc/self/fd/N of this process's pipe ends, so
//      LLVM's runner opens them without blocking and without FIFOs;
//   2. starts a thread that serves the channel with the eviction model
//      (mlgo/Protocol/Host.h's serveStream, the same code as `mlgo serve`),
//      so the decisions equal `mlgo serve --policy model=FILE`'s;
//   3. selects the release advisor with channel B, then calls LLVM's own
//      constructor.
//
// Guarantees:
//  * The answer is always a column LLVM allows: the model's decision is a
//    masked argmax over LLVM's "mask" feature (Model.h), checked when the
//    model is loaded; NaN features go through the model's nan_to steps.
//  * A model that cannot serve eviction (missing features, not per-column,
//    unreadable) is a fatal error when code generation starts: "mlgo: ..."
//    on stderr, exit status 1, the output file removed, no crash banner.
//  * A failure of the serving thread (a malformed stream) prints "mlgo:
//    error: ..." and ends the process with status 1 after removing the
//    files LLVM registered for removal: never a hang, never a silently
//    different policy.
//  * Parallel code generation: the model answers code generation that runs
//    on the process's main thread (llc, clang -cc1, a linker's serial LTO
//    code generation). Pipelines built on other threads (ThinLTO backends or
//    LTO partitions in a linker's thread pool) get LLVM's default eviction
//    advisor, because LLVM reads the channel name from one global option
//    and two sessions would share it. The choice depends only on where code
//    generation runs, never on timing, so the output stays deterministic.
//  * Size-optimized code keeps LLVM's eviction: the model is trained for
//    speed (the static regalloc score), and -Os/-Oz builds are the
//    inliner's, whose sizes must not move with it. The plugin notes the
//    optimization level when a pipeline starts (noteOptimizationLevel) and
//    the hook, on the same thread, leaves eviction to LLVM after an -Os or
//    -Oz pipeline. llc runs no such pipeline: its code is for speed.
//  * Eviction entries of a decisions file for speed (-mlgo-decisions,
//    docs/decisions.md): a module that has some is allocated with the
//    model (the embedded one, as `mlgo tune --objective speed` tuned it)
//    and the entries on top, even without -mlgo-evict; an entry answers
//    the decision with its function, ordinal and feature hash, and one
//    whose decision is not there (stale) is never applied to another. The
//    module is found by the source its optimization pipeline noted
//    (NoteModuleSourcePass), so llc, which runs none, applies no entries.
//  * The user's own choice wins: with -regalloc-enable-advisor or
//    -regalloc-evict-interactive-channel-base on the command line (e.g.
//    under `mlgo serve`), or -mlgo-evict-use-llvm-advisor, or without
//    -mlgo-evict, the plugin leaves eviction alone.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOC_EVICTIONPLUGIN_H
#define MLGO_REGALLOC_EVICTIONPLUGIN_H

#include "mlgo/Protocol/ServePolicy.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace mlgo {

/// A policy answering eviction observations with the model in \p Path
/// (interpreted), or with the model compiled into the plugin when \p Path
/// is empty. Fails if the model cannot serve LLVM 19's eviction features:
/// it must be a per-column model over 33 columns whose mask is LLVM's
/// "mask".
llvm::Expected<std::unique_ptr<ServePolicy>>
createEvictionPolicy(llvm::StringRef Path);

/// Why the -mlgo-evict-* options cannot serve eviction (the model does not
/// load or does not fit LLVM's features), if they cannot; computed once.
/// The plugin calls it at the start of every optimization pipeline (clang,
/// opt) and reports the error as an error of the compilation, which then
/// fails without a crash banner; code generation afterwards keeps LLVM's
/// default advisor. Where no pipeline runs first (llc), the hook reports it
/// as a fatal error.
llvm::Error checkEvictionOptions();

/// Records that the optimization pipeline starting on this thread optimizes
/// for size (-Os, -Oz) or not; code generation that follows on this thread
/// uses the eviction model only if not.
void noteOptimizationLevel(bool OptimizesForSize);

/// Notes the source of the module whose optimization pipeline runs on this
/// thread, so that the code generation that follows finds the module's
/// eviction entries in the decisions file (-mlgo-decisions, a file for
/// speed; docs/decisions.md). Added at the start of every pipeline.
struct NoteModuleSourcePass : llvm::PassInfoMixin<NoteModuleSourcePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Notes whether the module leaving the optimization pipeline on this
/// thread carries a profile (its profile summary, from -fprofile-use), so
/// that a stale report of a file for speed says why when it has none.
/// Added at the end of every optimization pipeline.
struct NoteModuleProfilePass : llvm::PassInfoMixin<NoteModuleProfilePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Installs the hook described above. Called once, when the plugin is
/// loaded; a second call does nothing.
void installEvictionHook();

} // namespace mlgo

#endif // MLGO_REGALLOC_EVICTIONPLUGIN_H
