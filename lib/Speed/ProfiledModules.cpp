//===- lib/Speed/ProfiledModules.cpp - A profile's modules of a corpus ----===//
//
// See mlgo/Speed/ProfiledModules.h: which modules of a corpus the speed
// search takes, for the program its profile was taken of.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/ProfiledModules.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/ProfileData/InstrProf.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace llvm;

namespace mlgo::speed {

Expected<std::vector<std::string>> getDefinedProfileNames(StringRef Bitcode) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Bitcode);
  if (!Buf)
    return Buf.takeError();
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> Mod =
      getOwningLazyBitcodeModule(std::move(*Buf), Ctx);
  if (!Mod)
    return makeError(Bitcode + ": " + toString(Mod.takeError()));
  std::vector<std::string> Names;
  for (const Function &F : **Mod)
    if (!F.isDeclaration())
      Names.push_back(getIRPGOFuncName(F));
  llvm::sort(Names);
  Names.erase(llvm::unique(Names), Names.end());
  return Names;
}

std::vector<bool>
selectProfiledModules(ArrayRef<std::vector<std::string>> Defined,
                      ArrayRef<std::string> Recorded) {
  auto Known = [&](const std::string &Name) {
    return std::binary_search(Recorded.begin(), Recorded.end(), Name);
  };
  std::vector<bool> Kept(Defined.size(), false);
  std::vector<size_t> MainOnly, MainOnlyWhole;
  bool KeptMain = false;
  for (size_t I = 0; I < Defined.size(); ++I) {
    bool Other = false, Main = false, All = true;
    for (const std::string &Name : Defined[I]) {
      bool K = Known(Name);
      All &= K;
      (Name == "main" ? Main : Other) |= K;
    }
    if (Other) {
      Kept[I] = true;
      KeptMain |= Main;
    } else if (Main) {
      MainOnly.push_back(I);
      if (All)
        MainOnlyWhole.push_back(I);
    }
  }
  if (KeptMain)
    return Kept;
  if (MainOnly.size() > 1 && MainOnlyWhole.size() == 1)
    MainOnly = MainOnlyWhole;
  for (size_t I : MainOnly)
    Kept[I] = true;
  return Kept;
}

Expected<std::vector<bool>> findProfiledModules(ArrayRef<std::string> Bitcode,
                                                ArrayRef<std::string> Recorded,
                                                StringRef Profile,
                                                StringRef CorpusDir) {
  std::vector<std::vector<std::string>> Defined;
  for (const std::string &B : Bitcode) {
    Expected<std::vector<std::string>> Names = getDefinedProfileNames(B);
    if (!Names)
      return Names.takeError();
    Defined.push_back(std::move(*Names));
  }
  std::vector<bool> Kept = selectProfiledModules(Defined, Recorded);
  if (llvm::none_of(Kept, [](bool K) { return K; }))
    return makeError(Profile + ": no module of the corpus " + CorpusDir +
                     " defines a function of this profile (a profile of "
                     "another program?)");
  return Kept;
}

} // namespace mlgo::speed
