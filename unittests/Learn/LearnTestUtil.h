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

/// A fresh directory; returns <dir>/<Name>.
inline std::string tempPath(llvm::StringRef Name) {
  llvm::SmallString<128> P;
  llvm::sys::fs::createUniquePath("mlgo-learn-%%%%%%%%", P,
                                  /*MakeAbsolute=*/true);
  llvm::sys::fs::create_directories(P);
  llvm::sys::path::append(P, Name);
  return std::string(P);
}

} // namespace test
} // namespace learn
} // namespace mlgo

#endif // MLGO_UNITTESTS_LEARN_LEARNTESTUTIL_H
