//===- unittests/Model/PolicyRunnerTest.cpp - Interpreted vs embedded -----===//
//
// The two runners over one model: the interpreter must agree with the C++
// generated at build time (mlgo_embed_model) to the bit, on random and
// extreme feature values; both must honour the ModelRunner contract (inputs
// untouched, buffers stable) and versioning in both directions (extra
// compiler features ignored, missing or mistyped model features rejected).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Model/ModelSynth.h"
#include "mlgo/Model/SplitMix64.h"

#include "mlgo/embedded/columns_test.h"
#include "mlgo/embedded/inline_oz.h"
#include "mlgo/embedded/mixed_test.h"

#include "llvm/Analysis/InlineModelFeatureMaps.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

using llvm::Expected;
using llvm::toString;
using namespace mlgo;

namespace {

using MixedModel = mlgo::embedded::mixed_test::Model;

/// Feature values by name, as raw bytes (at most 3 x 8 bytes here).
using FeatureValues = std::map<std::string, std::array<unsigned char, 24>>;

class ValueGen {
public:
  explicit ValueGen(uint64_t Seed) : State(Seed) {}
  uint64_t next() { return splitMix64(State); }

  int64_t integer() {
    static const int64_t Extremes[] = {std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min() + 1,
                                       std::numeric_limits<int64_t>::max() - 1,
                                       0,
                                       1,
                                       -1,
                                       (int64_t(1) << 53) + 1,
                                       -(int64_t(1) << 53) - 1,
                                       std::numeric_limits<int32_t>::min(),
                                       std::numeric_limits<int32_t>::max(),
                                       1000000007,
                                       -99999999999LL};
    switch (next() % 5) {
    case 0:
      return Extremes[next() % std::size(Extremes)];
    case 1:
    case 2:
      return static_cast<int64_t>(next() % 1200) - 100;
    default: {
      int64_t V = static_cast<int64_t>(next() >> (next() % 64));
      return next() % 2 ? -V : V;
    }
    }
  }

  double real() {
    static const double Extremes[] = {std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::max(),
                                      -std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<float>::max(),
                                      0.0,
                                      -0.0,
                                      1e30,
                                      -1e-30};
    switch (next() % 4) {
    case 0:
      return Extremes[next() % std::size(Extremes)];
    case 1: {
      uint64_t Bits = next();
      double D;
      std::memcpy(&D, &Bits, 8);
      return D;
    }
    default:
      return static_cast<double>(static_cast<int64_t>(next() % 2000) - 1000) /
             8.0;
    }
  }

  /// A random value for every element of every spec.
  FeatureValues make(const std::vector<TensorSpec> &Specs) {
    FeatureValues Values;
    for (const TensorSpec &S : Specs) {
      std::array<unsigned char, 24> Bytes{};
      for (size_t E = 0; E < S.getElementCount(); ++E) {
        unsigned char *P = Bytes.data() + E * S.getElementByteSize();
        switch (S.type()) {
        case TensorType::Float: {
          float F = static_cast<float>(real());
          std::memcpy(P, &F, 4);
          break;
        }
        case TensorType::Double: {
          double D = real();
          std::memcpy(P, &D, 8);
          break;
        }
        default: {
          int64_t I = integer();
          std::memcpy(P, &I, S.getElementByteSize()); // Little-endian.
          break;
        }
        }
      }
      Values[S.name()] = Bytes;
    }
    return Values;
  }

private:
  uint64_t State;
};

void fill(ModelRunner &R, const FeatureValues &Values) {
  for (size_t I = 0; I < R.getNumInputs(); ++I) {
    const TensorSpec &S = R.getInputSpecs()[I];
    auto It = Values.find(S.name());
    ASSERT_NE(It, Values.end()) << S.name();
    std::memcpy(R.getTensorUntyped(I), It->second.data(),
                S.getTotalTensorBufferSize());
  }
}

std::shared_ptr<const Model> loadMixed() {
  Expected<Model> M = Model::load(MLGO_MIXED_TEST_MODEL);
  EXPECT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  return std::make_shared<const Model>(std::move(*M));
}

/// The compiler's view with more features than the model, in another order.
std::vector<TensorSpec> getShuffledInputsWithExtras() {
  std::vector<TensorSpec> Specs = getMixedTestInputs();
  std::reverse(Specs.begin(), Specs.end());
  Specs.insert(Specs.begin() + 2,
               TensorSpec::createSpec<int64_t>("extra_feature", {1}));
  Specs.push_back(getModelSelectorSpec());
  return Specs;
}

template <typename T> T unwrap(Expected<T> E) {
  if (!E) {
    ADD_FAILURE() << toString(E.takeError());
    return T();
  }
  return std::move(*E);
}

uint32_t bitsOf(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

TEST(PolicyRunnerTest, GeneratedCodeDescribesTheModel) {
  std::shared_ptr<const Model> M = loadMixed();
  ASSERT_EQ(MixedModel::NumInputs, M->Inputs.size());
  for (size_t K = 0; K < MixedModel::NumInputs; ++K) {
    EXPECT_EQ(MixedModel::InputNames[K], M->Inputs[K].Spec.name());
    EXPECT_EQ(MixedModel::InputSpecs[K], M->Inputs[K].Spec.toJSONString());
  }
  EXPECT_EQ(MixedModel::NumParameters, M->getNumParameters());
  EXPECT_STREQ(MixedModel::Name, "mixed-test");
}

TEST(PolicyRunnerTest, InterpreterAndGeneratedCodeAgreeToTheBit) {
  std::shared_ptr<const Model> M = loadMixed();
  std::vector<std::unique_ptr<PolicyRunner>> Runners;
  Runners.push_back(unwrap(InterpretedRunner::create(M, getMixedTestInputs())));
  Runners.push_back(
      unwrap(EmbeddedRunner::create<MixedModel>(getMixedTestInputs())));
  Runners.push_back(
      unwrap(InterpretedRunner::create(M, getShuffledInputsWithExtras())));
  Runners.push_back(unwrap(
      EmbeddedRunner::create<MixedModel>(getShuffledInputsWithExtras())));
  for (auto &R : Runners)
    ASSERT_TRUE(R);

  ValueGen Gen(2024);
  std::vector<TensorSpec> All = getShuffledInputsWithExtras();
  size_t NaNs = 0, Ones = 0;
  const size_t N = 120000;
  for (size_t Iter = 0; Iter < N; ++Iter) {
    FeatureValues Values = Gen.make(All);
    int64_t Decisions[4];
    uint32_t Logits[4];
    for (size_t R = 0; R < Runners.size(); ++R) {
      fill(*Runners[R], Values);
      Decisions[R] = Runners[R]->evaluate<int64_t>();
      Logits[R] = bitsOf(Runners[R]->getLastLogit());
    }
    for (size_t R = 1; R < Runners.size(); ++R) {
      ASSERT_EQ(Logits[0], Logits[R])
          << "runner " << R << " at vector " << Iter << ": "
          << Runners[0]->getLastLogit() << " vs " << Runners[R]->getLastLogit();
      ASSERT_EQ(Decisions[0], Decisions[R]);
    }
    NaNs += std::isnan(Runners[0]->getLastLogit());
    Ones += Decisions[0];
  }
  // The inputs must exercise the model: both decisions occur, and many
  // logits are numbers (NaN inputs and inf - inf make the rest NaN, which
  // must agree to the bit too).
  EXPECT_GT(Ones, N / 20);
  EXPECT_LT(Ones, N - N / 20);
  EXPECT_GT(NaNs, 0u);
  EXPECT_LT(NaNs, N - N / 4);
}

TEST(PolicyRunnerTest, EvaluateLeavesInputsAndBuffersAlone) {
  std::shared_ptr<const Model> M = loadMixed();
  std::vector<std::unique_ptr<PolicyRunner>> Runners;
  Runners.push_back(
      unwrap(InterpretedRunner::create(M, getShuffledInputsWithExtras())));
  Runners.push_back(unwrap(
      EmbeddedRunner::create<MixedModel>(getShuffledInputsWithExtras())));
  ValueGen Gen(7);
  for (auto &R : Runners) {
    ASSERT_TRUE(R);
    std::vector<void *> Buffers;
    for (size_t I = 0; I < R->getNumInputs(); ++I)
      Buffers.push_back(R->getTensorUntyped(I));
    for (int Iter = 0; Iter < 100; ++Iter) {
      FeatureValues Values = Gen.make(R->getInputSpecs());
      fill(*R, Values);
      R->evaluate<int64_t>();
      for (size_t I = 0; I < R->getNumInputs(); ++I) {
        const TensorSpec &S = R->getInputSpecs()[I];
        EXPECT_EQ(R->getTensorUntyped(I), Buffers[I]);
        EXPECT_EQ(std::memcmp(R->getTensorUntyped(I), Values[S.name()].data(),
                              S.getTotalTensorBufferSize()),
                  0)
            << S.name();
      }
    }
  }
}

TEST(PolicyRunnerTest, ExtraCompilerFeaturesDoNotMatter) {
  std::shared_ptr<const Model> M = loadMixed();
  auto R = unwrap(InterpretedRunner::create(M, getShuffledInputsWithExtras()));
  ASSERT_TRUE(R);
  ValueGen Gen(99);
  fill(*R, Gen.make(getShuffledInputsWithExtras()));
  R->evaluate<int64_t>();
  uint32_t Before = bitsOf(R->getLastLogit());
  size_t Extra = 2; // "extra_feature", see getShuffledInputsWithExtras.
  ASSERT_EQ(R->getInputSpecs()[Extra].name(), "extra_feature");
  *R->getTensor<int64_t>(Extra) = 123456789;
  writeModelSelector("anything", R->getTensor<uint64_t>(R->getNumInputs() - 1));
  R->evaluate<int64_t>();
  EXPECT_EQ(bitsOf(R->getLastLogit()), Before);
}

TEST(PolicyRunnerTest, MissingOrMistypedFeaturesAreErrors) {
  std::shared_ptr<const Model> M = loadMixed();
  std::vector<TensorSpec> Missing = getMixedTestInputs();
  Missing.erase(Missing.begin() + 2); // i32
  const char *MissingMsg = "model 'mixed-test' needs input 'i32' (int32_t "
                           "[1]), which the compiler does not offer";
  auto I1 = InterpretedRunner::create(M, Missing);
  ASSERT_FALSE(static_cast<bool>(I1));
  EXPECT_EQ(toString(I1.takeError()), MissingMsg);
  auto E1 = EmbeddedRunner::create<MixedModel>(Missing);
  ASSERT_FALSE(static_cast<bool>(E1));
  EXPECT_EQ(toString(E1.takeError()), MissingMsg);

  std::vector<TensorSpec> Mistyped = getMixedTestInputs();
  Mistyped[2] = TensorSpec::createSpec<int64_t>("i32", {1});
  const char *TypeMsg = "model 'mixed-test' needs input 'i32' as int32_t "
                        "[1], but the compiler offers int64_t [1]";
  auto I2 = InterpretedRunner::create(M, Mistyped);
  ASSERT_FALSE(static_cast<bool>(I2));
  EXPECT_EQ(toString(I2.takeError()), TypeMsg);
  auto E2 = EmbeddedRunner::create<MixedModel>(Mistyped);
  ASSERT_FALSE(static_cast<bool>(E2));
  EXPECT_EQ(toString(E2.takeError()), TypeMsg);

  std::vector<TensorSpec> Reshaped = getMixedTestInputs();
  Reshaped[6] = TensorSpec::createSpec<int64_t>("i64_vec", {2});
  auto I3 = InterpretedRunner::create(M, Reshaped);
  ASSERT_FALSE(static_cast<bool>(I3));
  EXPECT_EQ(toString(I3.takeError()),
            "model 'mixed-test' needs input 'i64_vec' as int64_t [3], but "
            "the compiler offers int64_t [2]");
}

TEST(PolicyRunnerTest, InlineOzOnlyInlinesMoreThanTheHeuristic) {
  // The shipped model inverts only the heuristic's refusals
  // (flip_scope "no-inline-only" in models/inline-oz/recipe.json): wherever
  // inlining_default is 1 it inlines, whatever the other features say. The
  // interpreted and embedded runners agree to the bit on the logit.
  auto Shared =
      unwrap(Model::load(MLGO_SOURCE_DIR "/models/inline-oz/model.json"));
  std::vector<mlgo::TensorSpec> Specs = Shared.getInputSpecs();
  auto Interp = unwrap(InterpretedRunner::create(
      MLGO_SOURCE_DIR "/models/inline-oz/model.json", Specs));
  auto Embedded =
      unwrap(EmbeddedRunner::create<mlgo::embedded::inline_oz::Model>(Specs));
  EXPECT_EQ(Embedded->getModelName(), "inline-oz");
  size_t Default = Specs.size() - 1;
  ASSERT_EQ(Specs[Default].name(), "inlining_default");
  uint64_t State = 12345;
  size_t Inverted = 0;
  for (int Trial = 0; Trial < 2000; ++Trial) {
    int64_t Dflt = Trial % 2;
    for (size_t I = 0; I < Default; ++I) {
      // Feature values spanning 0 .. ~2^(0..15), like the compiler's.
      uint64_t R = splitMix64(State);
      int64_t V = static_cast<int64_t>((R >> 8) % (1u << (R % 16)));
      *Interp->getTensor<int64_t>(I) = V;
      *Embedded->getTensor<int64_t>(I) = V;
    }
    *Interp->getTensor<int64_t>(Default) = Dflt;
    *Embedded->getTensor<int64_t>(Default) = Dflt;
    int64_t A = Interp->evaluate<int64_t>();
    int64_t B = Embedded->evaluate<int64_t>();
    EXPECT_EQ(A, B);
    EXPECT_EQ(Interp->getLastLogit(), Embedded->getLastLogit());
    if (Dflt == 1) {
      EXPECT_EQ(A, 1) << "trial " << Trial;
    }
    Inverted += Dflt == 0 && A == 1;
  }
  // And it does invert some refusals.
  EXPECT_GT(Inverted, 0u);
}

TEST(PolicyRunnerTest, ExplorationSamplesReproducibly) {
  std::shared_ptr<const Model> M = loadMixed();
  PolicyRunnerOptions Options;
  Options.ExplorationTemperature = 2.0f;
  Options.Seed = 42;
  auto Interp =
      unwrap(InterpretedRunner::create(M, getMixedTestInputs(), Options));
  auto Embedded =
      unwrap(EmbeddedRunner::create<MixedModel>(getMixedTestInputs(), Options));
  ASSERT_TRUE(Interp && Embedded);
  ValueGen Gen(5);
  uint64_t State = 42;
  size_t Ones = 0;
  for (int Iter = 0; Iter < 2000; ++Iter) {
    FeatureValues Values = Gen.make(getMixedTestInputs());
    fill(*Interp, Values);
    fill(*Embedded, Values);
    int64_t D1 = Interp->evaluate<int64_t>();
    int64_t D2 = Embedded->evaluate<int64_t>();
    ASSERT_EQ(D1, D2);
    float P = 1.0f / (1.0f + std::exp(-Interp->getLastLogit() / 2.0f));
    // A NaN logit (NaN features) gives a NaN probability, and so never
    // inlines; the NaN's sign bit differs between compilers (the GCC build
    // and the clang-19 -O1 sanitizer build of this test disagree).
    if (std::isnan(P))
      EXPECT_TRUE(std::isnan(Interp->getLastProbability()));
    else
      EXPECT_EQ(bitsOf(Interp->getLastProbability()), bitsOf(P));
    float U = PolicyRunner::uniformFromState(State);
    EXPECT_EQ(D1, U < P ? 1 : 0);
    Ones += D1;
  }
  EXPECT_GT(Ones, 0u);
  EXPECT_LT(Ones, 2000u);

  Options.ExplorationTemperature = 0.0f;
  auto Bad = InterpretedRunner::create(M, getMixedTestInputs(), Options);
  ASSERT_FALSE(static_cast<bool>(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "exploration temperature must be positive and finite");
}

} // namespace

namespace {

using ColumnsModel = mlgo::embedded::columns_test::Model;

/// Per-column inputs (getColumnsTestInputs) as typed vectors.
struct ColumnValues {
  std::vector<int64_t> Mask, Stage;
  std::vector<float> Weight;
  float Progress = 0;

  void fill(ModelRunner &R) const {
    for (size_t I = 0; I < R.getNumInputs(); ++I) {
      llvm::StringRef Name = R.getInputSpecs()[I].name();
      void *To = R.getTensorUntyped(I);
      if (Name == "mask")
        std::memcpy(To, Mask.data(), Mask.size() * 8);
      else if (Name == "stage")
        std::memcpy(To, Stage.data(), Stage.size() * 8);
      else if (Name == "weight")
        std::memcpy(To, Weight.data(), Weight.size() * 4);
      else if (Name == "progress")
        std::memcpy(To, &Progress, 4);
    }
  }
};

ColumnValues makeColumns(ValueGen &Gen) {
  ColumnValues V;
  for (size_t C = 0; C < ColumnsTestCount; ++C) {
    V.Mask.push_back(Gen.next() % 2 ? static_cast<int64_t>(Gen.next() % 3) : 0);
    V.Stage.push_back(Gen.integer());
    V.Weight.push_back(static_cast<float>(Gen.real()));
  }
  V.Progress = static_cast<float>(Gen.real());
  return V;
}

std::shared_ptr<const Model> loadColumns() {
  Expected<Model> M = Model::load(MLGO_COLUMNS_TEST_MODEL);
  EXPECT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  return std::make_shared<const Model>(std::move(*M));
}

} // namespace

TEST(PolicyRunnerTest, PerColumnModelsAgreeToTheBitAndObeyTheMask) {
  std::shared_ptr<const Model> M = loadColumns();
  ASSERT_TRUE(M->Decision.isPerColumn());
  EXPECT_EQ(ColumnsModel::DecisionRule, 2);
  EXPECT_EQ(ColumnsModel::Columns, ColumnsTestCount);
  EXPECT_STREQ(ColumnsModel::MaskName, "mask");
  std::vector<TensorSpec> Specs = getColumnsTestInputs();
  std::reverse(Specs.begin(), Specs.end());
  auto Interpreted = unwrap(InterpretedRunner::create(M, Specs));
  auto Embedded = unwrap(EmbeddedRunner::create<ColumnsModel>(Specs));
  ASSERT_TRUE(Interpreted && Embedded);
  ModelEvaluator Evaluator(*M);

  ValueGen Gen(33);
  size_t NoneAllowed = 0, NaNLogits = 0;
  std::vector<size_t> Chosen(ColumnsTestCount, 0);
  const size_t N = 40000;
  for (size_t Iter = 0; Iter < N; ++Iter) {
    ColumnValues V = makeColumns(Gen);
    V.fill(*Interpreted);
    V.fill(*Embedded);
    int64_t A = Interpreted->evaluate<int64_t>();
    int64_t B = Embedded->evaluate<int64_t>();
    ASSERT_EQ(A, B) << "vector " << Iter;
    ASSERT_EQ(bitsOf(Interpreted->getLastLogit()),
              bitsOf(Embedded->getLastLogit()));
    ASSERT_GE(A, 0);
    ASSERT_LT(A, static_cast<int64_t>(ColumnsTestCount));
    ++Chosen[A];

    // The rule, spelled out again on the evaluator's per-column logits.
    const void *Inputs[] = {V.Mask.data(), V.Weight.data(), V.Stage.data(),
                            &V.Progress};
    int64_t Expected = -1;
    float Best = 0;
    for (size_t C = 0; C < ColumnsTestCount; ++C) {
      float L = Evaluator.evaluate(Inputs, C);
      NaNLogits += std::isnan(L);
      if (!V.Mask[C])
        continue;
      if (Expected < 0 || (!std::isnan(L) && (std::isnan(Best) || L > Best))) {
        Expected = static_cast<int64_t>(C);
        Best = L;
      }
    }
    if (Expected < 0) {
      ++NoneAllowed;
      Expected = static_cast<int64_t>(ColumnsTestCount) - 1;
    } else {
      ASSERT_NE(V.Mask[A], 0) << "a masked column was chosen at " << Iter;
    }
    ASSERT_EQ(A, Expected) << "vector " << Iter;
  }
  // Every column wins sometimes; some vectors allow nothing; nan_to keeps
  // most logits numbers even though a quarter of the weights are NaN/inf.
  for (size_t C = 0; C < ColumnsTestCount; ++C)
    EXPECT_GT(Chosen[C], N / 100) << "column " << C;
  EXPECT_GT(NoneAllowed, 0u);
  EXPECT_LT(NaNLogits, N * ColumnsTestCount / 4);
}

TEST(PolicyRunnerTest, PerColumnModelsRefuseExploration) {
  PolicyRunnerOptions Opts;
  Opts.ExplorationTemperature = 1.0f;
  auto R =
      InterpretedRunner::create(loadColumns(), getColumnsTestInputs(), Opts);
  ASSERT_FALSE(static_cast<bool>(R));
  EXPECT_EQ(toString(R.takeError()),
            "model 'columns-test' chooses among columns; exploration by "
            "sampling is for one-logit models");
}

// computeMLPInputs gives exactly the vector evaluate() feeds the layers:
// the layers applied by hand to it, in the order Model.h spells, give the
// evaluator's logit to the bit, column by column, masked columns too.
TEST(PolicyRunnerTest, MLPInputsAreWhatTheLayersSee) {
  std::shared_ptr<const Model> M = loadColumns();
  ModelEvaluator Evaluator(*M);
  ValueGen Gen(5);
  size_t Checked = 0;
  for (size_t Iter = 0; Iter < 200; ++Iter) {
    ColumnValues V = makeColumns(Gen);
    const void *Inputs[] = {V.Mask.data(), V.Weight.data(), V.Stage.data(),
                            &V.Progress};
    for (size_t C = 0; C < ColumnsTestCount; ++C) {
      std::vector<float> X = Evaluator.computeMLPInputs(Inputs, C);
      ASSERT_EQ(X.size(), M->getNumMLPInputs());
      for (const DenseLayer &L : M->Layers) {
        std::vector<float> Y(L.Out);
        for (size_t O = 0; O < L.Out; ++O) {
          float Acc = L.Bias[O];
          for (size_t I = 0; I < L.In; ++I)
            Acc = Acc + L.weight(O, I) * X[I];
          switch (L.Act) {
          case Activation::Relu:
            Acc = Acc > 0.0f ? Acc : 0.0f;
            break;
          case Activation::Tanh:
            Acc = std::tanh(Acc);
            break;
          case Activation::Sigmoid:
            Acc = 1.0f / (1.0f + std::exp(-Acc));
            break;
          case Activation::Exp:
            Acc = std::exp(Acc);
            break;
          case Activation::Linear:
            break;
          }
          Y[O] = Acc;
        }
        X = std::move(Y);
      }
      float L = Evaluator.evaluate(Inputs, C);
      if (std::isnan(L)) {
        ASSERT_TRUE(std::isnan(X[0])) << "vector " << Iter << " column " << C;
        continue;
      }
      ASSERT_EQ(bitsOf(X[0]), bitsOf(L))
          << "vector " << Iter << " column " << C;
      ++Checked;
    }
  }
  EXPECT_GT(Checked, 200u * ColumnsTestCount / 2);
}
