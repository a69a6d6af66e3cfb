//===- lib/Distributed/NoMPI.cpp - A build without MPI --------------------===//
//
// Built when MPI is not (-DMLGO_MPI=OFF, or no MPI found): a single process
// runs as before, and a run that mpirun or srun started with more than one
// rank is refused by rank 0, since every rank would otherwise run the whole
// command and write the same files.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Distributed/Cluster.h"

#include "mlgo/Support/Error.h"

using namespace llvm;

namespace mlgo::distributed {

bool haveMPI() { return false; }

Expected<Role> startCluster(int &, char **&, StringRef, StringRef) {
  Launch L = detectLaunch();
  if (Error E = checkLaunch(L)) {
    if (L.Rank != 0) {
      consumeError(std::move(E));
      return Role{1};
    }
    return E;
  }
  if (L.Size <= 1)
    return Role();
  if (L.Rank != 0)
    return Role{1};
  return makeError("launched as rank 0 of " + Twine(L.Size) + " (" +
                   L.Launcher +
                   "_* variables), but this mlgo was built without MPI; "
                   "rebuild it with -DMLGO_MPI=ON (Debian: apt-get install "
                   "libopenmpi-dev), or run it as one process");
}

int finishCluster(int Status) { return Status; }

} // namespace mlgo::distributed
