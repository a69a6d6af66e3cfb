//===- unittests/Compile/PreInlineCacheTest.cpp - Modules before inlining -===//
//
// The cache's key and its cap, and a worker's compiles through it: a
// compile that starts from the saved module gives what the compile that
// saved it gave, to the byte, whatever decisions were taken in between.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/PreInlineCache.h"

#include "TestModule.h"

#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

TEST(PreInlineCacheTest, KeyCoversTheBitcodeAndEveryArgument) {
  std::string K = PreInlineCache::makeKey("BC\xC0\xDE", {"-Oz", "-triple"});
  EXPECT_EQ(K.size(), 32u); // MD5 in hex
  EXPECT_EQ(K, PreInlineCache::makeKey("BC\xC0\xDE", {"-Oz", "-triple"}));
  EXPECT_NE(K, PreInlineCache::makeKey("BC\xC0\xDF", {"-Oz", "-triple"}));
  EXPECT_NE(K, PreInlineCache::makeKey("BC\xC0\xDE", {"-Os", "-triple"}));
  EXPECT_NE(K, PreInlineCache::makeKey("BC\xC0\xDE", {"-Oz"}));
  EXPECT_NE(K, PreInlineCache::makeKey("BC\xC0\xDE", {"-triple", "-Oz"}));
  // Arguments are not simply joined.
  EXPECT_NE(PreInlineCache::makeKey("", {"ab", "c"}),
            PreInlineCache::makeKey("", {"a", "bc"}));
  EXPECT_NE(PreInlineCache::makeKey("", {"a", ""}),
            PreInlineCache::makeKey("", {"a"}));
}

TEST(PreInlineCacheTest, AMissThenAHit) {
  PreInlineCache C;
  PreInlineCache::Lookup L = C.lookup("k");
  EXPECT_FALSE(L.Module);
  EXPECT_TRUE(L.Save);
  C.insert("k", "module");
  L = C.lookup("k");
  ASSERT_TRUE(L.Module);
  EXPECT_EQ(*L.Module, "module");
  EXPECT_FALSE(L.Save);
  EXPECT_EQ(C.getStats().Hits, 1u);
  EXPECT_EQ(C.getStats().Misses, 1u);
  EXPECT_EQ(C.getStats().Saved, 1u);
  EXPECT_EQ(C.bytes(), 6u);
}

TEST(PreInlineCacheTest, EvictsTheLeastRecentlyUsedBeyondTheCap) {
  PreInlineCache C(/*CapBytes=*/10);
  C.insert("a", "aaaa");
  C.insert("b", "bbbb");
  // a is now the more recently used.
  ASSERT_TRUE(C.lookup("a").Module);
  std::shared_ptr<const std::string> B = C.lookup("b").Module;
  ASSERT_TRUE(B);
  ASSERT_TRUE(C.lookup("a").Module);
  C.insert("c", "cccc");
  EXPECT_EQ(C.size(), 2u);
  EXPECT_EQ(C.bytes(), 8u);
  EXPECT_EQ(C.getStats().Evicted, 1u);
  EXPECT_TRUE(C.lookup("a").Module);
  EXPECT_TRUE(C.lookup("c").Module);
  PreInlineCache::Lookup L = C.lookup("b");
  EXPECT_FALSE(L.Module);
  EXPECT_TRUE(L.Save);
  // A compile holding an evicted module keeps it until it is done.
  EXPECT_EQ(*B, "bbbb");
  // Exactly at the cap is within it.
  C.insert("d", "dd");
  EXPECT_EQ(C.bytes(), 10u);
  EXPECT_EQ(C.size(), 3u);
}

TEST(PreInlineCacheTest, AModuleLargerThanTheCapIsNotKept) {
  PreInlineCache C(/*CapBytes=*/10);
  C.insert("a", "aaaa");
  C.insert("big", std::string(11, 'x'));
  EXPECT_EQ(C.size(), 1u);
  EXPECT_EQ(C.bytes(), 4u);
  EXPECT_EQ(C.getStats().Evicted, 0u);
  EXPECT_TRUE(C.lookup("a").Module);
  EXPECT_TRUE(C.lookup("big").Save);
}

TEST(PreInlineCacheTest, AModuleNotCacheableIsNotSavedAgain) {
  PreInlineCache C;
  C.markNotCacheable("k");
  C.markNotCacheable("k");
  PreInlineCache::Lookup L = C.lookup("k");
  EXPECT_FALSE(L.Module);
  EXPECT_FALSE(L.Save);
  EXPECT_EQ(C.getStats().NotCacheable, 1u);
  EXPECT_EQ(C.getStats().Misses, 0u);
}

bool sameResult(const CompileResult &A, const CompileResult &B) {
  return A.TextSize == B.TextSize && A.Grouped == B.Grouped &&
         A.NumDecisions == B.NumDecisions && A.Log == B.Log;
}

// The process's cache is on (MLGO_PRE_INLINE_CACHE is not set in tests).
TEST(PreInlineCacheTest, ACompileFromTheSavedModuleIsTheSavingOnes) {
  ASSERT_TRUE(isPreInlineCacheEnabled());
  unittest::TempDir Dir("mlgo-pre-inline", /*Unique=*/true);
  std::string Bitcode = Dir.path("stats.bc").str().str();
  ASSERT_EQ(test::buildStatsBitcode(Bitcode), 0);
  CompileJob Job = test::makeJob("p/stats.o", Bitcode,
                                 CompilePolicy::heuristic(), /*WantLog=*/true);
  const PreInlineCacheStats &S = getProcessPreInlineCache().getStats();
  uint64_t Hits = S.Hits, Saved = S.Saved;

  Expected<CompileResult> First = compileModule(Job);
  ASSERT_TRUE(bool(First)) << toString(First.takeError());
  EXPECT_EQ(S.Saved, Saved + 1);
  ASSERT_GT(First->NumDecisions, 1u);

  // Other decisions, from the saved module.
  CompileJob Flipped = Job;
  Flipped.ThePolicy.Flips = {0};
  Expected<CompileResult> Other = compileModule(Flipped);
  ASSERT_TRUE(bool(Other)) << toString(Other.takeError());
  EXPECT_NE(Other->Log, First->Log);

  Expected<CompileResult> Again = compileModule(Job);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(S.Hits, Hits + 2);
  EXPECT_EQ(S.Redone, 0u);
  EXPECT_TRUE(sameResult(*First, *Again));
}

} // namespace
