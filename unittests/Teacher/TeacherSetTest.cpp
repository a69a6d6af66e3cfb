//===- unittests/Teacher/TeacherSetTest.cpp - The teacher set's text ------===//

#include "mlgo/Teacher/TeacherSet.h"
#include "mlgo/Teacher/Teacher.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

/// The error's message, or "success".
template <typename T> std::string errorOf(Expected<T> V) {
  return V ? "success" : toString(V.takeError());
}

TeacherSite site(StringRef Caller, StringRef Callee, bool Llvm, bool Tuned,
                 bool Moved, uint64_t Saved, std::vector<int64_t> F) {
  TeacherSite S;
  S.Module = "src/a b.c";
  S.Caller = Caller.str();
  S.Callee = Callee.str();
  S.Llvm = Llvm;
  S.ModelAnswer = Llvm;
  S.Tuned = Tuned;
  S.Moved = Moved;
  S.Saved = Saved;
  S.Features = std::move(F);
  return S;
}

TeacherSet makeSet() {
  TeacherSet S;
  S.Meta = {{"corpus", "0123"}, {"model", "embedded (x y)"}};
  S.FeatureNames = {"callee_users", "inlining_default"};
  S.Sites.push_back(site("f", "g%*", false, true, true, 16, {-5, 0}));
  S.Sites.push_back(
      site("f", "h", true, true, false, 0, {9007199254740993, 1}));
  S.Sites.back().Program = "pkg one";
  S.Sites.back().Ordinal = 4294967295u;
  return S;
}

TEST(TeacherSetTest, PrintsEscapedNamesAndReadsThemBack) {
  TeacherSet S = makeSet();
  std::string Text = S.print();
  EXPECT_NE(Text.find("site * src/a%20b.c f g%25%2A 0 0 0 1 1 16 -5 0\n"),
            std::string::npos);
  EXPECT_NE(Text.find("site pkg%20one src/a%20b.c f h 4294967295 1 1 1 0 0 "
                      "9007199254740993 1\n"),
            std::string::npos);
  EXPECT_TRUE(StringRef(Text).ends_with("end 2 " + S.getFingerprint() + "\n"));
  Expected<TeacherSet> R = TeacherSet::parse(Text, "s.txt");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(R->print(), Text);
  EXPECT_EQ(R->Sites[0].Callee, "g%*");
  EXPECT_EQ(R->Sites[1].Program, "pkg one");
  EXPECT_EQ(R->getMeta("model"), "embedded (x y)");
}

TEST(TeacherSetTest, TheTargetIsTheTunedAnswerOnlyWhereMoved) {
  TeacherSite Moved = site("f", "g", false, true, true, 16, {});
  TeacherSite Unmoved = site("f", "g", false, true, false, 0, {});
  EXPECT_TRUE(Moved.getTarget());
  EXPECT_EQ(Moved.getWeight(), 17.0);
  EXPECT_FALSE(Unmoved.getTarget());
  EXPECT_EQ(Unmoved.getWeight(), 1.0);
}

TEST(TeacherSetTest, RefusesWhatTheWriterWouldNotWrite) {
  std::string Text = makeSet().print();
  std::string Zero = Text;
  Zero.replace(Zero.find(" 16 "), 4, " 016 ");
  EXPECT_EQ(errorOf(TeacherSet::parse(Zero, "s.txt")),
            "s.txt:6: bad saved bytes '016'");
  std::string Bit = Text;
  Bit.replace(Bit.find(" 1 1 16 "), 8, " 2 1 16 ");
  EXPECT_EQ(errorOf(TeacherSet::parse(Bit, "s.txt")),
            "s.txt:6: <llvm> <model> <tuned> <moved> must each be 0 or 1");
  EXPECT_EQ(errorOf(TeacherSet::parse(Text + "\n", "s.txt")),
            "s.txt:9: a line after the end line");
}

TEST(TeacherSetTest, TrainingIsDeterministicAndLearnsTheInversion) {
  TeacherSet S;
  S.FeatureNames = {"callee_users", "inlining_default"};
  for (int I = 0; I < 40; ++I)
    S.Sites.push_back(site("f", "g", I % 2, I % 2, false, 0, {I, I % 2}));
  // One site the search inverted: the only one with callee_users 100.
  S.Sites.push_back(site("f", "h", false, true, true, 50, {100, 0}));
  StudentOptions O;
  Expected<StudentReport> A = trainStudent(S, O);
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  Expected<StudentReport> B = trainStudent(S, O);
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  EXPECT_EQ(A->Student.toJSONString(), B->Student.toJSONString());
  EXPECT_EQ(A->Sites, 41u);
  EXPECT_EQ(A->Inversions, 1u);
  EXPECT_EQ(A->InversionsKept, 1u);
  EXPECT_EQ(A->Agree, 41u);
}

} // namespace
