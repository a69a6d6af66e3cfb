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

TEST(TuneReportTest, HoistingAndFailuresHaveTheirLines) {
  RunReport R = makeReport();
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

SpeedRunReport makeSpeedReport() {
  SpeedRunReport R;
  R.ProgramName = "pkg";
  R.CorpusDir = "corpus";
  R.Fingerprint = "abc";
  R.Profile = "p.prof";
  R.ModelMeta = "none";
  R.Seed = 1;
  R.SearchCompiles = 7;
  R.HotFunctions = 3;
  R.NearMisses = 10;
  R.HotShare = 0.5;
  R.BaseTotal = 4000;
  R.BuildIdentity = "mlgo 1\n";
  R.ClangVersion = "clang 19";
  SpeedModuleReport &A = R.Modules.emplace_back();
  A.Key = "a.c";
  A.Searched = true;
  A.Base = 1000;
  A.Model = 950;
  A.Final = 900;
  A.InliningGain = 40;
  A.EvictionGain = 60;
  A.BaseCycles = 2000;
  A.FinalCycles = 1800;
  A.SiteEntries = 2;
  A.EvictionEntries = 1;
  A.Tries = 7;
  A.InlineTries = 4;
  A.InlineKept = 2;
  A.EvictTries = 3;
  A.EvictKept = 1;
  A.InlinePasses = 2;
  A.EvictPasses = 1;
  A.LaterTries = 1;
  A.Moves = {"a.c\tinline\tf\tg 0 inline\t-40\tkept",
             "a.c\tevict\tf\t3\t+5\t-"};
  A.Kept = {{2, 960}, {5, 900}};
  // Hotter, but not searched: first in the moves, in no table.
  SpeedModuleReport &B = R.Modules.emplace_back();
  B.Key = "b.c";
  B.Base = B.Model = B.Final = 3000;
  B.BaseCycles = B.FinalCycles = 5000;
  B.Moves = {"b.c\tinline\th\tk 0 inline\t+1\t-"};
  return R;
}

TEST(TuneReportTest, SpeedPercentIsSignedWithThreeDecimals) {
  EXPECT_EQ(formatSpeedPercent(900, 1000), "-10.000%");
  EXPECT_EQ(formatSpeedPercent(1000.25, 1000), "+0.025%");
  EXPECT_EQ(formatSpeedPercent(5, 0), "+0.000%");
}

TEST(TuneReportTest, SpeedReportTablesTheSearchedModules) {
  EXPECT_EQ(formatSpeedReport(makeSpeedReport()),
            "# mlgo tune --objective speed: pkg\n\n"
            "Corpus `corpus` (2 modules, fingerprint abc), profile `p.prof`, "
            "seed 1, no budget, 3 hot functions (50% of the profile-weighted "
            "instructions).\n\n"
            "Estimated executed instructions (profile-weighted, from the "
            "objects): clang-19 -O2 -fprofile-use 4000, the eviction model on "
            "the inlining entries 3950, tuned 3900 (-2.500%): inlining -1.000% "
            "(2 entries), eviction -1.500% (1 entries). Search: 7 compiles.\n\n"
            "| module | LLVM | model | tuned | predicted | inlining | eviction "
            "| entries | tries | kept | cycles: LLVM | tuned |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            "| a.c | 1000 | 950 | 900 | -10.000% | -4.000% | -6.000% | 2+1 | "
            "4+3 | 2+1 | 2000 | 1800 |\n"
            "\n`model`: the eviction model with the kept inlining entries, "
            "before eviction moves. `inlining`, `eviction`: what each saved of "
            "the module's -O2 cost; `entries`, `tries`, `kept`: inlining + "
            "eviction.\n"
            "\n| module | share | handed on | tries | out of moves | passes | "
            "later passes: tries | kept |\n"
            "|---|---:|---:|---:|---|---:|---:|---:|\n"
            "| a.c | 0 | 0 | 7 | no | 2+1 | 1 | 0 |\n"
            "\n`share`: the module's part of --max-compiles (0 without one); "
            "`passes`, inlining + eviction: a pass after one that kept a move "
            "tries again the moves it did not keep.\n"
            "\nMeasured gains: not measured by this run (`--workload CMD` "
            "measures them; `mlgo eval package --profile P --decisions FILE` "
            "builds and measures both).\n"
            "\n## What the caches are keyed on\n\n"
            "A compile's result (`speed/`) is read back only for the same "
            "module (its bitcode and command), profile (its bytes), entries, "
            "eviction (LLVM's, or the model none), mlgo and compiler:\n\n```\n"
            "mlgo 1\nclang 19\n```\n");
}

TEST(TuneReportTest, SpeedReportWithAWorkloadTablesWhatItMeasured) {
  SpeedRunReport R = makeSpeedReport();
  R.Modules[0].MeasuredAlone = speed::WorkloadMeasure();
  R.Modules[0].MeasuredAlone->Count = 19000;
  R.Modules[0].Predicted = 900;
  R.Modules[0].Reverted = true;
  WorkloadVerdict V;
  V.Untuned.Count = 20000;
  V.AllTuned.Count = V.Final.Count = 19000;
  V.Runs = 3;
  R.Verdict = V;
  R.Workload = "./run";
  R.ValgrindVersion = "valgrind-3.20\n";
  std::string Text = formatSpeedReport(R);
  EXPECT_NE(Text.find("## Measured on the workload\n\n`./run` under "
                      "callgrind (executed instructions from main, in the "
                      "program's own processes; 3 programs measured): "
                      "untuned 20000, every changed module tuned 19000 "
                      "(-5.000%), the file's program 19000 (-5.000%).\n\n"
                      "| module | predicted | measured alone | verdict |\n"
                      "|---|---:|---:|---|\n| a.c | -10.000% of the module "
                      "| -5.000% of the program | reverted: measured worse "
                      "|\n"),
            std::string::npos);
  EXPECT_NE(Text.find("mlgo (as above), `valgrind-3.20` and no "
                      "`--workload-input`"),
            std::string::npos);
}

TEST(TuneReportTest, SpeedReportUnderTimeShowsIntervalsAndVerdicts) {
  SpeedRunReport R = makeSpeedReport();
  R.Cost = speed::CostKind::Time;
  auto Timed = [](double Median, double Low, double High, unsigned Rounds) {
    speed::WorkloadMeasure M;
    M.Ratio = speed::RatioEstimate();
    M.Ratio->Median = Median;
    M.Ratio->CI = {Low, High};
    M.Rounds = Rounds;
    return M;
  };
  R.Modules[0].MeasuredAlone = Timed(0.995, 0.98, 1.01, 40);
  R.Modules[0].Predicted = 900;
  R.Modules[0].Reverted = true;
  WorkloadVerdict V;
  V.Untuned = Timed(1, 1, 1, 0);
  V.AllTuned = *R.Modules[0].MeasuredAlone;
  V.Final = V.Untuned;
  V.Runs = 2;
  R.Verdict = V;
  R.Workload = "./run";
  R.ValgrindVersion = "valgrind-3.20\n";
  std::string Text = formatSpeedReport(R);
  EXPECT_NE(Text.find("## Measured on the workload\n\n`./run` timed against "
                      "the untuned program (`mlgo bench`'s engine: alternated "
                      "rounds, the CPU time of the workload command, the "
                      "median of the paired ratios with its bootstrap 95% "
                      "interval; 2 programs measured, each tuned one in a "
                      "bench of its own): every changed module tuned 0.9950 "
                      "[0.9800, 1.0100] no measurable difference (40 rounds), "
                      "the file's program the untuned program (every changed "
                      "module reverted). A module is kept only when its "
                      "interval lies below 1, and the file's program only "
                      "when its own does too.\n\n| module | predicted | "
                      "measured alone: CPU time ratio [95% interval] | "
                      "verdict |\n|---|---:|---:|---|\n| a.c | -10.000% of "
                      "the module | 0.9950 [0.9800, 1.0100] no measurable "
                      "difference (40 rounds) | reverted: no measurable "
                      "difference |\n"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("A workload time is never read back"), std::string::npos);
  EXPECT_EQ(formatWorkloadMeasured(speed::CostKind::Time, V),
            "workload CPU time, tuned/untuned: the untuned program (every "
            "changed module reverted)");
  V.Final = V.AllTuned = Timed(0.97, 0.96, 0.98, 12);
  EXPECT_EQ(formatWorkloadMeasured(speed::CostKind::Time, V),
            "workload CPU time, tuned/untuned: 0.9700 [0.9600, 0.9800] "
            "faster (12 rounds)");
  V.Untuned = speed::WorkloadMeasure();
  V.Untuned.Count = 200;
  V.Final.Count = 190;
  EXPECT_EQ(formatWorkloadMeasured(speed::CostKind::Cycles, V),
            "workload estimated cycles: untuned 200, tuned 190 (-5.000%)");
}

TEST(TuneReportTest, SpeedMovesAreHottestModuleFirst) {
  EXPECT_EQ(formatSpeedMoves(makeSpeedReport()),
            "module\tkind\tfunction\tdecision\tdelta\tkept\n"
            "b.c\tinline\th\tk 0 inline\t+1\t-\n"
            "a.c\tinline\tf\tg 0 inline\t-40\tkept\n"
            "a.c\tevict\tf\t3\t+5\t-\n");
}

TEST(TuneReportTest, SpeedCurveIsOneLineThroughTheKeptMoves) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("tune-report", Dir));
  std::string Path = (Dir + "/curve-speed.svg").str();
  ASSERT_FALSE(bool(writeSpeedCurve(Path, makeSpeedReport())));
  auto SVG = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(SVG));
  EXPECT_EQ((*SVG)->getBuffer().count("<polyline"), 1u);
  EXPECT_NE((*SVG)->getBuffer().find("estimated gain"), StringRef::npos);
  sys::fs::remove_directories(Dir);
}

} // namespace
