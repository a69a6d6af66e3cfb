//===- lib/Support/Parallel.cpp - N jobs on a thread pool -----------------===//

#include "mlgo/Support/Parallel.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <mutex>

using namespace llvm;

namespace mlgo {

void runJobs(size_t N, unsigned Threads, function_ref<void(size_t)> Job,
             const ProgressCallback &Progress) {
  std::mutex Lock;
  size_t Done = 0;
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  for (size_t I = 0; I < N; ++I)
    Pool.async([&, I] {
      Job(I);
      std::lock_guard<std::mutex> Guard(Lock);
      ++Done;
      if (Progress)
        Progress(Done, N);
    });
  Pool.wait();
}

} // namespace mlgo
