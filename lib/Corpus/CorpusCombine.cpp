//===- lib/Corpus/CorpusCombine.cpp - Several corpora as one --------------===//

#include "mlgo/Corpus/CorpusCombine.h"

#include "mlgo/Corpus/Extract.h"

#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlgo {

Expected<CombinedCorpus> combineCorpus(ArrayRef<std::string> Inputs,
                                       StringRef Output) {
  Expected<CorpusDescription> D = combineCorpora(Inputs, Output);
  if (!D)
    return D.takeError();
  // The prefix of each input is read back from the combined module names,
  // which keep input order.
  std::vector<std::string> Prefixes;
  size_t Offset = 0;
  for (const std::string &In : Inputs) {
    Expected<CorpusDescription> InD = CorpusDescription::read(In);
    if (!InD)
      return InD.takeError();
    std::string Prefix = sys::path::filename(In).str();
    if (!InD->Modules.empty()) {
      StringRef Combined = D->Modules[Offset];
      Prefix = Combined.drop_back(InD->Modules[0].size() + 1).str();
    }
    Prefixes.push_back(Prefix);
    Offset += InD->Modules.size();
  }
  Expected<bool> Merged = combineExtractionReports(Inputs, Prefixes, Output);
  if (!Merged)
    return Merged.takeError();
  return CombinedCorpus{std::move(*D), *Merged};
}

} // namespace mlgo
