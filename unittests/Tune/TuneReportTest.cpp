//===- unittests/Tune/TuneReportTest.cpp - What a tune run writes ---------===//
//
// The report, the tries log, the filter's log and the curve, to the byte,
// from made-up values.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/TuneReport.h"

#include "mlgo/Support/Files.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace mlgo;

namespace {

RunReport makeReport() {
  RunReport R;
  R.CorpusDir = "corpus";
  R.Modules = 3;
  R.Fingerprint = "abc";
  R.ModelDescription = "embedded (model.json md5 00)";
  R.OrderDescription = "unguided";
  R.Budget = "10 compiles";
  R.Seed = 1;
  R.Compiles = 10;
  ProgramReport &P = R.Programs.emplace_back();
  P.Shown = "the corpus";
  P.Stock = 1000;
  P.Model = 990;
  P.Tuned = 980;
  P.UnitsTuned = 1;
  P.Units = 2;
  P.KeptLines = {"- a.c: inline g into f #0 (-10 bytes)"};
  return R;
}

TEST(TuneReportTest, AReportOfOneProgram) {
  EXPECT_EQ(formatReport(makeReport()),
            "# mlgo tune report\n\n"
            "- Corpus: corpus (3 modules, fingerprint abc); 0 failed to "
            "compile and are left out.\n"
            "- Model: embedded (model.json md5 00); order unguided; seed 1; "
            "budget 10 compiles.\n"
            "- Search: 10 compiles.\n"
            "\n| program | -Oz | model | tuned | tuned vs -Oz | tuned vs model "
            "| modules tuned |\n|---|---:|---:|---:|---:|---:|---:|\n"
            "| the corpus | 1000 | 990 | 980 | -2.00% | -1.01% | 1 of 2 |\n"
            "\n## the corpus\n\n"
            "Linked .text: -Oz 1000, model 990, tuned 980 bytes (-2.00% vs "
            "-Oz, -1.01% vs the model).\n\n"
            "- a.c: inline g into f #0 (-10 bytes)\n");
}

TEST(TuneReportTest, TheFilterHoistingAndFailuresHaveTheirLines) {
  RunReport R = makeReport();
  R.Filtered = 7;
  R.StoppedByBudget = true;
  R.HoistedFunctions = 1;
  R.ProgramEntries = 2;
  R.Removed = 3;
  R.Added = 0;
  R.Failures = {"b.c: error"};
  R.Programs.push_back(R.Programs.front());
  R.Programs.back().Shown = "other";
  R.Programs.back().KeptLines.clear();
  std::string Md = formatReport(R);
  EXPECT_NE(Md.find("- Search: 10 compiles, stopped by the budget.\n"),
            std::string::npos);
  EXPECT_NE(Md.find("1 failed to compile and is left out (see Failed "
                    "compiles)"),
            std::string::npos);
  EXPECT_NE(Md.find("- Whole-program decisions: 1 linkonce_odr function "
                    "decided once for their program (2 program entries; 3 "
                    "module entries left out, 0 added).\n"),
            std::string::npos);
  EXPECT_NE(Md.find("- Logged filter (each trajectory's logged size scores, "
                    "no compile): 7 planned moves without a positive logged "
                    "gain were skipped.\n"),
            std::string::npos);
  EXPECT_NE(Md.find("| total | 2000 | 1980 | 1960 | -2.00% | -1.01% | |\n"),
            std::string::npos);
  EXPECT_NE(Md.find("\n## other\n\nLinked .text: -Oz 1000, model 990, tuned "
                    "980 bytes (-2.00% vs -Oz, -1.01% vs the model).\n\n"
                    "## Failed compiles\n\n"),
            std::string::npos);
  EXPECT_TRUE(StringRef(Md).ends_with("again.\n\n- b.c: error\n"));
}

TEST(TuneReportTest, TheTriesLogHasOneLinePerJudgedTry) {
  TryRecord T;
  T.Step = 2;
  T.Compiles = 5;
  T.Unit = 1;
  T.Move.Entry = {"f", "g", 0, true};
  T.Move.Features = {-0.5, 1, 2, 3};
  T.UnitText = 400;
  T.Delta = -7;
  T.Ok = true;
  T.Kept = true;
  TryRecord H;
  H.Move.Heuristic = true;
  H.Move.Features.Logit = std::nan("");
  std::string Tsv = formatTries(
      {T, H}, [](size_t U) { return "prog" + std::to_string(U); },
      [](size_t U) { return "unit" + std::to_string(U); });
  EXPECT_EQ(Tsv, "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\t"
                 "callee_sites\tposition\tunit_text\tdelta\tok\tkept\n"
                 "2\t5\tprog1\tunit1\tsite f g 0 inline\t-0.5000\t1\t2\t3\t400"
                 "\t-7\t1\t1\n"
                 "0\t0\tprog0\tunit0\theuristic\tnan\t0\t0\t0\t0\t0\t0\t0\n");
}

TEST(TuneReportTest, TheFiltersLogNamesWhatItTookOut) {
  std::vector<FilteredRecord> F = {
      {3, "a.c", {"site f g 0 no-inline", -6.0}},
      {3, "a.c", {"group g inline", std::nan("")}}};
  EXPECT_EQ(formatFiltered(F), "compiles\tmodule\tmove\tlogged_gain\n"
                               "3\ta.c\tsite f g 0 no-inline\t-6.00\n"
                               "3\ta.c\tgroup g inline\tnone\n");
}

TEST(TuneReportTest, TheCurveIsCSVAndSVG) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("tune-report", Dir));
  std::string Stem = (Dir + "/curve-guided").str();
  ASSERT_FALSE(bool(writeCurve(Stem, {{0, 1000, 0}, {8, 990, 1.26}}, 1000)));
  auto CSV = MemoryBuffer::getFile(Stem + ".csv");
  ASSERT_TRUE(bool(CSV));
  EXPECT_EQ((*CSV)->getBuffer().str(),
            "compiles,linked bytes,% vs the model,"
            "seconds\n0,1000,0.000,0.0\n8,990,-1.000,1.3\n");
  auto SVG = MemoryBuffer::getFile(Stem + ".svg");
  ASSERT_TRUE(bool(SVG));
  EXPECT_EQ((*SVG)->getBuffer().count("<polyline"), 1u);
  EXPECT_NE((*SVG)->getBuffer().find("% vs the model"), StringRef::npos);
  sys::fs::remove_directories(Dir);
}

} // namespace
