//===- mlgo/Support/InstallDirs.h - Where mlgo finds its files --*- C++ -*-===//
//
// mlgo runs from its build tree (<build>/bin/mlgo) or from an install
// (<prefix>/bin/mlgo, /usr/bin/mlgo from the .deb, or a copy of either moved
// anywhere), and needs three things of its own: the plugin it passes to the
// clang it spawns, the scripts and models it ships (package recipes, the
// default eviction model), and a place for downloaded sources and eval
// trees. All three are found from the running program, never from a path
// compiled in, so that an install works wherever it is put and never
// reads the build tree it was made from:
//
//   Plugin  <bin>/../lib/mlgo/mlgo-plugin.so, in the build tree and in every
//           install alike (cmake/MLGOInstall.cmake gives both one layout);
//   Data    <bin>/../share/mlgo installed; the source tree (config::SourceDir)
//           only when mlgo runs from the build tree it was built in;
//   Cache   $XDG_CACHE_HOME/mlgo (else ~/.cache/mlgo) installed; the build
//           directory when running from it, as before there was an install.
//
// <bin> is the directory of the running program with its symlinks resolved
// (/proc/self/exe), so a symlink to mlgo elsewhere on PATH finds the same
// files. "Running from the build tree" means <bin>/.. is the very directory
// this build was configured in (config::BuildDir), compared as files, not
// as strings; a build tree moved elsewhere is treated as an install.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_INSTALLDIRS_H
#define MLGO_SUPPORT_INSTALLDIRS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlgo {

/// The files of one mlgo: its plugin, its data and its cache directory.
struct InstallDirs {
  /// The pass plugin (mlgo-plugin.so).
  std::string Plugin;
  /// The directory holding scripts/ and models/.
  std::string Data;
  /// The default home of package sources (<Cache>/src) and eval work trees
  /// (<Cache>/eval).
  std::string Cache;
  /// Whether the program runs from the build tree it was built in.
  bool InBuildTree = false;
};

/// The directories of an mlgo whose running program is \p Executable (an
/// absolute path, symlinks resolved), built in \p BuildDir from
/// \p SourceDir, the plugin and data directory at \p BinToPlugin and
/// \p BinToData relative to the program's directory, and \p CacheHome the
/// user's cache directory ($XDG_CACHE_HOME or ~/.cache; empty when there is
/// none, which makes the cache "mlgo-cache" in the working directory).
/// Every path but the last case's is absolute and free of "." and "..".
InstallDirs findInstallDirs(llvm::StringRef Executable,
                            llvm::StringRef BuildDir, llvm::StringRef SourceDir,
                            llvm::StringRef BinToPlugin,
                            llvm::StringRef BinToData,
                            llvm::StringRef CacheHome);

/// This process's directories: findInstallDirs for the running program
/// (sys::fs::getMainExecutable), this build's mlgo/Config.h and the user's
/// cache directory, computed on first use.
const InstallDirs &getInstallDirs();

} // namespace mlgo

#endif // MLGO_SUPPORT_INSTALLDIRS_H
