//===- mlgo/Corpus/CorpusDescription.h - A corpus on disk -------*- C++ -*-===//
//
// A training corpus is a directory of IR modules captured before
// optimization, each with the command line that compiles it, in the layout
// ml-compiler-opt and llvm/utils/mlgo-utils read and write:
//
//   DIR/corpus_description.json
//   DIR/<module>.bc     the module's bitcode, as clang embedded it (.llvmbc)
//   DIR/<module>.cmd    its cc1 arguments, NUL-separated, as clang embedded
//                       them (.llvmcmd); absent with global_command_override
//
// corpus_description.json is one JSON object:
//
//   "modules"                  array of module names (paths relative to DIR,
//                              without the .bc/.cmd suffix), e.g.
//                              "CMakeFiles/z.dir/adler32.c.o"; an empty or
//                              absolute name, or one with a ".." component,
//                              is an error
//   "has_thinlto"              bool; true when modules come with ThinLTO
//                              index files (<module>.thinlto.bc)
//   "global_command_override"  optional array of cc1 arguments used for every
//                              module instead of its .cmd file
//   "profiles"                 optional (mlgo's): an object mapping a package
//                              (a module name's first component) to its
//                              indexed profile, a path relative to DIR
//                              (`mlgo corpus profile` writes
//                              "profiles/<package>.profdata"); speed training
//                              applies it to the package's modules
//                              (docs/speed.md). Absent when no package has
//                              one, so a corpus without profiles reads and
//                              writes as before.
//
// Other keys are preserved when read and written back, so that a corpus
// written by other tools round-trips.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_CORPUSDESCRIPTION_H
#define MLGO_CORPUS_CORPUSDESCRIPTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// The name of the description file inside a corpus directory.
inline constexpr llvm::StringLiteral CorpusDescriptionFileName =
    "corpus_description.json";

/// The contents of corpus_description.json.
struct CorpusDescription {
  std::vector<std::string> Modules;
  bool HasThinLTO = false;
  std::optional<std::vector<std::string>> GlobalCommandOverride;
  /// Package -> its profile, relative to the corpus directory.
  std::map<std::string, std::string> Profiles;
  /// Package -> the block counts of its profile workload (mlgo profile
  /// package --counts), relative to the corpus directory: a package has
  /// them only with a profile.
  std::map<std::string, std::string> BlockCounts;
  /// Keys this library does not interpret, kept for round-tripping.
  llvm::json::Object Extra;

  /// Parses the JSON text of a description; \p Name names it in errors.
  static llvm::Expected<CorpusDescription> parse(llvm::StringRef Text,
                                                 llvm::StringRef Name);
  /// Reads DIR/corpus_description.json.
  static llvm::Expected<CorpusDescription> read(llvm::StringRef Dir);

  llvm::json::Value toJSON() const;
  /// Writes DIR/corpus_description.json (pretty-printed, atomically).
  llvm::Error write(llvm::StringRef Dir) const;

  /// The path of \p Package's profile inside the corpus at \p Dir, or none.
  std::optional<std::string> getProfilePath(llvm::StringRef Dir,
                                            llvm::StringRef Package) const;
  /// The path of \p Package's block counts inside the corpus at \p Dir, or
  /// none.
  std::optional<std::string> getBlockCountsPath(llvm::StringRef Dir,
                                                llvm::StringRef Package) const;

  /// Everything but the module list and the profiles, as one JSON value: two
  /// corpora can be combined exactly when their settings are equal.
  llvm::json::Value settings() const;
};

/// DIR/<Module><Suffix>, e.g. getModuleFile(Dir, M, ".bc").
std::string getModuleFile(llvm::StringRef Dir, llvm::StringRef Module,
                          llvm::StringRef Suffix);

/// Combines the corpora in \p Inputs into one corpus in \p Output. The
/// modules of input I are renamed "<P_I>/<module>", where P_I is the input's
/// path relative to \p Output when the input lies inside it (nothing is
/// copied then, as ml-compiler-opt's combine_training_corpus does), else the
/// input directory's base name (and its files are copied into
/// Output/<P_I>/). Fails, writing nothing, if the inputs differ in anything
/// but their modules, if two prefixes collide, if a module file is missing,
/// or if an input carries profiles (their packages would be renamed).
llvm::Expected<CorpusDescription>
combineCorpora(llvm::ArrayRef<std::string> Inputs, llvm::StringRef Output);

} // namespace mlgo

#endif // MLGO_CORPUS_CORPUSDESCRIPTION_H
