//===- mlgo/Learn/LearningCurve.h - Progress as CSV and SVG ----*- C++ -*-===//
//
// A learning curve is a series of points (iteration, one value per named
// column), written as CSV for tools and as a self-contained SVG line plot
// for people: title, axes with "nice" ticks (1, 2 or 5 times a power of ten)
// and labels, one coloured polyline per column, a legend. A NaN value means
// "not measured at this iteration" (e.g. validation every tenth iteration):
// an empty CSV field, and a gap in the plot line. Output is a pure function
// of the points, byte for byte, so it can be tested exactly and checkpointed.
//
// CSV: a header "<XLabel>,<column>,..." then one line per point; numbers in
// the shortest form that reads back exactly (formatModelDouble); fields
// containing a comma, quote or newline are quoted, quotes doubled.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_LEARN_LEARNINGCURVE_H
#define MLGO_LEARN_LEARNINGCURVE_H

#include "mlgo/Learn/Checkpoint.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlgo {
namespace learn {

class LearningCurve {
public:
  LearningCurve(std::string Title, std::string XLabel,
                std::vector<std::string> Columns);

  /// Appends a point; \p Values has one value per column (NaN: missing).
  void addPoint(uint64_t Iteration, llvm::ArrayRef<double> Values);
  size_t size() const { return Iterations.size(); }
  const std::vector<std::string> &getColumns() const { return Columns; }

  void writeCSV(llvm::raw_ostream &OS) const;
  void writeSVG(llvm::raw_ostream &OS) const;
  /// Write atomically.
  llvm::Error saveCSV(llvm::StringRef Path) const;
  llvm::Error saveSVG(llvm::StringRef Path) const;
  /// Both: \p Stem + ".csv" and \p Stem + ".svg".
  llvm::Error save(llvm::StringRef Stem) const;

  /// Stores / restores the points under "<Prefix>iterations" and
  /// "<Prefix>values" (the title and columns come from the constructor).
  void saveState(Checkpoint &C, llvm::StringRef Prefix = "curve.") const;
  llvm::Error loadState(const Checkpoint &C, llvm::StringRef Prefix = "curve.");

  /// Tick positions covering [Lo, Hi]: multiples of a step of 1, 2 or 5
  /// times a power of ten giving about \p Target intervals (exposed for
  /// tests). The first tick is <= Lo and the last >= Hi.
  static std::vector<double> niceTicks(double Lo, double Hi,
                                       unsigned Target = 5);

private:
  std::string Title, XLabel;
  std::vector<std::string> Columns;
  std::vector<uint64_t> Iterations;
  std::vector<double> Values; ///< Row-major, Columns.size() per point.
};

} // namespace learn
} // namespace mlgo

#endif // MLGO_LEARN_LEARNINGCURVE_H
