//===- unittests/Compile/TestModule.h - A real module to compile -*- C++
//-*-===//
//
// Train tests compile a real module: test/Train/Inputs/beta/stats.c as
// unoptimized bitcode, with the cc1 arguments of an x86-64 -Oz compile.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_UNITTESTS_TRAIN_TESTMODULE_H
#define MLGO_UNITTESTS_TRAIN_TESTMODULE_H

#include "mlgo/Compile/CompileWorker.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Program.h"

#include <string>

namespace mlgo {
namespace test {

/// Writes stats.c's bitcode to \p Path; returns clang's exit status.
inline int buildStatsBitcode(const std::string &Path) {
  std::string Src = MLGO_SOURCE_DIR "/test/Train/Inputs/beta/stats.c";
  std::string Clang = MLGO_LLVM_TOOLS_DIR "/clang";
  llvm::StringRef Args[] = {Clang, "-c",      "-emit-llvm",
                            "-Oz", "-Xclang", "-disable-llvm-passes",
                            Src,   "-o",      Path};
  return llvm::sys::ExecuteAndWait(Clang, Args);
}

/// A job compiling \p Bitcode (named \p Name) under \p P at -Oz.
inline CompileJob makeJob(llvm::StringRef Name, llvm::StringRef Bitcode,
                          CompilePolicy P, bool WantLog = false) {
  CompileJob J;
  J.Module = Name.str();
  J.BitcodePath = Bitcode.str();
  J.CC1Args = {"-triple", "x86_64-pc-linux-gnu", "-Oz"};
  J.ThePolicy = std::move(P);
  J.WantLog = WantLog;
  return J;
}

} // namespace test
} // namespace mlgo

#endif // MLGO_UNITTESTS_TRAIN_TESTMODULE_H
