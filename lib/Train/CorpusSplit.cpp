//===- lib/Train/CorpusSplit.cpp - Training and validation modules --------===//
//
// The corpus split by a recipe's packages (see mlgo/Train/CorpusSplit.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/CorpusSplit.h"

#include "mlgo/Corpus/Package.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace mlgo {

Expected<CorpusSplit> splitCorpus(std::vector<CorpusModule> All,
                                  const TrainRecipe &Recipe,
                                  StringRef CorpusDir) {
  if (All.empty())
    return makeError("the corpus at '" + CorpusDir +
                     "' has no modules: its corpus_description.json lists "
                     "none");
  CorpusSplit S;
  S.Fingerprint = getCorpusFingerprint(All);
  StringSet<> Val(Recipe.ValidationPackages), Excl(Recipe.ExcludedPackages),
      Seen;
  for (CorpusModule &Mod : All) {
    if (Seen.insert(Mod.Package).second)
      S.Packages.push_back(describePackage(Mod.Package));
    if (Excl.contains(Mod.Package))
      continue;
    (Val.contains(Mod.Package) ? S.Validation : S.Train)
        .push_back(S.Modules.size());
    S.Modules.push_back(std::move(Mod));
  }
  llvm::sort(S.Packages);
  for (const std::string &P : Recipe.ValidationPackages)
    if (!Seen.contains(P))
      return makeError("validation package '" + P +
                       "' is not in the corpus at '" + CorpusDir + "'");
  if (S.Train.empty())
    return makeError("no training modules: every package of '" + CorpusDir +
                     "' is held out or excluded");
  return S;
}

} // namespace mlgo
