//===- unittests/Teacher/EvictTeacherTest.cpp - Eviction sets, students ---===//

#include "mlgo/Teacher/EvictTeacher.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Teacher/EvictTeacherSet.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace mlgo;

namespace {

constexpr size_t Cols = 33;

/// A decision of a set whose features are mask and f: columns 0 and 1
/// allowed, f = {F0, F1, 0, ...}.
EvictTeacherDecision decision(uint32_t Ordinal, float F0, float F1,
                              uint32_t Model, uint32_t Tuned) {
  EvictTeacherDecision D;
  D.Module = "src/a b.c";
  D.Function = "hot%";
  D.Ordinal = Ordinal;
  D.Hash = 0xABCDEF0123456789ULL + Ordinal;
  D.ModelAnswer = Model;
  D.Tuned = Tuned;
  D.Moved = Model != Tuned;
  std::vector<int64_t> Mask(Cols, 0);
  Mask[0] = Mask[1] = 1;
  std::vector<float> F(Cols, 0.0f);
  F[0] = F0;
  F[1] = F1;
  D.Values.emplace_back(reinterpret_cast<const char *>(Mask.data()),
                        reinterpret_cast<const char *>(Mask.data() + Cols));
  D.Values.emplace_back(reinterpret_cast<const char *>(F.data()),
                        reinterpret_cast<const char *>(F.data() + Cols));
  return D;
}

EvictTeacherSet makeSet() {
  EvictTeacherSet S;
  S.Meta = {{"corpus", "0123"}, {"model", "embedded"}};
  S.Features = {TensorSpec("mask", 0, TensorType::Int64, {1, 33}),
                TensorSpec("f", 0, TensorType::Float, {1, 33})};
  // The init takes the column with the smaller f. The search moved B and
  // D to the larger one; C has B's inputs and was left to the model.
  S.Decisions = {decision(0, 1, 2, 0, 0), decision(1, 3, 5, 0, 1),
                 decision(2, 3, 5, 0, 0), decision(3, 4, 7, 0, 1)};
  return S;
}

/// A linear per-column model: score = -f, mask read with no pipeline.
Model makeInit() {
  Model M;
  M.Metadata.Name = "init";
  M.Inputs.push_back({TensorSpec("mask", 0, TensorType::Int64, {1, 33}), {}});
  M.Inputs.push_back({TensorSpec("f", 0, TensorType::Float, {1, 33}), {{}}});
  DenseLayer L;
  L.In = 1;
  L.Out = 1;
  L.Weights = {-1.0f};
  L.Bias = {0.0f};
  M.Layers = {L};
  M.OutputSpec = TensorSpec("index_to_evict", 0, TensorType::Int64, {1});
  M.Decision.TheKind = DecisionRule::Kind::MaskedArgmax;
  M.Decision.Columns = Cols;
  M.Decision.MaskName = "mask";
  return M;
}

TEST(EvictTeacherSetTest, ValuesReadBackToTheirBits) {
  EvictTeacherSet S = makeSet();
  S.Decisions[1].Saved = 4003;
  float Odd[] = {std::nanf(""), -0.0f, std::numeric_limits<float>::infinity(),
                 1e-7f,         0.1f,  -3.4028235e38f};
  for (size_t I = 0; I < 6; ++I)
    std::memcpy(S.Decisions[0].Values[1].data() + (2 + I) * 4, &Odd[I], 4);
  int64_t Big = std::numeric_limits<int64_t>::min();
  std::memcpy(S.Decisions[0].Values[0].data() + 32 * 8, &Big, 8);
  std::string Text = S.print();
  EXPECT_NE(Text.find("feature mask int64_t 33\nfeature f float 33\n"),
            std::string::npos);
  EXPECT_NE(Text.find("decision src/a%20b.c hot%25 1 ABCDEF012345678A 0 1 1 "
                      "4003 "),
            std::string::npos);
  EXPECT_NE(Text.find(" -9223372036854775808 1 2 nan -0.0 inf 1e-07 0.1 "
                      "-3.4028235e+38 0 "),
            std::string::npos);
  EXPECT_TRUE(StringRef(Text).ends_with("end 4 " + S.getFingerprint() + "\n"));
  Expected<EvictTeacherSet> R = EvictTeacherSet::parse(Text, "e.txt");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->print(), Text);
  EXPECT_EQ(R->Decisions[1].Function, "hot%");
  EXPECT_EQ(R->Decisions[1].Hash, 0xABCDEF012345678AULL);
  EXPECT_TRUE(R->Decisions[1].Moved);
  EXPECT_EQ(R->Decisions[1].Saved, 4003u);
  EXPECT_EQ(R->Decisions[0].Saved, 0u);
}

TEST(EvictTeacherSetTest, RefusesWhatTheWriterWouldNotWrite) {
  std::string Head = "mlgo-evict-teacher 2\nfeature p float 1\n";
  auto Err = [&](StringRef Line) {
    Expected<EvictTeacherSet> R =
        EvictTeacherSet::parse(Head + Line.str() + "\n", "e.txt");
    return R ? std::string("success") : toString(R.takeError());
  };
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 0 0 0 0 1.0"),
            "e.txt:3: bad value '1.0' of feature p");
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 0 32 1 -5 1"),
            "e.txt:3: bad saved instructions '-5'");
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 0 32 1 05 1"),
            "e.txt:3: bad saved instructions '05'");
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 0 0 0 1"),
            "e.txt:3: expected 'decision <module> <function> <ordinal> "
            "<hash> <model> <tuned> <moved> <saved>' and 1 feature values, "
            "got 9 fields");
  EXPECT_EQ(Err("decision m f 0 00000000000000ab 0 0 0 0 1"),
            "e.txt:3: bad hash '00000000000000ab' (16 upper-case "
            "hexadecimal digits)");
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 33 0 0 0 1"),
            "e.txt:3: <model> and <tuned> must be columns 0 to 32, <moved> 0 "
            "or 1");
  EXPECT_EQ(Err("decision m f 01 00000000000000AB 0 0 0 0 1"),
            "e.txt:3: bad ordinal '01'");
  EXPECT_EQ(Err("feature q float 34"),
            "e.txt:3: expected 'feature <name> <int64_t|float> <elements>' "
            "with 1 to 33 elements");
  EXPECT_EQ(Err("decision m f 0 00000000000000AB 0 0 0 0 1"),
            "e.txt: no end line after 1 decisions: the file was cut short");
}

// The unit fires where the search moved and nowhere else it can avoid:
// D becomes right; B cannot without C (the same inputs, left to the
// model), so the pocket keeps the unit that fires at D's column only.
TEST(EvictTeacherTest, OneUnitTakesTheMovedColumns) {
  EvictTeacherSet S = makeSet();
  Model Init = makeInit();
  ASSERT_FALSE(bool(Init.validate("init")));
  Expected<EvictStudentReport> R =
      trainEvictStudent(S, Init, "init.json", EvictStudentOptions());
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->Decisions, 4u);
  EXPECT_EQ(R->Moved, 2u);
  EXPECT_EQ(R->InitAgree, 2u);
  EXPECT_EQ(R->Agree, 3u);
  EXPECT_EQ(R->MovedRight, 1u);
  EXPECT_EQ(R->Saved, 0u);
  EXPECT_EQ(R->SavedRight, 0u);
  EXPECT_GT(R->Epoch, 0u);
  EXPECT_EQ(R->Student.Layers.size(), 2u);
  EXPECT_FALSE(bool(R->Student.validate("student")));

  // Judged again by the interpreter: only D takes column 1.
  ModelEvaluator Eval(R->Student);
  for (size_t I = 0; I < 4; ++I) {
    const EvictTeacherDecision &D = S.Decisions[I];
    const void *In[] = {D.Values[0].data(), D.Values[1].data()};
    float L0 = Eval.evaluate(In, 0), L1 = Eval.evaluate(In, 1);
    EXPECT_EQ(L1 > L0, I == 3) << "decision " << I;
  }

  // The same set and init: the same model.
  Expected<EvictStudentReport> Again =
      trainEvictStudent(S, Init, "init.json", EvictStudentOptions());
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(Again->Student.toJSONString(), R->Student.toJSONString());
}

// Weighted by what each move saved: B's move saved 10 instructions, so B
// and D right at the cost of C (left to the model, weight 1) outweigh D
// alone; the unit fires at B's column and so at C's, which has B's inputs.
TEST(EvictTeacherTest, AMoveThatSavedMoreOutweighsARowLeftToTheModel) {
  EvictTeacherSet S = makeSet();
  S.Decisions[1].Saved = 10;
  S.Decisions[3].Saved = 5;
  Expected<EvictStudentReport> R =
      trainEvictStudent(S, makeInit(), "init.json", EvictStudentOptions());
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->InitAgree, 2u);
  EXPECT_EQ(R->Agree, 3u);
  EXPECT_EQ(R->MovedRight, 2u);
  EXPECT_EQ(R->Saved, 15u);
  EXPECT_EQ(R->SavedRight, 15u);
  ModelEvaluator Eval(R->Student);
  for (size_t I = 0; I < 4; ++I) {
    const EvictTeacherDecision &D = S.Decisions[I];
    const void *In[] = {D.Values[0].data(), D.Values[1].data()};
    float L0 = Eval.evaluate(In, 0), L1 = Eval.evaluate(In, 1);
    EXPECT_EQ(L1 > L0, I != 0) << "decision " << I;
  }
  EXPECT_EQ(getEvictRowWeight(S.Decisions[1]), 11u);
  EXPECT_EQ(getEvictRowWeight(S.Decisions[2]), 1u);
}

TEST(EvictTeacherTest, RefusesAnInitThatIsNotAnEvictionModel) {
  EvictTeacherSet S = makeSet();
  Model Init = makeInit();
  Init.Inputs[1].Spec = TensorSpec("g", 0, TensorType::Float, {1, 33});
  Expected<EvictStudentReport> R =
      trainEvictStudent(S, Init, "init.json", EvictStudentOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            "init.json: reads the feature g, which the set does not hold");
  S.Decisions.clear();
  R = trainEvictStudent(S, makeInit(), "init.json", EvictStudentOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(toString(R.takeError()),
            "the eviction teacher set has no decisions");
}

} // namespace
