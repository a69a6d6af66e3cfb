//===- unittests/Eval/EvalTest.cpp - MLGOEval unit tests ------------------===//
//
// The parts of evaluation that need no compiler run: table rendering in the
// three formats, the size report's totals, geometric means and best/worst
// modules, the SVG chart, the package report and its verdicts, the RSS log
// parser, and the parallel corpus driver against a fake ModuleCompiler.
// Real compiles and real packages are lit tests (test/Eval/).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Config.h"
#include "mlgo/Eval/ClangModuleCompiler.h"
#include "mlgo/Eval/CorpusEval.h"
#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Eval/PackageReport.h"
#include "mlgo/Eval/SizeChart.h"
#include "mlgo/Eval/SizeReport.h"
#include "mlgo/Eval/Table.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <map>
#include <mutex>

using namespace llvm;
using namespace mlgo;

namespace {

/// Two packages, two models; zlib/crc.o has no code.
SizeReport makeReport() {
  SizeReport R;
  R.ModelNames = {"m1", "m2"};
  R.Modules = {{"zlib/a.o", 1000, {900, 1100}, {}},
               {"zlib/crc.o", 0, {0, 0}, {}},
               {"bzip2/b.o", 2000, {2000, 1800}, {}},
               {"bzip2/c.o", 400, {500, 400}, {}}};
  R.ModulesRequested = 5;
  R.Failures = {{"lua/bad.o", "m2", "clang-19 exited with 1"}};
  return R;
}

std::string print(const SizeReport &R, ReportFormat F, bool PerModule) {
  std::string S;
  raw_string_ostream OS(S);
  R.print(OS, F, PerModule);
  return S;
}

TEST(TableTest, TerminalAlignsAndRules) {
  Table T;
  T.Header = {"name", "n"};
  T.addRow({"a", "1"});
  T.addRow({"long name", "12345"});
  T.addRuleBeforeNextRow();
  T.addRow({"TOTAL", "12346"});
  std::string S;
  raw_string_ostream OS(S);
  T.printTerminal(OS);
  EXPECT_EQ(S, "name           n\n"
               "----------------\n"
               "a              1\n"
               "long name  12345\n"
               "----------------\n"
               "TOTAL      12346\n");
}

TEST(TableTest, MarkdownAndCSVQuote) {
  Table T;
  T.Header = {"name", "value"};
  T.addRow({"a|b", "x,\"y\""});
  std::string MD, CSV;
  raw_string_ostream M(MD), C(CSV);
  T.printMarkdown(M);
  T.printCSV(C);
  EXPECT_EQ(MD, "| name | value |\n"
                "| --- | ---: |\n"
                "| a\\|b | x,\"y\" |\n");
  EXPECT_EQ(CSV, "name,value\n"
                 "a|b,\"x,\"\"y\"\"\"\n");
}

TEST(TableTest, DeltaPercent) {
  EXPECT_EQ(formatDeltaPercent(1000, 900), "-10.00%");
  EXPECT_EQ(formatDeltaPercent(1000, 1001), "+0.10%");
  EXPECT_EQ(formatDeltaPercent(3, 3), "+0.00%");
  EXPECT_EQ(formatDeltaPercent(100000, 99999), "+0.00%");
  EXPECT_EQ(formatDeltaPercent(0, 5), "n/a");
}

TEST(TableTest, ParseFormat) {
  EXPECT_TRUE(bool(parseReportFormat("csv")));
  Expected<ReportFormat> Bad = parseReportFormat("html");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "unknown format 'html'; expected table, markdown or csv");
}

TEST(SizeReportTest, PackagesTotalsAndGeometricMeans) {
  SizeReport R = makeReport();
  std::vector<GroupStats> P = R.getPackageStats();
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Name, "bzip2");
  EXPECT_EQ(P[0].BaselineTotal, 2400u);
  EXPECT_EQ(P[0].Models[0].Total, 2500u);
  // sqrt(1.0 * 1.25)
  EXPECT_DOUBLE_EQ(P[0].Models[0].GeoMeanRatio, std::sqrt(1.25));
  EXPECT_EQ(P[1].Name, "zlib");
  EXPECT_EQ(P[1].WithoutRatio, 1u);
  EXPECT_DOUBLE_EQ(P[1].Models[0].GeoMeanRatio, 0.9);
  GroupStats T = R.getTotalStats();
  EXPECT_EQ(T.Modules, 4u);
  EXPECT_EQ(T.BaselineTotal, 3400u);
  EXPECT_EQ(T.Models[1].Total, 3300u);
  EXPECT_NEAR(T.Models[1].GeoMeanRatio, std::cbrt(1.1 * 0.9 * 1.0), 1e-12);
  EXPECT_EQ(R.getBest(0)->Module, "zlib/a.o");
  EXPECT_EQ(R.getWorst(0)->Module, "bzip2/c.o");
  EXPECT_EQ(R.getBest(1)->Module, "bzip2/b.o");
  EXPECT_EQ(R.getWorst(1)->Module, "zlib/a.o");
}

// Packages are the corpus library's (mlgo/Corpus/Package.h): a module
// without a directory has none, shown as training shows it.
TEST(SizeReportTest, TopLevelModulesAreOneGroupWithoutAPackage) {
  SizeReport R;
  R.ModelNames = {"m"};
  R.Modules = {{"zlib/a.o", 100, {90}, {}},
               {"b.o", 50, {50}, {}},
               {"c.o", 10, {20}, {}}};
  std::vector<GroupStats> P = R.getPackageStats();
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Name, "(modules without a directory)");
  EXPECT_EQ(P[0].Modules, 2u);
  EXPECT_EQ(P[0].BaselineTotal, 60u);
  EXPECT_EQ(P[1].Name, "zlib");
  EXPECT_EQ(P[1].Modules, 1u);
}

TEST(SizeReportTest, TerminalReport) {
  EXPECT_EQ(
      print(makeReport(), ReportFormat::Table, /*PerModule=*/true),
      "module       -Oz    m1    delta    m2    delta\n"
      "----------------------------------------------\n"
      "zlib/a.o    1000   900  -10.00%  1100  +10.00%\n"
      "zlib/crc.o     0     0      n/a     0      n/a\n"
      "bzip2/b.o   2000  2000   +0.00%  1800  -10.00%\n"
      "bzip2/c.o    400   500  +25.00%   400   +0.00%\n"
      "\n"
      "package  modules   -Oz    m1    delta  geomean    m2    delta  geomean\n"
      "----------------------------------------------------------------------\n"
      "bzip2          2  2400  2500   +4.17%   1.1180  2200   -8.33%   0.9487\n"
      "zlib           2  1000   900  -10.00%   0.9000  1100  +10.00%   1.1000\n"
      "----------------------------------------------------------------------\n"
      "TOTAL          4  3400  3400   +0.00%   1.0400  3300   -2.94%   0.9967\n"
      "\n"
      "best module for m1: zlib/a.o -10.00% (1000 -> 900 bytes)\n"
      "worst module for m1: bzip2/c.o +25.00% (400 -> 500 bytes)\n"
      "best module for m2: bzip2/b.o -10.00% (2000 -> 1800 bytes)\n"
      "worst module for m2: zlib/a.o +10.00% (1000 -> 1100 bytes)\n"
      "1 of 4 modules have no .text under some policy and are left out "
      "of the geometric means\n"
      "1 of 5 modules failed to compile and are not in the tables: "
      "lua/bad.o\n");
}

TEST(SizeReportTest, MarkdownReport) {
  EXPECT_EQ(print(makeReport(), ReportFormat::Markdown, /*PerModule=*/false),
            "| package | modules | -Oz | m1 | delta | geomean | m2 | delta | "
            "geomean |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            "| bzip2 | 2 | 2400 | 2500 | +4.17% | 1.1180 | 2200 | -8.33% | "
            "0.9487 |\n"
            "| zlib | 2 | 1000 | 900 | -10.00% | 0.9000 | 1100 | +10.00% | "
            "1.1000 |\n"
            "| TOTAL | 4 | 3400 | 3400 | +0.00% | 1.0400 | 3300 | -2.94% | "
            "0.9967 |\n"
            "\n"
            "- best module for m1: zlib/a.o -10.00% (1000 -> 900 bytes)\n"
            "- worst module for m1: bzip2/c.o +25.00% (400 -> 500 bytes)\n"
            "- best module for m2: bzip2/b.o -10.00% (2000 -> 1800 bytes)\n"
            "- worst module for m2: zlib/a.o +10.00% (1000 -> 1100 bytes)\n"
            "- 1 of 4 modules have no .text under some policy and are left "
            "out of the geometric means\n"
            "- 1 of 5 modules failed to compile and are not in the tables: "
            "lua/bad.o\n");
}

TEST(SizeReportTest, CSVReport) {
  EXPECT_EQ(print(makeReport(), ReportFormat::CSV, /*PerModule=*/true),
            "kind,name,modules,-Oz,m1,m1 delta %,m1 geomean,m2,m2 delta %,m2 "
            "geomean\n"
            "module,zlib/a.o,1,1000,900,-10.00%,0.9000,1100,+10.00%,1.1000\n"
            "module,zlib/crc.o,1,0,0,n/a,n/a,0,n/a,n/a\n"
            "module,bzip2/b.o,1,2000,2000,+0.00%,1.0000,1800,-10.00%,0.9000\n"
            "module,bzip2/c.o,1,400,500,+25.00%,1.2500,400,+0.00%,1.0000\n"
            "package,bzip2,2,2400,2500,+4.17%,1.1180,2200,-8.33%,0.9487\n"
            "package,zlib,2,1000,900,-10.00%,0.9000,1100,+10.00%,1.1000\n"
            "total,TOTAL,4,3400,3400,+0.00%,1.0400,3300,-2.94%,0.9967\n");
}

/// A C++ package whose two modules share the inline function f (a COMDAT
/// group); m inlines f's calls in a.o, which drops its copy.
SizeReport makeGroupedReport() {
  SizeReport R;
  R.ModelNames = {"m"};
  R.Modules = {{"cxx/a.o", 150, {130}, {{{".text.f", 50}}, {}}},
               {"cxx/b.o",
                260,
                {250},
                {{{".text.f", 50}, {".text.g", 10}}, {{".text.f", 50}}}},
               {"zlib/z.o", 70, {70}, {}}};
  R.ModulesRequested = 3;
  return R;
}

TEST(SizeReportTest, GroupedCodeOncePerPackage) {
  SizeReport R = makeGroupedReport();
  std::vector<GroupStats> P = R.getPackageStats();
  ASSERT_EQ(P.size(), 2u);
  // -Oz: 100 + 50 in a.o, 200 + 50 + 10 in b.o; f once: 360.
  EXPECT_TRUE(P[0].HasGrouped);
  EXPECT_EQ(P[0].BaselineTotal, 410u);
  EXPECT_EQ(P[0].BaselineOnce, 360u);
  // m: a.o 130 without f, b.o 200 + f; per module -30, once +0 (b.o
  // still has f) and -10 (g inlined away).
  EXPECT_EQ(P[0].Models[0].Total, 380u);
  EXPECT_EQ(P[0].Models[0].Once, 380u);
  EXPECT_FALSE(P[1].HasGrouped);
  EXPECT_EQ(P[1].BaselineOnce, 70u);
  GroupStats T = R.getTotalStats();
  EXPECT_EQ(T.BaselineOnce, 430u);
  EXPECT_EQ(T.Models[0].Once, 450u);
  EXPECT_EQ(print(R, ReportFormat::Table, /*PerModule=*/false),
            "package  modules  -Oz    m   delta  geomean\n"
            "-------------------------------------------\n"
            "cxx            2  410  380  -7.32%   0.9129\n"
            "zlib           1   70   70  +0.00%   1.0000\n"
            "-------------------------------------------\n"
            "TOTAL          3  480  450  -6.25%   0.9410\n"
            "\n"
            "C++ inline and template functions (COMDAT groups) counted once "
            "per package, as linking its objects together keeps them:\n"
            "\n"
            "package (grouped code once)  modules  -Oz    m   delta\n"
            "------------------------------------------------------\n"
            "cxx                                2  360  380  +5.56%\n"
            "------------------------------------------------------\n"
            "TOTAL                              3  430  450  +4.65%\n"
            "\n"
            "best module for m: cxx/a.o -13.33% (150 -> 130 bytes)\n"
            "worst module for m: zlib/z.o +0.00% (70 -> 70 bytes)\n");
  EXPECT_EQ(print(R, ReportFormat::CSV, /*PerModule=*/false),
            "kind,name,modules,-Oz,m,m delta %,m geomean\n"
            "package,cxx,2,410,380,-7.32%,0.9129\n"
            "package,zlib,1,70,70,+0.00%,1.0000\n"
            "total,TOTAL,3,480,450,-6.25%,0.9410\n"
            "package-once,cxx,2,360,380,+5.56%,n/a\n"
            "total-once,TOTAL,3,430,450,+4.65%,n/a\n");
}

TEST(CodeSizeTest, CodeOnceKeepsTheFirstCopy) {
  CodeSize A, B, C;
  A.Total = 100;
  A.Grouped = {{".text.f", 30}, {".text.g", 20}};
  B.Total = 90;
  B.Grouped = {{".text.f", 34}};
  C.Total = 5;
  EXPECT_EQ(A.getGroupedTotal(), 50u);
  EXPECT_EQ(A.getUngroupedTotal(), 50u);
  // 50 + 50 (f, g from A) + 56 + 0 (B's f is a second copy) + 5.
  EXPECT_EQ(getCodeOnce({&A, &B, &C}), 161u);
  // B first: its f (34) is the one kept.
  EXPECT_EQ(getCodeOnce({&B, &A}), 56u + 34u + 50u + 20u);
  EXPECT_EQ(getCodeOnce({}), 0u);
}

TEST(SizeChartTest, BarsAxisAndLegend) {
  SizeReport R = makeReport();
  BarChart C = BarChart::fromSizeReport(R);
  ASSERT_EQ(C.GroupNames, (std::vector<std::string>{"bzip2", "zlib", "TOTAL"}));
  EXPECT_NEAR(C.Values[1][0], -10.0, 1e-12);
  std::string S;
  raw_string_ostream OS(S);
  C.writeSVG(OS);
  // Range -10%..+10% in steps of 5%; 300 px high from y=50: +10% at 50,
  // 0% at 200, -10% at 350.
  EXPECT_NE(S.find("<text x=\"64.0\" y=\"354.0\" text-anchor=\"end\">-10%"
                   "</text>\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("<text x=\"64.0\" y=\"54.0\" text-anchor=\"end\">+10%"
                   "</text>\n"),
            std::string::npos);
  // zlib under m1: -10%, a bar from the zero line down to the bottom.
  EXPECT_NE(S.find("<rect x=\"130.0\" y=\"200.0\" width=\"16.0\" "
                   "height=\"150.0\" fill=\"#4e79a7\"><title>zlib, m1: "
                   "-10.00%</title></rect>\n"),
            std::string::npos);
  // bzip2 under m2: -8.33%, labelled under the bar.
  EXPECT_NE(S.find("<title>bzip2, m2: -8.33%</title></rect>\n<text x=\"104.0\" "
                   "y=\"335.0\" font-size=\"8\" text-anchor=\"middle\">-8.3"
                   "</text>\n"),
            std::string::npos);
  EXPECT_NE(S.find("<title>bzip2, m1: +4.17%</title>"), std::string::npos);
  EXPECT_NE(S.find("<text x=\"260.0\" y=\"78.0\">m2</text>\n"),
            std::string::npos);
  EXPECT_EQ(S.substr(S.size() - 7), "</svg>\n");
  // The same input gives the same bytes.
  std::string S2;
  raw_string_ostream OS2(S2);
  C.writeSVG(OS2);
  EXPECT_EQ(S, S2);
}

TEST(PackageReportTest, RSSLog) {
  size_t Runs = 0;
  EXPECT_EQ(parsePeakRSS("51200\nCommand exited with non-zero status 1\n"
                         "73728\n\n1024\n",
                         &Runs),
            73728u);
  EXPECT_EQ(Runs, 3u);
  EXPECT_EQ(parsePeakRSS(""), 0u);
}

TEST(PackageReportTest, SpeedTable) {
  PackageReport R;
  R.Package = "lzip";
  R.BaselineName = "-O2";
  R.ModelName = "evict";
  R.HasSpeed = true;
  R.Speed.BaselineExecuted = 1000000;
  R.Speed.ModelExecuted = 990000;
  R.Speed.BaselineRewardInstructions = 2000.4;
  R.Speed.ModelRewardInstructions = 2010.6;
  R.Speed.BaselineRewardCycles = 800;
  R.Speed.ModelRewardCycles = 0;
  R.Speed.WallRuns = 5;
  R.Speed.BaselineWallMedian = 1.25;
  R.Speed.ModelWallMedian = 1.2;
  R.Speed.WallRatioMedian = 0.96;
  std::string S;
  raw_string_ostream OS(S);
  R.getSpeedTable().print(OS, ReportFormat::Table);
  EXPECT_EQ(S, "lzip speed                             -O2   evict   ratio\n"
               "----------------------------------------------------------\n"
               "executed instructions (callgrind)  1000000  990000  0.9900\n"
               "reward: instructions (profile)        2000    2011  1.0051\n"
               "reward: cycles (profile)               800       0  0.0000\n"
               "wall-clock seconds (median of 5)     1.250   1.200  0.9600\n");
  R.Speed.BaselineRewardCycles = 0;
  std::vector<std::pair<std::string, const PackageReport *>> Rows = {
      {"lzip", &R}, {"gone", nullptr}};
  std::string Summary;
  raw_string_ostream SOS(Summary);
  getSpeedSummaryTable(Rows, "-O2", "evict").print(SOS, ReportFormat::CSV);
  EXPECT_EQ(Summary, "package,instructions evict/-O2,reward instructions,"
                     "reward cycles,wall-clock\n"
                     "lzip,0.9900,1.0051,-,0.9600\n");
}

TEST(PackageReportTest, BoltTableAndWhatSurvives) {
  PackageReport R;
  R.Package = "xz";
  R.BaselineName = "-O2";
  R.ModelName = "tuned";
  R.HasBolt = true;
  BoltReport &B = R.Bolt;
  B.Names = {"-O2", "-O2+BOLT", "tuned", "tuned+BOLT"};
  B.Executed = {1000000, 990000, 980000, 975000};
  B.Time = {{1, {1, 1}},
            {0.95, {0.94, 0.96}},
            {0.98, {0.97, 0.99}},
            {0.96, {0.95, 0.97}}};
  B.ModelAfterBolt = {1.01, {0.995, 1.02}};
  B.BoltAfterModel = {0.97, {0.96, 0.98}};
  B.Measure = "CPU time";
  B.Stopped = "at the cap of 20 rounds";
  B.LoadBefore = "1.00 0.50 0.25";
  B.LoadAfter = "1.10 0.60 0.30";
  B.Rounds = 20;
  B.Programs = {"src/xz/xz"};
  std::string S;
  raw_string_ostream OS(S);
  R.getBoltTable().print(OS, ReportFormat::Table);
  EXPECT_EQ(S, "xz against BOLT  executed instructions   ratio  CPU time "
               "ratio [95% interval]   verdict\n"
               "-------------------------------------------------------------"
               "--------------------------\n"
               "-O2                            1000000  1.0000        1.0000 "
               "[1.0000, 1.0000]  baseline\n"
               "-O2+BOLT                        990000  0.9900        0.9500 "
               "[0.9400, 0.9600]    faster\n"
               "tuned                           980000  0.9800        0.9800 "
               "[0.9700, 0.9900]    faster\n"
               "tuned+BOLT                      975000  0.9750        0.9600 "
               "[0.9500, 0.9700]    faster\n");
  std::string All;
  raw_string_ostream AOS(All);
  R.print(AOS, ReportFormat::Table);
  EXPECT_NE(All.find("BOLTed: src/xz/xz\n"
                     "timed: CPU time, 20 rounds (at the cap of 20 rounds); "
                     "load average 1.00 0.50 0.25 before, 1.10 0.60 0.30 "
                     "after\n"
                     "tuned against -O2: 0.9800 [0.9700, 0.9900] faster; with "
                     "BOLT both: 1.0100 [0.9950, 1.0200] no measurable "
                     "difference: tuned's gain does not survive BOLT\n"
                     "BOLT against -O2: 0.9500 [0.9400, 0.9600] faster; with "
                     "tuned both: 0.9700 [0.9600, 0.9800] faster: BOLT's gain "
                     "survives tuned\n"),
            std::string::npos)
      << All;
}

TEST(PackageReportTest, ReportAndVerdicts) {
  PackageReport R;
  R.Package = "zlib";
  R.ModelName = "embedded";
  R.Artifacts = {{"libz.a", 1000, 990}, {"minigzip", 3000, 3000}};
  R.Baseline = {10.0, 102400, 40};
  R.Model = {11.5, 106496, 40};
  R.Tests = {{"teststatic", true, true, ""},
             {"testshared", true, false, "log"},
             {"test64", false, false, "log"}};
  std::string S;
  raw_string_ostream OS(S);
  R.print(OS, ReportFormat::Table);
  EXPECT_EQ(S, "zlib artifact         -Oz  embedded   delta\n"
               "-------------------------------------------\n"
               "libz.a               1000       990  -1.00%\n"
               "minigzip             3000      3000  +0.00%\n"
               "-------------------------------------------\n"
               "TOTAL (2 artifacts)  4000      3990  -0.25%\n"
               "\n"
               "zlib build                 -Oz  embedded  ratio\n"
               "-----------------------------------------------\n"
               "wall-clock seconds       10.00     11.50  1.150\n"
               "peak compiler RSS (MiB)  100.0     104.0  1.040\n"
               "compiler runs               40        40\n"
               "\n"
               "zlib test    -Oz  embedded\n"
               "--------------------------\n"
               "teststatic  pass      pass\n"
               "testshared  pass      FAIL\n"
               "test64      FAIL      FAIL\n"
               "\n"
               "possible miscompile: zlib: test 'testshared' fails with "
               "embedded and passes with -Oz\n"
               "not attributable to embedded: zlib: test 'test64' fails with "
               "-Oz too\n"
               "zlib: 1 of 3 tests pass with embedded\n");
}

TEST(PackageReportTest, LtoTablesHaveTheBuildWithoutLto) {
  PackageReport R;
  R.Package = "cmark";
  R.BaselineName = "stock -flto=thin";
  R.ModelName = "embedded";
  R.HasTuned = true;
  R.HasNoLto = true;
  R.NoLtoName = "-Oz no LTO";
  R.Artifacts = {{"libcmark.so", 1000, 980, 950, 1100},
                 {"cmark", 200, 210, 190, 250}};
  R.Baseline = {10.0, 102400, 40};
  R.Model = {11.0, 102400, 40};
  R.Tuned = {12.0, 104448, 40};
  R.NoLto = {8.0, 51200, 40};
  TestOutcome T{"api", true, true, "", true, ""};
  T.NoLtoPassed = true;
  R.Tests = {T};
  EXPECT_EQ(R.getSizeTable().Header,
            (std::vector<std::string>{"cmark artifact", "stock -flto=thin",
                                      "embedded", "delta", "tuned",
                                      "tuned delta", "-Oz no LTO",
                                      "stock -flto=thin vs -Oz no LTO"}));
  std::string S;
  raw_string_ostream OS(S);
  R.print(OS, ReportFormat::CSV);
  EXPECT_EQ(S, "cmark artifact,stock -flto=thin,embedded,delta,tuned,tuned "
               "delta,-Oz no LTO,stock -flto=thin vs -Oz no LTO\n"
               "libcmark.so,1000,980,-2.00%,950,-5.00%,1100,-9.09%\n"
               "cmark,200,210,+5.00%,190,-5.00%,250,-20.00%\n"
               "TOTAL (2 artifacts),1200,1190,-0.83%,1140,-5.00%,1350,"
               "-11.11%\n"
               "\n"
               "cmark build,stock -flto=thin,embedded,ratio,tuned,tuned "
               "ratio,-Oz no LTO,-Oz no LTO ratio\n"
               "wall-clock seconds,10.00,11.00,1.100,12.00,1.200,8.00,0.800\n"
               "peak compiler RSS (MiB),100.0,100.0,1.000,102.0,1.020,50.0,"
               "0.500\n"
               "compiler runs,40,40,,40,,40,\n"
               "\n"
               "cmark test,stock -flto=thin,embedded,tuned,-Oz no LTO\n"
               "api,pass,pass,pass,pass\n");
}

TEST(PackageReportTest, SummaryOfSeveralPackages) {
  PackageReport A;
  A.Package = "zlib";
  A.ModelName = "embedded";
  A.Artifacts = {{"libz.a", 1000, 990}, {"minigzip", 3000, 3000}};
  A.Tests = {{"teststatic", true, true, ""}, {"testshared", true, false, ""}};
  PackageReport B;
  B.Package = "tinyxml2";
  B.ModelName = "embedded";
  B.Artifacts = {{"xmltest", 2000, 2030}};
  std::string S;
  raw_string_ostream OS(S);
  getPackageSummaryTable({{"zlib", &A}, {"gzip", nullptr}, {"tinyxml2", &B}},
                         "-Oz", "embedded")
      .print(OS, ReportFormat::Table);
  EXPECT_EQ(S, "package             -Oz .text  embedded .text   delta  "
               "tests passed -Oz  tests passed embedded\n"
               "-------------------------------------------------------"
               "---------------------------------------\n"
               "zlib                     4000            3990  -0.25%  "
               "             2/2                    1/2\n"
               "gzip                   failed          failed     n/a  "
               "             n/a                    n/a\n"
               "tinyxml2                 2000            2030  +1.50%  "
               "        no tests               no tests\n"
               "-------------------------------------------------------"
               "---------------------------------------\n"
               "TOTAL (2 packages)       6000            6020  +0.33%\n");
}

TEST(PackageReportTest, ATunedBuildGetsItsColumns) {
  PackageReport R;
  R.Package = "zlib";
  R.ModelName = "embedded";
  R.HasTuned = true;
  R.Artifacts = {{"libz.a", 1000, 990, 950}};
  R.Baseline = {10.0, 102400, 40};
  R.Model = {11.5, 106496, 40};
  R.Tuned = {12.0, 102400, 40};
  R.Tests = {{"teststatic", true, true, "", true},
             {"testshared", true, true, "", false, "log"}};
  std::string S;
  raw_string_ostream OS(S);
  R.print(OS, ReportFormat::Table);
  EXPECT_EQ(
      S, "zlib artifact         -Oz  embedded   delta  tuned  tuned delta\n"
         "---------------------------------------------------------------\n"
         "libz.a               1000       990  -1.00%    950       -5.00%\n"
         "---------------------------------------------------------------\n"
         "TOTAL (1 artifacts)  1000       990  -1.00%    950       -5.00%\n"
         "\n"
         "zlib build                 -Oz  embedded  ratio  tuned  tuned ratio\n"
         "-------------------------------------------------------------------\n"
         "wall-clock seconds       10.00     11.50  1.150  12.00        1.200\n"
         "peak compiler RSS (MiB)  100.0     104.0  1.040  100.0        1.000\n"
         "compiler runs               40        40            40\n"
         "\n"
         "zlib test    -Oz  embedded  tuned\n"
         "---------------------------------\n"
         "teststatic  pass      pass   pass\n"
         "testshared  pass      pass   FAIL\n"
         "\n"
         "possible miscompile: zlib: test 'testshared' fails with "
         "tuned and passes with -Oz\n"
         "zlib: 2 of 2 tests pass with embedded, 1 with tuned\n");
  std::string Sum;
  raw_string_ostream SOS(Sum);
  getPackageSummaryTable({{"zlib", &R}}, "-Oz", "embedded")
      .print(SOS, ReportFormat::Table);
  const std::string Rule(139, '-');
  EXPECT_EQ(Sum, "package            -Oz .text  embedded .text   delta  "
                 "tuned .text  tuned delta  tests passed -Oz  "
                 "tests passed embedded  tests passed tuned\n" +
                     Rule +
                     "\nzlib                    1000             990  "
                     "-1.00%          950       -5.00%               2/2  "
                     "                  2/2                 1/2\n" +
                     Rule +
                     "\nTOTAL (1 package)       1000             990  "
                     "-1.00%          950       -5.00%\n");
}

/// Sizes from a table; "fail" entries fail. Records the calls.
class FakeCompiler : public ModuleCompiler {
public:
  std::map<std::pair<std::string, std::string>, int64_t> Sizes;
  std::mutex M;
  size_t Calls = 0;

  /// Grouped code of some compiles (none for the others).
  std::map<std::pair<std::string, std::string>,
           std::vector<std::pair<std::string, uint64_t>>>
      Grouped;

  /// The fake's name for a policy: -Oz for stock, m for any model.
  static std::string nameOf(const CompilePolicy &P) {
    return P.Kind == PolicyKind::Stock ? "-Oz" : "m";
  }

  Expected<CodeSize> codeSize(StringRef Module,
                              const CompilePolicy &P) override {
    std::lock_guard<std::mutex> L(M);
    ++Calls;
    auto It = Sizes.find({Module.str(), nameOf(P)});
    if (It == Sizes.end() || It->second < 0)
      return createStringError(inconvertibleErrorCode(),
                               "cannot compile " + Module);
    CodeSize C;
    C.Total = uint64_t(It->second);
    auto G = Grouped.find({Module.str(), nameOf(P)});
    if (G != Grouped.end())
      C.Grouped = G->second;
    return C;
  }
};

TEST(CorpusEvalTest, ModuleOrderFailuresAndProgress) {
  FakeCompiler C;
  std::vector<std::string> Modules = {"p/a.o", "p/b.o", "q/c.o", "q/d.o"};
  NamedPolicy Base = {"-Oz", CompilePolicy::stock()};
  std::vector<NamedPolicy> Models = {
      {"m", CompilePolicy::model("{}", "/m.json")}};
  C.Sizes = {{{"p/a.o", "-Oz"}, 10}, {{"p/a.o", "m"}, 9},
             {{"p/b.o", "-Oz"}, -1}, {{"p/b.o", "m"}, -1},
             {{"q/c.o", "-Oz"}, 30}, {{"q/c.o", "m"}, -1},
             {{"q/d.o", "-Oz"}, 40}, {{"q/d.o", "m"}, 44}};
  // The grouped code of a module under one policy reaches the report as a
  // list per policy (the baseline's first); a module without any has none.
  C.Grouped = {{{"q/d.o", "m"}, {{".text.f", 8}}}};
  size_t LastDone = 0, Reports = 0;
  CorpusEvalOptions O;
  O.Jobs = 2;
  O.Progress = [&](size_t Done, size_t Total) {
    EXPECT_EQ(Total, 8u);
    EXPECT_EQ(Done, LastDone + 1);
    LastDone = Done;
    ++Reports;
  };
  SizeReport R = evaluateCorpus(C, Modules, Base, Models, O);
  EXPECT_EQ(C.Calls, 8u);
  EXPECT_EQ(Reports, 8u);
  EXPECT_EQ(R.ModulesRequested, 4u);
  EXPECT_EQ(R.ModelNames, std::vector<std::string>{"m"});
  ASSERT_EQ(R.Modules.size(), 2u);
  EXPECT_EQ(R.Modules[0].Module, "p/a.o");
  EXPECT_EQ(R.Modules[0].Baseline, 10u);
  EXPECT_EQ(R.Modules[0].Models, std::vector<uint64_t>{9});
  EXPECT_TRUE(R.Modules[0].Grouped.empty());
  EXPECT_EQ(R.Modules[1].Module, "q/d.o");
  using Sections = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(R.Modules[1].Grouped,
            (std::vector<Sections>{{}, {{".text.f", 8}}}));
  ASSERT_EQ(R.Failures.size(), 3u);
  EXPECT_EQ(R.Failures[0].Module, "p/b.o");
  EXPECT_EQ(R.Failures[0].Policy, "-Oz");
  EXPECT_EQ(R.Failures[0].Message, "cannot compile p/b.o");
  EXPECT_EQ(R.Failures[1].Policy, "m");
  EXPECT_EQ(R.Failures[2].Module, "q/c.o");
}

// Which sections count is pinned by test/Eval/code-sections.test, on
// objects clang-19 writes.
TEST(TextSizeTest, Errors) {
  std::unique_ptr<MemoryBuffer> Junk =
      MemoryBuffer::getMemBuffer("not an object", "junk.o");
  Expected<uint64_t> S = measureTextSize(Junk->getMemBufferRef());
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(toString(S.takeError()),
            "The file was not recognized as a valid object file");
  Expected<uint64_t> Missing = measureTextSize("/nonexistent/x.o");
  ASSERT_FALSE(bool(Missing));
  EXPECT_EQ(toString(Missing.takeError()),
            "/nonexistent/x.o: No such file or directory");
}

TEST(CompilePolicyTest, CC1Arguments) {
  auto ArgsOf = [](const CompilePolicy &P) {
    Expected<std::vector<std::string>> A = P.getCC1Args("/p/mlgo-plugin.so");
    return A ? *A : std::vector<std::string>{toString(A.takeError())};
  };
  using Args = std::vector<std::string>;
  EXPECT_EQ(ArgsOf(CompilePolicy::stock()), Args());
  EXPECT_EQ(
      ArgsOf(CompilePolicy::embedded()),
      (Args{"-load", "/p/mlgo-plugin.so", "-fpass-plugin=/p/mlgo-plugin.so"}));
  EXPECT_EQ(
      ArgsOf(CompilePolicy::model("{}", "/m.json")),
      (Args{"-load", "/p/mlgo-plugin.so", "-fpass-plugin=/p/mlgo-plugin.so",
            "-mllvm", "-mlgo-model=/m.json"}));
  CompilePolicy H = CompilePolicy::heuristic();
  H.Flips = {3, 17};
  EXPECT_EQ(
      ArgsOf(H),
      (Args{"-load", "/p/mlgo-plugin.so", "-fpass-plugin=/p/mlgo-plugin.so",
            "-mllvm", "-mlgo-default-policy", "-mllvm", "-mlgo-flip=3,17"}));
  CompilePolicy E = CompilePolicy::embedded();
  E.ExploreSeed = 7;
  E.ExploreTemperature = 0.1f;
  EXPECT_EQ(ArgsOf(E), (Args{"-load", "/p/mlgo-plugin.so",
                             "-fpass-plugin=/p/mlgo-plugin.so", "-mllvm",
                             "-mlgo-explore-seed=7", "-mllvm",
                             "-mlgo-explore-temperature=0.100000001"}));
  EXPECT_EQ(ArgsOf(CompilePolicy::model("{}")),
            Args{"a model held only in memory cannot be passed to a compiler "
                 "in another process; load it from a file"});
}

// A user's build (mlgo tune build) and an LTO link spell the same options
// for the clang driver and for the linker's LTO backend.
TEST(CompilePolicyTest, DriverAndLinkerArguments) {
  using Args = std::vector<std::string>;
  CompilePolicy M = CompilePolicy::model("{}", "/m.json");
  M.DecisionsPath = "/w/d.txt";
  Expected<Args> D = M.getDriverArgs("/p.so");
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(
      *D, (Args{"-fplugin=/p.so", "-fpass-plugin=/p.so", "-mllvm",
                "-mlgo-model=/m.json", "-mllvm", "-mlgo-decisions=/w/d.txt"}));
  Expected<Args> L = M.getLinkerArgs();
  ASSERT_TRUE(bool(L)) << toString(L.takeError());
  EXPECT_EQ(*L, (Args{"-Wl,-mllvm,-mlgo-model=/m.json",
                      "-Wl,-mllvm,-mlgo-decisions=/w/d.txt"}));
  CompilePolicy E;
  E.Kind = PolicyKind::Embedded;
  E.DecisionsPath = "/w/d.txt";
  D = E.getDriverArgs("/p.so");
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(*D, (Args{"-fplugin=/p.so", "-fpass-plugin=/p.so", "-mllvm",
                      "-mlgo-decisions=/w/d.txt"}));
  D = CompilePolicy::stock().getDriverArgs("/p.so");
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(*D, Args());
  ModuleDecisions Fixed;
  Fixed.Module = "a.c";
  E.Fixed = std::make_shared<const ModuleDecisions>(Fixed);
  E.DecisionsPath.clear();
  L = E.getLinkerArgs();
  ASSERT_FALSE(bool(L));
  EXPECT_EQ(toString(L.takeError()),
            "decisions held only in memory cannot be passed to a compiler in "
            "another process; write them to a file");
}

// A compile for speed (mlgo tune --objective speed) gets its training logs
// and eviction from the policy too: getCC1Args is the one place that
// spells the plugin's flags.
TEST(CompilePolicyTest, CC1ArgumentsForSpeed) {
  using Args = std::vector<std::string>;
  CompilePolicy P = CompilePolicy::heuristic();
  P.TrainingLogPath = "/w/i.log";
  Expected<std::vector<std::string>> A = P.getCC1Args("/p.so");
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(*A, (Args{"-load", "/p.so", "-fpass-plugin=/p.so", "-mllvm",
                      "-mlgo-default-policy", "-mllvm",
                      "-mlgo-training-log=/w/i.log"}));
  std::string LLVMEviction = P.getKey();
  EXPECT_EQ(LLVMEviction, CompilePolicy::heuristic().getKey())
      << "a log's path is not part of the key";
  P.EvictModel = "";
  P.EvictTrainingLogPath = "/w/e.log";
  A = P.getCC1Args("/p.so");
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(*A, (Args{"-load", "/p.so", "-fpass-plugin=/p.so", "-mllvm",
                      "-mlgo-default-policy", "-mllvm",
                      "-mlgo-training-log=/w/i.log", "-mllvm", "-mlgo-evict",
                      "-mllvm", "-mlgo-evict-training-log=/w/e.log"}));
  std::string Embedded = P.getKey();
  EXPECT_NE(Embedded, LLVMEviction);
  P.EvictModel = "/m/evict.json";
  A = P.getCC1Args("/p.so");
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(A->back(), "-mlgo-evict-model=/m/evict.json");
  EXPECT_NE(P.getKey(), Embedded);
  // Eviction entries are part of an eviction policy's key.
  ModuleDecisions D;
  D.Module = "a.c";
  D.Evictions.push_back({"f", 0, 0x1234, 3});
  P.Fixed = std::make_shared<const ModuleDecisions>(D);
  std::string WithEntry = P.getKey();
  D.Evictions[0].Column = 4;
  P.Fixed = std::make_shared<const ModuleDecisions>(D);
  EXPECT_NE(P.getKey(), WithEntry);
}

// The cache keys of training's compiles.tsv: a key must not change, or a
// work directory no longer replays. (The two values are the MD5 of the
// kind byte, no model text, no flips, ~0 as the seed and the float 1.0.)
TEST(CompilePolicyTest, KeysAreStable) {
  EXPECT_EQ(CompilePolicy::stock().getKey(),
            "bb0ecf06e24e2dd9f40040ad940907bb");
  EXPECT_EQ(CompilePolicy::heuristic().getKey(),
            "84e6ed0fb7da24baf03f3ab5deb0ef7e");
  CompilePolicy F = CompilePolicy::model("{}", "/elsewhere.json");
  EXPECT_EQ(F.getKey(), CompilePolicy::model("{}").getKey())
      << "the path is not part of the key";
  F.Flips = {1, 2};
  EXPECT_NE(F.getKey(), CompilePolicy::model("{}").getKey());
  EXPECT_NE(CompilePolicy::embedded().getKey(),
            CompilePolicy::stock().getKey());
}

// A work directory outlives the build that wrote it: a tune rerun after
// the embedded model changed once replayed the old model's compiles. The
// embedded policy's key names the model this build embeds.
TEST(CompilePolicyTest, EmbeddedKeyNamesTheEmbeddedModel) {
  CompilePolicy E = CompilePolicy::embedded();
  EXPECT_EQ(E.EmbeddedModelMD5, std::string(config::EmbeddedModelMD5));
  EXPECT_EQ(E.EmbeddedModelMD5.size(), 32u);
  CompilePolicy Other = E;
  Other.EmbeddedModelMD5 = "0123456789abcdef0123456789abcdef";
  EXPECT_NE(E.getKey(), Other.getKey());
  EXPECT_EQ(E.getKey(), CompilePolicy::embedded().getKey());
}

} // namespace

namespace {

TEST(PackageEvalTest, LinkedArtifactsSkipCMakeProbesAndSymlinks) {
  unittest::TempDir Dir("mlgo-artifacts", /*Unique=*/true);
  auto Path = [&](StringRef Rel) { return Dir.path(Rel).str().str(); };
  ASSERT_FALSE(sys::fs::create_directories(Path("bin")));
  ASSERT_FALSE(sys::fs::create_directories(Path("b/CMakeFiles/3.25.1")));
  // An ELF executable, an archive, a text file, a symlink, and a CMake
  // compiler probe.
  ASSERT_FALSE(sys::fs::copy_file("/bin/true", Path("bin/tool")));
  {
    std::error_code EC;
    raw_fd_ostream(Path("lib.a"), EC) << "!<arch>\n";
    raw_fd_ostream(Path("notes.txt"), EC) << "not a binary\n";
  }
  ASSERT_FALSE(sys::fs::create_link(Path("bin/tool"), Path("bin/alias")));
  ASSERT_FALSE(
      sys::fs::copy_file("/bin/true", Path("b/CMakeFiles/3.25.1/a.out")));
  Expected<std::vector<std::string>> A = findLinkedArtifacts(Dir.path());
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(*A, (std::vector<std::string>{"bin/tool", "lib.a"}));
}

} // namespace
