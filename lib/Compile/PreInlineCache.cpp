//===- lib/Compile/PreInlineCache.cpp - Modules before inlining -----------===//
//
// See mlgo/Compile/PreInlineCache.h. The instrumentation tells a required
// pass from an optional one by the callbacks it gets: the pass
// instrumentation asks the should-run callbacks about optional passes only,
// then calls the before-pass callbacks of every pass that runs.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/PreInlineCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>

using namespace llvm;

namespace mlgo {

namespace {

/// The pass whose run is the inliner's (and the mandatory inlines').
constexpr StringLiteral InlinerPass = "ModuleInlinerWrapperPass";

/// Whether the required pass \p Name, run again over a module saved after
/// it ran, leaves it as it is (PreInlineCache.h says why each does).
bool isRerunNil(StringRef Name) {
  return Name == "EntryExitInstrumenterPass" || Name == "AlwaysInlinerPass" ||
         Name == "CoroEarlyPass" || Name == "VerifierPass" ||
         Name.starts_with("PassManager<") || Name.ends_with("PassAdaptor") ||
         Name.starts_with("RequireAnalysisPass<") ||
         Name.starts_with("InvalidateAnalysisPass<");
}

const Module *getModule(const Any &IR) {
  if (const auto *M = llvm::any_cast<const Module *>(&IR))
    return *M;
  return nullptr;
}

/// Why the module \p M as the inliner gets it cannot be saved, or "".
std::string whyNotSaved(const Module &M) {
  for (const Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("llvm.coro."))
      return "it declares " + F.getName().str();
  return "";
}

} // namespace

std::string PreInlineCache::makeKey(StringRef Bitcode,
                                    ArrayRef<std::string> CC1Args) {
  MD5 Hash;
  Hash.update(MD5::hash(arrayRefFromStringRef(Bitcode)));
  for (const std::string &A : CC1Args) {
    // Each argument with its length, so that no two lists hash alike.
    Hash.update(utostr(A.size()));
    Hash.update(":");
    Hash.update(A);
  }
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

PreInlineCache::Lookup PreInlineCache::lookup(StringRef Key) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Lookup L;
  auto It = Index.find(Key);
  if (It != Index.end()) {
    ++Stats.Hits;
    Order.splice(Order.begin(), Order, It->second);
    L.Module = It->second->Module;
    return L;
  }
  if (NotCacheable.count(Key))
    return L;
  ++Stats.Misses;
  L.Save = true;
  return L;
}

void PreInlineCache::insert(StringRef Key, std::string Bitcode) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Bitcode.size() > CapBytes || Index.count(Key))
    return;
  Bytes += Bitcode.size();
  Order.push_front(
      {Key.str(), std::make_shared<const std::string>(std::move(Bitcode))});
  Index[Key] = Order.begin();
  ++Stats.Saved;
  while (Bytes > CapBytes) {
    Entry &Last = Order.back();
    Bytes -= Last.Module->size();
    Index.erase(Last.Key);
    Order.pop_back();
    ++Stats.Evicted;
  }
}

void PreInlineCache::markNotCacheable(StringRef Key) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (NotCacheable.try_emplace(Key, true).second)
    ++Stats.NotCacheable;
}

void PreInlineCache::countRedone() {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Stats.Redone;
}

void saveBeforeInliner(PassBuilder &PB, PreInlineSnapshot &S) {
  PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks();
  assert(PIC && "clang builds its pipeline with pass instrumentation");
  PIC->registerShouldRunOptionalPassCallback([&S](StringRef Name, Any) {
    S.AskedOptional = Name.str();
    return true;
  });
  PIC->registerBeforeSkippedPassCallback(
      [&S](StringRef, Any) { S.AskedOptional.clear(); });
  PIC->registerBeforeNonSkippedPassCallback([&S](StringRef Name, Any IR) {
    if (S.Reached)
      return;
    bool Required = S.AskedOptional != Name;
    S.AskedOptional.clear();
    if (Name != InlinerPass) {
      if (Required && S.Cacheable && !isRerunNil(Name)) {
        S.Cacheable = false;
        S.Refusal =
            ("the required pass " + Name + " runs before the inliner").str();
      }
      return;
    }
    S.Reached = true;
    const Module *M = getModule(IR);
    if (!M) {
      S.Cacheable = false;
      S.Refusal = "the inliner does not run on a module";
      return;
    }
    if (!S.Cacheable)
      return;
    S.Refusal = whyNotSaved(*M);
    if (!S.Refusal.empty()) {
      S.Cacheable = false;
      return;
    }
    raw_string_ostream OS(S.Bitcode);
    WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/true);
  });
}

void skipBeforeInliner(PassBuilder &PB, bool &Reached) {
  PassInstrumentationCallbacks *PIC = PB.getPassInstrumentationCallbacks();
  assert(PIC && "clang builds its pipeline with pass instrumentation");
  PIC->registerShouldRunOptionalPassCallback([&Reached](StringRef Name, Any) {
    if (!Reached && Name == InlinerPass)
      Reached = true;
    return Reached;
  });
}

bool isPreInlineCacheEnabled() {
  static const bool Enabled = [] {
    const char *V = std::getenv("MLGO_PRE_INLINE_CACHE");
    return !V || StringRef(V) != "0";
  }();
  return Enabled;
}

PreInlineCache &getProcessPreInlineCache() {
  static PreInlineCache Cache;
  return Cache;
}

void reportPreInlineCacheStats() {
  const char *V = std::getenv("MLGO_CODEGEN_MEMO_STATS");
  if (!V || !*V || StringRef(V) == "0")
    return;
  PreInlineCache &C = getProcessPreInlineCache();
  const PreInlineCacheStats &S = C.getStats();
  std::fprintf(stderr,
               "mlgo pre-inline cache: %llu hits, %llu misses, %llu saved, "
               "%llu evicted, %llu not cacheable, %llu redone, %.1f MB kept\n",
               (unsigned long long)S.Hits, (unsigned long long)S.Misses,
               (unsigned long long)S.Saved, (unsigned long long)S.Evicted,
               (unsigned long long)S.NotCacheable, (unsigned long long)S.Redone,
               double(C.bytes()) / (1 << 20));
}

} // namespace mlgo
