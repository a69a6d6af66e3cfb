//===- mlgo/Compile/PreInlineCache.h - Modules before inlining -*- C++ -*-===//
//
// A tune compiles one module hundreds of times, each try changing some
// inlining decisions; yet every try parsed the module's bitcode and ran
// the whole front of clang's pipeline (-Oz: InferFunctionAttrs, the early
// SimplifyCFG/SROA/EarlyCSE, IPSCCP, GlobalOpt, mem2reg, InstCombine, the
// always-inliner...) again, although nothing before the inliner depends on
// the decisions. PreInlineCache keeps, per worker process, each module as
// the inliner gets it, and a later compile of the same module with the
// same arguments starts there.
//
// The saved module is bitcode, written with its use-list order
// (WriteBitcodeToFile(ShouldPreserveUseListOrder)), so that a parse gives
// the module the inliner got, down to the order of every value's uses,
// which passes iterate. A later compile hands clang that bitcode in place
// of the module's file (a buffer named as the file was, so the parsed
// module's identifier is the same) and its pass instrumentation skips
// every optional pass until the inliner's, ModuleInlinerWrapperPass. The
// required passes before it cannot be skipped and run again over the saved
// module; a module is saved only if each of those is one that has nothing
// left to do there:
//   - EntryExitInstrumenterPass (pre-inline): consumes the attributes it
//     acts on, so a second run finds none;
//   - AlwaysInlinerPass: inlines every always-inline call it can and
//     deletes the callees left dead; what it could not inline it cannot on
//     a second run either;
//   - CoroEarlyPass: does nothing in a module that declares no llvm.coro.*
//     intrinsic (a module that does is not saved);
//   - VerifierPass, pass managers and adaptors, RequireAnalysisPass and
//     InvalidateAnalysisPass: change no IR.
// A compile that meets any other required pass before the inliner (a
// sanitizer's or profiler's, say) saves nothing, and its module is
// remembered as not cacheable. Analyses cached before the inliner are not
// carried over; each is computed again from the same IR.
//
// A key is the MD5 of the module's bitcode and of the compile's cc1
// arguments; the decisions, the policy and what the compile returns are no
// part of it. A worker keeps at most CapBytes (512 MB) of saved bitcode and
// evicts the least recently used module beyond it.
//
// MLGO_PRE_INLINE_CACHE=0 in the environment turns the cache off
// (benchmarks and the tests that compare both compiles);
// MLGO_CODEGEN_MEMO_STATS=1 makes each pool worker print its statistics as
// it ends.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_PREINLINECACHE_H
#define MLGO_COMPILE_PREINLINECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace mlgo {

/// What the cache did in this process (reportPreInlineCacheStats()).
struct PreInlineCacheStats {
  /// Compiles that started from a saved module, and those that did not
  /// find one for a module that may be saved.
  uint64_t Hits = 0, Misses = 0;
  /// Modules saved, evicted beyond the cap, and found not cacheable.
  uint64_t Saved = 0, Evicted = 0, NotCacheable = 0;
  /// Compiles of a saved module that never reached the inliner, done again
  /// from the module's file (none expected).
  uint64_t Redone = 0;
};

class PreInlineCache {
public:
  static constexpr uint64_t DefaultCapBytes = uint64_t(512) << 20;

  explicit PreInlineCache(uint64_t CapBytes = DefaultCapBytes)
      : CapBytes(CapBytes) {}

  /// The key of a compile of the module whose bitcode is \p Bitcode with
  /// the cc1 arguments \p CC1Args.
  static std::string makeKey(llvm::StringRef Bitcode,
                             llvm::ArrayRef<std::string> CC1Args);

  /// What a compile does with the cache.
  struct Lookup {
    /// The module as the inliner gets it, as bitcode (a hit), or null.
    std::shared_ptr<const std::string> Module;
    /// Without one: whether the compile is to save its module (false for a
    /// module known not to be cacheable).
    bool Save = false;
  };

  /// Looks \p Key up (a hit makes its module the most recently used).
  Lookup lookup(llvm::StringRef Key);

  /// Saves \p Bitcode under \p Key as the most recently used module, then
  /// evicts the least recently used ones while the bitcode kept exceeds the
  /// cap; a module larger than the cap alone is not kept.
  void insert(llvm::StringRef Key, std::string Bitcode);

  /// Remembers that \p Key's module cannot be saved: lookup() says not to.
  void markNotCacheable(llvm::StringRef Key);

  /// Counts a compile of a saved module done again (PreInlineCacheStats).
  void countRedone();

  /// Bytes of saved bitcode kept, and modules kept.
  uint64_t bytes() const { return Bytes; }
  size_t size() const { return Order.size(); }
  const PreInlineCacheStats &getStats() const { return Stats; }

private:
  struct Entry {
    std::string Key;
    std::shared_ptr<const std::string> Module;
  };
  /// Compiles on several threads of a process share the cache.
  std::mutex Mutex;
  uint64_t CapBytes;
  uint64_t Bytes = 0;
  /// Most recently used first.
  std::list<Entry> Order;
  llvm::StringMap<std::list<Entry>::iterator> Index;
  llvm::StringMap<bool> NotCacheable;
  PreInlineCacheStats Stats;
};

/// A compile that may save its module: filled in as the pipeline reaches
/// the inliner.
struct PreInlineSnapshot {
  /// Whether the pipeline reached the inliner.
  bool Reached = false;
  /// Whether the module may be saved; if not, Refusal says why.
  bool Cacheable = true;
  std::string Refusal;
  /// The module as the inliner got it (when Reached and Cacheable).
  std::string Bitcode;

  /// For the instrumentation: the optional pass last asked about.
  std::string AskedOptional;
};

/// Registers with \p PB's instrumentation the snapshot of the module as
/// the inliner gets it into \p S (which must outlive the compile).
void saveBeforeInliner(llvm::PassBuilder &PB, PreInlineSnapshot &S);

/// Registers with \p PB's instrumentation that every optional pass before
/// the inliner is skipped (a compile of a saved module); sets \p Reached
/// when the inliner is (which must outlive the compile).
void skipBeforeInliner(llvm::PassBuilder &PB, bool &Reached);

/// Whether compiles in this process use the cache (MLGO_PRE_INLINE_CACHE
/// is not "0").
bool isPreInlineCacheEnabled();

/// The cache of this process (each worker of a pool has its own).
PreInlineCache &getProcessPreInlineCache();

/// Prints getProcessPreInlineCache()'s statistics on stderr when
/// MLGO_CODEGEN_MEMO_STATS is set (a worker of the pool, as it ends).
void reportPreInlineCacheStats();

} // namespace mlgo

#endif // MLGO_COMPILE_PREINLINECACHE_H
