//===- unittests/Support/InstallDirsTest.cpp - Where mlgo finds its files -===//
//
// findInstallDirs on made-up trees: a build tree (the program's parent is
// the build directory, also through a symlink) finds its data in the source
// tree and caches in the build directory; an install anywhere, or a build
// tree that has moved, finds everything relative to the program and never
// names the build or source tree.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/InstallDirs.h"

#include "mlgo/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace mlgo;

namespace {

constexpr StringRef BinToPlugin = "../lib/mlgo/mlgo-plugin.so";
constexpr StringRef BinToData = "../share/mlgo";

TEST(InstallDirsTest, BuildTreeUsesTheSourceTreeAndBuildDirectory) {
  unittest::TempDir Dir("mlgo-dirs", /*Unique=*/true);
  std::string Build = Dir.path("build").str().str();
  ASSERT_FALSE(sys::fs::create_directories(Build + "/bin"));
  InstallDirs D = findInstallDirs(Build + "/bin/mlgo", Build, "/src/mlgo",
                                  BinToPlugin, BinToData, "/home/u/.cache");
  EXPECT_TRUE(D.InBuildTree);
  EXPECT_EQ(D.Plugin, Build + "/lib/mlgo/mlgo-plugin.so");
  EXPECT_EQ(D.Data, "/src/mlgo");
  EXPECT_EQ(D.Cache, Build);
}

TEST(InstallDirsTest, BuildDirectoryIsComparedAsAFile) {
  // The build directory as configured through a symlink: the program's real
  // path still lies in it.
  unittest::TempDir Dir("mlgo-dirs", /*Unique=*/true);
  std::string Build = Dir.path("build").str().str();
  std::string Link = Dir.path("link").str().str();
  ASSERT_FALSE(sys::fs::create_directories(Build + "/bin"));
  ASSERT_FALSE(sys::fs::create_link(Build, Link));
  InstallDirs D = findInstallDirs(Build + "/bin/mlgo", Link, "/src/mlgo",
                                  BinToPlugin, BinToData, "/home/u/.cache");
  EXPECT_TRUE(D.InBuildTree);
  EXPECT_EQ(D.Data, "/src/mlgo");
}

TEST(InstallDirsTest, InstallIsRelativeToTheProgram) {
  unittest::TempDir Dir("mlgo-dirs", /*Unique=*/true);
  std::string Build = Dir.path("build").str().str();
  std::string Prefix = Dir.path("prefix").str().str();
  ASSERT_FALSE(sys::fs::create_directories(Build + "/bin"));
  ASSERT_FALSE(sys::fs::create_directories(Prefix + "/bin"));
  InstallDirs D = findInstallDirs(Prefix + "/bin/mlgo", Build, "/src/mlgo",
                                  BinToPlugin, BinToData, "/home/u/.cache");
  EXPECT_FALSE(D.InBuildTree);
  EXPECT_EQ(D.Plugin, Prefix + "/lib/mlgo/mlgo-plugin.so");
  EXPECT_EQ(D.Data, Prefix + "/share/mlgo");
  EXPECT_EQ(D.Cache, "/home/u/.cache/mlgo");
}

TEST(InstallDirsTest, MovedBuildTreeIsNotTheBuildTree) {
  // The build directory this mlgo was configured in is gone (moved aside):
  // nothing points back at it or at the source tree.
  InstallDirs D =
      findInstallDirs("/opt/x/bin/mlgo", "/no/such/build", "/src/mlgo",
                      BinToPlugin, BinToData, "/home/u/.cache");
  EXPECT_FALSE(D.InBuildTree);
  EXPECT_EQ(D.Plugin, "/opt/x/lib/mlgo/mlgo-plugin.so");
  EXPECT_EQ(D.Data, "/opt/x/share/mlgo");
  EXPECT_EQ(D.Cache, "/home/u/.cache/mlgo");
}

TEST(InstallDirsTest, NoCacheHomeMeansTheWorkingDirectory) {
  InstallDirs D = findInstallDirs("/usr/bin/mlgo", "/no/such/build",
                                  "/src/mlgo", BinToPlugin, BinToData, "");
  EXPECT_EQ(D.Plugin, "/usr/lib/mlgo/mlgo-plugin.so");
  EXPECT_EQ(D.Data, "/usr/share/mlgo");
  EXPECT_EQ(D.Cache, "mlgo-cache");
}

TEST(InstallDirsTest, ThisBuildsRelativePaths) {
  // What cmake/MLGOInstall.cmake puts in mlgo/Config.h.
  EXPECT_EQ(StringRef(config::BinToPlugin), BinToPlugin);
  EXPECT_EQ(StringRef(config::BinToData), BinToData);
}

} // namespace
