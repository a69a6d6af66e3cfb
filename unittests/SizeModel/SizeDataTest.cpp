//===- unittests/SizeModel/SizeDataTest.cpp - IR2Native's data and fit ----===//
//
// The dataset file round-trips and refuses other feature lists; the fit
// recovers a known linear law of bytes per feature, is deterministic to
// the byte, and its model evaluates (through the interpreter) to what the
// law says; the accuracy measures are the documented quantiles.
//
//===----------------------------------------------------------------------===//

#include "mlgo/SizeModel/SizeData.h"

#include "mlgo/Model/SplitMix64.h"
#include "mlgo/SizeModel/SizeFeatures.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <unistd.h>

#include <cmath>

using namespace llvm;
using namespace mlgo;

namespace {

size_t feature(SizeFeature F) { return static_cast<size_t>(F); }

/// Functions whose size is exactly 12 + 3 * instructions + 5 * calls.
std::vector<SizeSample> makeSamples(size_t N, StringRef Package) {
  std::vector<SizeSample> Samples;
  uint64_t State = 42;
  for (size_t I = 0; I < N; ++I) {
    SizeSample S;
    S.Module = (Package + "/m" + Twine(I % 5) + ".o").str();
    S.Function = ("f" + Twine(I)).str();
    S.Features.assign(NumSizeFeatures, 0);
    int64_t Instructions = 1 + splitMix64(State) % 200;
    int64_t Calls = splitMix64(State) % 10;
    S.Features[feature(SizeFeature::instructions)] = Instructions;
    S.Features[feature(SizeFeature::calls)] = Calls;
    S.NativeSize = 12 + 3 * Instructions + 5 * Calls;
    Samples.push_back(std::move(S));
  }
  return Samples;
}

TEST(SizeFeaturesTest, NamesAndSpecsComeFromOneTable) {
  ArrayRef<StringRef> Names = getSizeFeatureNames();
  ASSERT_EQ(Names.size(), NumSizeFeatures);
  EXPECT_EQ(Names[0], "tti_code_size");
  EXPECT_EQ(Names[feature(SizeFeature::op_ret)], "op_ret");
  EXPECT_EQ(Names.back(), "op_freeze");
  std::vector<TensorSpec> Specs = getSizeFeatureSpecs();
  ASSERT_EQ(Specs.size(), NumSizeFeatures);
  EXPECT_EQ(Specs[1], TensorSpec::createSpec<int64_t>("instructions", {1}));
}

TEST(SizeDataTest, DatasetRoundTripsAndRefusesOtherColumns) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("sizedata", Dir));
  SizeDataset Data;
  Data.CorpusHash = "0123";
  Data.Samples = makeSamples(7, "p");
  std::string Path = (Dir + "/data.tsv").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    writeSizeDataset(OS, Data);
  }
  Expected<SizeDataset> Back = readSizeDataset(Path);
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->CorpusHash, "0123");
  ASSERT_EQ(Back->Samples.size(), 7u);
  EXPECT_EQ(Back->Samples[3].Function, "f3");
  EXPECT_EQ(Back->Samples[3].NativeSize, Data.Samples[3].NativeSize);
  EXPECT_EQ(Back->Samples[3].Features, Data.Samples[3].Features);
  EXPECT_EQ(getSamplePackage(Back->Samples[0]), "p");

  std::string Bad = (Dir + "/bad.tsv").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Bad, EC);
    OS << "# ir2native dataset v1, corpus x\nmodule\tfunction\tnative_size\t"
          "instructions\n";
  }
  Expected<SizeDataset> Refused = readSizeDataset(Bad);
  ASSERT_FALSE(bool(Refused));
  EXPECT_EQ(toString(Refused.takeError()),
            Bad + ":2: feature column 1 is 'instructions', this mlgo's is "
                  "'tti_code_size' (written with another feature list: "
                  "rebuild the dataset with `mlgo ir2native dataset`)");
  sys::fs::remove_directories(Dir);
}

TEST(SizeDataTest, FitRecoversALinearLawDeterministically) {
  std::vector<SizeSample> Samples = makeSamples(300, "train");
  std::vector<const SizeSample *> Train;
  for (const SizeSample &S : Samples)
    Train.push_back(&S);
  SizeRecipe Recipe;
  Recipe.Ridge = 0;
  Expected<Model> M = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->Metadata.CorpusHash, "hash");
  EXPECT_EQ(M->OutputSpec.name(), "native_size");
  ASSERT_FALSE(bool(checkSizeModel(*M, "m")));
  Expected<SizePredictorOverSamples> P = SizePredictorOverSamples::create(*M);
  ASSERT_TRUE(bool(P));
  for (const SizeSample &S : makeSamples(20, "other"))
    EXPECT_NEAR(P->predict(S), static_cast<double>(S.NativeSize), 0.01);
  Expected<Model> Again = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(M->toJSONString(), Again->toJSONString());

  Recipe.LogFeatures = true;
  Expected<Model> Logs = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(Logs));
  EXPECT_EQ(Logs->Inputs[0].Pipelines.size(), 2u);
  EXPECT_EQ(Logs->getNumMLPInputs(), 2 * NumSizeFeatures);

  Expected<Model> Empty = fitSizeModel({}, Recipe, "hash", "test");
  ASSERT_FALSE(bool(Empty));
  EXPECT_EQ(toString(Empty.takeError()),
            "no training samples (every package held out, or an empty "
            "dataset)");
}

/// 4 * 2^calls * (1 + instructions)^0.5: linear in log space over calls and
/// log1p(instructions).
double multiplicativeLaw(const SizeSample &S) {
  double Calls = S.Features[feature(SizeFeature::calls)];
  double Instructions = S.Features[feature(SizeFeature::instructions)];
  return 4 * std::exp2(Calls) * std::sqrt(1 + Instructions);
}

/// 200 samples sized 1000 times multiplicativeLaw.
std::vector<SizeSample> multiplicativeSamples() {
  std::vector<SizeSample> Samples = makeSamples(200, "p");
  for (SizeSample &S : Samples)
    S.NativeSize =
        static_cast<uint64_t>(std::llround(multiplicativeLaw(S) * 1000));
  return Samples;
}

TEST(SizeDataTest, LogTargetFitsAMultiplicativeLawThroughExp) {
  // The law is linear in log space, so a log-target fit recovers it.
  std::vector<SizeSample> Samples = multiplicativeSamples();
  std::vector<const SizeSample *> Train;
  for (const SizeSample &S : Samples)
    Train.push_back(&S);
  SizeRecipe Recipe;
  Recipe.Ridge = 0;
  Recipe.LogFeatures = true;
  Recipe.LogTarget = true;
  Expected<Model> M = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  ASSERT_EQ(M->Layers.size(), 1u);
  EXPECT_EQ(M->Layers[0].Act, Activation::Exp);
  EXPECT_NE(M->toJSONString().find("\"activation\": \"exp\""),
            std::string::npos);
  Expected<SizePredictorOverSamples> P = SizePredictorOverSamples::create(*M);
  ASSERT_TRUE(bool(P));
  for (const SizeSample &S : Samples)
    EXPECT_NEAR(P->predict(S) / (multiplicativeLaw(S) * 1000), 1.0, 1e-3)
        << S.Function;
}

TEST(SizeDataTest, MLPFitsAMultiplicativeLawDeterministically) {
  // The law of LogTargetFitsAMultiplicativeLawThroughExp, fitted by a relu
  // network with a log target and absolute error.
  std::vector<SizeSample> Samples = multiplicativeSamples();
  std::vector<const SizeSample *> Train;
  for (const SizeSample &S : Samples)
    Train.push_back(&S);
  SizeRecipe Recipe;
  Recipe.LogFeatures = true;
  Recipe.LogTarget = true;
  // Built aside and copied in: clang-19 takes the nested MLP, whose members
  // have initializers, for not default-constructible in optional::emplace.
  SizeRecipe::MLP Network;
  Network.Hidden = {8};
  Network.Epochs = 300;
  Network.BatchSize = 16;
  Network.LearningRate = 0.01;
  Recipe.Network = Network;
  Expected<Model> M = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  ASSERT_EQ(M->Layers.size(), 2u);
  EXPECT_EQ(M->Layers[0].Act, Activation::Relu);
  EXPECT_EQ(M->Layers[0].In, 2 * NumSizeFeatures);
  EXPECT_EQ(M->Layers[1].Act, Activation::Exp);
  Expected<SizePredictorOverSamples> P = SizePredictorOverSamples::create(*M);
  ASSERT_TRUE(bool(P));
  std::vector<double> Predicted, Actual;
  for (const SizeSample &S : Samples) {
    Predicted.push_back(P->predict(S));
    Actual.push_back(static_cast<double>(S.NativeSize));
  }
  EXPECT_LT(measureSizeAccuracy(Predicted, Actual).MdAPE, 0.05);
  Expected<Model> Again = fitSizeModel(Train, Recipe, "hash", "test");
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(M->toJSONString(), Again->toJSONString());
}

TEST(SizeDataTest, AccuracyQuantiles) {
  // Errors 0%, 10%, 20%, 50%: the lower median is 10%.
  SizeAccuracy A =
      measureSizeAccuracy({100, 110, 80, 150}, {100, 100, 100, 100});
  EXPECT_EQ(A.Functions, 4u);
  EXPECT_DOUBLE_EQ(A.MdAPE, 0.1);
  EXPECT_DOUBLE_EQ(A.P90APE, 0.5);
  EXPECT_DOUBLE_EQ(A.MeanAPE, 0.2);
  EXPECT_DOUBLE_EQ(A.PredictedBytes, 440);
}

TEST(SizeDataTest, RecipeErrorsNameTheKey) {
  SmallString<128> Path;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("recipe", "json", FD, Path));
  ::close(FD);
  // Writes \p Text as the recipe and loads it.
  auto Load = [&](StringRef Text) {
    std::error_code EC;
    {
      raw_fd_ostream OS(Path, EC);
      OS << Text;
    }
    return SizeRecipe::load(Path);
  };
  Expected<SizeRecipe> R = Load("{\"ridge\": -1}");
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            (Path + ": ridge: expected a number >= 0").str());
  R = Load("{\"mlp\": {\"hidden\": [8], \"loss\": \"hinge\"}}");
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            (Path + ": mlp: loss: expected \"squared_error\" or "
                    "\"absolute_error\"")
                .str());
  R = Load("{\"mlp\": {\"epochs\": 3}}");
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            (Path + ": mlp: hidden: missing (a linear model is the recipe "
                    "without mlp)")
                .str());
  sys::fs::remove(Path);
}

} // namespace
