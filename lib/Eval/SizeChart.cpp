//===- lib/Eval/SizeChart.cpp - SVG bar chart of size changes -------------===//
//
// A small hand-written SVG writer for grouped bar charts (see
// mlgo/Eval/SizeChart.h). Coordinates are printed with one decimal so the
// file is the same on every machine.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/SizeChart.h"

#include "mlgo/Support/Percent.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace mlgo {

BarChart BarChart::fromSizeReport(const SizeReport &Report) {
  BarChart C;
  C.Title = ".text size vs " + Report.BaselineName + " (per package)";
  C.ValueLabel = "change of .text vs " + Report.BaselineName + " (%)";
  C.SeriesNames = Report.ModelNames;
  std::vector<GroupStats> Groups = Report.getPackageStats();
  Groups.push_back(Report.getTotalStats());
  for (const GroupStats &G : Groups) {
    C.GroupNames.push_back(G.Name);
    std::vector<double> Row;
    for (const GroupModelStats &S : G.Models)
      Row.push_back(percentChange(G.BaselineTotal, S.Total));
    C.Values.push_back(std::move(Row));
  }
  return C;
}

static std::string escapeXML(StringRef S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

/// One decimal, and never "-0.0".
static std::string num(double V) {
  std::string S = formatv("{0:f1}", V).str();
  return S == "-0.0" ? "0.0" : S;
}

/// A tick step of 1, 2 or 5 times a power of ten giving at most 8 steps
/// over \p Span.
static double getTickStep(double Span) {
  double Step = std::pow(10.0, std::floor(std::log10(Span / 8)));
  for (double M : {1.0, 2.0, 5.0, 10.0})
    if (Span / (Step * M) <= 8)
      return Step * M;
  return Step * 10;
}

/// A tick label: "+2%", "-0.5%", "0%".
static std::string formatTick(double V, double Step) {
  int Decimals = Step >= 1 ? 0 : int(std::ceil(-std::log10(Step) - 1e-9));
  std::string S;
  raw_string_ostream(S) << format("%.*f", Decimals, V);
  if (S.find_first_not_of("-0.") == std::string::npos)
    return "0%";
  return (V > 0 ? "+" : "") + S + "%";
}

/// \p V with \p Decimals decimals and a sign: "+4.17", "-0.50", "0.00".
static std::string formatSigned(double V, int Decimals) {
  std::string S;
  raw_string_ostream(S) << format("%.*f", Decimals, V);
  if (S.find_first_not_of("-0.") == std::string::npos)
    return S[0] == '-' ? S.substr(1) : S;
  return (V > 0 ? "+" : "") + S;
}

static constexpr const char *Palette[] = {"#4e79a7", "#f28e2b", "#e15759",
                                          "#76b7b2", "#59a14f", "#edc948",
                                          "#b07aa1", "#9c755f"};

void BarChart::writeSVG(raw_ostream &OS) const {
  const double BarWidth = 18, GroupGap = 16, PlotHeight = 300;
  const double Left = 70, Right = 160, Top = 50, Bottom = 110;
  size_t NumSeries = std::max<size_t>(SeriesNames.size(), 1);
  double GroupWidth = NumSeries * BarWidth + GroupGap;
  double PlotWidth = std::max(GroupWidth * GroupNames.size(), 100.0);
  double Width = Left + PlotWidth + Right;
  double Height = Top + PlotHeight + Bottom;

  double Lo = 0, Hi = 0;
  for (const auto &Row : Values)
    for (double V : Row) {
      Lo = std::min(Lo, V);
      Hi = std::max(Hi, V);
    }
  if (Hi - Lo < 1e-9) {
    Lo = -1;
    Hi = 1;
  }
  double Step = getTickStep(Hi - Lo);
  Lo = std::floor(Lo / Step + 1e-9) * Step;
  Hi = std::ceil(Hi / Step - 1e-9) * Step;
  if (Lo == 0 && Hi > 0)
    Lo = -Step;
  if (Hi == 0 && Lo < 0)
    Hi = Step;
  auto Y = [&](double V) { return Top + (Hi - V) / (Hi - Lo) * PlotHeight; };

  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(Width)
     << "\" height=\"" << num(Height) << "\" viewBox=\"0 0 " << num(Width)
     << ' ' << num(Height)
     << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << num(Width / 2) << "\" y=\"24\" font-size=\"15\" "
     << "text-anchor=\"middle\">" << escapeXML(Title) << "</text>\n";

  // Gridlines and tick labels.
  int NumTicks = int(std::lround((Hi - Lo) / Step));
  for (int I = 0; I <= NumTicks; ++I) {
    double V = Lo + I * Step;
    double YV = Y(V);
    OS << "<line x1=\"" << num(Left) << "\" y1=\"" << num(YV) << "\" x2=\""
       << num(Left + PlotWidth) << "\" y2=\"" << num(YV)
       << "\" stroke=\"#dddddd\"/>\n"
       << "<text x=\"" << num(Left - 6) << "\" y=\"" << num(YV + 4)
       << "\" text-anchor=\"end\">" << formatTick(V, Step) << "</text>\n";
  }
  OS << "<text transform=\"translate(16," << num(Top + PlotHeight / 2)
     << ") rotate(-90)\" text-anchor=\"middle\">" << escapeXML(ValueLabel)
     << "</text>\n";

  // Bars, their values, and the group names.
  for (size_t G = 0; G < GroupNames.size(); ++G) {
    double X0 = Left + G * GroupWidth + GroupGap / 2;
    for (size_t S = 0; S < SeriesNames.size(); ++S) {
      double V = S < Values[G].size() ? Values[G][S] : 0;
      double X = X0 + S * BarWidth;
      double YTop = Y(std::max(V, 0.0)), YBottom = Y(std::min(V, 0.0));
      OS << "<rect x=\"" << num(X) << "\" y=\"" << num(YTop) << "\" width=\""
         << num(BarWidth - 2) << "\" height=\"" << num(YBottom - YTop)
         << "\" fill=\"" << Palette[S % std::size(Palette)] << "\"><title>"
         << escapeXML(GroupNames[G]) << ", " << escapeXML(SeriesNames[S])
         << ": " << formatSigned(V, 2) << "%</title></rect>\n";
      double LabelY = V < 0 ? YBottom + 10 : YTop - 3;
      OS << "<text x=\"" << num(X + (BarWidth - 2) / 2) << "\" y=\""
         << num(LabelY) << "\" font-size=\"8\" text-anchor=\"middle\">"
         << formatSigned(V, 1) << "</text>\n";
    }
    double CX = X0 + SeriesNames.size() * BarWidth / 2;
    double LY = Top + PlotHeight + 14;
    OS << "<text transform=\"translate(" << num(CX) << ',' << num(LY)
       << ") rotate(-45)\" text-anchor=\"end\">" << escapeXML(GroupNames[G])
       << "</text>\n";
  }
  // The zero line, over the bars.
  OS << "<line x1=\"" << num(Left) << "\" y1=\"" << num(Y(0)) << "\" x2=\""
     << num(Left + PlotWidth) << "\" y2=\"" << num(Y(0))
     << "\" stroke=\"black\"/>\n";

  // Legend.
  double LX = Left + PlotWidth + 16;
  for (size_t S = 0; S < SeriesNames.size(); ++S) {
    double LY = Top + S * 18;
    OS << "<rect x=\"" << num(LX) << "\" y=\"" << num(LY)
       << "\" width=\"12\" height=\"12\" fill=\""
       << Palette[S % std::size(Palette)] << "\"/>\n"
       << "<text x=\"" << num(LX + 18) << "\" y=\"" << num(LY + 10) << "\">"
       << escapeXML(SeriesNames[S]) << "</text>\n";
  }
  OS << "</svg>\n";
}

} // namespace mlgo
