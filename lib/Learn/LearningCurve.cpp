//===- LearningCurve.cpp - Training progress as CSV and SVG ---------------===//
//
// A small, dependency-free SVG line-plot writer (see
// mlgo/Learn/LearningCurve.h). Layout, in SVG user units: a 720 x 420
// canvas; the plot area spans x 70..550 and y 40..370; the legend sits right
// of it; the title is centered above it. Coordinates are printed with two
// decimals, so the output is byte-stable.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace llvm;

namespace mlgo {
namespace learn {

LearningCurve::LearningCurve(std::string Title, std::string XLabel,
                             std::vector<std::string> Columns)
    : Title(std::move(Title)), XLabel(std::move(XLabel)),
      Columns(std::move(Columns)) {}

void LearningCurve::addPoint(uint64_t Iteration, ArrayRef<double> V) {
  assert(V.size() == Columns.size() && "one value per column");
  Iterations.push_back(Iteration);
  Values.insert(Values.end(), V.begin(), V.end());
}

static void writeCSVField(raw_ostream &OS, StringRef S) {
  if (S.find_first_of(",\"\n\r") == StringRef::npos) {
    OS << S;
    return;
  }
  OS << '"';
  for (char C : S) {
    if (C == '"')
      OS << '"';
    OS << C;
  }
  OS << '"';
}

void LearningCurve::writeCSV(raw_ostream &OS) const {
  writeCSVField(OS, XLabel);
  for (const std::string &C : Columns) {
    OS << ',';
    writeCSVField(OS, C);
  }
  OS << '\n';
  size_t NC = Columns.size();
  for (size_t P = 0; P < Iterations.size(); ++P) {
    OS << Iterations[P];
    for (size_t C = 0; C < NC; ++C) {
      OS << ',';
      double V = Values[P * NC + C];
      if (!std::isnan(V))
        OS << formatModelDouble(V);
    }
    OS << '\n';
  }
}

std::vector<double> LearningCurve::niceTicks(double Lo, double Hi,
                                             unsigned Target) {
  assert(Lo <= Hi && Target > 0 && "a non-empty range");
  if (Hi - Lo < 1e-300) {
    double Pad = std::fabs(Lo) > 0 ? std::fabs(Lo) * 0.1 : 1.0;
    Lo -= Pad;
    Hi += Pad;
  }
  double Raw = (Hi - Lo) / Target;
  double Mag = std::pow(10.0, std::floor(std::log10(Raw)));
  double Norm = Raw / Mag;
  double Step = (Norm <= 1 ? 1 : Norm <= 2 ? 2 : Norm <= 5 ? 5 : 10) * Mag;
  double First = std::floor(Lo / Step);
  double Last = std::ceil(Hi / Step);
  std::vector<double> Ticks;
  for (double K = First; K <= Last; K += 1)
    Ticks.push_back(K * Step);
  return Ticks;
}

/// Decimals needed to print multiples of \p Step exactly enough.
static int decimalsFor(double Step) {
  int D = static_cast<int>(-std::floor(std::log10(Step) + 1e-9));
  return std::max(0, std::min(D, 12));
}

static std::string formatTick(double V, int Decimals) {
  std::string S;
  raw_string_ostream OS(S);
  if (V == 0)
    V = 0; // No "-0".
  OS << format("%.*f", Decimals, V);
  return S;
}

static void writeEscaped(raw_ostream &OS, StringRef S) {
  for (char C : S) {
    switch (C) {
    case '&':
      OS << "&amp;";
      break;
    case '<':
      OS << "&lt;";
      break;
    case '>':
      OS << "&gt;";
      break;
    case '"':
      OS << "&quot;";
      break;
    default:
      OS << C;
    }
  }
}

static std::string fmt2(double V) {
  std::string S;
  raw_string_ostream OS(S);
  if (std::fabs(V) < 0.005)
    V = 0;
  OS << format("%.2f", V);
  return S;
}

void LearningCurve::writeSVG(raw_ostream &OS) const {
  constexpr int Width = 720, Height = 420;
  constexpr double PL = 70, PR = 550, PT = 40, PB = 370;
  static const char *const Palette[] = {"#1f77b4", "#d62728", "#2ca02c",
                                        "#ff7f0e", "#9467bd", "#8c564b",
                                        "#e377c2", "#7f7f7f"};
  size_t NC = Columns.size();

  // Data ranges.
  double XLo = 0, XHi = 1;
  if (!Iterations.empty()) {
    XLo = static_cast<double>(
        *std::min_element(Iterations.begin(), Iterations.end()));
    XHi = static_cast<double>(
        *std::max_element(Iterations.begin(), Iterations.end()));
  }
  double YLo = INFINITY, YHi = -INFINITY;
  for (double V : Values)
    if (std::isfinite(V)) {
      YLo = std::min(YLo, V);
      YHi = std::max(YHi, V);
    }
  if (!(YLo <= YHi)) {
    YLo = 0;
    YHi = 1;
  }
  std::vector<double> XT = niceTicks(XLo, XHi);
  if (XT.size() > 1 && XT[1] - XT[0] < 1) {
    // Iterations are integers: a short run gets a tick per iteration.
    XT.clear();
    for (double X = std::floor(XLo); X <= std::max(XHi, XLo + 1); X += 1)
      XT.push_back(X);
  }
  std::vector<double> YT = niceTicks(YLo, YHi);
  double X0 = XT.front(), X1 = XT.back(), Y0 = YT.front(), Y1 = YT.back();
  auto MapX = [&](double X) { return PL + (X - X0) / (X1 - X0) * (PR - PL); };
  auto MapY = [&](double Y) { return PB - (Y - Y0) / (Y1 - Y0) * (PB - PT); };
  int XDec = decimalsFor(XT[1] - XT[0]), YDec = decimalsFor(YT[1] - YT[0]);

  OS << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width
     << "\" height=\"" << Height << "\" viewBox=\"0 0 " << Width << ' '
     << Height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  OS << "<rect width=\"" << Width << "\" height=\"" << Height
     << "\" fill=\"white\"/>\n";
  OS << "<text x=\"" << fmt2((PL + PR) / 2) << "\" y=\"24\" "
     << "text-anchor=\"middle\" font-size=\"16\">";
  writeEscaped(OS, Title);
  OS << "</text>\n";

  // Grid, ticks and tick labels.
  for (double T : XT) {
    std::string X = fmt2(MapX(T));
    OS << "<line x1=\"" << X << "\" y1=\"" << fmt2(PT) << "\" x2=\"" << X
       << "\" y2=\"" << fmt2(PB + 5) << "\" stroke=\"#dddddd\"/>\n";
    OS << "<text x=\"" << X << "\" y=\"" << fmt2(PB + 18)
       << "\" text-anchor=\"middle\">" << formatTick(T, XDec) << "</text>\n";
  }
  for (double T : YT) {
    std::string Y = fmt2(MapY(T));
    OS << "<line x1=\"" << fmt2(PL - 5) << "\" y1=\"" << Y << "\" x2=\""
       << fmt2(PR) << "\" y2=\"" << Y << "\" stroke=\"#dddddd\"/>\n";
    OS << "<text x=\"" << fmt2(PL - 8) << "\" y=\"" << fmt2(MapY(T) + 4)
       << "\" text-anchor=\"end\">" << formatTick(T, YDec) << "</text>\n";
  }
  // Axes.
  OS << "<line x1=\"" << fmt2(PL) << "\" y1=\"" << fmt2(PB) << "\" x2=\""
     << fmt2(PR) << "\" y2=\"" << fmt2(PB) << "\" stroke=\"black\"/>\n";
  OS << "<line x1=\"" << fmt2(PL) << "\" y1=\"" << fmt2(PT) << "\" x2=\""
     << fmt2(PL) << "\" y2=\"" << fmt2(PB) << "\" stroke=\"black\"/>\n";
  OS << "<text x=\"" << fmt2((PL + PR) / 2) << "\" y=\"" << fmt2(PB + 40)
     << "\" text-anchor=\"middle\">";
  writeEscaped(OS, XLabel);
  OS << "</text>\n";

  // One polyline per contiguous run of measured values.
  for (size_t C = 0; C < NC; ++C) {
    const char *Color = Palette[C % 8];
    std::string Points;
    size_t InRun = 0;
    auto Flush = [&]() {
      if (InRun == 1)
        OS << "<circle cx=\"" << Points.substr(0, Points.find(','))
           << "\" cy=\"" << Points.substr(Points.find(',') + 1)
           << "\" r=\"2\" fill=\"" << Color << "\"/>\n";
      else if (InRun > 1)
        OS << "<polyline fill=\"none\" stroke=\"" << Color
           << "\" stroke-width=\"1.5\" points=\"" << Points << "\"/>\n";
      Points.clear();
      InRun = 0;
    };
    for (size_t P = 0; P < Iterations.size(); ++P) {
      double V = Values[P * NC + C];
      if (!std::isfinite(V)) {
        Flush();
        continue;
      }
      if (InRun)
        Points += ' ';
      Points +=
          fmt2(MapX(static_cast<double>(Iterations[P]))) + "," + fmt2(MapY(V));
      ++InRun;
    }
    Flush();
  }

  // Legend.
  for (size_t C = 0; C < NC; ++C) {
    double Y = PT + 10 + 18 * static_cast<double>(C);
    OS << "<line x1=\"" << fmt2(PR + 15) << "\" y1=\"" << fmt2(Y) << "\" x2=\""
       << fmt2(PR + 35) << "\" y2=\"" << fmt2(Y) << "\" stroke=\""
       << Palette[C % 8] << "\" stroke-width=\"2\"/>\n";
    OS << "<text x=\"" << fmt2(PR + 40) << "\" y=\"" << fmt2(Y + 4) << "\">";
    writeEscaped(OS, Columns[C]);
    OS << "</text>\n";
  }
  OS << "</svg>\n";
}

static Error saveText(StringRef Path, const std::string &S) {
  return writeFileAtomically(Path, S);
}

Error LearningCurve::saveCSV(StringRef Path) const {
  std::string S;
  raw_string_ostream OS(S);
  writeCSV(OS);
  return saveText(Path, S);
}

Error LearningCurve::saveSVG(StringRef Path) const {
  std::string S;
  raw_string_ostream OS(S);
  writeSVG(OS);
  return saveText(Path, S);
}

Error LearningCurve::save(StringRef Stem) const {
  if (Error E = saveCSV((Stem + ".csv").str()))
    return E;
  return saveSVG((Stem + ".svg").str());
}

void LearningCurve::saveState(Checkpoint &C, StringRef Prefix) const {
  C.setU64s((Prefix + "iterations").str(), Iterations);
  C.setF64s((Prefix + "values").str(), Values);
}

Error LearningCurve::loadState(const Checkpoint &C, StringRef Prefix) {
  Expected<std::vector<uint64_t>> It = C.getU64s((Prefix + "iterations").str());
  if (!It)
    return It.takeError();
  Expected<std::vector<double>> V = C.getF64s((Prefix + "values").str());
  if (!V)
    return V.takeError();
  if (V->size() != It->size() * Columns.size())
    return makeError("checkpoint learning curve '" + Prefix +
                     "' does not have " + Twine(Columns.size()) + " columns");
  Iterations = std::move(*It);
  Values = std::move(*V);
  return Error::success();
}

} // namespace learn
} // namespace mlgo
