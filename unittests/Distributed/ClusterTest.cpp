//===- unittests/Distributed/ClusterTest.cpp ------------------------------===//
//
// What needs no MPI of mlgo/Distributed/Cluster.h: the launcher's
// environment read into a rank and a size, and the messages ranks send,
// byte by byte as documented and back. The runs on ranks are lit tests
// (test/Distributed).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Distributed/Cluster.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::distributed;

namespace {

Launch launchWith(const StringMap<std::string> &Env) {
  return detectLaunch([&](StringRef Name) -> std::optional<std::string> {
    auto It = Env.find(Name);
    if (It == Env.end())
      return std::nullopt;
    return It->second;
  });
}

TEST(ClusterTest, LaunchFromTheLaunchersEnvironment) {
  Launch None = launchWith({});
  EXPECT_EQ(None.Rank, 0u);
  EXPECT_EQ(None.Size, 1u);

  Launch Mpirun = launchWith(
      {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "3"}});
  EXPECT_EQ(Mpirun.Rank, 3u);
  EXPECT_EQ(Mpirun.Size, 4u);
  EXPECT_EQ(Mpirun.Launcher, "OMPI_COMM_WORLD");

  Launch Srun = launchWith({{"PMIX_RANK", "1"},
                            {"SLURM_STEP_NUM_TASKS", "128"},
                            {"SLURM_NTASKS", "256"}});
  EXPECT_EQ(Srun.Rank, 1u);
  EXPECT_EQ(Srun.Size, 128u);

  Launch Pmi2 = launchWith(
      {{"PMI_FD", "5"}, {"SLURM_PROCID", "2"}, {"SLURM_STEP_NUM_TASKS", "3"}});
  EXPECT_EQ(Pmi2.Rank, 2u);
  EXPECT_EQ(Pmi2.Size, 3u);

  // srun without --mpi: tasks that cannot form one run, refused.
  Launch Bare =
      launchWith({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "4"}});
  EXPECT_TRUE(Bare.WithoutMPI);
  EXPECT_EQ(Bare.Size, 4u);
  Error E = checkLaunch(Bare);
  EXPECT_EQ(toString(std::move(E)),
            "started by srun as task 0 of 4 without an MPI plugin, so the "
            "tasks cannot form one run and each would run the whole "
            "command; launch with srun --mpi=pmix (srun --mpi=list shows "
            "the plugins), or run one task");
  EXPECT_FALSE(bool(checkLaunch(Srun)));
  // One task of srun is one process.
  Launch OneTask =
      launchWith({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "1"}});
  EXPECT_EQ(OneTask.Size, 1u);
  EXPECT_FALSE(OneTask.WithoutMPI);

  // A batch script's own shell is not a rank: an allocation's task count
  // alone says nothing.
  Launch Batch = launchWith({{"SLURM_NTASKS", "64"}, {"SLURM_PROCID", "0"}});
  EXPECT_EQ(Batch.Size, 1u);
  // Nonsense is a single process, not a rank past the world's end.
  Launch Bad = launchWith(
      {{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "2"}});
  EXPECT_EQ(Bad.Size, 1u);
}

TEST(ClusterTest, OnlyCommandsThatCompileDistribute) {
  EXPECT_TRUE(isDistributedCommand("tune"));
  EXPECT_TRUE(isDistributedCommand("train"));
  EXPECT_TRUE(isDistributedCommand("worker bench"));
  EXPECT_TRUE(isDistributedCommand("eval corpus"));
  EXPECT_TRUE(isDistributedCommand("regalloc train"));
  EXPECT_TRUE(isDistributedCommand("teacher build"));
  EXPECT_FALSE(isDistributedCommand("teacher train"));
  EXPECT_FALSE(isDistributedCommand("eval package"));
  EXPECT_FALSE(isDistributedCommand("tune check"));
  EXPECT_FALSE(isDistributedCommand("corpus extract"));
}

CompileJob sampleJob() {
  CompileJob J;
  J.Module = "alpha/table.o";
  J.BitcodePath = "/corpus/alpha/table.o.bc";
  J.CC1Args = {"-triple", "x86_64-pc-linux-gnu", "-Oz"};
  J.ThePolicy = CompilePolicy::heuristic();
  J.ThePolicy.Flips = {2, 5};
  J.WantLog = true;
  return J;
}

TEST(ClusterTest, HostsAreListedWithTheirRanks) {
  EXPECT_EQ(describeHosts({"a", "b", "a"}),
            "3 ranks on 2 hosts (a: ranks 0,2; b: rank 1)");
  EXPECT_EQ(describeHosts({"n1", "n1", "n2", "n2", "n3"}),
            "5 ranks on 3 hosts (n1: ranks 0,1; n2: ranks 2,3; n3: rank 4)");
  // One host: nothing to say.
  EXPECT_EQ(describeHosts({"vm", "vm", "vm"}), "");
}

TEST(ClusterTest, JobMessagesAreEncodedAsDocumented) {
  JobMessage M;
  M.TimeoutSeconds = 300;
  M.BitcodeHash = "ab";
  M.Bitcode = std::string("BC\xc0\xde", 4);
  M.Job = sampleJob();
  std::string Bytes = encodeJobMessage(M);
  std::string Frame = encodeJob(M.Job);
  std::string Head = std::string("\x2c\x01\0\0", 4) + // timeout
                     std::string("\x02\0\0\0ab", 6) + // hash
                     std::string("\x01", 1) +         // has bitcode
                     std::string("\x04\0\0\0BC\xc0\xde", 8);
  ASSERT_EQ(Bytes.size(), Head.size() + 4 + Frame.size());
  EXPECT_EQ(Bytes.substr(0, Head.size()), Head);
  EXPECT_EQ(Bytes.substr(Head.size() + 4), Frame);

  Expected<JobMessage> Back = decodeJobMessage(Bytes);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->TimeoutSeconds, 300u);
  EXPECT_EQ(Back->BitcodeHash, "ab");
  EXPECT_EQ(Back->Bitcode, M.Bitcode);
  EXPECT_EQ(encodeJob(Back->Job), Frame);

  // Without the bitcode: a worker that holds it.
  M.Bitcode.reset();
  Back = decodeJobMessage(encodeJobMessage(M));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_FALSE(Back->Bitcode.has_value());

  // Every truncation is an error, never a job.
  for (size_t N = 0; N < Bytes.size(); ++N) {
    Expected<JobMessage> Cut = decodeJobMessage(StringRef(Bytes).take_front(N));
    EXPECT_FALSE(bool(Cut)) << N;
    consumeError(Cut.takeError());
  }
}

TEST(ClusterTest, TaskMessagesAreEncodedAsDocumented) {
  TaskMessage M;
  M.TheTask.Kind = "k";
  M.TheTask.Module = "m";
  M.TheTask.Inputs = {"/a.bc", "/b.json"};
  M.TheTask.Args = {"x=/a.bc"};
  M.Hashes = {"h1", "h2"};
  M.Bytes = {std::string("BC"), std::nullopt};
  std::string Bytes = encodeTaskMessage(M);
  std::string Want = std::string("\x01\0\0\0k", 5) +      // kind
                     std::string("\x01\0\0\0m", 5) +      // module
                     std::string("\x02\0\0\0", 4) +       // ninputs
                     std::string("\x05\0\0\0/a.bc", 9) +  // path
                     std::string("\x02\0\0\0h1", 6) +     // hash
                     std::string("\x01\x02\0\0\0BC", 7) + // bytes
                     std::string("\x07\0\0\0/b.json", 11) +
                     std::string("\x02\0\0\0h2", 6) +
                     std::string("\0", 1) +         // held
                     std::string("\x01\0\0\0", 4) + // nargs
                     std::string("\x07\0\0\0x=/a.bc", 11);
  EXPECT_EQ(Bytes, Want);

  Expected<TaskMessage> Back = decodeTaskMessage(Bytes);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->TheTask.Kind, "k");
  EXPECT_EQ(Back->TheTask.Module, "m");
  EXPECT_EQ(Back->TheTask.Inputs, M.TheTask.Inputs);
  EXPECT_EQ(Back->TheTask.Args, M.TheTask.Args);
  EXPECT_EQ(Back->Hashes, M.Hashes);
  EXPECT_EQ(Back->Bytes, M.Bytes);

  // Every truncation is an error, never a task.
  for (size_t N = 0; N < Bytes.size(); ++N) {
    Expected<TaskMessage> Cut =
        decodeTaskMessage(StringRef(Bytes).take_front(N));
    EXPECT_FALSE(bool(Cut)) << N;
    consumeError(Cut.takeError());
  }
  // A count the frame cannot hold sizes nothing.
  Expected<TaskMessage> Huge = decodeTaskMessage(
      std::string("\x01\0\0\0k\x01\0\0\0m\xff\xff\xff\xff", 14));
  ASSERT_FALSE(bool(Huge));
  EXPECT_EQ(toString(Huge.takeError()),
            "task message: malformed frame of 14 bytes");
}

TEST(ClusterTest, TaskAnswersTravelWithTheirKind) {
  TaskOutcome Ok;
  Ok.Result = std::string("\0\x01", 2);
  Expected<TaskOutcome> Back = decodeTaskOutcome(encodeTaskOutcome(Ok));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Result, Ok.Result);

  TaskOutcome Failed;
  Failed.Error = "m: llc-19 exited with status 1";
  std::string Bytes = encodeTaskOutcome(Failed);
  EXPECT_EQ(Bytes.substr(0, 5), std::string("\0\x1e\0\0\0", 5));
  Back = decodeTaskOutcome(Bytes);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_FALSE(Back->ok());
  EXPECT_EQ(Back->Error, Failed.Error);

  Expected<TaskOutcome> Bad = decodeTaskOutcome(std::string("\x02\0\0\0\0", 5));
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "answer message: malformed frame of 5 bytes");
}

TEST(ClusterTest, OutcomesTravelWithTheirFlags) {
  JobOutcome Ok;
  Ok.Result.emplace();
  Ok.Result->TextSize = 359;
  Ok.Result->NumDecisions = 4;
  Ok.Result->Log = "log bytes";
  Ok.Result->Grouped = {{7, 11}};
  Expected<JobOutcome> Back = decodeOutcome(encodeOutcome(Ok));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  ASSERT_TRUE(Back->ok());
  EXPECT_EQ(Back->Result->TextSize, 359u);
  EXPECT_EQ(Back->Result->NumDecisions, 4u);
  EXPECT_EQ(Back->Result->Log, "log bytes");
  EXPECT_EQ(Back->Result->Grouped, Ok.Result->Grouped);
  EXPECT_FALSE(Back->Transient);

  JobOutcome Timeout;
  Timeout.Error = "alpha/table.o: timed out after 3 s; the compile was killed";
  Timeout.Transient = true;
  std::string Bytes = encodeOutcome(Timeout);
  EXPECT_EQ(Bytes.substr(0, 1), "\x02");
  Back = decodeOutcome(Bytes);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_FALSE(Back->ok());
  EXPECT_EQ(Back->Error, Timeout.Error);
  EXPECT_TRUE(Back->Transient);
  EXPECT_FALSE(Back->Environment);

  JobOutcome Disk;
  Disk.Error = "m: cannot write the compiled object";
  Disk.Transient = Disk.Environment = true;
  Back = decodeOutcome(encodeOutcome(Disk));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_TRUE(Back->Environment);

  Expected<JobOutcome> Bad = decodeOutcome(StringRef("\x08\0\0\0\0", 5));
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "outcome message: malformed frame of 5 bytes");
}

TEST(ClusterTest, HelloNamesTheRank) {
  HelloMessage H{"mlgo version 0.3.0\n", "node7", 4242};
  Expected<HelloMessage> Back = decodeHello(encodeHello(H));
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Identity, H.Identity);
  EXPECT_EQ(Back->Host, "node7");
  EXPECT_EQ(Back->Pid, 4242u);
  Expected<HelloMessage> Bad = decodeHello("x");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "hello message: malformed frame of 1 bytes");
}

TEST(ClusterTest, BitcodeIsKeptByContent) {
  EXPECT_EQ(hashBitcode(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_NE(hashBitcode("a"), hashBitcode("b"));
}

} // namespace
