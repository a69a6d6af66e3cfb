//===- unittests/Support/ProgressTest.cpp ---------------------------------===//

#include "mlgo/Support/Progress.h"

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

/// A clock that advances one second at each reading after the first.
struct FakeClock {
  double T = 100;
  bool Started = false;
  double operator()() {
    if (Started)
      T += 1;
    Started = true;
    return T;
  }
};

TEST(ProgressTest, LogGetsALinePerTenthAndTheCallerEndsTheLast) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Progress P("mlgo train: baseline", "compiles", OS, /*InPlace=*/false,
             FakeClock());
  for (size_t Done = 1; Done <= 20; ++Done)
    P.update(Done, 20);
  P.end(" (3 by replay)");
  // Only the lines printed read the clock: the k-th at 100 + k s, after
  // 2k compiles, so 2.0/s throughout.
  EXPECT_EQ(Out, "mlgo train: baseline: 2/20 compiles, 2.0/s, about 9 s left\n"
                 "mlgo train: baseline: 4/20 compiles, 2.0/s, about 8 s left\n"
                 "mlgo train: baseline: 6/20 compiles, 2.0/s, about 7 s left\n"
                 "mlgo train: baseline: 8/20 compiles, 2.0/s, about 6 s left\n"
                 "mlgo train: baseline: 10/20 compiles, 2.0/s, about 5 s left\n"
                 "mlgo train: baseline: 12/20 compiles, 2.0/s, about 4 s left\n"
                 "mlgo train: baseline: 14/20 compiles, 2.0/s, about 3 s left\n"
                 "mlgo train: baseline: 16/20 compiles, 2.0/s, about 2 s left\n"
                 "mlgo train: baseline: 18/20 compiles, 2.0/s, about 1 s left\n"
                 "mlgo train: baseline: 20/20 compiles (3 by replay)\n");
}

TEST(ProgressTest, TerminalRedrawsInPlaceAtMostFourTimesASecond) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  double T = 0;
  Progress P("compiling", "modules", OS, /*InPlace=*/true, [&T] { return T; });
  T = 0.1;
  P.update(1, 4); // first: drawn
  T = 0.2;
  P.update(2, 4); // 0.1 s later: not drawn
  T = 0.4;
  P.update(3, 4); // 0.3 s after the last drawing: drawn
  P.update(4, 4); // the last: always drawn
  P.end();
  EXPECT_EQ(Out, "\r\x1b[Kcompiling: 1/4 modules, 10.0/s, under a second left"
                 "\r\x1b[Kcompiling: 3/4 modules, 7.5/s, under a second left"
                 "\r\x1b[Kcompiling: 4/4 modules\n");
}

TEST(ProgressTest, NothingShownNothingEnded) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Progress P("x", "compiles", OS, /*InPlace=*/false, [] { return 0.0; });
  P.update(0, 0);
  P.end(" (never)");
  EXPECT_EQ(Out, "");
}

TEST(ProgressTest, TimeLeftInSecondsMinutesAndHours) {
  EXPECT_EQ(Progress::formatTimeLeft(-3), "under a second left");
  EXPECT_EQ(Progress::formatTimeLeft(0.49), "under a second left");
  EXPECT_EQ(Progress::formatTimeLeft(0.5), "about 1 s left");
  EXPECT_EQ(Progress::formatTimeLeft(99.4), "about 99 s left");
  EXPECT_EQ(Progress::formatTimeLeft(100), "about 2 min left");
  EXPECT_EQ(Progress::formatTimeLeft(59 * 60), "about 59 min left");
  EXPECT_EQ(Progress::formatTimeLeft(65 * 60), "about 1 h 05 min left");
  EXPECT_EQ(Progress::formatTimeLeft(150 * 60), "about 2 h 30 min left");
}

} // namespace
