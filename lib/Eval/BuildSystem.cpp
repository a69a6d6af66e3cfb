//===- lib/Eval/BuildSystem.cpp - The build systems of a source tree ------===//
//
// See mlgo/Eval/BuildSystem.h. The table of build systems and their entry
// points is scripts/package-recipes.sh's; this file runs it and reads what
// it says.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/BuildSystem.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace mlgo {

StringRef getBuildSystemName(BuildSystem System) {
  switch (System) {
  case BuildSystem::Configure:
    return "configure";
  case BuildSystem::CMake:
    return "cmake";
  case BuildSystem::Make:
    return "make";
  }
  llvm_unreachable("unknown build system");
}

Expected<BuildSystem> parseBuildSystem(StringRef Name) {
  if (Name == "configure" || Name == "autotools")
    return BuildSystem::Configure;
  if (Name == "cmake")
    return BuildSystem::CMake;
  if (Name == "make")
    return BuildSystem::Make;
  return makeError("unknown build system '" + Name +
                   "'; expected configure (or autotools), cmake or make");
}

Expected<std::vector<FoundBuildSystem>> parseBuildSystems(StringRef Text,
                                                          StringRef Name) {
  std::vector<FoundBuildSystem> Out;
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef Line : Lines) {
    SmallVector<StringRef, 3> F;
    Line.split(F, '\t');
    if (F.size() != 3 || (F[1] != "yes" && F[1] != "no") || F[2].trim().empty())
      return makeError(Name +
                       ": expected NAME<tab>yes|no<tab>ENTRY-POINT..., got '" +
                       Line + "'");
    Expected<BuildSystem> S = parseBuildSystem(F[0]);
    if (!S)
      return makeError(Name + ": " + toString(S.takeError()));
    FoundBuildSystem B{*S, {}, F[1] == "yes"};
    SmallVector<StringRef> Files;
    F[2].split(Files, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef File : Files)
      B.EntryPoints.push_back(File.str());
    Out.push_back(std::move(B));
  }
  if (Out.empty())
    return makeError(Name + ": no build system");
  return Out;
}

Expected<std::vector<FoundBuildSystem>>
findBuildSystems(StringRef SourceDir, StringRef RecipesScript) {
  if (!sys::fs::is_directory(SourceDir))
    return makeError(SourceDir + ": no such directory");
  SmallString<128> Out, Err;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-build-systems", "txt", Out))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveOut(Out);
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-build-systems", "err", Err))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveErr(Err);
  RunOptions O;
  O.Stdin = "/dev/null";
  O.Stdout = Out.str().str();
  O.Stderr = Err.str().str();
  O.TimeoutSeconds = 60;
  std::string Name = (RecipesScript + " build-systems " + SourceDir).str();
  ProcessResult R = runProcess(
      {"bash", RecipesScript.str(), "build-systems", SourceDir.str()}, O);
  if (!R.succeeded()) {
    Expected<std::unique_ptr<MemoryBuffer>> Said = readWholeFile(Err);
    return makeError(Name + " " + R.describe() + ":\n" +
                     (Said ? (*Said)->getBuffer().rtrim().str()
                           : toString(Said.takeError())));
  }
  Expected<std::unique_ptr<MemoryBuffer>> Text = readWholeFile(Out);
  if (!Text)
    return Text.takeError();
  return parseBuildSystems((*Text)->getBuffer(), Name);
}

Expected<BuildSystem> detectBuildSystem(StringRef SourceDir,
                                        ArrayRef<FoundBuildSystem> Systems) {
  std::vector<std::string> All;
  for (const FoundBuildSystem &S : Systems) {
    if (S.Found)
      return S.System;
    llvm::append_range(All, S.EntryPoints);
  }
  std::string Files = All.empty() ? "" : All.back();
  if (All.size() > 1)
    Files = join(ArrayRef(All).drop_back(), ", ") + " or " + All.back();
  return makeError(SourceDir + ": no build system found (no " + Files +
                   "); pass --build-system");
}

} // namespace mlgo
