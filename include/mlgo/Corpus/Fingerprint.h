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
//                 directory, differs.
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

/// The fingerprint of a corpus whose modules are \p Modules, in order.
std::string getCorpusFingerprint(llvm::ArrayRef<ModuleContent> Modules);

struct CorpusDescription;
/// The fingerprint of the corpus at \p Dir described by \p Description:
/// reads every module's bitcode and cc1 arguments. Errors name the file.
llvm::Expected<std::string>
computeCorpusFingerprint(llvm::StringRef Dir,
                         const CorpusDescription &Description);

} // namespace mlgo

#endif // MLGO_CORPUS_FINGERPRINT_H
