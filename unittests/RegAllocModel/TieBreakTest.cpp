//===- unittests/RegAllocModel/TieBreakTest.cpp - The fit -----------------===//
//
// The tie-breaker (mlgo/RegAllocModel/TieBreak.h) on made-up eviction logs
// whose densities follow a known law: d = uses / size, every feature divided by
// its largest value in the decision as LLVM does. The fit must recover the
// law's signs from the logarithms, count what it reads and skips, and go
// into a model as the documented pipeline and scale.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/TieBreak.h"

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/SplitMix64.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::regalloc;

namespace {

constexpr size_t Columns = 33;

std::string message(Error E) { return E ? toString(std::move(E)) : "success"; }
template <typename T> std::string message(Expected<T> &&V) {
  return V ? "success" : toString(V.takeError());
}

struct Decision {
  float Uses[Columns] = {}, Size[Columns] = {};
  int64_t Mask[Columns] = {};
  bool Erase = false; ///< One column unspillable: the density is erased.
};

/// Writes \p Decisions as LLVM's eviction log would carry them.
std::string writeLog(StringRef Name, ArrayRef<Decision> Decisions,
                     bool WithDensity = true) {
  SmallString<128> Path;
  sys::fs::createTemporaryFile(Name, "log", Path);
  std::vector<TensorSpec> Specs;
  Specs.push_back(TensorSpec::createSpec<int64_t>("mask", {1, 33}));
  if (WithDensity)
    Specs.push_back(TensorSpec::createSpec<float>("use_def_density", {1, 33}));
  for (const char *F : getTieBreakFeatures())
    Specs.push_back(TensorSpec::createSpec<float>(F, {1, 33}));
  Specs.push_back(TensorSpec::createSpec<int64_t>("index_to_evict", {1}));
  std::error_code EC;
  auto OS = std::make_unique<raw_fd_ostream>(Path, EC);
  EXPECT_FALSE(EC);
  {
    LogWriter W(std::move(OS), Specs);
    W.switchContext("f");
    for (const Decision &D : Decisions) {
      float MaxUses = 0, MaxSize = 0, MaxDensity = 0;
      float Density[Columns];
      for (size_t C = 0; C < Columns; ++C) {
        Density[C] = D.Size[C] > 0 ? D.Uses[C] / D.Size[C] : 0;
        MaxUses = std::max(MaxUses, D.Uses[C]);
        MaxSize = std::max(MaxSize, D.Size[C]);
        MaxDensity = std::max(MaxDensity, Density[C]);
      }
      if (D.Erase) {
        Density[3] = std::numeric_limits<float>::infinity();
        MaxDensity = Density[3];
      }
      float Norm[Columns], Uses[Columns], Size[Columns], Half[Columns];
      for (size_t C = 0; C < Columns; ++C) {
        Norm[C] = Density[C] / MaxDensity; // inf / inf: NaN, as in LLVM
        Uses[C] = D.Uses[C] / MaxUses;
        Size[C] = D.Size[C] / MaxSize;
        Half[C] = 0.5f;
      }
      int64_t Advice = 32;
      std::vector<const void *> Buffers = {D.Mask};
      if (WithDensity)
        Buffers.push_back(Norm);
      for (StringRef F : getTieBreakFeatures())
        Buffers.push_back(F == "liverange_size"     ? Size
                          : F == "nr_defs_and_uses" ? Uses
                                                    : Half);
      Buffers.push_back(&Advice);
      W.logObservation(Buffers);
    }
  }
  return Path.str().str();
}

/// Decisions over 8 candidates and the live range, with random sizes and
/// uses; every fifth one erased, every seventh one with column 32 masked.
std::vector<Decision> makeDecisions(size_t N) {
  std::vector<Decision> Out(N);
  uint64_t S = 42;
  auto Uniform = [&](float Lo, float Hi) {
    return Lo + (Hi - Lo) * static_cast<float>(splitMix64(S) >> 40) * 0x1p-24f;
  };
  for (size_t I = 0; I < N; ++I) {
    Decision &D = Out[I];
    for (size_t C : {0, 1, 2, 3, 4, 5, 6, 7, 32}) {
      D.Mask[C] = 1;
      D.Uses[C] = std::round(Uniform(1, 50));
      D.Size[C] = std::round(Uniform(10, 1000));
    }
    D.Erase = I % 5 == 4;
    if (I % 7 == 6)
      D.Mask[32] = 0;
  }
  return Out;
}

size_t indexOf(StringRef Name) {
  ArrayRef<const char *> F = getTieBreakFeatures();
  for (size_t K = 0; K < F.size(); ++K)
    if (Name == F[K])
      return K;
  ADD_FAILURE() << Name.str();
  return 0;
}

TEST(TieBreakTest, RecoversTheWeightLawFromLogarithms) {
  std::vector<Decision> Ds = makeDecisions(200);
  std::string Path = writeLog("tie-fit", Ds);
  TieBreakFitter F;
  ASSERT_EQ(message(F.addLog(Path)), "success");
  Expected<TieBreakFit> Fit = F.fit();
  ASSERT_TRUE(bool(Fit)) << toString(Fit.takeError());
  // 200 decisions, 40 erased; of the other 160, 23 have column 32 masked
  // (I % 7 == 6 and not I % 5 == 4); 137 x 8 candidate pairs, none tied.
  EXPECT_EQ(Fit->Observations, 200u);
  EXPECT_EQ(Fit->Erased, 40u);
  EXPECT_EQ(Fit->Pairs, 137u * 8u);
  // d = uses / size: a longer live range is lighter (evict it), one with
  // more uses heavier; constant features carry nothing.
  double WSize = Fit->Weights[indexOf("liverange_size")];
  double WUses = Fit->Weights[indexOf("nr_defs_and_uses")];
  EXPECT_GT(WSize, 0.1);
  EXPECT_LT(WUses, -0.1);
  EXPECT_NEAR(WSize / -WUses, 1.0, 0.1);
  for (StringRef Other : {"weighed_reads_by_max", "hottest_bb_freq_by_max"})
    EXPECT_EQ(Fit->Weights[indexOf(Other)], 0.0) << Other.str();
  EXPECT_GT(Fit->Accuracy, 0.95);
  sys::fs::remove(Path);
}

TEST(TieBreakTest, NamesWhatItCannotUse) {
  std::string NoDensity = writeLog("tie-nodensity", makeDecisions(3), false);
  TieBreakFitter F;
  EXPECT_EQ(message(F.addLog(NoDensity)),
            NoDensity + ": not an eviction log: no feature "
                        "'use_def_density' of 33 elements");
  std::string Few = writeLog("tie-few", makeDecisions(4));
  ASSERT_EQ(message(F.addLog(Few)), "success");
  EXPECT_EQ(message(F.fit()), "32 (candidate, live range) pairs with an "
                              "intact density in 4 decisions: too few to "
                              "fit the tie-breaker's 11 weights");
  EXPECT_EQ(message(F.addLog("/nonexistent/e.log")),
            "cannot open '/nonexistent/e.log': No such file or directory");
  sys::fs::remove(NoDensity);
  sys::fs::remove(Few);
}

/// A per-column model reading the density and every tie-break feature.
Model makeBase() {
  Model M;
  M.Metadata.Name = "base";
  auto Add = [&](StringRef Name, Pipeline P) {
    M.Inputs.push_back(ModelInput{
        TensorSpec::createSpec<float>(Name.str(), {1, 33}), {std::move(P)}});
  };
  M.Inputs.push_back(
      ModelInput{TensorSpec::createSpec<int64_t>("mask", {1, 33}), {}});
  Add("use_def_density", {});
  for (const char *F : getTieBreakFeatures())
    Add(F, {});
  DenseLayer L;
  L.In = 1 + getTieBreakFeatures().size();
  L.Out = 1;
  L.Weights.assign(L.In, 0.0f);
  L.Weights[0] = -1;
  L.Bias = {0};
  M.Layers.push_back(L);
  M.OutputSpec = TensorSpec::createSpec<int64_t>("index_to_evict", {1});
  M.Decision.TheKind = DecisionRule::Kind::MaskedArgmax;
  M.Decision.Columns = 33;
  M.Decision.MaskName = "mask";
  return M;
}

TEST(TieBreakTest, GoesIntoAModelAsThePipelineAtItsScale) {
  Model Base = makeBase();
  ASSERT_EQ(message(Base.validate()), "success");
  TieBreakFit Fit;
  for (size_t K = 0; K < getTieBreakFeatures().size(); ++K)
    Fit.Weights.push_back(0.25 * static_cast<double>(K + 1));
  Expected<Model> M = addTieBreak(Base, Fit);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->Layers[0].Weights[0], -1.0f); // the main rule stays
  for (size_t K = 0; K < Fit.Weights.size(); ++K) {
    const ModelInput &In = M->Inputs[2 + K];
    ASSERT_EQ(In.Pipelines.size(), 1u);
    const Pipeline &P = In.Pipelines[0];
    ASSERT_EQ(P.size(), 3u);
    EXPECT_EQ(P[0].TheOp, PreprocessStep::Op::NanTo);
    EXPECT_EQ(P[0].Value, 0.0);
    EXPECT_EQ(P[1].TheOp, PreprocessStep::Op::Standardize);
    EXPECT_EQ(P[1].Mean, 0.0);
    EXPECT_EQ(P[1].StdDev, 1e-6);
    EXPECT_EQ(P[2].TheOp, PreprocessStep::Op::Log1p);
    EXPECT_EQ(M->Layers[0].Weights[1 + K],
              static_cast<float>(TieBreakScale * Fit.Weights[K]));
  }
  // Applying it again replaces, it does not stack.
  Expected<Model> Again = addTieBreak(*M, Fit);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(Again->toJSONString(), M->toJSONString());

  Model Two = Base;
  Two.Inputs[2].Pipelines.push_back({});
  Two.Layers[0].In += 1;
  Two.Layers[0].Weights.push_back(0);
  EXPECT_EQ(message(addTieBreak(Two, Fit)),
            "the model reads 'weighed_reads_by_max' through 2 pipelines; the "
            "tie-breaker replaces exactly one");
  Model Missing = Base;
  Missing.Inputs.pop_back();
  Missing.Layers[0].In -= 1;
  Missing.Layers[0].Weights.pop_back();
  EXPECT_EQ(message(addTieBreak(Missing, Fit)),
            "the model does not read 'nr_rematerializable', which the "
            "tie-breaker needs");
}

} // namespace
