//===- bench/LearnBench.cpp - Training throughput -------------------------===//
//
// How fast MLGOLearn trains and evaluates the policy-sized MLP (38 features
// -> 32 -> 16 -> 1, relu) on synthetic rows: one training epoch (minibatch
// Adam, batch 256) and a full-dataset forward pass, in rows per second; and
// one ES proposal + update over the same network's parameters.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Classifier.h"
#include "mlgo/Learn/EvolutionStrategies.h"

#include "benchmark/benchmark.h"

#include <cmath>

using namespace mlgo;
using namespace mlgo::learn;

static Dataset makeData(size_t Rows) {
  const size_t F = 38;
  std::vector<std::string> Names;
  for (size_t J = 0; J < F; ++J)
    Names.push_back("f" + std::to_string(J));
  Dataset D(Names);
  Rng R(1);
  std::vector<float> Row(F);
  for (size_t I = 0; I < Rows; ++I) {
    double S = 0;
    for (size_t J = 0; J < F; ++J) {
      Row[J] = static_cast<float>(R.below(1000));
      S += (J % 3 == 0 ? 1 : -0.5) * std::log1p(Row[J]);
    }
    D.addRow(Row, S > 0 ? 1 : 0);
  }
  return D;
}

static ClassifierOptions makeOptions() {
  ClassifierOptions O;
  O.Hidden = {32, 16};
  O.BatchSize = 256;
  O.Epochs = 1000000;
  return O;
}

static void BM_TrainEpoch(benchmark::State &State) {
  Dataset D = makeData(static_cast<size_t>(State.range(0)));
  auto T = cantFail(ClassifierTrainer::create(D, makeOptions()));
  for (auto _ : State)
    benchmark::DoNotOptimize(T->runEpoch());
  State.SetItemsProcessed(State.iterations() * State.range(0));
}
BENCHMARK(BM_TrainEpoch)->Arg(20000)->Unit(benchmark::kMillisecond);

static void BM_ForwardPass(benchmark::State &State) {
  Dataset D = makeData(static_cast<size_t>(State.range(0)));
  auto T = cantFail(ClassifierTrainer::create(D, makeOptions()));
  for (auto _ : State)
    benchmark::DoNotOptimize(T->evaluate());
  State.SetItemsProcessed(State.iterations() * State.range(0));
}
BENCHMARK(BM_ForwardPass)->Arg(20000)->Unit(benchmark::kMillisecond);

static void BM_ESIteration(benchmark::State &State) {
  // 38*32 + 32 + 32*16 + 16 + 16 + 1 parameters.
  std::vector<double> Theta(38 * 32 + 32 + 32 * 16 + 16 + 16 + 1, 0.0);
  ESOptions O;
  O.NumDirections = static_cast<size_t>(State.range(0));
  EvolutionStrategies ES(Theta, O);
  std::vector<double> RP(O.NumDirections), RM(O.NumDirections);
  for (size_t I = 0; I < O.NumDirections; ++I) {
    RP[I] = static_cast<double>(I);
    RM[I] = -static_cast<double>(I);
  }
  for (auto _ : State) {
    benchmark::DoNotOptimize(ES.proposePerturbations());
    cantFail(ES.update(RP, RM));
  }
}
BENCHMARK(BM_ESIteration)->Arg(16)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
