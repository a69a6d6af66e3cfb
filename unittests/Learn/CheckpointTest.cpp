//===- unittests/Learn/CheckpointTest.cpp - Resumable state ---------------===//
//
// The checkpoint file round-trips bit-exactly and is laid out as documented;
// damaged files are named errors; save() is atomic; and a training run that
// is killed with SIGKILL and resumed from its last checkpoint ends exactly
// where an uninterrupted run ends (ES and classifier).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Checkpoint.h"
#include "LearnTestUtil.h"
#include "mlgo/Learn/Classifier.h"
#include "mlgo/Learn/EvolutionStrategies.h"
#include "mlgo/Learn/LearningCurve.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cmath>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlgo;
using namespace mlgo::learn;
using namespace mlgo::learn::test;
using namespace llvm;

namespace {

TEST(CheckpointTest, LayoutIsAsDocumented) {
  Checkpoint C;
  C.setU64("b", 5);
  C.setBytes("a", "xy");
  std::vector<uint8_t> B = C.serialize();
  // 16 header + ("a": 4+1+1+8+2) + ("b": 4+1+1+8+8) + 4 CRC.
  ASSERT_EQ(B.size(), 16u + 16u + 22u + 4u);
  EXPECT_EQ(std::string(B.begin(), B.begin() + 8), "MLGOCKPT");
  EXPECT_EQ(B[8], 1);  // version
  EXPECT_EQ(B[12], 2); // entries
  // Sorted by key: "a" first.
  EXPECT_EQ(B[16], 1);
  EXPECT_EQ(B[20], 'a');
  EXPECT_EQ(B[21], 3); // bytes
  EXPECT_EQ(B[22], 2); // count
  EXPECT_EQ(B[30], 'x');
  EXPECT_EQ(B[36], 'b');
  EXPECT_EQ(B[37], 1); // u64
  EXPECT_EQ(B[46], 5); // the value
}

TEST(CheckpointTest, RoundTripsBitExactly) {
  Checkpoint C;
  C.setF64s("theta", {1.5, -0.0, std::nan(""), 1e-310});
  C.setU64s("u", {0, UINT64_MAX});
  C.setBytes("blob", std::string("a\0b", 3));
  Rng R(4);
  R.normal();
  saveRng(C, "x.", R);
  std::string P = tempPath("c.ckpt");
  ASSERT_EQ(errorMessage(C.save(P)), "<success>");
  // No temporary file is left behind.
  std::error_code EC;
  size_t Files = 0;
  for (sys::fs::directory_iterator I(sys::path::parent_path(P), EC), E;
       I != E && !EC; I.increment(EC))
    ++Files;
  EXPECT_EQ(Files, 1u);

  Checkpoint L = unwrap(Checkpoint::load(P));
  EXPECT_TRUE(L == C);
  std::vector<double> T = unwrap(L.getF64s("theta"));
  EXPECT_TRUE(std::signbit(T[1]));
  EXPECT_TRUE(std::isnan(T[2]));
  EXPECT_EQ(T[3], 1e-310);
  EXPECT_EQ(unwrap(L.getBytes("blob")), std::string("a\0b", 3));
  Rng R2(0);
  ASSERT_EQ(errorMessage(loadRng(L, "x.", R2)), "<success>");
  EXPECT_TRUE(R2.getState() == R.getState());
  EXPECT_EQ(R2.normal(), R.normal());
}

TEST(CheckpointTest, ErrorsNameTheProblem) {
  Checkpoint C;
  C.setU64s("u", {1, 2});
  EXPECT_EQ(errorMessage(C.getF64s("nope")), "checkpoint has no entry 'nope'");
  EXPECT_EQ(errorMessage(C.getF64s("u")),
            "checkpoint entry 'u' is u64, expected f64");
  EXPECT_EQ(errorMessage(C.getU64("u")),
            "checkpoint entry 'u' has 2 values, expected 1");
  std::vector<uint8_t> B = C.serialize();
  B[B.size() - 6] ^= 0x40;
  EXPECT_EQ(errorMessage(Checkpoint::parse(B, "c.ckpt")),
            "c.ckpt: checksum mismatch (file corrupt)");
  EXPECT_EQ(errorMessage(Checkpoint::parse({1, 2, 3}, "c.ckpt")),
            "c.ckpt: not an mlgo checkpoint (bad magic)");
  // An unknown kind (byte 21: after the magic, version, count, the key's
  // length and "u") is named as a number, with a valid checksum.
  B = C.serialize();
  B[21] = 7;
  support::endian::write32le(B.data() + B.size() - 4,
                             crc32(ArrayRef<uint8_t>(B).drop_back(4)));
  EXPECT_EQ(errorMessage(Checkpoint::parse(B, "c.ckpt")),
            "c.ckpt: entry 'u' has unknown kind 7");
}

//===----------------------------------------------------------------------===//
// Resuming
//===----------------------------------------------------------------------===//

/// Reward of the ES test problem: -|theta - target|^2.
double reward(const std::vector<double> &T) {
  static const double Target[] = {1.0, -2.0, 0.5};
  double S = 0;
  for (size_t I = 0; I < 3; ++I)
    S += (T[I] - Target[I]) * (T[I] - Target[I]);
  return -S;
}

ESOptions esOptions() {
  ESOptions O;
  O.NumDirections = 4;
  O.Sigma = 0.1;
  O.Seed = 77;
  O.Optimizer.LearningRate = 0.05;
  return O;
}

/// One ES iteration of the test problem, and a learning-curve point.
void esIteration(EvolutionStrategies &ES, LearningCurve &Curve) {
  ESCandidates C = ES.proposePerturbations();
  std::vector<double> RP, RM;
  for (size_t I = 0; I < C.Plus.size(); ++I) {
    RP.push_back(reward(C.Plus[I]));
    RM.push_back(reward(C.Minus[I]));
  }
  cantFail(ES.update(RP, RM));
  Curve.addPoint(ES.getIteration(), {reward(ES.getTheta())});
}

Checkpoint snapshot(const EvolutionStrategies &ES, const LearningCurve &C) {
  Checkpoint K;
  ES.saveState(K);
  C.saveState(K);
  return K;
}

void saveOrExit(const Checkpoint &K, const std::string &Path) {
  if (Error E = K.save(Path)) {
    consumeError(std::move(E));
    _exit(2);
  }
}

TEST(CheckpointTest, ESResumesBitIdenticallyAfterKill9) {
  const unsigned Total = 30;
  // The uninterrupted run.
  EvolutionStrategies Ref({0, 0, 0}, esOptions());
  LearningCurve RefCurve("es", "iteration", {"reward"});
  for (unsigned I = 0; I < Total; ++I)
    esIteration(Ref, RefCurve);

  // A child checkpoints after every iteration and is killed with SIGKILL
  // in the middle of iteration 13 (after proposing, before updating).
  std::string P = tempPath("es.ckpt");
  pid_t Pid = fork();
  ASSERT_GE(Pid, 0);
  if (Pid == 0) {
    EvolutionStrategies ES({0, 0, 0}, esOptions());
    LearningCurve Curve("es", "iteration", {"reward"});
    for (unsigned I = 0;; ++I) {
      if (I == 12) {
        ES.proposePerturbations();
        saveOrExit(snapshot(ES, Curve), P);
        kill(getpid(), SIGKILL);
      }
      esIteration(ES, Curve);
      saveOrExit(snapshot(ES, Curve), P);
    }
  }
  int Status = 0;
  ASSERT_EQ(waitpid(Pid, &Status, 0), Pid);
  ASSERT_TRUE(WIFSIGNALED(Status));
  EXPECT_EQ(WTERMSIG(Status), SIGKILL);

  // Resume in this process from whatever the file holds.
  Checkpoint K = unwrap(Checkpoint::load(P));
  EvolutionStrategies ES({0, 0, 0}, esOptions());
  LearningCurve Curve("es", "iteration", {"reward"});
  ASSERT_EQ(errorMessage(ES.loadState(K)), "<success>");
  ASSERT_EQ(errorMessage(Curve.loadState(K)), "<success>");
  EXPECT_EQ(ES.getIteration(), 12u);
  EXPECT_TRUE(ES.hasPendingProposal());
  while (ES.getIteration() < Total)
    esIteration(ES, Curve);

  EXPECT_EQ(ES.getTheta(), Ref.getTheta()); // Exact equality of doubles.
  EXPECT_TRUE(snapshot(ES, Curve) == snapshot(Ref, RefCurve));
}

Dataset xorLikeData() {
  Dataset D({"a", "b"});
  Rng R(3);
  for (int I = 0; I < 400; ++I) {
    float A = static_cast<float>(R.normal()),
          B = static_cast<float>(R.normal());
    D.addRow({A, B}, (A > 0) != (B > 0) ? 1 : 0);
  }
  return D;
}

TEST(CheckpointTest, ClassifierResumesBitIdentically) {
  Dataset D = xorLikeData();
  ClassifierOptions O;
  O.Hidden = {8};
  O.Epochs = 6;
  O.BatchSize = 32;
  O.Optimizer.LearningRate = 0.01;
  O.Normalization.Log1p = false;
  auto Ref = unwrap(ClassifierTrainer::create(D, O));
  Ref->run();

  auto First = unwrap(ClassifierTrainer::create(D, O));
  First->runEpoch();
  First->runEpoch();
  Checkpoint K;
  First->saveState(K);
  std::string P = tempPath("clf.ckpt");
  ASSERT_EQ(errorMessage(K.save(P)), "<success>");
  First.reset();

  auto Resumed = unwrap(ClassifierTrainer::create(D, O));
  ASSERT_EQ(errorMessage(Resumed->loadState(unwrap(Checkpoint::load(P)))),
            "<success>");
  EXPECT_EQ(Resumed->getEpoch(), 2u);
  Resumed->run();
  EXPECT_EQ(Resumed->getParameters(), Ref->getParameters());
  EXPECT_EQ(unwrap(Resumed->exportModel()).toJSONString(),
            unwrap(Ref->exportModel()).toJSONString());
}

} // namespace
