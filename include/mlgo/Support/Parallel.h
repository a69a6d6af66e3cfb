//===- mlgo/Support/Parallel.h - N jobs on a thread pool --------*- C++ -*-===//
//
// Corpus extraction, `corpus stats`, `corpus check`, `eval corpus` and
// `worker check` all run one job per module (or per module and policy) on
// an llvm::ThreadPool and want the same three things: results in input
// order whatever order the threads finish in, a progress callback that is
// never called concurrently, and a fixed thread count (0: one per
// hardware thread). runJobs is that loop, once.
//
//   std::vector<Expected<uint64_t>> Sizes = runJobs<Expected<uint64_t>>(
//       Modules.size(), Threads, [&](size_t I) { return sizeOf(Modules[I]); },
//       [&](size_t Done, size_t Total) { Bar.update(Done, Total); });
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_PARALLEL_H
#define MLGO_SUPPORT_PARALLEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace mlgo {

/// Told after each job: \p Done of \p Total jobs have finished.
using ProgressCallback = std::function<void(size_t Done, size_t Total)>;

/// Runs \p Job(I) for every I in [0, N) on \p Threads threads (0: one per
/// hardware thread) and returns when all have finished. After each job,
/// \p Progress (if set) is called with the number of jobs finished so far
/// (1, 2, ... N, in that order) and N; calls are serialized, so the
/// callback needs no lock of its own. Jobs run concurrently: \p Job must
/// only write state of its own index.
void runJobs(size_t N, unsigned Threads, llvm::function_ref<void(size_t)> Job,
             const ProgressCallback &Progress = nullptr);

/// runJobs that collects what \p Job(I) returns, at index I.
template <typename T>
std::vector<T> runJobs(size_t N, unsigned Threads,
                       llvm::function_ref<T(size_t)> Job,
                       const ProgressCallback &Progress = nullptr) {
  std::vector<std::optional<T>> Slots(N);
  runJobs(N, Threads, [&](size_t I) { Slots[I].emplace(Job(I)); }, Progress);
  std::vector<T> Results;
  Results.reserve(N);
  for (std::optional<T> &S : Slots)
    Results.push_back(std::move(*S));
  return Results;
}

} // namespace mlgo

#endif // MLGO_SUPPORT_PARALLEL_H
