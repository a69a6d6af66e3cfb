//===- bench/ModelEvalBench.cpp - Model evaluation speed ------------------===//
//
// Time of one inlining decision by a 38 -> 64 -> 64 -> 1 MLP with
// preprocessing (quantile ranks and log1p + standardize), as generated C++
// (EmbeddedRunner) and as interpreted JSON (InterpretedRunner). Each
// iteration writes the 38 features (cycling through 256 pre-drawn vectors)
// and evaluates, which is what the inliner does per call site.
//
//   ninja -C build mlgo-bench-model && build/bin/mlgo-bench-model
//
// Target: <= 0.3 us per generated-code evaluation, interpreter within 3x.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/PolicyRunner.h"

#include "mlgo/embedded/bench_inline_mlp.h"

#include "benchmark/benchmark.h"

#include <cstdlib>
#include <cstring>

using namespace mlgo;

namespace {

using BenchModel = mlgo::embedded::bench_inline_mlp::Model;

std::vector<TensorSpec> getSpecs() {
  std::vector<TensorSpec> Specs;
  for (size_t K = 0; K < BenchModel::NumInputs; ++K)
    Specs.push_back(
        TensorSpec::createSpec<int64_t>(BenchModel::InputNames[K], {1}));
  return Specs;
}

/// 256 feature vectors of plausible magnitudes (0..~10^4, some negative).
std::vector<std::vector<int64_t>> makeVectors(size_t NumFeatures) {
  std::vector<std::vector<int64_t>> Vs(256, std::vector<int64_t>(NumFeatures));
  uint64_t State = 1;
  for (auto &V : Vs)
    for (int64_t &X : V) {
      State = State * 6364136223846793005ULL + 1442695040888963407ULL;
      uint64_t R = State >> 33;
      X = static_cast<int64_t>(R % (1u << (R % 14))) - (R % 7 == 0 ? 50 : 0);
    }
  return Vs;
}

void run(benchmark::State &St, ModelRunner &R) {
  auto Vs = makeVectors(R.getNumInputs());
  std::vector<int64_t *> Buffers;
  for (size_t I = 0; I < R.getNumInputs(); ++I)
    Buffers.push_back(R.getTensor<int64_t>(I));
  size_t K = 0, Ones = 0;
  for (auto _ : St) {
    const std::vector<int64_t> &V = Vs[K++ & 255];
    for (size_t I = 0; I < Buffers.size(); ++I)
      *Buffers[I] = V[I];
    Ones += R.evaluate<int64_t>();
  }
  benchmark::DoNotOptimize(Ones);
  St.counters["inline_rate"] =
      static_cast<double>(Ones) / static_cast<double>(St.iterations());
}

void BM_GeneratedCode(benchmark::State &St) {
  auto R = EmbeddedRunner::create<BenchModel>(getSpecs());
  if (!R) {
    St.SkipWithError(llvm::toString(R.takeError()).c_str());
    return;
  }
  run(St, **R);
}
BENCHMARK(BM_GeneratedCode);

void BM_Interpreter(benchmark::State &St) {
  auto R = InterpretedRunner::create(MLGO_BENCH_MODEL, getSpecs());
  if (!R) {
    St.SkipWithError(llvm::toString(R.takeError()).c_str());
    return;
  }
  run(St, **R);
}
BENCHMARK(BM_Interpreter);

/// The generated function alone, without the runner and feature writes.
void BM_GeneratedFunctionOnly(benchmark::State &St) {
  auto Vs = makeVectors(BenchModel::NumInputs);
  std::vector<const void *> Ptrs;
  for (int64_t &X : Vs[0])
    Ptrs.push_back(&X);
  for (auto _ : St)
    benchmark::DoNotOptimize(BenchModel::evaluate(Ptrs.data()));
}
BENCHMARK(BM_GeneratedFunctionOnly);

} // namespace

BENCHMARK_MAIN();
