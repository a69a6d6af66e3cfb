//===- lib/Support/InstallDirs.cpp - Where mlgo finds its files -----------===//
//
// Finds the plugin, the data directory and the cache directory of a running
// mlgo from the program's own path (see mlgo/Support/InstallDirs.h): the
// rule is a pure function of its inputs, so the unit tests check it on
// made-up build trees and installs; getInstallDirs() feeds it this
// process's.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/InstallDirs.h"

#include "mlgo/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlgo {

/// \p Dir joined with the relative \p Rel, "." and ".." removed.
static std::string join(StringRef Dir, StringRef Rel) {
  SmallString<256> P(Dir);
  sys::path::append(P, Rel);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

InstallDirs findInstallDirs(StringRef Executable, StringRef BuildDir,
                            StringRef SourceDir, StringRef BinToPlugin,
                            StringRef BinToData, StringRef CacheHome) {
  StringRef Bin = sys::path::parent_path(Executable);
  InstallDirs D;
  D.Plugin = join(Bin, BinToPlugin);
  // Compared as files: the build directory may be reached through a
  // symlink, and a missing one (moved, deleted) is simply not this.
  bool Same = false;
  D.InBuildTree =
      !sys::fs::equivalent(sys::path::parent_path(Bin), BuildDir, Same) && Same;
  if (D.InBuildTree) {
    D.Data = SourceDir.str();
    D.Cache = BuildDir.str();
    return D;
  }
  D.Data = join(Bin, BinToData);
  D.Cache =
      CacheHome.empty() ? std::string("mlgo-cache") : join(CacheHome, "mlgo");
  return D;
}

/// An address in the running program, for getMainExecutable.
static void anchor() {}

const InstallDirs &getInstallDirs() {
  static const InstallDirs Dirs = [] {
    std::string Exe =
        sys::fs::getMainExecutable("mlgo", reinterpret_cast<void *>(&anchor));
    SmallString<256> Cache;
    if (!sys::path::cache_directory(Cache))
      Cache.clear();
    return findInstallDirs(Exe, config::BuildDir, config::SourceDir,
                           config::BinToPlugin, config::BinToData, Cache);
  }();
  return Dirs;
}

} // namespace mlgo
