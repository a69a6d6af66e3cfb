//===- unittests/Compile/WorkerPoolTest.cpp
//---------------------------------===//
//
// The compile worker's job encoding, and the pool's fault isolation: a
// module clang rejects, a policy that makes LLVM stop with a fatal error
// (the worker dies and is replaced), and a good module after both; a job
// that hangs (its bitcode is a FIFO nobody writes) until the time limit, or
// until its worker is killed by SIGKILL as the out-of-memory killer would,
// is reported as a transient failure.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/WorkerPool.h"

#include "TestModule.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace mlgo;

namespace {

CompileJob sampleJob() {
  CompileJob J;
  J.Module = "pkg/a.o";
  J.BitcodePath = "/tmp/a.bc";
  J.CC1Args = {"-triple", "x86_64-pc-linux-gnu", "-Oz"};
  J.ThePolicy = CompilePolicy::model("{\"m\":1}");
  J.ThePolicy.Flips = {3, 9, 27};
  J.ThePolicy.ExploreSeed = 42;
  J.ThePolicy.ExploreTemperature = 0.5f;
  J.WantLog = true;
  return J;
}

TEST(WorkerPoolTest, JobRoundTrips) {
  CompileJob J = sampleJob();
  Expected<CompileJob> Back = decodeJob(encodeJob(J));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Module, J.Module);
  EXPECT_EQ(Back->BitcodePath, J.BitcodePath);
  EXPECT_EQ(Back->CC1Args, J.CC1Args);
  EXPECT_EQ(Back->ThePolicy.getKey(), J.ThePolicy.getKey());
  EXPECT_EQ(Back->ThePolicy.Flips, J.ThePolicy.Flips);
  EXPECT_EQ(Back->ThePolicy.ExploreSeed, std::optional<uint64_t>(42));
  EXPECT_TRUE(Back->WantLog);
}

TEST(WorkerPoolTest, JobsAreEncodedAsDocumented) {
  CompileJob J;
  J.Module = "m";
  J.BitcodePath = "b.bc";
  J.CC1Args = {"-Oz"};
  J.ThePolicy = CompilePolicy::model("{}");
  J.ThePolicy.Flips = {7};
  J.ThePolicy.ExploreSeed = 0x0102030405060708;
  J.ThePolicy.ExploreTemperature = 0.5f;
  J.WantLog = true;
  // The request of WorkerPool.h, field by field.
  static const char Documented[] = "\x01\x00\x00\x00"
                                   "m"
                                   "\x04\x00\x00\x00"
                                   "b.bc"
                                   "\x01\x00\x00\x00"
                                   "\x03\x00\x00\x00"
                                   "-Oz"
                                   "\x02"
                                   "\x02\x00\x00\x00"
                                   "{}"
                                   "\x01\x00\x00\x00"
                                   "\x07\x00\x00\x00"
                                   "\x01"
                                   "\x08\x07\x06\x05\x04\x03\x02\x01"
                                   "\x00\x00\x00\x3F"
                                   "\x01"
                                   "\x00"
                                   "\x00"
                                   "\x00"
                                   "\x00";
  EXPECT_EQ(encodeJob(J), std::string(Documented, sizeof(Documented) - 1));
  Expected<CompileJob> Back = decodeJob(encodeJob(J));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->ThePolicy.ExploreTemperature, 0.5f);
}

TEST(WorkerPoolTest, FixedDecisionsAndSiteRequestsTravel) {
  CompileJob J = sampleJob();
  J.WantSites = true;
  J.PredictOnly = true;
  J.WantSizeScore = true;
  auto Fixed = std::make_shared<ModuleDecisions>();
  Fixed->Module = "src/a b.c";
  Fixed->Sites = {{"main", "helper", 1, true}, {"", "log", 0, false}};
  J.ThePolicy.Fixed = Fixed;
  std::string Frame = encodeJob(J);
  // want sites, predict only, want size score, has fixed, the key, the
  // entries as a decisions file writes them.
  static const char Tail[] = "\x01\x01\x01\x01"
                             "\x09\x00\x00\x00"
                             "src/a b.c"
                             "\x27\x00\x00\x00"
                             "inline main helper 1\n"
                             "no-inline * log *\n";
  EXPECT_TRUE(StringRef(Frame).ends_with(StringRef(Tail, sizeof(Tail) - 1)));
  Expected<CompileJob> Back = decodeJob(Frame);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_TRUE(Back->WantSites);
  EXPECT_TRUE(Back->PredictOnly);
  EXPECT_TRUE(Back->WantSizeScore);
  ASSERT_TRUE(Back->ThePolicy.Fixed);
  EXPECT_EQ(Back->ThePolicy.Fixed->Module, "src/a b.c");
  EXPECT_EQ(Back->ThePolicy.Fixed->Sites, Fixed->Sites);
  EXPECT_EQ(Back->ThePolicy.getKey(), J.ThePolicy.getKey());
  // Fixed decisions are part of the key; the other keys keep their bytes.
  CompilePolicy Plain = J.ThePolicy;
  Plain.Fixed = nullptr;
  EXPECT_NE(Plain.getKey(), J.ThePolicy.getKey());
}

TEST(WorkerPoolTest, PolicyKeysDifferByFlips) {
  CompilePolicy A = CompilePolicy::heuristic(), B = CompilePolicy::heuristic();
  B.Flips = {0};
  EXPECT_NE(A.getKey(), B.getKey());
  EXPECT_EQ(A.getKey(), CompilePolicy::heuristic().getKey());
  EXPECT_EQ(A.getKey().size(), 32u);
}

TEST(WorkerPoolTest, TruncatedJobIsAnError) {
  std::string Frame = encodeJob(sampleJob());
  Expected<CompileJob> Back = decodeJob(StringRef(Frame).drop_back(3));
  ASSERT_FALSE(bool(Back));
  EXPECT_EQ(toString(Back.takeError()), "compile job: malformed frame of " +
                                            std::to_string(Frame.size() - 3) +
                                            " bytes");
  std::string BadKind = Frame;
  // The policy kind follows the module, the bitcode path and the arguments.
  size_t KindAt =
      4 + sampleJob().Module.size() + 4 + sampleJob().BitcodePath.size() + 4;
  for (const std::string &A : sampleJob().CC1Args)
    KindAt += 4 + A.size();
  BadKind[KindAt] = 9;
  Back = decodeJob(BadKind);
  ASSERT_FALSE(bool(Back));
  EXPECT_EQ(toString(Back.takeError()), "compile job: unknown policy kind 9");
  Back = decodeJob(Frame + "x");
  ASSERT_FALSE(bool(Back));
  EXPECT_EQ(toString(Back.takeError()), "compile job: malformed frame of " +
                                            std::to_string(Frame.size() + 1) +
                                            " bytes");
}

TEST(WorkerPoolTest, ResponsesRoundTripAndMalformedOnesAreErrors) {
  WorkerResponse R;
  R.Result.TextSize = 2118;
  R.Result.NumDecisions = 3;
  R.Result.Seconds = 0.25;
  R.Result.Log = "log bytes";
  R.Result.PredictedText = 412.75;
  R.Result.Grouped = {{0x1ace75513940f516, 45}, {7, 28}};
  DecidedSite Site;
  Site.Site = {"f", "g", 2, true};
  Site.Logit = -1.5f;
  Site.Fixed = true;
  R.Result.Sites = {Site};
  // The sites: a count, then "f", "g", ordinal 2, flags 3, logit.
  const size_t SitesBytes = 4 + 5 + 5 + 4 + 1 + 4;
  std::string Frame = encodeResponse(R);
  Expected<WorkerResponse> Back = decodeResponse(Frame);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->TheStatus, WorkerResponse::Status::Ok);
  EXPECT_EQ(Back->Result.TextSize, 2118u);
  EXPECT_EQ(Back->Result.Log, "log bytes");
  EXPECT_EQ(Back->Result.PredictedText, 412.75);
  EXPECT_EQ(Back->Result.Grouped, R.Result.Grouped);
  ASSERT_EQ(Back->Result.Sites.size(), 1u);
  EXPECT_EQ(Back->Result.Sites[0].Site, Site.Site);
  EXPECT_EQ(Back->Result.Sites[0].Logit, -1.5f);
  EXPECT_TRUE(Back->Result.Sites[0].Fixed);
  EXPECT_EQ(encodeResponse(*Back), Frame);

  WorkerResponse Fatal;
  Fatal.TheStatus = WorkerResponse::Status::Fatal;
  Fatal.Error = "LLVM fatal error: x";
  Back = decodeResponse(encodeResponse(Fatal));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->TheStatus, WorkerResponse::Status::Fatal);
  EXPECT_EQ(Back->Error, "LLVM fatal error: x");

  WorkerResponse Full;
  Full.TheStatus = WorkerResponse::Status::Environment;
  Full.Error = "cannot write the compiled object /dev/shm/o.o: No space";
  Back = decodeResponse(encodeResponse(Full));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->TheStatus, WorkerResponse::Status::Environment);
  EXPECT_EQ(Back->Error, Full.Error);

  auto Error = [](StringRef Payload) {
    Expected<WorkerResponse> R = decodeResponse(Payload);
    return R ? std::string("no error") : toString(R.takeError());
  };
  EXPECT_EQ(Error(""), "worker response: malformed frame of 0 bytes: no "
                       "status at byte 0");
  EXPECT_EQ(Error("\x04"), "worker response: unknown status 4");
  EXPECT_EQ(Error(StringRef(Frame).drop_back(SitesBytes + 1)),
            "worker response: malformed frame of " +
                std::to_string(Frame.size() - SitesBytes - 1) +
                " bytes: 2 grouped sections in 31 bytes at byte " +
                std::to_string(Frame.size() - SitesBytes - 32));
  EXPECT_EQ(Error(StringRef(Frame).drop_back(1)),
            "worker response: malformed frame of " +
                std::to_string(Frame.size() - 1) +
                " bytes: truncated call sites at byte " +
                std::to_string(Frame.size() - 4));
  EXPECT_EQ(Error(Frame + "x"), "worker response: malformed frame of " +
                                    std::to_string(Frame.size() + 1) +
                                    " bytes: 1 trailing bytes at byte " +
                                    std::to_string(Frame.size()));
}

class PoolTest : public ::testing::Test {
protected:
  void SetUp() override {
    Good = Dir.path("stats.bc").str().str();
    ASSERT_EQ(test::buildStatsBitcode(Good), 0);
    Bad = Dir.path("bad.bc").str().str();
    std::error_code EC;
    raw_fd_ostream(Bad, EC) << "BC\xc0\xde but not really";
  }
  // LLVM's remove_directories (TempDir's) refuses a FIFO (makeHang's).
  void TearDown() override { ::unlink(Dir.path("hang.bc").c_str()); }

  CompileJob job(StringRef Name, StringRef Bitcode, CompilePolicy P) {
    return test::makeJob(Name, Bitcode, std::move(P));
  }

  /// A pool of \p Workers workers with a time limit of \p Timeout seconds
  /// (created before anything else runs threads).
  std::unique_ptr<WorkerPool> makePool(unsigned Workers, unsigned Timeout) {
    WorkerPoolOptions O;
    O.Workers = Workers;
    O.TimeoutSeconds = Timeout;
    auto Pool = WorkerPool::create(O);
    EXPECT_TRUE(bool(Pool)) << toString(Pool.takeError());
    return Pool ? std::move(*Pool) : nullptr;
  }

  /// A FIFO that no one writes: opening it to read blocks forever.
  std::string makeHang() {
    std::string Path = Dir.path("hang.bc").str().str();
    EXPECT_EQ(::mkfifo(Path.c_str(), 0600), 0);
    return Path;
  }

  unittest::TempDir Dir{"mlgo-train", /*Unique=*/true};
  std::string Good, Bad;
};

/// A pool that answers every job with its index, for the factory test.
class CountingPool final : public WorkerPool {
public:
  unsigned getNumWorkers() const override { return 7; }
  std::vector<JobOutcome> run(ArrayRef<CompileJob> Jobs,
                              std::function<void(size_t, size_t)>,
                              std::function<void(size_t, JobOutcome &)>,
                              JobGate) override {
    std::vector<JobOutcome> Out(Jobs.size());
    for (size_t I = 0; I < Jobs.size(); ++I)
      Out[I].Error = "job " + std::to_string(I);
    return Out;
  }
  unsigned getNumRespawns() const override { return 0; }
  std::vector<int> getWorkerPids() const override { return {}; }
};

// A run across machines installs a factory (mlgo/Distributed), and every
// create() after it returns that pool, with the options it was asked for;
// createLocal() is this machine's pool whatever is installed.
TEST(WorkerPoolTest, FactoryReplacesThisMachinesPool) {
  unsigned Asked = 0;
  setWorkerPoolFactory(
      [&](const WorkerPoolOptions &O) -> Expected<std::unique_ptr<WorkerPool>> {
        Asked = O.TimeoutSeconds;
        return std::make_unique<CountingPool>();
      });
  WorkerPoolOptions O;
  O.TimeoutSeconds = 42;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(O);
  setWorkerPoolFactory(nullptr);
  ASSERT_TRUE(bool(Pool)) << toString(Pool.takeError());
  EXPECT_EQ(Asked, 42u);
  EXPECT_EQ((*Pool)->getNumWorkers(), 7u);
  std::vector<CompileJob> Jobs(2);
  std::vector<JobOutcome> Out = (*Pool)->run(Jobs);
  ASSERT_EQ(Out.size(), 2u);
  EXPECT_EQ(Out[1].Error, "job 1");

  O.Workers = 1;
  Expected<std::unique_ptr<WorkerPool>> Local = WorkerPool::createLocal(O);
  ASSERT_TRUE(bool(Local)) << toString(Local.takeError());
  EXPECT_EQ((*Local)->getNumWorkers(), 1u);
  EXPECT_EQ((*Local)->getWorkerPids().size(), 1u);
}

TEST_F(PoolTest, FailuresAreIsolatedAndReported) {
  std::unique_ptr<WorkerPool> Pool = makePool(1, /*Timeout=*/300);
  ASSERT_TRUE(Pool);
  auto Placeholder =
      MemoryBuffer::getFile(MLGO_SOURCE_DIR "/models/inline-oz/model.json");
  ASSERT_TRUE(bool(Placeholder));
  std::string NeedsMissing = (*Placeholder)->getBuffer().str();
  size_t At = NeedsMissing.find("\"threshold\"");
  ASSERT_NE(At, std::string::npos);
  NeedsMissing.replace(At, 11, "\"no_such_feature\"");

  std::vector<CompileJob> Jobs = {
      job("p/bad.o", Bad, CompilePolicy::stock()),
      job("p/fatal.o", Good, CompilePolicy::model(NeedsMissing)),
      job("p/good.o", Good, CompilePolicy::heuristic()),
      job("p/good-stock.o", Good, CompilePolicy::stock()),
  };
  Jobs[2].WantLog = true;
  std::vector<JobOutcome> R = Pool->run(Jobs);
  ASSERT_EQ(R.size(), 4u);
  ASSERT_FALSE(R[0].ok());
  EXPECT_EQ(R[0].Error.rfind("p/bad.o: compilation failed: ", 0), 0u)
      << R[0].Error;
  EXPECT_FALSE(R[0].Transient);
  // A model the compiler cannot feed is a compiler error, as in clang:
  // the compile fails with the message and the worker lives on.
  ASSERT_FALSE(R[1].ok());
  EXPECT_FALSE(R[1].Transient);
  EXPECT_EQ(R[1].Error,
            "p/fatal.o: compilation failed: error: mlgo: model 'inline-oz' "
            "needs input 'no_such_feature' (int64_t [1]), which the compiler "
            "does not offer");
  EXPECT_EQ(Pool->getNumRespawns(), 0u);
  ASSERT_TRUE(R[2].ok()) << R[2].Error;
  ASSERT_TRUE(R[3].ok()) << R[3].Error;
  EXPECT_GT(R[2].Result->TextSize, 0u);
  // LLVM's heuristic through mlgo's advisor gives stock -Oz's object.
  EXPECT_EQ(R[2].Result->TextSize, R[3].Result->TextSize);
  EXPECT_GT(R[2].Result->NumDecisions, 0u);
  EXPECT_EQ(StringRef(R[2].Result->Log).substr(0, 13), "{\"features\":[");
  EXPECT_TRUE(R[3].Result->Log.empty());
}

TEST_F(PoolTest, TimeoutIsTransient) {
  std::unique_ptr<WorkerPool> Pool = makePool(1, /*Timeout=*/1);
  ASSERT_TRUE(Pool);
  std::vector<CompileJob> Jobs = {
      job("p/hang.o", makeHang(), CompilePolicy::stock()),
      job("p/good.o", Good, CompilePolicy::stock())};
  std::vector<JobOutcome> R = Pool->run(Jobs);
  ASSERT_FALSE(R[0].ok());
  EXPECT_EQ(R[0].Error,
            "p/hang.o: timed out after 1 s; the compile was killed");
  EXPECT_TRUE(R[0].Transient);
  // The worker that took its place compiles the next job.
  EXPECT_EQ(Pool->getNumRespawns(), 1u);
  ASSERT_TRUE(R[1].ok()) << R[1].Error;
  EXPECT_FALSE(R[1].Transient);
}

TEST_F(PoolTest, WorkerKilledFromOutsideIsTransient) {
  std::unique_ptr<WorkerPool> Pool = makePool(2, /*Timeout=*/0);
  ASSERT_TRUE(Pool);
  std::vector<int> Pids = Pool->getWorkerPids();
  ASSERT_EQ(Pids.size(), 2u);
  // Worker 0 takes the hanging job, worker 1 the good one; once the good one
  // is done, worker 0 is killed as the out-of-memory killer kills.
  std::vector<CompileJob> Jobs = {
      job("p/hang.o", makeHang(), CompilePolicy::stock()),
      job("p/good.o", Good, CompilePolicy::stock())};
  std::vector<JobOutcome> R = Pool->run(Jobs, [&](size_t Done, size_t) {
    if (Done == 1)
      ::kill(Pids[0], SIGKILL);
  });
  ASSERT_TRUE(R[1].ok()) << R[1].Error;
  ASSERT_FALSE(R[0].ok());
  EXPECT_EQ(R[0].Error,
            "p/hang.o: the compile worker was killed (signal 9, Killed: the "
            "kernel's out-of-memory killer, or another process)");
  EXPECT_TRUE(R[0].Transient);
  std::vector<int> After = Pool->getWorkerPids();
  EXPECT_NE(After[0], Pids[0]);
  EXPECT_EQ(After[1], Pids[1]);
}

} // namespace
