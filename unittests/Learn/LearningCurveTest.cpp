//===- unittests/Learn/LearningCurveTest.cpp - CSV and SVG output ---------===//

#include "mlgo/Learn/LearningCurve.h"
#include "LearnTestUtil.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlgo::learn;
using namespace mlgo::learn::test;

namespace {

LearningCurve tiny() {
  LearningCurve C("Size <vs> -Oz", "iteration", {"train", "valid, %"});
  C.addPoint(0, {1.0, 0.5});
  C.addPoint(1, {2.0, NAN});
  C.addPoint(2, {1.5, 3.0});
  return C;
}

TEST(LearningCurveTest, CSVIsExact) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  tiny().writeCSV(OS);
  EXPECT_EQ(S, "iteration,train,\"valid, %\"\n"
               "0,1,0.5\n"
               "1,2,\n"
               "2,1.5,3\n");
}

TEST(LearningCurveTest, NiceTicks) {
  EXPECT_EQ(LearningCurve::niceTicks(0, 2),
            (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  EXPECT_EQ(LearningCurve::niceTicks(3, 97),
            (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(LearningCurve::niceTicks(-0.013, 0.04),
            (std::vector<double>{-0.02, 0, 0.02, 0.04}));
}

TEST(LearningCurveTest, SVGIsExact) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  tiny().writeSVG(OS);
  EXPECT_EQ(
      S,
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="720" height="420" viewBox="0 0 720 420" font-family="sans-serif" font-size="12">
<rect width="720" height="420" fill="white"/>
<text x="310.00" y="24" text-anchor="middle" font-size="16">Size &lt;vs&gt; -Oz</text>
<line x1="70.00" y1="40.00" x2="70.00" y2="375.00" stroke="#dddddd"/>
<text x="70.00" y="388.00" text-anchor="middle">0</text>
<line x1="310.00" y1="40.00" x2="310.00" y2="375.00" stroke="#dddddd"/>
<text x="310.00" y="388.00" text-anchor="middle">1</text>
<line x1="550.00" y1="40.00" x2="550.00" y2="375.00" stroke="#dddddd"/>
<text x="550.00" y="388.00" text-anchor="middle">2</text>
<line x1="65.00" y1="370.00" x2="550.00" y2="370.00" stroke="#dddddd"/>
<text x="62.00" y="374.00" text-anchor="end">0.5</text>
<line x1="65.00" y1="304.00" x2="550.00" y2="304.00" stroke="#dddddd"/>
<text x="62.00" y="308.00" text-anchor="end">1.0</text>
<line x1="65.00" y1="238.00" x2="550.00" y2="238.00" stroke="#dddddd"/>
<text x="62.00" y="242.00" text-anchor="end">1.5</text>
<line x1="65.00" y1="172.00" x2="550.00" y2="172.00" stroke="#dddddd"/>
<text x="62.00" y="176.00" text-anchor="end">2.0</text>
<line x1="65.00" y1="106.00" x2="550.00" y2="106.00" stroke="#dddddd"/>
<text x="62.00" y="110.00" text-anchor="end">2.5</text>
<line x1="65.00" y1="40.00" x2="550.00" y2="40.00" stroke="#dddddd"/>
<text x="62.00" y="44.00" text-anchor="end">3.0</text>
<line x1="70.00" y1="370.00" x2="550.00" y2="370.00" stroke="black"/>
<line x1="70.00" y1="40.00" x2="70.00" y2="370.00" stroke="black"/>
<text x="310.00" y="410.00" text-anchor="middle">iteration</text>
<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="70.00,304.00 310.00,172.00 550.00,238.00"/>
<circle cx="70.00" cy="370.00" r="2" fill="#d62728"/>
<circle cx="550.00" cy="40.00" r="2" fill="#d62728"/>
<line x1="565.00" y1="50.00" x2="585.00" y2="50.00" stroke="#1f77b4" stroke-width="2"/>
<text x="590.00" y="54.00">train</text>
<line x1="565.00" y1="68.00" x2="585.00" y2="68.00" stroke="#d62728" stroke-width="2"/>
<text x="590.00" y="72.00">valid, %</text>
</svg>
)");
}

TEST(LearningCurveTest, StateRoundTrips) {
  LearningCurve C = tiny();
  Checkpoint K;
  C.saveState(K);
  LearningCurve D("Size <vs> -Oz", "iteration", {"train", "valid, %"});
  ASSERT_EQ(errorMessage(D.loadState(K)), "<success>");
  std::string A, B;
  llvm::raw_string_ostream OA(A), OB(B);
  C.writeSVG(OA);
  D.writeSVG(OB);
  EXPECT_EQ(A, B);
  LearningCurve E("t", "x", {"one"});
  EXPECT_EQ(errorMessage(E.loadState(K)),
            "checkpoint learning curve 'curve.' does not have 1 columns");
}

TEST(LearningCurveTest, SaveWritesTheCSVAndTheSVG) {
  std::string Stem = tempPath("search-curve");
  ASSERT_EQ(errorMessage(tiny().save(Stem)), "<success>");
  std::string CSV, SVG;
  llvm::raw_string_ostream OC(CSV), OS(SVG);
  tiny().writeCSV(OC);
  tiny().writeSVG(OS);
  auto Read = [](const std::string &Path) {
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    return Buf ? (*Buf)->getBuffer().str() : "<unreadable>";
  };
  EXPECT_EQ(Read(Stem + ".csv"), CSV);
  EXPECT_EQ(Read(Stem + ".svg"), SVG);
  EXPECT_EQ(errorMessage(tiny().save("/nonexistent/dir/c")),
            "cannot write '/nonexistent/dir/c.csv': No such file or directory");
}

} // namespace
