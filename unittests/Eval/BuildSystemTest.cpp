//===- unittests/Eval/BuildSystemTest.cpp - The build systems of a tree ---===//
//
// The build systems of small temporary source trees, as the package
// recipes' table (scripts/package-recipes.sh, run for real) finds them,
// and what mlgo makes of its answer: exact values and exact errors.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/BuildSystem.h"

#include "mlgo/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

const std::string Recipes =
    std::string(config::SourceDir) + "/scripts/package-recipes.sh";

/// "configure:no cmake:yes make:yes": what a table says, in its order.
std::string show(const std::vector<FoundBuildSystem> &Systems) {
  std::string Out;
  for (const FoundBuildSystem &S : Systems)
    Out += (Out.empty() ? "" : " ") + getBuildSystemName(S.System).str() +
           (S.Found ? ":yes" : ":no");
  return Out;
}

TEST(BuildSystemTest, NamesParseOnce) {
  for (StringRef Name : {"configure", "autotools", "cmake", "make"}) {
    Expected<BuildSystem> S = parseBuildSystem(Name);
    ASSERT_TRUE(bool(S)) << toString(S.takeError());
    EXPECT_EQ(getBuildSystemName(*S), Name == "autotools" ? "configure" : Name);
  }
  Expected<BuildSystem> Bad = parseBuildSystem("ninja");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "unknown build system 'ninja'; expected configure (or "
            "autotools), cmake or make");
}

TEST(BuildSystemTest, TheRecipesTableFindsEntryPointsInOrder) {
  unittest::TempDir Dir("mlgo-build-system", /*Unique=*/true);
  auto Touch = [&](StringRef Rel) {
    std::error_code EC;
    raw_fd_ostream(Dir.path(Rel), EC) << "\n";
    ASSERT_FALSE(EC);
  };
  auto Find = [&]() -> std::vector<FoundBuildSystem> {
    Expected<std::vector<FoundBuildSystem>> S =
        findBuildSystems(Dir.path(), Recipes);
    EXPECT_TRUE(bool(S)) << toString(S.takeError());
    return S ? *S : std::vector<FoundBuildSystem>();
  };
  auto Detected = [&]() -> std::string {
    Expected<BuildSystem> S = detectBuildSystem(Dir.path(), Find());
    if (!S)
      return toString(S.takeError());
    return getBuildSystemName(*S).str();
  };

  std::vector<FoundBuildSystem> Empty = Find();
  EXPECT_EQ(show(Empty), "configure:no cmake:no make:no");
  EXPECT_EQ(
      Empty[0].EntryPoints,
      (std::vector<std::string>{"configure", "configure.ac", "configure.in"}));
  EXPECT_EQ(Empty[1].EntryPoints, (std::vector<std::string>{"CMakeLists.txt"}));
  EXPECT_EQ(Empty[2].EntryPoints,
            (std::vector<std::string>{"Makefile", "makefile", "GNUmakefile"}));
  EXPECT_EQ(Detected(),
            (Dir.path() + ": no build system found (no configure, "
                          "configure.ac, configure.in, CMakeLists.txt, "
                          "Makefile, makefile or GNUmakefile); pass "
                          "--build-system")
                .str());

  Touch("GNUmakefile");
  EXPECT_EQ(show(Find()), "configure:no cmake:no make:yes");
  EXPECT_EQ(Detected(), "make");
  Touch("CMakeLists.txt");
  EXPECT_EQ(show(Find()), "configure:no cmake:yes make:yes");
  EXPECT_EQ(Detected(), "cmake");
  Touch("configure.in");
  EXPECT_EQ(show(Find()), "configure:yes cmake:yes make:yes");
  EXPECT_EQ(Detected(), "configure");

  // A directory named like an entry point is not one.
  unittest::TempDir Other("mlgo-build-system", /*Unique=*/true);
  ASSERT_FALSE(sys::fs::create_directory(Other.path("Makefile")));
  Expected<std::vector<FoundBuildSystem>> S =
      findBuildSystems(Other.path(), Recipes);
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(show(*S), "configure:no cmake:no make:no");
}

TEST(BuildSystemTest, TheScriptsLinesParse) {
  Expected<std::vector<FoundBuildSystem>> S =
      parseBuildSystems("make\tyes\tMakefile GNUmakefile\n"
                        "configure\tno\tconfigure\n",
                        "T");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  EXPECT_EQ(show(*S), "make:yes configure:no");
  EXPECT_EQ((*S)[0].EntryPoints,
            (std::vector<std::string>{"Makefile", "GNUmakefile"}));
  // The order is the table's: the first found wins.
  Expected<BuildSystem> D = detectBuildSystem("src", *S);
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(*D, BuildSystem::Make);

  auto Error = [](StringRef Text) {
    Expected<std::vector<FoundBuildSystem>> R = parseBuildSystems(Text, "T");
    return R ? std::string("parsed") : toString(R.takeError());
  };
  EXPECT_EQ(Error(""), "T: no build system");
  EXPECT_EQ(Error("make\tmaybe\tMakefile\n"),
            "T: expected NAME<tab>yes|no<tab>ENTRY-POINT..., got "
            "'make\tmaybe\tMakefile'");
  EXPECT_EQ(Error("make\tyes\n"),
            "T: expected NAME<tab>yes|no<tab>ENTRY-POINT..., got 'make\tyes'");
  EXPECT_EQ(Error("scons\tyes\tSConstruct\n"),
            "T: unknown build system 'scons'; expected configure (or "
            "autotools), cmake or make");
}

TEST(BuildSystemTest, AFailingScriptIsReported) {
  unittest::TempDir Dir("mlgo-build-system", /*Unique=*/true);
  std::string Script(Dir.path("recipes.sh"));
  std::string Path(Dir.path());
  {
    std::error_code EC;
    raw_fd_ostream(Script, EC) << "echo \"cannot read $2\" >&2\nexit 3\n";
    ASSERT_FALSE(EC);
  }
  Expected<std::vector<FoundBuildSystem>> S =
      findBuildSystems(Dir.path(), Script);
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(toString(S.takeError()),
            Script + " build-systems " + Path +
                " exited with status 3:\ncannot read " + Path);
  Expected<std::vector<FoundBuildSystem>> Missing =
      findBuildSystems(Dir.path("none"), Recipes);
  ASSERT_FALSE(bool(Missing));
  EXPECT_EQ(toString(Missing.takeError()), Path + "/none: no such directory");
}

} // namespace
