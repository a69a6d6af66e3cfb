//===- mlgo/Corpus/Package.h - The package of a corpus module ---*- C++ -*-===//
//
// A corpus made of several packages (scripts/corpus-debian.sh, `mlgo corpus
// combine`) names each module "<package>/<path in the package>". Training
// holds whole packages out for validation, `mlgo corpus stats` and `mlgo
// eval corpus` group sizes by package: all of them ask this file what a
// module's package is.
//
// A module with no directory ("adler32.o", or "/x.o") belongs to no
// package: its package is the empty string. Not ".": that would read as a
// directory name, and a recipe or --packages could then name the
// top-level modules of one corpus by accident; "" cannot be written in
// either. Where a package is shown, describePackage() spells the empty one
// "(modules without a directory)".
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_PACKAGE_H
#define MLGO_CORPUS_PACKAGE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlgo {

/// The package of a module name: its first path component
/// ("zlib/CMakeFiles/z.dir/adler32.c.o" -> "zlib", a view into \p Module);
/// "" for a module not in a directory.
llvm::StringRef getModulePackage(llvm::StringRef Module);

/// \p Package as reports and messages show it: itself, or "(modules
/// without a directory)" for the empty package.
std::string describePackage(llvm::StringRef Package);

} // namespace mlgo

#endif // MLGO_CORPUS_PACKAGE_H
