//===- lib/Support/Progress.cpp - How far a long run has got --------------===//

#include "mlgo/Support/Progress.h"

#include "llvm/Support/Format.h"

#include <chrono>
#include <cmath>

using namespace llvm;

namespace mlgo {

static double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Progress::Progress(StringRef Label, StringRef Unit)
    : Progress(Label, Unit, errs(), errs().is_displayed(), steadySeconds) {}

Progress::Progress(StringRef Label, StringRef Unit, raw_ostream &OS,
                   bool InPlace, Clock Now)
    : Label(Label), Unit(Unit), OS(OS), InPlace(InPlace), Now(std::move(Now)),
      Start(this->Now()) {}

std::string Progress::formatTimeLeft(double Seconds) {
  long S = std::lround(std::max(Seconds, 0.0));
  if (S < 1)
    return "under a second left";
  if (S < 100)
    return "about " + std::to_string(S) + " s left";
  long Minutes = std::lround(S / 60.0);
  if (Minutes < 60)
    return "about " + std::to_string(Minutes) + " min left";
  std::string Rest = std::to_string(Minutes % 60);
  if (Rest.size() == 1)
    Rest = "0" + Rest;
  return "about " + std::to_string(Minutes / 60) + " h " + Rest + " min left";
}

void Progress::print(size_t Done, size_t Total, std::optional<double> At) {
  // On a terminal: back to the line's start, erase it (ANSI EL), redraw.
  if (InPlace)
    OS << "\r\x1b[K";
  OS << Label << ": " << Done << '/' << Total << ' ' << Unit;
  Shown = true;
  // The last line has no rate and no newline: end() finishes it.
  if (At) {
    double Elapsed = *At - Start;
    if (Done > 0 && Elapsed > 0) {
      double Rate = Done / Elapsed;
      OS << format(", %.1f/s, ", Rate) << formatTimeLeft((Total - Done) / Rate);
    }
    OS << Detail;
    if (!InPlace)
      OS << '\n';
  }
  OS.flush();
}

void Progress::update(size_t Done, size_t Total) {
  if (Total == 0 || Ended)
    return;
  if (Done >= Total)
    return print(Total, Total, std::nullopt);
  if (InPlace) {
    // Four redraws a second are enough to watch.
    double T = Now();
    if (Shown && T - LastDrawn < 0.25)
      return;
    LastDrawn = T;
    return print(Done, Total, T);
  }
  size_t Tenths = Done * 10 / Total;
  if (Tenths <= TenthsShown)
    return;
  TenthsShown = Tenths;
  print(Done, Total, Now());
}

void Progress::end(StringRef Suffix) {
  if (!Shown || Ended)
    return;
  Ended = true;
  OS << Suffix << '\n';
  OS.flush();
}

} // namespace mlgo
