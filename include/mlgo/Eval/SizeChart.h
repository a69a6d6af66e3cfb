//===- mlgo/Eval/SizeChart.h - SVG bar chart of size changes ----*- C++ -*-===//
//
// The picture of a size evaluation, as in the MLGO RFC: one group of bars
// per package (and one for the total), one bar per model, each bar the
// change of the package's .text in percent of the baseline; bars below the
// zero line mean smaller code. Written as plain SVG 1.1 by hand (no
// library): a value axis with gridlines at "nice" steps, the package names
// under their groups, a legend, and the value printed on each bar. The
// output depends only on the input, byte for byte.
//
// This file needs LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_SIZECHART_H
#define MLGO_EVAL_SIZECHART_H

#include "mlgo/Eval/SizeReport.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlgo {

/// What the chart shows.
struct BarChart {
  std::string Title;
  std::string ValueLabel;
  std::vector<std::string> SeriesNames;
  std::vector<std::string> GroupNames;
  /// Values[Group][Series], in percent.
  std::vector<std::vector<double>> Values;

  /// The per-package change of each model vs the baseline, plus TOTAL.
  static BarChart fromSizeReport(const SizeReport &Report);

  void writeSVG(llvm::raw_ostream &OS) const;
};

} // namespace mlgo

#endif // MLGO_EVAL_SIZECHART_H
