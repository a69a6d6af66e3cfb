//===- unittests/Compile/TrajectoryCacheTest.cpp
//----------------------------===//
//
// Replay answers a compile only when the compile would give the same
// result: every answer is checked against a real compile of the same job.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/TrajectoryCache.h"

#include "TestModule.h"

#include "llvm/Support/Compression.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

class TrajectoryCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    Bitcode = Dir.path("stats.bc").str().str();
    ASSERT_EQ(test::buildStatsBitcode(Bitcode), 0);
  }

  CompileJob job(CompilePolicy P, bool WantLog = true) {
    return test::makeJob("beta/stats.o", Bitcode, std::move(P), WantLog);
  }

  unittest::TempDir Dir{"mlgo-replay", /*Unique=*/true};
  std::string Bitcode;
  /// A model that takes the heuristic's decision (logit = d - 0.5), so that
  /// what replays does not depend on the shipped model.
  const std::string FollowModel = R"({
    "format": "mlgo-model", "version": 1,
    "metadata": {"name": "follow", "description": "d - 0.5",
                 "llvm_version": "19", "feature_set": "llvm19-inline",
                 "recipe": "hand-written", "corpus_hash": "", "seed": 0},
    "inputs": [{"spec": {"name": "inlining_default", "type": "int64_t",
                         "port": 0, "shape": [1]},
                "preprocess": [[]]}],
    "layers": [{"in": 1, "out": 1, "activation": "linear",
                "weights": [[1]], "bias": [-0.5]}],
    "output": {"spec": {"name": "inlining_decision", "type": "int64_t",
                        "port": 0, "shape": [1]},
               "decision": {"rule": "threshold", "threshold": 0}}})";
};

TEST_F(TrajectoryCacheTest, ReplayEqualsCompiling) {
  WorkerPoolOptions O;
  O.Workers = 1;
  auto Pool = WorkerPool::create(O);
  ASSERT_TRUE(bool(Pool)) << toString(Pool.takeError());

  CompilePolicy Flip0 = CompilePolicy::heuristic(),
                Flip1 = CompilePolicy::heuristic();
  Flip0.Flips = {0};
  Flip1.Flips = {1};
  CompilePolicy Explore = CompilePolicy::model(FollowModel);
  Explore.ExploreSeed = 7;
  Explore.ExploreTemperature = 4.0f;
  std::vector<CompileJob> Jobs = {job(CompilePolicy::heuristic()),
                                  job(CompilePolicy::heuristic()),
                                  job(CompilePolicy::model(FollowModel)),
                                  job(Flip0),
                                  job(Flip1),
                                  job(Explore),
                                  job(Flip0, /*WantLog=*/false),
                                  job(CompilePolicy::stock(), false)};
  std::vector<std::string> Keys(Jobs.size(), "stats");

  TrajectoryCache Cache;
  std::vector<JobOutcome> Replayed = Cache.run(**Pool, Jobs, Keys);
  // The ground truth: every job compiled.
  std::vector<JobOutcome> Compiled = (*Pool)->run(Jobs);
  ASSERT_EQ(Replayed.size(), Jobs.size());
  for (size_t I = 0; I < Jobs.size(); ++I) {
    ASSERT_TRUE(Replayed[I].ok()) << Replayed[I].Error;
    ASSERT_TRUE(Compiled[I].ok()) << Compiled[I].Error;
    EXPECT_EQ(Replayed[I].Result->TextSize, Compiled[I].Result->TextSize) << I;
    EXPECT_EQ(Replayed[I].Result->Grouped, Compiled[I].Result->Grouped) << I;
    EXPECT_EQ(Replayed[I].Result->NumDecisions,
              Compiled[I].Result->NumDecisions)
        << I;
    EXPECT_EQ(Replayed[I].Result->Log, Compiled[I].Result->Log) << I;
  }
  ASSERT_GT(Compiled[0].Result->NumDecisions, 1u);
  // The flips change the module; a log is returned only when asked for.
  EXPECT_NE(Compiled[3].Result->Log, Compiled[0].Result->Log);
  EXPECT_TRUE(Replayed[6].Result->Log.empty());
  EXPECT_TRUE(Replayed[7].Result->Log.empty());

  // With one worker each job is looked up once, when the worker is free:
  // the heuristic compiles (recorded); the second heuristic job and the
  // model that follows the heuristic replay it; flip 0, flip 1 and the
  // exploring model compile; the second flip-0 job replays flip 0. Stock is
  // never looked up. Replayed outcomes report 0 seconds.
  const TrajectoryCache::Stats &S = Cache.getStats();
  EXPECT_EQ(S.Lookups, 7u);
  EXPECT_EQ(S.Hits, 3u);
  EXPECT_EQ(S.Recorded, 4u);
  std::string Replays;
  for (const JobOutcome &O : Replayed)
    Replays += O.Result->Seconds == 0 ? 'r' : 'c';
  EXPECT_EQ(Replays, "crrcccrc");

  // The recorded trajectories are the compiles of jobs 0, 3, 4 and 5. They
  // are kept compactly: features in 32 bits, the log zstd-compressed (and
  // still replayed byte for byte, above).
  uint64_t Raw = 0;
  for (size_t I : {0, 3, 4, 5})
    Raw += Compiled[I].Result->Log.size();
  EXPECT_EQ(S.RawLogBytes, Raw);
  ASSERT_TRUE(compression::zstd::isAvailable());
  EXPECT_LT(S.StoredBytes, Raw * 7 / 10)
      << "stored " << S.StoredBytes << " of " << Raw;
}

TEST_F(TrajectoryCacheTest, TrajectoriesAnswerOnlyTheSameHeuristic) {
  // The follow model with the heuristic at inline threshold 1000: it takes
  // the logged inlining_default at every step of the -Oz heuristic's
  // trajectory, but that was the decision at threshold 5, not 1000.
  std::string Follow1000 = FollowModel;
  Follow1000.replace(Follow1000.find("\"inputs\""), 0,
                     "\"heuristic\": {\"inline_threshold\": 1000}, ");
  WorkerPoolOptions O;
  O.Workers = 1;
  auto Pool = WorkerPool::create(O);
  ASSERT_TRUE(bool(Pool)) << toString(Pool.takeError());
  std::vector<CompileJob> Jobs = {job(CompilePolicy::heuristic()),
                                  job(CompilePolicy::model(Follow1000)),
                                  job(CompilePolicy::model(Follow1000)),
                                  job(CompilePolicy::model(FollowModel))};
  std::vector<std::string> Keys(Jobs.size(), "stats");
  TrajectoryCache Cache;
  std::vector<JobOutcome> Replayed = Cache.run(**Pool, Jobs, Keys);
  std::vector<JobOutcome> Compiled = (*Pool)->run(Jobs);
  std::string Replays;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    ASSERT_TRUE(Replayed[I].ok()) << Replayed[I].Error;
    ASSERT_TRUE(Compiled[I].ok()) << Compiled[I].Error;
    EXPECT_EQ(Replayed[I].Result->TextSize, Compiled[I].Result->TextSize) << I;
    EXPECT_EQ(Replayed[I].Result->Log, Compiled[I].Result->Log) << I;
    Replays += Replayed[I].Result->Seconds == 0 ? 'r' : 'c';
  }
  // At 1000 the heuristic inlines more, so the module really differs.
  EXPECT_NE(Compiled[1].Result->TextSize, Compiled[0].Result->TextSize);
  EXPECT_EQ(Replays, "ccrr");
}

TEST_F(TrajectoryCacheTest, AFreshCacheAnswersNothing) {
  TrajectoryCache Cache;
  auto R = Cache.lookup("stats", CompilePolicy::heuristic(), false);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_FALSE(R->has_value());
  R = Cache.lookup("stats", CompilePolicy::model("{not json"), false);
  ASSERT_TRUE(bool(R)); // No trajectory: the model is not even parsed.
}

TEST_F(TrajectoryCacheTest, MalformedLogIsAnError) {
  TrajectoryCache Cache;
  CompileResult R;
  R.Log = "{\"features\":[";
  Error E =
      Cache.record("stats", "beta/stats.o", R, CompilePolicy::heuristic());
  ASSERT_TRUE(bool(E));
  std::string Message = toString(std::move(E));
  EXPECT_EQ(Message.rfind("beta/stats.o (log)", 0), 0u) << Message;
}

} // namespace
