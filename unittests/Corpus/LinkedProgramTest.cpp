//===- unittests/Corpus/LinkedProgramTest.cpp - A program's linked size ---===//
//
// LinkedProgram's sizes, exact: each grouped section counted once, the
// lowest slot's copy; delta() predicts apply(); and after any sequence of
// changes, size() is getCodeOnce over the objects as they are.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/LinkedProgram.h"

#include "mlgo/Corpus/CodeSize.h"

#include "gtest/gtest.h"

#include <random>

using namespace llvm;
using namespace mlgo;

namespace {

using Sections = std::vector<std::pair<uint64_t, uint64_t>>;

/// An object as the tests keep it (ObjectCode only views its sections).
struct Obj {
  uint64_t TextSize;
  Sections Grouped;
  ObjectCode code() const { return {TextSize, Grouped}; }
};

TEST(LinkedProgramTest, EachGroupedSectionCountsOnce) {
  LinkedProgram P;
  EXPECT_EQ(P.size(), 0u);
  // a: 60 bytes of its own, sections 1 (30) and 2 (10); b: 20 of its own
  // and section 1 (30); c: 20, nothing grouped.
  Obj A{100, {{1, 30}, {2, 10}}}, B{50, {{1, 30}}}, C{20, {}};
  EXPECT_EQ(P.add(A.code()), 0u);
  EXPECT_EQ(P.size(), 100u);
  EXPECT_EQ(P.add(B.code()), 1u);
  EXPECT_EQ(P.size(), 120u);
  EXPECT_EQ(P.add(C.code()), 2u);
  EXPECT_EQ(P.size(), 140u);
}

TEST(LinkedProgramTest, DeltaPredictsApplyAndChangesNothing) {
  LinkedProgram P;
  Obj A{100, {{1, 30}, {2, 10}}}, B{50, {{1, 30}}};
  P.add(A.code());
  P.add(B.code());
  // a inlines section 1's function away: 50 bytes of its own and section
  // 2. Section 1 stays, now b's copy: 50 + 10 + 50 = 110.
  Obj A2{60, {{2, 10}}};
  EXPECT_EQ(P.delta({{0, A2.code()}}), -10);
  EXPECT_EQ(P.size(), 120u);
  P.apply({{0, A2.code()}});
  EXPECT_EQ(P.size(), 110u);
  // And back.
  EXPECT_EQ(P.delta({{0, A.code()}}), 10);
  P.apply({{0, A.code()}});
  EXPECT_EQ(P.size(), 120u);
}

TEST(LinkedProgramTest, TheLowestSlotsCopyIsLinked) {
  LinkedProgram P;
  // Section 7 compiled to 40 bytes in slot 0 and to 25 in slot 1: the
  // first copy, 40, is linked.
  Obj A{40, {{7, 40}}}, B{35, {{7, 25}}};
  P.add(A.code());
  P.add(B.code());
  EXPECT_EQ(P.size(), 40u + 10u);
  // Slot 0 without section 7: slot 1's 25-byte copy is linked instead,
  // 5 + 10 + 25.
  Obj A2{5, {}};
  EXPECT_EQ(P.delta({{0, A2.code()}}), 40 - 50);
  // Slot 1 shrinking its copy changes nothing while slot 0 holds one.
  Obj B2{30, {{7, 20}}};
  EXPECT_EQ(P.delta({{1, B2.code()}}), 0);
  // Both at once: 5 + 10 + 20.
  EXPECT_EQ(P.delta({{0, A2.code()}, {1, B2.code()}}), 35 - 50);
  P.apply({{0, A2.code()}, {1, B2.code()}});
  EXPECT_EQ(P.size(), 35u);
}

TEST(LinkedProgramTest, ChangesThatMoveASectionBetweenSlots) {
  LinkedProgram P;
  Obj A{10, {}}, B{30, {{3, 20}}};
  P.add(A.code());
  P.add(B.code());
  EXPECT_EQ(P.size(), 40u);
  // The section moves from slot 1 to slot 0 at a different size.
  Obj A2{25, {{3, 15}}}, B2{10, {}};
  EXPECT_EQ(P.delta({{0, A2.code()}, {1, B2.code()}}), -5);
  EXPECT_EQ(P.delta({{1, B2.code()}, {0, A2.code()}}), -5);
  P.apply({{1, B2.code()}, {0, A2.code()}});
  EXPECT_EQ(P.size(), 35u);
}

// Any sequence of changes, checked against summing the program again.
TEST(LinkedProgramTest, AgreesWithGetCodeOnceAfterEveryChange) {
  std::mt19937_64 Rng(47);
  auto RandomObj = [&] {
    Obj O{0, {}};
    for (uint64_t S = 0; S < 6; ++S)
      if (Rng() % 3 == 0) {
        uint64_t Bytes = 1 + Rng() % 50;
        O.Grouped.push_back({S, Bytes});
        O.TextSize += Bytes;
      }
    O.TextSize += Rng() % 100;
    return O;
  };
  std::vector<Obj> Objs;
  LinkedProgram P;
  for (int I = 0; I < 5; ++I) {
    Objs.push_back(RandomObj());
    P.add(Objs.back().code());
  }
  auto Recount = [&] {
    std::vector<std::pair<uint64_t, const Sections *>> In;
    for (const Obj &O : Objs)
      In.push_back({O.TextSize, &O.Grouped});
    return getCodeOnce<uint64_t>(In);
  };
  ASSERT_EQ(P.size(), Recount());
  for (int Step = 0; Step < 200; ++Step) {
    // One or two slots change.
    std::vector<std::pair<size_t, Obj>> New;
    size_t First = Rng() % Objs.size();
    New.push_back({First, RandomObj()});
    if (Rng() % 2)
      New.push_back(
          {(First + 1 + Rng() % (Objs.size() - 1)) % Objs.size(), RandomObj()});
    std::vector<LinkedProgram::Change> Changes;
    for (const auto &[Slot, O] : New)
      Changes.push_back({Slot, O.code()});
    uint64_t Before = P.size();
    int64_t D = P.delta(Changes);
    P.apply(Changes);
    for (const auto &[Slot, O] : New)
      Objs[Slot] = O;
    ASSERT_EQ(P.size(), Recount()) << "step " << Step;
    ASSERT_EQ(int64_t(P.size()) - int64_t(Before), D) << "step " << Step;
  }
}

} // namespace
