//===- unittests/Learn/LearnTestUtil.h - Test helpers ----------*- C++ -*-===//

#ifndef MLGO_UNITTESTS_LEARN_LEARNTESTUTIL_H
#define MLGO_UNITTESTS_LEARN_LEARNTESTUTIL_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace mlgo {
namespace learn {
namespace test {

/// The message of a failure, or "<success>".
inline std::string errorMessage(llvm::Error E) {
  if (!E)
    return "<success>";
  return llvm::toString(std::move(E));
}
template <typename T> std::string errorMessage(llvm::Expected<T> E) {
  if (E)
    return "<success>";
  return llvm::toString(E.takeError());
}

/// The value, or abort the test binary with the error (tests are built
/// without exceptions).
template <typename T> T unwrap(llvm::Expected<T> E) {
  if (!E) {
    std::fprintf(stderr, "unexpected error: %s\n",
                 llvm::toString(E.takeError()).c_str());
    std::abort();
  }
  return std::move(*E);
}

/// Removes the directories tempPath() made when the test binary exits.
struct TempDirs {
  std::vector<std::string> Dirs;
  ~TempDirs() {
    for (const std::string &D : Dirs)
      llvm::sys::fs::remove_directories(D);
  }
};
inline TempDirs &getTempDirs() {
  static TempDirs T;
  return T;
}

/// A fresh directory under the system's temporary directory; returns
/// <dir>/<Name>.
inline std::string tempPath(llvm::StringRef Name) {
  llvm::SmallString<128> P;
  if (llvm::sys::fs::createUniqueDirectory("mlgo-learn", P)) {
    std::fprintf(stderr, "cannot create a temporary directory\n");
    std::abort();
  }
  getTempDirs().Dirs.push_back(std::string(P));
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

} // namespace test
} // namespace learn
} // namespace mlgo

#endif // MLGO_UNITTESTS_LEARN_LEARNTESTUTIL_H
