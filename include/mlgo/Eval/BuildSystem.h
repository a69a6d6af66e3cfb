//===- mlgo/Eval/BuildSystem.h - A source tree's build systems --*- C++ -*-===//
//
// `mlgo eval build` builds a source tree with its own build system -
// configure, CMake or a plain Makefile - through the same shell functions
// the package recipes build Debian packages with (scripts/package-recipes.sh).
// Which files make a build system's entry point, and in which order the
// build systems are tried, is said once, in that script's table: its build
// functions check it before they build (the corpus and eval drivers try the
// next build system when a tree has no entry point), and this side asks it
// through `package-recipes.sh build-systems SRC` rather than keeping a copy.
// The script is the owner because the corpus builds (scripts/corpus-debian.sh
// --build-only) run without an mlgo binary, while mlgo runs the scripts for
// every build it evaluates anyway.
//
// The script's answer is parsed once, here, into FoundBuildSystem values;
// everything after works on those.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_BUILDSYSTEM_H
#define MLGO_EVAL_BUILDSYSTEM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

/// The build systems `mlgo eval build` knows, by the entry point a source
/// tree has: `configure` (or `configure.ac`, run through autoreconf),
/// `CMakeLists.txt`, a `Makefile`.
enum class BuildSystem { Configure, CMake, Make };

/// "configure", "cmake" or "make".
llvm::StringRef getBuildSystemName(BuildSystem System);
/// configure (also spelt autotools), cmake or make.
llvm::Expected<BuildSystem> parseBuildSystem(llvm::StringRef Name);

/// A build system as a source tree has it: one line of the package
/// recipes' table (scripts/package-recipes.sh, the one place that says
/// which files make each build system's entry point and in which order
/// they are tried; the recipes' builds detect with it too).
struct FoundBuildSystem {
  BuildSystem System;
  /// The files that are its entry point; a tree needs one.
  std::vector<std::string> EntryPoints;
  /// Whether the tree has one of them.
  bool Found = false;
};

/// Parses the output of `package-recipes.sh build-systems SRC`, named
/// \p Name in errors: one line per build system, in the order they are
/// tried, "NAME<tab>yes|no<tab>ENTRY-POINT ...".
llvm::Expected<std::vector<FoundBuildSystem>>
parseBuildSystems(llvm::StringRef Text, llvm::StringRef Name);

/// The build systems of the source tree \p SourceDir, as the recipes'
/// table finds them: runs `bash RecipesScript build-systems SourceDir`.
/// Errors name the directory, or the script and what it printed.
llvm::Expected<std::vector<FoundBuildSystem>>
findBuildSystems(llvm::StringRef SourceDir, llvm::StringRef RecipesScript);

/// The first of \p Systems that \p SourceDir has (the order the package
/// recipes try them in); an error naming the directory and every entry
/// point looked for when it has none.
llvm::Expected<BuildSystem>
detectBuildSystem(llvm::StringRef SourceDir,
                  llvm::ArrayRef<FoundBuildSystem> Systems);

} // namespace mlgo

#endif // MLGO_EVAL_BUILDSYSTEM_H
