//===- lib/Distributed/Messages.cpp - What ranks say to each other --------===//
//
// The launcher's environment, and the encoding of the messages of
// mlgo/Distributed/Cluster.h. Needs no MPI: a build without it still
// recognizes a run that mpirun or srun started, to refuse it clearly.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Distributed/Cluster.h"

#include "mlgo/Support/Bytes.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MD5.h"

#include <cstdlib>

using namespace llvm;

namespace mlgo::distributed {

//===-- The launcher ------------------------------------------------------===//

static std::optional<unsigned>
getNumber(function_ref<std::optional<std::string>(StringRef)> Get,
          StringRef Name) {
  std::optional<std::string> V = Get(Name);
  unsigned N = 0;
  if (!V || StringRef(*V).getAsInteger(10, N))
    return std::nullopt;
  return N;
}

Launch detectLaunch(function_ref<std::optional<std::string>(StringRef)> Get) {
  Launch L;
  std::optional<unsigned> Rank, Size;
  if ((Size = getNumber(Get, "OMPI_COMM_WORLD_SIZE"))) {
    Rank = getNumber(Get, "OMPI_COMM_WORLD_RANK");
    L.Launcher = "OMPI_COMM_WORLD";
  } else if ((Rank = getNumber(Get, "PMIX_RANK"))) {
    // srun --mpi=pmix: the step's task count is the world's size.
    Size = getNumber(Get, "SLURM_STEP_NUM_TASKS");
    L.Launcher = "PMIX";
  } else if (Get("PMI_FD") || Get("PMI_RANK")) {
    // srun --mpi=pmi2.
    Rank = getNumber(Get, "SLURM_PROCID");
    Size = getNumber(Get, "SLURM_STEP_NUM_TASKS");
    L.Launcher = "SLURM";
  } else if ((Rank = getNumber(Get, "SLURM_PROCID")) &&
             (Size = getNumber(Get, "SLURM_STEP_NUM_TASKS")) && *Size > 1) {
    // srun without --mpi: tasks that cannot talk to each other.
    L.Launcher = "SLURM";
    L.WithoutMPI = true;
  }
  if (!Rank || !Size || *Size == 0 || *Rank >= *Size)
    return Launch();
  L.Rank = *Rank;
  L.Size = *Size;
  return L;
}

Launch detectLaunch() {
  return detectLaunch([](StringRef Name) -> std::optional<std::string> {
    const char *V = std::getenv(Name.str().c_str());
    if (!V)
      return std::nullopt;
    return std::string(V);
  });
}

Error checkLaunch(const Launch &L) {
  if (!L.WithoutMPI)
    return Error::success();
  return makeError("started by srun as task " + Twine(L.Rank) + " of " +
                   Twine(L.Size) +
                   " without an MPI plugin, so the tasks cannot form one "
                   "run and each would run the whole command; launch with "
                   "srun --mpi=pmix (srun --mpi=list shows the plugins), or "
                   "run one task");
}

std::string describeHosts(ArrayRef<std::string> Hosts) {
  std::vector<std::pair<std::string, std::string>> ByHost;
  for (size_t R = 0; R < Hosts.size(); ++R) {
    auto It = llvm::find_if(ByHost,
                            [&](const auto &P) { return P.first == Hosts[R]; });
    if (It == ByHost.end())
      ByHost.push_back({Hosts[R], std::to_string(R)});
    else
      It->second += "," + std::to_string(R);
  }
  if (ByHost.size() < 2)
    return "";
  std::string Line;
  for (const auto &[Host, Ranks] : ByHost)
    Line += (Line.empty() ? "" : "; ") + Host + ": " +
            (Ranks.find(',') == std::string::npos ? "rank " : "ranks ") + Ranks;
  return std::to_string(Hosts.size()) + " ranks on " +
         std::to_string(ByHost.size()) + " hosts (" + Line + ")";
}

bool isDistributedCommand(StringRef Command) {
  return Command == "tune" || Command == "train" || Command == "eval corpus" ||
         Command == "regalloc train" || Command == "worker bench" ||
         Command == "teacher build" || Command == "teacher dagger";
}

//===-- Messages ----------------------------------------------------------===//

std::string hashBitcode(StringRef Bytes) {
  MD5 Hash;
  Hash.update(Bytes);
  MD5::MD5Result R;
  Hash.final(R);
  return R.digest().str().str();
}

std::string encodeJobMessage(const JobMessage &M) {
  ByteWriter W;
  W.putU32(M.TimeoutSeconds);
  W.putString(M.BitcodeHash);
  W.putU8(M.Bitcode.has_value());
  if (M.Bitcode)
    W.putString(*M.Bitcode);
  W.putString(encodeJob(M.Job));
  return toStringRef(W.Bytes).str();
}

Expected<JobMessage> decodeJobMessage(StringRef Payload) {
  ByteReader R(Payload);
  JobMessage M;
  uint8_t HasBitcode = 0;
  std::string Frame;
  if (!R.getU32(M.TimeoutSeconds) || !R.getString(M.BitcodeHash) ||
      !R.getU8(HasBitcode) || HasBitcode > 1)
    return makeError("job message: malformed header");
  if (HasBitcode && !R.getString(M.Bitcode.emplace()))
    return makeError("job message: truncated bitcode");
  if (!R.getString(Frame) || R.remaining())
    return makeError("job message: malformed job");
  Expected<CompileJob> Job = decodeJob(Frame);
  if (!Job)
    return Job.takeError();
  M.Job = std::move(*Job);
  return M;
}

std::string encodeTaskMessage(const TaskMessage &M) {
  assert(M.Hashes.size() == M.TheTask.Inputs.size() &&
         M.Bytes.size() == M.TheTask.Inputs.size() && "a hash per input");
  ByteWriter W;
  W.putString(M.TheTask.Kind);
  W.putString(M.TheTask.Module);
  W.putU32(M.TheTask.Inputs.size());
  for (size_t I = 0; I < M.TheTask.Inputs.size(); ++I) {
    W.putString(M.TheTask.Inputs[I]);
    W.putString(M.Hashes[I]);
    W.putU8(M.Bytes[I].has_value());
    if (M.Bytes[I])
      W.putString(*M.Bytes[I]);
  }
  W.putU32(M.TheTask.Args.size());
  for (const std::string &A : M.TheTask.Args)
    W.putString(A);
  return toStringRef(W.Bytes).str();
}

Expected<TaskMessage> decodeTaskMessage(StringRef Payload) {
  ByteReader R(Payload);
  auto Malformed = [&] {
    return makeError("task message: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  };
  TaskMessage M;
  uint32_t NumInputs = 0, NumArgs = 0;
  if (!R.getString(M.TheTask.Kind) || !R.getString(M.TheTask.Module) ||
      !R.getU32(NumInputs))
    return Malformed();
  // Each input takes at least 9 bytes: a count the frame cannot hold never
  // sizes an allocation.
  if (NumInputs > R.remaining() / 9)
    return Malformed();
  for (uint32_t I = 0; I < NumInputs; ++I) {
    uint8_t Has = 0;
    if (!R.getString(M.TheTask.Inputs.emplace_back()) ||
        !R.getString(M.Hashes.emplace_back()) || !R.getU8(Has) || Has > 1)
      return Malformed();
    M.Bytes.emplace_back();
    if (Has && !R.getString(M.Bytes.back().emplace()))
      return Malformed();
  }
  if (!R.getU32(NumArgs) || NumArgs > R.remaining() / 4)
    return Malformed();
  for (uint32_t I = 0; I < NumArgs; ++I)
    if (!R.getString(M.TheTask.Args.emplace_back()))
      return Malformed();
  if (R.remaining())
    return Malformed();
  return M;
}

std::string encodeTaskOutcome(const TaskOutcome &O) {
  ByteWriter W;
  W.putU8(O.ok());
  W.putString(O.ok() ? *O.Result : O.Error);
  return toStringRef(W.Bytes).str();
}

Expected<TaskOutcome> decodeTaskOutcome(StringRef Payload) {
  ByteReader R(Payload);
  uint8_t Ok = 0;
  std::string Body;
  if (!R.getU8(Ok) || Ok > 1 || !R.getString(Body) || R.remaining())
    return makeError("answer message: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  TaskOutcome O;
  if (Ok)
    O.Result = std::move(Body);
  else
    O.Error = std::move(Body);
  return O;
}

std::string encodeOutcome(const JobOutcome &O) {
  ByteWriter W;
  W.putU8(O.ok() | O.Transient << 1 | O.Environment << 2);
  if (O.ok()) {
    WorkerResponse Response;
    Response.Result = *O.Result;
    W.putString(encodeResponse(Response));
  } else {
    W.putString(O.Error);
  }
  return toStringRef(W.Bytes).str();
}

Expected<JobOutcome> decodeOutcome(StringRef Payload) {
  ByteReader R(Payload);
  uint8_t Flags = 0;
  std::string Body;
  if (!R.getU8(Flags) || Flags > 7 || !R.getString(Body) || R.remaining())
    return makeError("outcome message: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  JobOutcome O;
  O.Transient = Flags & 2;
  O.Environment = Flags & 4;
  if (!(Flags & 1)) {
    O.Error = std::move(Body);
    return O;
  }
  Expected<WorkerResponse> Response = decodeResponse(Body);
  if (!Response)
    return Response.takeError();
  if (Response->TheStatus != WorkerResponse::Status::Ok)
    return makeError("outcome message: a result with status " +
                     Twine(unsigned(Response->TheStatus)));
  O.Result = std::move(Response->Result);
  return O;
}

std::string encodeHello(const HelloMessage &M) {
  ByteWriter W;
  W.putString(M.Identity);
  W.putString(M.Host);
  W.putU32(M.Pid);
  return toStringRef(W.Bytes).str();
}

Expected<HelloMessage> decodeHello(StringRef Payload) {
  ByteReader R(Payload);
  HelloMessage M;
  if (!R.getString(M.Identity) || !R.getString(M.Host) || !R.getU32(M.Pid) ||
      R.remaining())
    return makeError("hello message: malformed frame of " +
                     Twine(Payload.size()) + " bytes");
  return M;
}

} // namespace mlgo::distributed
