//===- unittests/Speed/SpeedCompilerTest.cpp - The speed compile cache ----===//
//
// The cache of mlgo/Speed/SpeedCompiler.h without a compiler: its cost
// files, its keys (the texts its header documents, hashed), a compile read
// back from files planted under its key, and the errors of a cache entry
// that is malformed or of a module that is not in the corpus.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/SpeedCompiler.h"

#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <memory>
#include <optional>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;

namespace {

std::string md5(StringRef Text) {
  return toHex(MD5::hash(arrayRefFromStringRef(Text)), /*LowerCase=*/true);
}

class SpeedCompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    SmallString<128> D;
    ASSERT_FALSE(sys::fs::createUniqueDirectory("mlgo-speed-cache-test", D));
    Root = std::string(D);
    Cache.Dir = Root + "/speed";
    Cache.ModelMeta = "embedded";
    Cache.KeySalt = "salt";
  }
  void TearDown() override { sys::fs::remove_directories(Root); }

  ModuleSpeedCompiler makeCompiler() {
    return ModuleSpeedCompiler(Setup, Cache, Batcher, "m.o", "content",
                               "/src/m.c");
  }
  /// The plugin with \p Entries and, if \p Model, the eviction model.
  static CompilePolicy plugin(const ModuleDecisions &Entries, bool Model) {
    CompilePolicy P = CompilePolicy::heuristic();
    P.Fixed = std::make_shared<const ModuleDecisions>(Entries);
    if (Model)
      P.EvictModel = "";
    return P;
  }
  /// Plants \p Files (extension, bytes) under \p Key.
  void plant(StringRef Key,
             std::vector<std::pair<std::string, std::string>> Files) {
    std::string Dir = Cache.Dir + "/" + Key.substr(0, 2).str();
    ASSERT_FALSE(sys::fs::create_directories(Dir));
    for (auto &[Ext, Bytes] : Files)
      ASSERT_FALSE(
          errorToBool(writeFileAtomically(Dir + "/" + Key.str() + Ext, Bytes)));
  }

  std::string Root;
  SpeedCompileSetup Setup;
  SpeedCache Cache;
  TaskBatcher Batcher{1};
};

TEST(SpeedCostFileTest, WritesTheTotalsThenEachFunctionWithACost) {
  ObjectCost C;
  C.Instructions = 1234;
  C.Cycles = 2000.5;
  for (auto [Name, Instructions] :
       {std::pair<const char *, double>{"main", 1000},
        {"cold", 0},
        {"f", 234}}) {
    FunctionCost &F = C.Functions.emplace_back();
    F.Name = Name;
    F.Instructions = Instructions;
  }
  std::string Text = formatCostFile(C);
  EXPECT_EQ(Text, "1234.0 2000.5\n1000.0 main\n234.0 f\n");
  CompiledModule M;
  ASSERT_FALSE(errorToBool(parseCostFile(Text, "k.cost", M)));
  EXPECT_EQ(M.Instructions, 1234);
  EXPECT_EQ(M.Cycles, 2000.5);
  EXPECT_EQ(M.FunctionCost,
            (std::map<std::string, double>{{"f", 234}, {"main", 1000}}));
}

TEST(SpeedCostFileTest, AMalformedFileIsAnErrorNamingIt) {
  for (const char *Text : {"", "12 x\n", "12 3\nmain\n"}) {
    CompiledModule M;
    EXPECT_EQ(toString(parseCostFile(Text, "/w/speed/ab/abc.cost", M)),
              "/w/speed/ab/abc.cost: malformed")
        << Text;
  }
}

TEST_F(SpeedCompilerTest, KeysHashTheModuleTheSaltAndTheCompilesText) {
  ModuleSpeedCompiler C = makeCompiler();
  ModuleDecisions D;
  D.Sites.push_back({"main", "f", 0, true});
  D.Evictions.push_back({"f", 3, 77, 2});
  std::string Sites = D.printSites(), Evictions = D.printEvictions();
  EXPECT_EQ(C.getKey(CompilePolicy::stock()), md5("contentsaltllvm\n"));
  EXPECT_EQ(C.getKey(plugin(D, /*Model=*/false)),
            md5("contentsaltsites\n" + Sites + "evict llvm\n"));
  EXPECT_EQ(C.getKey(plugin(D, /*Model=*/true)),
            md5("contentsaltsites\n" + Sites + "evict model\n" + Evictions));
  // A model file's MD5 joins the keys of its compiles only.
  Cache.ModelMeta = "file evict.json (md5 0123abcd)";
  Cache.ModelFile = true;
  EXPECT_EQ(C.getKey(plugin(D, /*Model=*/true)),
            md5("contentsaltsites\n" + Sites + "evict model 0123abcd)\n" +
                Evictions));
  EXPECT_EQ(C.getKey(plugin(D, /*Model=*/false)),
            md5("contentsaltsites\n" + Sites + "evict llvm\n"));
  // Another salt (profile, mlgo or clang), another key.
  std::string Before = C.getKey(CompilePolicy::stock());
  Cache.KeySalt = "other";
  EXPECT_NE(C.getKey(CompilePolicy::stock()), Before);
}

TEST_F(SpeedCompilerTest, SaltIsTheProfilesMD5ThenTheIdentity) {
  std::string Profile = Root + "/p.profdata";
  ASSERT_FALSE(errorToBool(writeFileAtomically(Profile, "counts")));
  Expected<std::string> S = getSpeedKeySalt(Profile, "mlgo 1\nclang 19");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(*S, md5("counts") + "\nmlgo 1\nclang 19");
  Expected<std::string> Missing = getSpeedKeySalt(Root + "/none.profdata", "x");
  ASSERT_FALSE(bool(Missing));
  EXPECT_NE(toString(Missing.takeError()).find(Root + "/none.profdata"),
            std::string::npos);
}

TEST_F(SpeedCompilerTest, ACachedCompileIsReadBackWithoutACompiler) {
  // No corpus at all: a compile that ran would fail.
  ModuleSpeedCompiler C = makeCompiler();
  std::string Key = C.getKey(CompilePolicy::stock());
  plant(Key, {{".cost", "30.0 45.5\n20.0 main\n10.0 f\n"}, {".o", "obj"}});
  Expected<CompiledModule> M = C.compile(CompilePolicy::stock());
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->Instructions, 30);
  EXPECT_EQ(M->Cycles, 45.5);
  EXPECT_EQ(M->FunctionCost,
            (std::map<std::string, double>{{"f", 10}, {"main", 20}}));
  EXPECT_EQ(M->Object, Cache.Dir + "/" + Key.substr(0, 2) + "/" + Key + ".o");
  EXPECT_TRUE(M->Sites.empty());
  EXPECT_TRUE(M->Trajectory.empty());
}

TEST_F(SpeedCompilerTest, APluginCompileReadsItsLogsBack) {
  // A plugin compile's entry without its inliner's log is an error naming
  // the log: the cost file alone does not make a plugin compile's result.
  ModuleSpeedCompiler C = makeCompiler();
  CompilePolicy P = plugin(ModuleDecisions(), /*Model=*/false);
  std::string Key = C.getKey(P);
  plant(Key, {{".cost", "1.0 1.0\n"}, {".o", "obj"}});
  Expected<CompiledModule> M = C.compile(P);
  ASSERT_FALSE(bool(M));
  EXPECT_NE(toString(M.takeError()).find(Key + ".ilog.sites"),
            std::string::npos);
}

TEST_F(SpeedCompilerTest, ACompileOfAModuleOutsideTheCorpusIsAnError) {
  ModuleSpeedCompiler C = makeCompiler();
  std::optional<Expected<CompiledModule>> M;
  Batcher.runUnits(
      1, [&](size_t) { M.emplace(C.compile(CompilePolicy::stock())); });
  ASSERT_FALSE(bool(*M));
  EXPECT_EQ(toString(M->takeError()),
            "module 'm.o' is not in the corpus at ''");
  // Nothing was kept.
  std::string Key = C.getKey(CompilePolicy::stock());
  EXPECT_FALSE(sys::fs::exists(Cache.Dir + "/" + Key.substr(0, 2) + "/" + Key +
                               ".cost"));
}

} // namespace
