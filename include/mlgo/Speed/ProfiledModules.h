//===- mlgo/Speed/ProfiledModules.h - A profile's modules ------*- C++ -*-===//
//
// The speed search tunes the program its profile was taken of. A corpus
// may hold more than that program: a project that builds two programs (a
// tool and its companion, a library's examples) extracts the modules of
// both, and every compile of a module the profile does not know fails on
// LLVM's profile diagnostics. So the search takes the modules that define
// a function the profile has a record of (IR-level PGO names: a local
// function's "FILE;NAME"), and leaves out, by name, the others.
//
// `main` alone does not say which program a module belongs to: each
// program has one, and the profile's is named like the other program's.
// A module whose only function of the profile is `main` is the program's
// when no module kept for another function defines `main`, and it is the
// only such module, or the only one whose every function the profile
// knows; when that leaves several, all are kept (the compile of the wrong
// one then names the module and the profile).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SPEED_PROFILEDMODULES_H
#define MLGO_SPEED_PROFILEDMODULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo::speed {

/// The IR-level PGO names (llvm::getIRPGOFuncName) of the functions the
/// bitcode file \p Bitcode defines, sorted. Errors name the file.
llvm::Expected<std::vector<std::string>>
getDefinedProfileNames(llvm::StringRef Bitcode);

/// Which modules are the profile's program's, by the rule above: \p
/// Defined holds each module's defined functions (getDefinedProfileNames),
/// \p Recorded the profile's function names, sorted. Returns one flag per
/// module: kept.
std::vector<bool>
selectProfiledModules(llvm::ArrayRef<std::vector<std::string>> Defined,
                      llvm::ArrayRef<std::string> Recorded);

/// selectProfiledModules() of the modules whose bitcode files are \p
/// Bitcode, for the profile's function names \p Recorded. An error if it
/// keeps none, naming \p Profile and \p CorpusDir, or if a bitcode file
/// cannot be read.
llvm::Expected<std::vector<bool>>
findProfiledModules(llvm::ArrayRef<std::string> Bitcode,
                    llvm::ArrayRef<std::string> Recorded,
                    llvm::StringRef Profile, llvm::StringRef CorpusDir);

} // namespace mlgo::speed

#endif // MLGO_SPEED_PROFILEDMODULES_H
