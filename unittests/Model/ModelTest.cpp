//===- unittests/Model/ModelTest.cpp - Text model format tests ------------===//
//
// Parsing, validation (with the exact, located error messages users see),
// and bit-exact write -> read round trips of the text model format.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/Model.h"
#include "mlgo/Model/ModelCodeGen.h"
#include "mlgo/Model/ModelSynth.h"

#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>

using namespace llvm;
using namespace mlgo;

namespace {

Model makeModel(std::vector<size_t> Hidden = {8, 8}, uint64_t Seed = 3) {
  ModelSynthOptions O;
  O.TheStyle = ModelSynthOptions::Style::Mixed;
  O.Inputs = getMixedTestInputs();
  O.Hidden = std::move(Hidden);
  O.Seed = Seed;
  O.Name = "test";
  return synthesizeModel(O);
}

std::string errorOf(StringRef JSON) {
  Expected<Model> M = Model::parse(JSON, "m.json");
  if (M)
    return "(no error)";
  return toString(M.takeError());
}

/// Parses the canonical text of a model, applies \p Edit to the JSON tree,
/// and returns the error parsing the result gives.
std::string errorAfterEdit(const Model &M,
                           std::function<void(json::Object &)> Edit) {
  Expected<json::Value> V = json::parse(M.toJSONString());
  EXPECT_TRUE(static_cast<bool>(V));
  if (!V)
    return "";
  Edit(*V->getAsObject());
  std::string S;
  raw_string_ostream(S) << *V;
  return errorOf(S);
}

json::Object &layer(json::Object &Root, size_t L) {
  return *(*Root.getArray("layers"))[L].getAsObject();
}
json::Object &input(json::Object &Root, size_t I) {
  return *(*Root.getArray("inputs"))[I].getAsObject();
}

bool sameBits(float A, float B) { return std::memcmp(&A, &B, 4) == 0; }

void expectBitIdentical(const Model &A, const Model &B) {
  ASSERT_EQ(A.Layers.size(), B.Layers.size());
  for (size_t L = 0; L < A.Layers.size(); ++L) {
    ASSERT_EQ(A.Layers[L].Weights.size(), B.Layers[L].Weights.size());
    for (size_t I = 0; I < A.Layers[L].Weights.size(); ++I)
      ASSERT_TRUE(sameBits(A.Layers[L].Weights[I], B.Layers[L].Weights[I]))
          << "layer " << L << " weight " << I << ": " << A.Layers[L].Weights[I]
          << " vs " << B.Layers[L].Weights[I];
    for (size_t I = 0; I < A.Layers[L].Bias.size(); ++I)
      ASSERT_TRUE(sameBits(A.Layers[L].Bias[I], B.Layers[L].Bias[I]));
  }
  ASSERT_EQ(A.Inputs.size(), B.Inputs.size());
  for (size_t I = 0; I < A.Inputs.size(); ++I) {
    EXPECT_EQ(A.Inputs[I].Spec, B.Inputs[I].Spec);
    EXPECT_TRUE(A.Inputs[I].Pipelines == B.Inputs[I].Pipelines);
  }
}

TEST(ModelTest, ParsesInlineOz) {
  Expected<Model> M =
      Model::load(MLGO_SOURCE_DIR "/models/inline-oz/model.json");
  ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  EXPECT_EQ(M->Metadata.Name, "inline-oz");
  EXPECT_EQ(M->Metadata.LLVMVersion, "19");
  EXPECT_EQ(M->Metadata.Seed, 2u);
  // LLVM's 38 features, mlgo's 6 extra ones, and the heuristic's decision,
  // which the flip construction reads raw.
  ASSERT_EQ(M->Inputs.size(), 45u);
  EXPECT_EQ(M->Inputs[0].Spec,
            TensorSpec::createSpec<int64_t>("sroa_savings", {1}));
  EXPECT_EQ(M->Inputs[44].Spec,
            TensorSpec::createSpec<int64_t>("inlining_default", {1}));
  ASSERT_EQ(M->Inputs[44].Pipelines.size(), 1u);
  EXPECT_TRUE(M->Inputs[44].Pipelines[0].empty());
  ASSERT_EQ(M->Layers.size(), 4u);
  EXPECT_EQ(M->Layers[2].Out, 4u);
  EXPECT_EQ(M->Layers[3].Weights, (std::vector<float>{1, -1, -1, 1}));
  EXPECT_EQ(M->OutputSpec,
            TensorSpec::createSpec<int64_t>("inlining_decision", {1}));
  EXPECT_EQ(M->Decision.TheKind, DecisionRule::Kind::Threshold);
  EXPECT_EQ(M->Decision.Threshold, 0.0f);
}

TEST(ModelTest, WriteReadWriteIsBitExact) {
  Model M = makeModel({16, 8}, 11);
  std::string Text = M.toJSONString();
  Expected<Model> Back = Model::parse(Text, "m.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << toString(Back.takeError());
  expectBitIdentical(M, *Back);
  EXPECT_EQ(Back->toJSONString(), Text);
}

TEST(ModelTest, HeuristicSettingsRoundTrip) {
  Model M = makeModel({4}, 7);
  M.Inputs.push_back(
      {TensorSpec::createSpec<int64_t>("inlining_default", {1}), {Pipeline{}}});
  M.Layers[0].In += 1;
  M.Layers[0].Weights.assign(M.Layers[0].In * M.Layers[0].Out, 0.5f);
  ASSERT_FALSE(static_cast<bool>(M.validate()));
  const std::string Plain = M.toJSONString();
  EXPECT_EQ(Plain.find("heuristic"), std::string::npos);

  M.Heuristic.InlineThreshold = -7;
  std::string Text = M.toJSONString();
  EXPECT_NE(Text.find("\n  \"heuristic\": {\"inline_threshold\": -7},\n"
                      "  \"inputs\": ["),
            std::string::npos);
  Expected<Model> Back = Model::parse(Text, "m.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Heuristic.InlineThreshold, std::optional<int32_t>(-7));
  EXPECT_EQ(Back->toJSONString(), Text);
  Expected<Model> Again = Model::parse(Plain, "m.json");
  ASSERT_TRUE(static_cast<bool>(Again));
  EXPECT_FALSE(Again->Heuristic.InlineThreshold.has_value());

  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &R) {
                             (*R.getObject("heuristic"))["inline_threshold"] =
                                 int64_t(1) << 40;
                           }),
            "m.json: heuristic.inline_threshold: expected a 32-bit integer");
  EXPECT_EQ(errorAfterEdit(M, [](json::Object &R) { R["heuristic"] = 3; }),
            "m.json: heuristic: expected an object");
  // An empty object is the level's own threshold, written as no key at all.
  Expected<json::Value> V = json::parse(Text);
  ASSERT_TRUE(static_cast<bool>(V));
  (*V->getAsObject())["heuristic"] = json::Object();
  std::string EmptyText;
  raw_string_ostream(EmptyText) << *V;
  Expected<Model> Empty = Model::parse(EmptyText, "m.json");
  ASSERT_TRUE(static_cast<bool>(Empty)) << toString(Empty.takeError());
  EXPECT_FALSE(Empty->Heuristic.InlineThreshold.has_value());
  EXPECT_EQ(Empty->toJSONString(), Plain);
}

TEST(ModelTest, ArbitraryFloatBitsRoundTrip) {
  // Every finite float pattern class: normals of all magnitudes,
  // subnormals, zeros of both signs, the extremes.
  Model M = makeModel({64}, 5);
  uint64_t State = 12345;
  auto Next = [&] {
    State = State * 6364136223846793005ULL + 1442695040888963407ULL;
    return State >> 16;
  };
  std::vector<float> &W = M.Layers[0].Weights;
  W[0] = -0.0f;
  W[1] = std::numeric_limits<float>::denorm_min();
  W[2] = std::numeric_limits<float>::max();
  W[3] = -std::numeric_limits<float>::min();
  W[4] = 0.1f;
  for (size_t I = 5; I < W.size(); ++I) {
    float F;
    do {
      uint32_t Bits = static_cast<uint32_t>(Next());
      std::memcpy(&F, &Bits, 4);
    } while (!std::isfinite(F));
    W[I] = F;
  }
  PreprocessStep Q;
  Q.TheOp = PreprocessStep::Op::Quantile;
  for (int I = 0; I < 200; ++I) {
    double D;
    do {
      uint64_t Bits = Next() << 16 ^ Next();
      std::memcpy(&D, &Bits, 8);
    } while (!std::isfinite(D));
    Q.Boundaries.push_back(D);
  }
  std::sort(Q.Boundaries.begin(), Q.Boundaries.end());
  PreprocessStep S;
  S.TheOp = PreprocessStep::Op::Standardize;
  S.Mean = -0.0;
  S.StdDev = 4.9406564584124654e-324;
  M.Inputs[0].Pipelines.push_back({Q, S});
  M.Layers[0].In += 1;
  // Re-shape layer 0 for the added MLP input: append a column of zeros.
  std::vector<float> Wide;
  for (size_t O = 0; O < M.Layers[0].Out; ++O) {
    for (size_t I = 0; I + 1 < M.Layers[0].In; ++I)
      Wide.push_back(W[O * (M.Layers[0].In - 1) + I]);
    Wide.push_back(0);
  }
  W = Wide;
  ASSERT_EQ(toString(M.validate()), "");

  std::string Text = M.toJSONString();
  Expected<Model> Back = Model::parse(Text, "m.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << toString(Back.takeError());
  expectBitIdentical(M, *Back);
  EXPECT_EQ(Back->toJSONString(), Text);
}

TEST(ModelTest, FloatFormatting) {
  EXPECT_EQ(formatModelFloat(0.1f), "0.1");
  EXPECT_EQ(formatModelFloat(-0.0f), "-0.0");
  EXPECT_EQ(formatModelFloat(1.0f), "1");
  EXPECT_EQ(formatModelDouble(-0.0), "-0.0");
  EXPECT_EQ(formatModelDouble(0.1), "0.1");
}

TEST(ModelTest, HexAndSpecialNumbersAsStrings) {
  Model M = makeModel();
  std::string Err = errorAfterEdit(M, [](json::Object &Root) {
    (*(*layer(Root, 1).getArray("weights"))[3].getAsArray())[7] = "nan";
  });
  EXPECT_EQ(Err, "m.json: layers[1].weights[3][7]: NaN weight");
  Err = errorAfterEdit(M, [](json::Object &Root) {
    (*layer(Root, 0).getArray("bias"))[2] = "-inf";
  });
  EXPECT_EQ(Err, "m.json: layers[0].bias[2]: infinite bias");
  Err = errorAfterEdit(M, [](json::Object &Root) {
    (*layer(Root, 0).getArray("bias"))[2] = 1e39;
  });
  EXPECT_EQ(Err, "m.json: layers[0].bias[2]: 1e+39 is out of float range");
  Err = errorAfterEdit(M, [](json::Object &Root) {
    (*layer(Root, 0).getArray("bias"))[2] = "twelve";
  });
  EXPECT_EQ(Err, "m.json: layers[0].bias[2]: 'twelve' is not a number");

  // A hex float string is read exactly.
  Expected<json::Value> V = json::parse(M.toJSONString());
  ASSERT_TRUE(static_cast<bool>(V));
  (*layer(*V->getAsObject(), 0).getArray("bias"))[0] = "0x1.8p+1";
  std::string S;
  raw_string_ostream(S) << *V;
  Expected<Model> Back = Model::parse(S, "m.json");
  ASSERT_TRUE(static_cast<bool>(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Layers[0].Bias[0], 3.0f);
}

TEST(ModelTest, LocatedErrors) {
  Model M = makeModel();
  EXPECT_EQ(errorAfterEdit(
                M, [](json::Object &Root) { input(Root, 1).erase("spec"); }),
            "m.json: inputs[1]: missing key 'spec'");
  EXPECT_EQ(
      errorAfterEdit(
          M,
          [](json::Object &Root) {
            (*(*layer(Root, 1).getArray("weights"))[2].getAsArray()).pop_back();
          }),
      "m.json: layers[1].weights[2]: has 7 weights, expected 8 "
      "(\"in\")");
  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &Root) {
                             layer(Root, 1).getArray("weights")->pop_back();
                           }),
            "m.json: layers[1].weights: has 7 rows, expected 8 (\"out\")");
  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &Root) {
                             input(Root, 0)
                                 .getArray("preprocess")
                                 ->push_back(
                                     json::Array{json::Object{{"op", "log2"}}});
                           }),
            "m.json: inputs[0].preprocess[1][0].op: unknown preprocessing "
            "'log2' (expected one of log1p, standardize, quantile, sqrt, "
            "square, clamp, nan_to)");
  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &Root) {
                             input(Root, 0)
                                 .getArray("preprocess")
                                 ->push_back(json::Array{json::Object{
                                     {"op", "quantile"},
                                     {"boundaries", json::Array{1, 3, 2}}}});
                           }),
            "m.json: inputs[0].preprocess[1][0].boundaries[2]: boundaries "
            "must be sorted ascending, but 2 < 3");
  EXPECT_EQ(errorAfterEdit(
                M,
                [](json::Object &Root) {
                  input(Root, 0)
                      .getArray("preprocess")
                      ->push_back(json::Array{json::Object{
                          {"op", "standardize"}, {"mean", 0}, {"stddev", 0}}});
                }),
            "m.json: inputs[0].preprocess[1][0].stddev: stddev must be "
            "positive, not 0");
  // One more MLP input than layer 0 takes.
  EXPECT_EQ(
      errorAfterEdit(
          M,
          [](json::Object &Root) {
            input(Root, 0).getArray("preprocess")->push_back(json::Array{});
          }),
      "m.json: layers[0].in: layer takes " + std::to_string(M.Layers[0].In) +
          " inputs but the preprocessed inputs provide " +
          std::to_string(M.Layers[0].In + 1));
  EXPECT_EQ(
      errorAfterEdit(M, [](json::Object &Root) { layer(Root, 1)["in"] = 7; }),
      "m.json: layers[1].weights[0]: has 8 weights, expected 7 "
      "(\"in\")");
  EXPECT_EQ(errorAfterEdit(M, [](json::Object &Root) { Root["version"] = 2; }),
            "m.json: version: unsupported format version 2 (this mlgo reads "
            "version 1)");
  EXPECT_EQ(errorAfterEdit(M, [](json::Object &Root) { Root["weights"] = 2; }),
            "m.json: weights: unknown key");
  EXPECT_EQ(
      errorAfterEdit(
          M, [](json::Object &Root) { layer(Root, 2)["activation"] = "gelu"; }),
      "m.json: layers[2].activation: unknown activation 'gelu' "
      "(expected one of linear, relu, tanh, sigmoid, exp)");
  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &Root) {
                             input(Root, 3)["spec"] = input(Root, 2)["spec"];
                           }),
            "m.json: inputs[3].spec.name: duplicate input 'i32' (also "
            "inputs[2])");
  EXPECT_EQ(errorAfterEdit(M,
                           [](json::Object &Root) {
                             (*Root.getObject("output"))["decision"] =
                                 json::Object{{"rule", "sample"},
                                              {"temperature", 0}};
                           }),
            "m.json: output.decision.temperature: temperature must be "
            "positive and finite");
  EXPECT_EQ(errorOf("{\"format\": \"mlgo-model\""),
            "m.json: invalid JSON: [1:23, byte=23]: Expected , or } after "
            "object property");
}

TEST(ModelTest, LastLayerMustYieldOneLogit) {
  Model M = makeModel({4});
  M.Layers.pop_back();
  EXPECT_EQ(toString(M.validate("x")),
            "x: layers[0].out: the last layer must produce one value (the "
            "logit), not 4");
}

TEST(ModelTest, LoadMissingFile) {
  Expected<Model> M = Model::load("/nonexistent/model.json");
  ASSERT_FALSE(static_cast<bool>(M));
  EXPECT_EQ(toString(M.takeError()),
            "cannot read model '/nonexistent/model.json': No such file or "
            "directory");
}

TEST(ModelTest, Identifiers) {
  EXPECT_EQ(getEmbeddedModelIdentifier("inline-oz"), "inline_oz");
  EXPECT_EQ(getEmbeddedModelIdentifier("3d.model"), "_3d_model");
}

TEST(ModelTest, Diff) {
  Model A = makeModel();
  A.Layers[1].Weights[5] = 0.25f;
  Model B = A;
  std::string Out;
  raw_string_ostream OS(Out);
  EXPECT_FALSE(diffModels(A, B, OS));
  EXPECT_EQ(OS.str(), "models are identical\n");
  Out.clear();
  B.Layers[1].Weights[5] = 0.75f;
  B.Metadata.Seed = 9;
  B.Inputs.pop_back();
  EXPECT_TRUE(diffModels(A, B, OS));
  EXPECT_EQ(OS.str(), "~ metadata.seed: 3 -> 9\n"
                      "- input u8 uint8_t [1]\n"
                      "~ layers[1] (8 -> 8, " +
                          toString(A.Layers[1].Act).str() +
                          "): 1 of 72 parameters changed, max |delta| 0.5\n");
}

} // namespace

TEST(ModelTest, PerColumnModelsRoundTripAndAreChecked) {
  Expected<Model> M =
      Model::load(MLGO_SOURCE_DIR "/models/regalloc-evict/model.json");
  ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  EXPECT_TRUE(M->Decision.isPerColumn());
  EXPECT_EQ(M->Decision.Columns, 33u);
  EXPECT_EQ(M->Decision.MaskName, "mask");
  EXPECT_EQ(M->getMaskInputIndex(), 0);
  // One value per pipeline and column, not per element.
  EXPECT_EQ(M->getNumMLPInputs(), M->Layers[0].In);
  Expected<Model> Again = Model::parse(M->toJSONString(), "again.json");
  ASSERT_TRUE(static_cast<bool>(Again)) << toString(Again.takeError());
  EXPECT_EQ(Again->toJSONString(), M->toJSONString());

  auto ErrorOf = [&](auto Edit) {
    Model Copy = *M;
    Edit(Copy);
    Error E = Copy.validate("e.json");
    return E ? toString(std::move(E)) : std::string("valid");
  };
  EXPECT_EQ(ErrorOf([](Model &C) { C.Decision.MaskName = "masks"; }),
            "e.json: output.decision.mask: no input is called 'masks'");
  EXPECT_EQ(ErrorOf([](Model &C) { C.Decision.MaskName = "is_local"; }),
            "valid");
  EXPECT_EQ(ErrorOf([](Model &C) { C.Decision.MaskName = "liverange_size"; }),
            "e.json: output.decision.mask: the mask 'liverange_size' must be "
            "int64_t with 33 elements");
  EXPECT_EQ(ErrorOf([](Model &C) { C.Decision.Columns = 32; }),
            "e.json: inputs[0].spec.shape: input 'mask' has 33 elements; a "
            "model with 32 columns reads inputs of 32 elements or 1");
  EXPECT_EQ(ErrorOf([](Model &C) {
              C.OutputSpec = TensorSpec::createSpec<float>("index", {1});
            }),
            "e.json: output.spec.type: a masked_argmax decision is an index: "
            "int64_t");
  EXPECT_EQ(ErrorOf([](Model &C) {
              C.Inputs[1].Pipelines[0][0].Value =
                  std::numeric_limits<double>::infinity();
            }),
            "e.json: inputs[1].preprocess[0][0].value: infinite replacement "
            "value");
}
