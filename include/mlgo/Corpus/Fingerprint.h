//===- mlgo/Corpus/Fingerprint.h - A corpus in 32 digits --------*- C++ -*-===//
//
// Caches and trained models refer to corpus content, not to paths:
//
//   content hash  of a module: MD5 (32 hex digits) of its bitcode followed
//                 by its cc1 arguments joined as in a .cmd file
//                 (NUL-terminated). The name is not part of it, so a module
//                 keeps its hash when a corpus is moved or combined.
//   fingerprint   of a corpus: MD5 of every module's name, a NUL byte, and
//                 its content hash, in corpus order. Two corpora with equal
//                 fingerprints train the same model from the same recipe
//                 and LLVM. The bitcode and cc1 arguments carry the package
//                 versions and the paths the packages were built at, so a
//                 corpus rebuilt after a Debian update, or under another
//                 directory, differs. A corpus that carries profiles
//                 (CorpusDescription.h, "profiles") adds, after the
//                 modules, for each package in name order: "profile", a NUL,
//                 the package, a NUL, and the MD5 of the profile's bytes.
//                 Without profiles nothing is added: the fingerprint of
//                 every older corpus stays what it was.
//
// `mlgo train` records the fingerprint in the model (metadata.corpus_hash)
// and its report; `mlgo corpus stats` prints it.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_FINGERPRINT_H
#define MLGO_CORPUS_FINGERPRINT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

/// The content hash of a module with bitcode \p Bitcode and stored cc1
/// arguments \p CC1Args.
std::string getModuleContentHash(llvm::StringRef Bitcode,
                                 llvm::ArrayRef<std::string> CC1Args);

/// A module as the fingerprint sees it.
struct ModuleContent {
  llvm::StringRef Name;
  llvm::StringRef ContentHash;
};

/// A package's profile as the fingerprint sees it.
struct ProfileContent {
  llvm::StringRef Package;
  /// The MD5 of the profile file (32 hex digits).
  llvm::StringRef ContentHash;
};

/// The fingerprint of a corpus whose modules are \p Modules, in order, and
/// whose packages' profiles are \p Profiles, in package order.
std::string getCorpusFingerprint(llvm::ArrayRef<ModuleContent> Modules,
                                 llvm::ArrayRef<ProfileContent> Profiles = {});

struct CorpusDescription;

/// The MD5 (32 hex digits) of each profile \p Description names, in package
/// order, read from the corpus at \p Dir. Errors name the file.
llvm::Expected<std::vector<std::string>>
hashCorpusProfiles(llvm::StringRef Dir, const CorpusDescription &Description);

/// getCorpusFingerprint() of \p Modules and of \p Description's profiles
/// with their hashes \p ProfileHashes (from hashCorpusProfiles()).
std::string getCorpusFingerprint(llvm::ArrayRef<ModuleContent> Modules,
                                 const CorpusDescription &Description,
                                 llvm::ArrayRef<std::string> ProfileHashes);

/// The fingerprint of the corpus at \p Dir described by \p Description:
/// reads every module's bitcode and cc1 arguments, and every profile.
/// Errors name the file.
llvm::Expected<std::string>
computeCorpusFingerprint(llvm::StringRef Dir,
                         const CorpusDescription &Description);

} // namespace mlgo

#endif // MLGO_CORPUS_FINGERPRINT_H
