//===- unittests/Speed/CallgrindTest.cpp ----------------------------------===//
//
// readObjectInstructionCounts on hand-written callgrind files: what a whole
// file reads as, and the promises of the producer checked - a file cut at a
// line boundary (no totals line after its costs) and one whose totals or
// summary line disagrees with its costs are errors naming the file and the
// line, never smaller counts.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/Callgrind.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <fstream>

using namespace llvm;
using namespace mlgo::speed;

namespace {

/// A callgrind file as --dump-instr=yes writes it: two objects, a call.
const char *const Whole = "# callgrind format\n"
                          "version: 1\n"
                          "part: 1\n"
                          "positions: instr line\n"
                          "events: Ir\n"
                          "summary: 17\n"
                          "\n"
                          "ob=(5) /prog\n"
                          "fl=(1) ???\n"
                          "fn=(1) main\n"
                          "0x1160 0 3\n"
                          "+2 0 4\n"
                          "cob=(3) /libc.so.6\n"
                          "cfn=(2) puts\n"
                          "calls=1 0x27280 0\n"
                          "+3 0 9\n"
                          "+3 0 5\n"
                          "ob=(3)\n"
                          "fn=(2)\n"
                          "0x27280 0 5\n"
                          "\n"
                          "totals: 17\n";

std::string write(const unittest::TempDir &Dir, StringRef Text) {
  std::string Path = Dir.path("cg.out").str().str();
  std::ofstream(Path, std::ios::binary) << Text.str();
  return Path;
}

std::string errorOrCounts(StringRef Path) {
  auto R = readObjectInstructionCounts(
      Path, [](StringRef Name) { return Name == "/prog"; });
  if (!R)
    return toString(R.takeError());
  std::string Out;
  for (const auto &[Object, Counts] : *R)
    for (const auto &[Address, Count] : Counts)
      Out +=
          Object + "@" + utohexstr(Address) + "=" + std::to_string(Count) + " ";
  return Out;
}

TEST(CallgrindTest, AWholeFileReadsItsOwnCosts) {
  unittest::TempDir Dir("mlgo-callgrind", /*Unique=*/true);
  // The call line's 9 is puts' inclusive cost, not main's own.
  EXPECT_EQ(errorOrCounts(write(Dir, Whole)),
            "/prog@1160=3 /prog@1162=4 /prog@1168=5 ");
}

TEST(CallgrindTest, AFileCutAtALineBoundaryIsAnError) {
  unittest::TempDir Dir("mlgo-callgrind", /*Unique=*/true);
  StringRef Text = Whole;
  // Cut after main's second cost line: every line parses.
  std::string Cut = Text.take_front(Text.find("cob=")).str();
  std::string Path = write(Dir, Cut);
  EXPECT_EQ(errorOrCounts(Path),
            Path + ": the file ends before the totals line that follows the "
                   "costs of a part: a file cut short (callgrind writes one "
                   "at the end of every part)");
}

TEST(CallgrindTest, TotalsThatDisagreeWithTheCostsAreAnError) {
  unittest::TempDir Dir("mlgo-callgrind", /*Unique=*/true);
  std::string Edited = Whole;
  Edited.replace(Edited.find("totals: 17"), 10, "totals: 18");
  // Summary first: its line is checked when the totals line is reached.
  Edited.replace(Edited.find("summary: 17"), 11, "summary: 18");
  std::string Path = write(Dir, Edited);
  EXPECT_EQ(errorOrCounts(Path),
            Path + ": line 22: its totals line says 18 instructions ran, its "
                   "cost lines add up to 17 (a cut or edited file?)");
  Edited.replace(Edited.find("totals: 18"), 10, "totals: 17");
  Path = write(Dir, Edited);
  EXPECT_EQ(errorOrCounts(Path),
            Path + ": line 6: its summary line says 18 instructions ran, its "
                   "cost lines add up to 17 (a cut or edited file?)");
}

TEST(CallgrindTest, ALostCostLineIsAnError) {
  unittest::TempDir Dir("mlgo-callgrind", /*Unique=*/true);
  std::string Edited = Whole;
  Edited.erase(Edited.find("0x27280 0 5\n"), 12);
  std::string Path = write(Dir, Edited);
  EXPECT_EQ(errorOrCounts(Path),
            Path + ": line 21: its totals line says 17 instructions ran, its "
                   "cost lines add up to 12 (a cut or edited file?)");
}

} // namespace
