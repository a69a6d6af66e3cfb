//===- unittests/Tune/MoveRankerTest.cpp - The guided order's ranker
//-------===//

#include "mlgo/Tune/MoveRanker.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace mlgo;

namespace {

template <typename T> std::string errorOf(Expected<T> V) {
  return V ? "success" : toString(V.takeError());
}

TuneMove siteMove(bool Inline, uint32_t CalleeSites, double Logit) {
  TuneMove M;
  M.Entry = {"f", "g", 0, Inline};
  M.Features = {Logit, 1, CalleeSites, 3};
  return M;
}

TuneMove groupMove(bool Inline, uint32_t Changed, uint32_t CalleeSites) {
  TuneMove M;
  M.Entry.Callee = "g";
  M.Entry.Inline = Inline;
  M.Features = {-0.5, Changed, CalleeSites, 0};
  return M;
}

TEST(MoveRankerTest, InputsSayWhatKindOfMoveItIs) {
  ArrayRef<const char *> Names = getMoveRankerFeatures();
  ASSERT_EQ(Names.size(), 13u);
  EXPECT_STREQ(Names[0], "is_heuristic");
  EXPECT_STREQ(Names[12], "unit_text");
  // Inlining the only call of g, the model was sure it should not (-3).
  EXPECT_EQ(getMoveRankerInputs(siteMove(true, 1, -3.0), 4096),
            (std::vector<float>{0, 0, 0, 1, 0, 3, 0, 0, 1, 0, 1, 1, 4096}));
  EXPECT_EQ(getMoveRankerInputs(siteMove(false, 5, std::nan("")), 10),
            (std::vector<float>{0, 0, 0, 0, 1, 20, 0, 0, 0, 5, 0, 1, 10}));
  EXPECT_EQ(getMoveRankerInputs(groupMove(false, 4, 6), 100),
            (std::vector<float>{0, 0, 1, 0, 0, 0.5, 0, 6, 0, 0, 0, 4, 100}));
  TuneMove H;
  H.Heuristic = true;
  EXPECT_EQ(getMoveRankerInputs(H, 7),
            (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}));
}

TEST(MoveRankerTest, TheFitRanksWhatSavedBytesFirst) {
  // Group moves that refuse every call save 60 bytes one try in two; site
  // moves save 4 bytes one try in ten.
  std::vector<TriesRow> Rows;
  for (int I = 0; I < 200; ++I) {
    TriesRow G;
    G.Move = groupMove(false, 3 + I % 4, 3 + I % 4);
    G.UnitText = 1000 + 10 * I;
    G.Kept = (I / 4) % 2 == 0;
    G.Delta = G.Kept ? -60 : 5;
    Rows.push_back(G);
    TriesRow S;
    S.Move = siteMove(I % 3 == 0, 1 + I % 5, 0.1 * (I % 7));
    S.UnitText = 1000 + 10 * I;
    S.Kept = (I / 10) % 10 == 0;
    S.Delta = S.Kept ? -4 : 2;
    Rows.push_back(S);
  }
  RankerFitOptions O;
  Expected<Model> M = fitMoveRanker(Rows, O);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  Expected<MoveRanker> R = MoveRanker::create(*M, "fitted");
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  double Group = R->score(groupMove(false, 4, 4), 2000);
  double Site = R->score(siteMove(false, 2, 0.3), 2000);
  EXPECT_NEAR(Group, 30, 3);
  EXPECT_NEAR(Site, 0.4, 1);
  // Fitting is deterministic: the same rows give the same model text.
  Expected<Model> Again = fitMoveRanker(Rows, O);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(M->toJSONString(), Again->toJSONString());
  // A few big wins count at most ClipBytes each.
  Rows[0].Delta = -100000;
  Expected<Model> Clipped = fitMoveRanker(Rows, O);
  ASSERT_TRUE(bool(Clipped)) << toString(Clipped.takeError());
  Expected<MoveRanker> RC = MoveRanker::create(*Clipped, "clipped");
  ASSERT_TRUE(bool(RC)) << toString(RC.takeError());
  double ClippedGroup = RC->score(groupMove(false, 4, 4), 2000);
  EXPECT_GT(ClippedGroup, Group);
  EXPECT_LT(ClippedGroup, Group + 2);
}

TEST(MoveRankerTest, TooFewTriesIsAnError) {
  std::vector<TriesRow> Rows(5);
  EXPECT_EQ(errorOf(fitMoveRanker(Rows, RankerFitOptions())),
            ("5 tries: too few to fit the ranker's 14 weights"));
}

TEST(MoveRankerTest, AModelWithOtherInputsIsNotARanker) {
  Expected<MoveRanker> Shipped = MoveRanker::getShipped();
  ASSERT_TRUE(bool(Shipped)) << toString(Shipped.takeError());
  Model M = Shipped->getModel();
  M.Inputs[2].Spec = TensorSpec("callee_users", 0, TensorType::Float, {1});
  EXPECT_EQ(errorOf(MoveRanker::create(M, "r.json")),
            ("r.json: inputs[2]: expected the float feature "
             "'is_group_no_inline' of one element, found "
             "'callee_users'"));
  M.Inputs.pop_back();
  EXPECT_EQ(errorOf(MoveRanker::create(M, "r.json")),
            ("r.json: a move ranker reads 13 "
             "inputs (docs/tune.md), this model "
             "12"));
}

std::string writeTemp(StringRef Text) {
  SmallString<128> Path;
  int FD;
  EXPECT_FALSE(sys::fs::createTemporaryFile("tries", "tsv", FD, Path));
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << Text;
  return std::string(Path);
}

constexpr const char *Header =
    "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\tcallee_sites\t"
    "position\tunit_text\tdelta\tok\tkept\n";

TEST(MoveRankerTest, TriesLogsReadBack) {
  std::string P = writeTemp(
      std::string(Header) +
      "0\t0\tzlib\tdeflate.c\theuristic\t0.0000\t0\t0\t0\t9000\t-12\t1\t1\n"
      "1\t8\tzlib\tdeflate.c\tsite f g 2 no-inline\tnan\t1\t3\t7\t8988\t4\t1\t"
      "0\n"
      "1\t8\tzlib\tinflate.c\tgroup g inline\t-1.5000\t2\t2\t0\t500\t-3\t1\t"
      "1\n");
  Expected<std::vector<TriesRow>> R = readTriesLog(P);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_EQ(R->size(), 3u);
  EXPECT_TRUE((*R)[0].Move.Heuristic);
  EXPECT_EQ((*R)[0].Delta, -12);
  EXPECT_TRUE((*R)[0].Kept);
  EXPECT_EQ((*R)[1].Move.getKey(), "site f g 2 no-inline");
  EXPECT_TRUE(std::isnan((*R)[1].Move.Features.Logit));
  EXPECT_EQ((*R)[1].Move.Features.Position, 7u);
  EXPECT_EQ((*R)[2].Move.getKey(), "group g inline");
  EXPECT_EQ((*R)[2].Move.Features.Logit, -1.5);
  EXPECT_EQ((*R)[2].UnitText, 500u);
  EXPECT_EQ((*R)[2].Program, "zlib");
  sys::fs::remove(P);
}

TEST(MoveRankerTest, BadTriesLogsNameTheLine) {
  std::string P = writeTemp("step\tcompiles\n");
  EXPECT_EQ(errorOf(readTriesLog(P)),
            (P + ":1: not a tries log (expected the header of "
                 "docs/tune.md)"));
  sys::fs::remove(P);
  P = writeTemp(std::string(Header) + "0\t0\tp\tm\tswap f g\t0\t1\t1\t0\t1\t"
                                      "0\t1\t0\n");
  EXPECT_EQ(errorOf(readTriesLog(P)), (P + ":2: unknown move 'swap f g'"));
  sys::fs::remove(P);
  P = writeTemp(std::string(Header) + "0\t0\tp\tm\theuristic\t0\t1\n");
  EXPECT_EQ(errorOf(readTriesLog(P)),
            (P + ":2: expected 13 tab-separated columns, found 7"));
  sys::fs::remove(P);
  P = writeTemp(std::string(Header) + "0\t0\tp\tm\theuristic\t0\t1\t1\t0\t1\t"
                                      "-x\t1\t0\n");
  EXPECT_EQ(errorOf(readTriesLog(P)), (P + ":2: bad number in columns 7-13"));
  sys::fs::remove(P);
}

TEST(MoveRankerTest, GuidedOrderFollowsTheScoreHeuristicFirst) {
  std::vector<DecidedSite> T(3);
  T[0].Site = {"f", "a", 0, true};
  T[1].Site = {"f", "b", 0, false};
  T[2].Site = {"f", "c", 0, true};
  StringSet<> Tried;
  // Scores: refusing a saves 1, inlining b 9, refusing c 5.
  auto Score = [](const TuneMove &M) {
    return M.Entry.Callee == "a" ? 1.0 : M.Entry.Callee == "b" ? 9.0 : 5.0;
  };
  std::vector<TuneMove> Moves =
      planMoves(T, TuneOrder::Guided, 1, Tried, true, Score);
  std::vector<std::string> Keys;
  for (const TuneMove &M : Moves)
    Keys.push_back(M.getKey());
  EXPECT_EQ(Keys, (std::vector<std::string>{"heuristic", "site f b 0 inline",
                                            "site f c 0 no-inline",
                                            "site f a 0 no-inline"}));
}

} // namespace
