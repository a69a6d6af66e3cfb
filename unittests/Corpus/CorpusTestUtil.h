//===- CorpusTestUtil.h - Helpers for the corpus tests ----------*- C++ -*-===//
//
// Temporary directories, files and small corpora for the corpus tests, and
// the two matchers of LLVM's TestingSupport library that Debian's
// llvm-19-dev lacks.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_UNITTESTS_CORPUS_CORPUSTESTUTIL_H
#define MLGO_UNITTESTS_CORPUS_CORPUSTESTUTIL_H

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Extract.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <map>
#include <string>

#define ASSERT_SUCCEEDED(E)                                                    \
  do {                                                                         \
    if (llvm::Error Err = (E))                                                 \
      FAIL() << llvm::toString(std::move(Err));                                \
  } while (false)

namespace mlgo::test {

/// The message of a failed Expected, or "<success>".
template <typename T> std::string errorMessage(llvm::Expected<T> &&V) {
  if (V)
    return "<success>";
  return llvm::toString(V.takeError());
}

/// A fresh temporary directory (LLVM's), removed at the end of the test.
struct TempDir : llvm::unittest::TempDir {
  TempDir() : llvm::unittest::TempDir("mlgo-corpus", /*Unique=*/true) {}
  std::string sub(llvm::StringRef Name) const {
    return (path() + "/" + Name).str();
  }
};

inline void writeFile(llvm::StringRef Path, llvm::StringRef Contents) {
  ASSERT_FALSE(
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)));
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << EC.message();
  OS << Contents;
}

/// A corpus with the modules of \p D (a two-byte .bc that is not bitcode,
/// a one-argument .cmd).
inline void makeCorpus(llvm::StringRef Dir, const CorpusDescription &D) {
  for (const std::string &M : D.Modules) {
    writeFile(getModuleFile(Dir, M, ".bc"), "BC");
    writeFile(getModuleFile(Dir, M, ".cmd"), std::string("-Oz\0", 4));
  }
  ASSERT_SUCCEEDED(D.write(Dir));
}

/// Compiles each C source of \p Sources (file name -> text) with clang-19
/// -Oz and embedded bitcode under Dir/src, and extracts the objects into the
/// corpus Dir/corpus: a corpus real enough to count and to replay.
inline ExtractResult
makeClangCorpus(const TempDir &Dir,
                const std::map<std::string, std::string> &Sources) {
  std::string Clang = MLGO_LLVM_TOOLS_DIR "/clang";
  for (const auto &[Name, Text] : Sources) {
    std::string Src = Dir.sub("src/" + Name);
    writeFile(Src, Text);
    std::string Obj = Dir.sub("objs/" + Name + ".o");
    EXPECT_FALSE(llvm::sys::fs::create_directories(Dir.sub("objs")));
    llvm::Error E = runCommand(std::vector<std::string>{
        Clang, "-c", "-Oz", "-Xclang", "-fembed-bitcode=all", Src, "-o", Obj});
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
  }
  llvm::Expected<std::vector<ObjectInput>> Objects =
      findObjects(Dir.sub("objs"));
  if (!Objects) {
    ADD_FAILURE() << llvm::toString(Objects.takeError());
    return {};
  }
  ExtractOptions Options;
  Options.OutputDir = Dir.sub("corpus");
  llvm::Expected<ExtractResult> R = extractCorpus(*Objects, Options);
  if (!R) {
    ADD_FAILURE() << llvm::toString(R.takeError());
    return {};
  }
  return std::move(*R);
}

} // namespace mlgo::test

#endif // MLGO_UNITTESTS_CORPUS_CORPUSTESTUTIL_H
