//===- mlgo/Tune/ProfiledModules.h - A profile's corpus modules -*- C++ -*-===//
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

#ifndef MLGO_TUNE_PROFILEDMODULES_H
#define MLGO_TUNE_PROFILEDMODULES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

struct CorpusModule;

/// The IR-level PGO names (llvm::getIRPGOFuncName) of the functions the
/// bitcode of \p M defines, sorted. Errors name the bitcode file.
llvm::Expected<std::vector<std::string>>
getDefinedProfileNames(const CorpusModule &M);

/// Which modules are the profile's program's, by the rule above: \p
/// Defined holds each module's defined functions (getDefinedProfileNames),
/// \p Recorded the profile's function names, sorted. Returns one flag per
/// module: kept.
std::vector<bool>
selectProfiledModules(llvm::ArrayRef<std::vector<std::string>> Defined,
                      llvm::ArrayRef<std::string> Recorded);

/// Keeps in \p Mods the modules selectProfiledModules() keeps for the
/// profile's function names \p Recorded, and returns the names of those it
/// left out, in corpus order. An error if it keeps none, naming \p
/// Profile and \p CorpusDir, or if a module's bitcode cannot be read.
llvm::Expected<std::vector<std::string>>
keepProfiledModules(std::vector<CorpusModule> &Mods,
                    llvm::ArrayRef<std::string> Recorded,
                    llvm::StringRef Profile, llvm::StringRef CorpusDir);

} // namespace mlgo

#endif // MLGO_TUNE_PROFILEDMODULES_H
