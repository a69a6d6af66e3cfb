//===- mlgo/Support/Progress.h - How far a long run has got -----*- C++ -*-===//
//
// Training, evaluation and corpus extraction run thousands of compiles; the
// user wants to know how far they are and how long is left. One display for
// all of them, on stderr:
//  * on a terminal, one line rewritten in place ('\r'):
//      mlgo train: baseline: 1200/2328 compiles, 8.7/s, about 2 min left
//  * otherwise (stderr is a log file), a line at each tenth of the total, so
//    that a log stays a list of lines and not one line of '\r's.
// The last update (Done == Total) prints "<label>: <Total>/<Total> <unit>" and
// no newline: the caller ends the line with end(), optionally adding what it
// knows only then (how many compiles replay answered, the time taken).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_PROGRESS_H
#define MLGO_SUPPORT_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace mlgo {

class Progress {
public:
  /// Seconds since some fixed point; steady_clock unless a test sets one.
  using Clock = std::function<double()>;

  /// Reports to stderr, in place when stderr is a terminal.
  explicit Progress(llvm::StringRef Label, llvm::StringRef Unit = "compiles");
  /// Reports to \p OS; \p InPlace chooses the terminal display.
  Progress(llvm::StringRef Label, llvm::StringRef Unit, llvm::raw_ostream &OS,
           bool InPlace, Clock Now);

  /// \p Done of \p Total are finished. Calls may skip values; Done only
  /// grows. A total of 0 shows nothing.
  void update(size_t Done, size_t Total);
  /// Text shown after the count on every later line (e.g. "; gain -1.2%").
  void setDetail(llvm::StringRef Text) { Detail = Text.str(); }
  /// Ends the line of the last update with \p Suffix (e.g. " (12.0 s)").
  /// Nothing is written if nothing was shown.
  void end(llvm::StringRef Suffix = "");

  /// "about 40 s left", "about 3 min left", "about 1 h 05 min left".
  static std::string formatTimeLeft(double Seconds);

private:
  /// One line; \p At (a clock reading) adds the rate and time left, its
  /// absence marks the last line.
  void print(size_t Done, size_t Total, std::optional<double> At);

  std::string Label, Unit, Detail;
  llvm::raw_ostream &OS;
  bool InPlace;
  Clock Now;
  double Start;
  /// When the terminal line was last drawn.
  double LastDrawn = 0;
  /// Tenths of the total already reported (log display).
  size_t TenthsShown = 0;
  bool Shown = false;
  bool Ended = false;
};

} // namespace mlgo

#endif // MLGO_SUPPORT_PROGRESS_H
