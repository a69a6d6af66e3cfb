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

bool isDistributedCommand(StringRef Command) {
  return Command == "tune" || Command == "train" || Command == "worker bench";
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
