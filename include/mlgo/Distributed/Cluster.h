//===- mlgo/Distributed/Cluster.h - Compiles on many machines -*- C++ -*-===//
//
// mlgo past one machine, on the distributed engine clusters already have:
// MPI (Open MPI 4.1), launched by `mpirun -np N` or Slurm's `srun`. Every
// rank runs the same command line. Rank 0 runs the command - the search or
// the trainer - and owns every file; ranks 1..N-1 are compile workers and
// touch no file of the run. WorkerPool::create() on rank 0 returns a pool
// whose workers are those ranks (setWorkerPoolFactory), so the trainers
// never know where their compiles run. docs/distributed.md is the user's
// guide, the fault model and the scaling model.
//
// A worker rank compiles with this machine's pool (ProcessWorkerPool, one
// forked worker): a compiler that crashes or hangs on a module costs that
// job, reported as on one machine, and not the rank. Tasks
// (mlgo/Support/Tasks.h) run their registered function, which runs its
// compiler as a subprocess with a timeout, with the same effect. On rank 0
// runTasks() hands them to the ranks (setTaskRunner). A worker keeps the
// bitcode it was sent by content hash in a scratch directory, so no shared
// filesystem is needed and each module's bitcode travels once per rank.
//
// Messages (MPI_BYTE over MPI_COMM_WORLD; the integers and strings of
// mlgo/Support/Bytes.h, "str" a u32 length and the bytes):
//
//   tag 1 hello    k -> 0   str identity (`mlgo --version`) , str host ,
//                           u32 pid
//   tag 2 job      0 -> k   u32 timeout seconds , str bitcode hash ,
//                           u8 has bitcode , [str bitcode] ,
//                           str job (WorkerPool.h's request frame)
//   tag 3 outcome  k -> 0   u8 flags (1: ok, 2: transient, 4: environment) ,
//                           ok: str response (WorkerPool.h's response
//                           frame, status 0); else: str error
//   tag 4 beat     k -> 0   (empty) every second while compiling
//   tag 5 stop     0 -> k   (empty) the run is over
//   tag 6 task     0 -> k   str kind , str module , u32 ninputs ,
//                           (str path on rank 0 , str hash , u8 has bytes ,
//                           [str bytes]) * ninputs , u32 nargs ,
//                           str arg * nargs (mlgo/Support/Tasks.h)
//   tag 7 answer   k -> 0   u8 ok , str result (ok) or error
//
// A job (tag 2) is a compile of CompileJob's kind; a task (tag 6) any
// other work a command registered (an llc run and its score, a clang -cc1
// run and its code size). Both go through one scheduler on rank 0, and a
// worker rank keeps the files of both by content hash.
//
// Faults. A worker rank that dies ends the job: Open MPI's mpirun (by
// default) or srun kills every rank and names the dead one and its host;
// under `mpirun --enable-recovery`, or when a rank stops without dying,
// rank 0 notices the silence (no beat for MLGO_MPI_SILENCE_SECONDS, default
// 30) and ends the job with an error naming the rank, its host and the
// module it was compiling. Either way every result known so far is in rank
// 0's caches, written a line at a time, and a rerun with any number of
// ranks resumes from them.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_DISTRIBUTED_CLUSTER_H
#define MLGO_DISTRIBUTED_CLUSTER_H

#include "mlgo/Compile/WorkerPool.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlgo::distributed {

/// This process's place in a run, as its launcher's environment says.
struct Launch {
  unsigned Rank = 0;
  unsigned Size = 1;
  /// Which variables said so ("OMPI_COMM_WORLD", "PMIX", "SLURM").
  std::string Launcher;
  /// srun started this task as one of Size, but without an MPI plugin
  /// (no PMIx or PMI variables): the tasks cannot form a run, and each
  /// would run the whole command.
  bool WithoutMPI = false;
};

/// Reads the launcher's environment: Open MPI's OMPI_COMM_WORLD_RANK and
/// _SIZE (mpirun), or under srun PMIX_RANK or SLURM_PROCID with
/// SLURM_STEP_NUM_TASKS (srun's task without PMI: WithoutMPI). None of
/// them: a single process, {0, 1}. \p Get reads a
/// variable (std::getenv; tests pass their own).
Launch detectLaunch(
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> Get);
Launch detectLaunch();

/// The error of a launch that cannot form a run (Launch::WithoutMPI).
llvm::Error checkLaunch(const Launch &L);

/// Whether this mlgo was built with MPI (-DMLGO_MPI=ON).
bool haveMPI();

/// Commands whose compiles run on the worker ranks.
bool isDistributedCommand(llvm::StringRef Command);

/// Which ranks each host holds (Hosts[R] is rank R's), hosts in the order
/// of their first rank: "3 ranks on 2 hosts (a: ranks 0,2; b: rank 1)";
/// empty for a run on one host.
std::string describeHosts(llvm::ArrayRef<std::string> Hosts);

/// What startCluster() made of this process.
struct Role {
  /// This process is a worker rank that has served its run: exit with
  /// this status. None: run the command (a single process, or rank 0).
  std::optional<int> WorkerExit;
};

/// Called by main() before anything starts a thread or forks: joins the
/// run when a launcher started more than one rank. On rank 0, checks that
/// every rank runs the same mlgo (\p Identity), that \p Command
/// distributes, and installs the factory that makes WorkerPool::create()
/// return the ranks' pool. On a worker rank, serves compiles until rank 0
/// says stop. Errors (no MPI in this build, a command that does not
/// distribute, ranks that differ) are rank 0's to print; a worker rank
/// then exits with status 1 silently.
llvm::Expected<Role> startCluster(int &Argc, char **&Argv,
                                  llvm::StringRef Command,
                                  llvm::StringRef Identity);

/// Called by main() with the command's exit status on rank 0: stops the
/// worker ranks and leaves MPI. Returns the status to exit with.
int finishCluster(int Status);

//===-- Messages (exposed for tests) --------------------------------------===//

enum class Tag : int {
  Hello = 1,
  Job = 2,
  Outcome = 3,
  Beat = 4,
  Stop = 5,
  Task = 6,
  Answer = 7
};

struct JobMessage {
  unsigned TimeoutSeconds = 0;
  std::string BitcodeHash;
  /// The bitcode, when the worker has not been sent it before.
  std::optional<std::string> Bitcode;
  CompileJob Job;
};
std::string encodeJobMessage(const JobMessage &M);
llvm::Expected<JobMessage> decodeJobMessage(llvm::StringRef Payload);

/// A task and its input files as they travel: Bytes[I] is Inputs[I]'s
/// content when the worker has not been sent it before.
struct TaskMessage {
  Task TheTask;
  std::vector<std::string> Hashes;
  std::vector<std::optional<std::string>> Bytes;
};
std::string encodeTaskMessage(const TaskMessage &M);
llvm::Expected<TaskMessage> decodeTaskMessage(llvm::StringRef Payload);

std::string encodeTaskOutcome(const TaskOutcome &O);
llvm::Expected<TaskOutcome> decodeTaskOutcome(llvm::StringRef Payload);

std::string encodeOutcome(const JobOutcome &O);
llvm::Expected<JobOutcome> decodeOutcome(llvm::StringRef Payload);

struct HelloMessage {
  std::string Identity;
  std::string Host;
  uint32_t Pid = 0;
};
std::string encodeHello(const HelloMessage &M);
llvm::Expected<HelloMessage> decodeHello(llvm::StringRef Payload);

/// The content hash by which workers keep bitcode (hex MD5 of the bytes).
std::string hashBitcode(llvm::StringRef Bytes);

} // namespace mlgo::distributed

#endif // MLGO_DISTRIBUTED_CLUSTER_H
