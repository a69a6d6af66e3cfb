//===- unittests/Speed/ProfiledModulesTest.cpp ----------------------------===//
//
// Which modules of a corpus the speed search takes for its profile's
// program (mlgo/Speed/ProfiledModules.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/ProfiledModules.h"

#include "gtest/gtest.h"

using namespace mlgo::speed;

namespace {

using Names = std::vector<std::string>;

// The profile of a program whose main is in a file with another function
// (pressure-main.c's `use`), the corpus also holding another program.
TEST(ProfiledModulesTest, AnotherProgramsModulesAreLeftOut) {
  Names Recorded = {"hot", "main", "small", "use"};
  std::vector<Names> Defined = {{"hot", "small"},
                                {"main", "use"},
                                {"cold", "first", "hot.c;mix", "second"},
                                {"main"}};
  EXPECT_EQ(selectProfiledModules(Defined, Recorded),
            std::vector<bool>({true, true, false, false}));
}

// Both mains alone in their files: the one whose every function the
// profile knows is the program's.
TEST(ProfiledModulesTest, OfTwoMainsAloneTheOneTheProfileKnowsWhole) {
  Names Recorded = {"first", "main"};
  std::vector<Names> Defined = {
      {"first"}, {"main"}, {"helper", "main"}, {"other"}};
  EXPECT_EQ(selectProfiledModules(Defined, Recorded),
            std::vector<bool>({true, true, false, false}));
}

// Two modules alike by what the profile knows of them: both kept, the
// compile of the wrong one names it (nothing guessed).
TEST(ProfiledModulesTest, MainsThatCannotBeToldApartAreBothKept) {
  Names Recorded = {"first", "main"};
  std::vector<Names> Defined = {{"first"}, {"main"}, {"main"}};
  EXPECT_EQ(selectProfiledModules(Defined, Recorded),
            std::vector<bool>({true, true, true}));
}

// A local function counts by its IR-level name, "FILE;NAME": another
// file's local function of the same name does not.
TEST(ProfiledModulesTest, LocalFunctionsMatchWithTheirFile) {
  Names Recorded = {"a.c;helper", "main"};
  std::vector<Names> Defined = {{"a.c;helper", "main"}, {"b.c;helper"}};
  EXPECT_EQ(selectProfiledModules(Defined, Recorded),
            std::vector<bool>({true, false}));
}

// A module of no function at all (tables only) is no program's.
TEST(ProfiledModulesTest, NothingKnownKeepsNothing) {
  Names Recorded = {"main"};
  std::vector<Names> Defined = {{}, {"f"}};
  EXPECT_EQ(selectProfiledModules(Defined, Recorded),
            std::vector<bool>({false, false}));
}

} // namespace
