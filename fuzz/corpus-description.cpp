//===- fuzz/corpus-description.cpp - Fuzz corpus_description.json ---------===//
//
// Feeds the input to CorpusDescription::parse, as `mlgo corpus ...`, `mlgo
// train` and `mlgo eval corpus` read a corpus directory. A description that
// parses must write (toJSON) to JSON that parses to the same description;
// errors must name the file.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/CorpusDescription.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlgo;

static std::string render(const llvm::json::Value &V) {
  std::string S;
  llvm::raw_string_ostream(S) << V;
  return S;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  auto D = CorpusDescription::parse(Input, "corpus_description.json");
  if (!D) {
    std::string Msg = llvm::toString(D.takeError());
    if (!llvm::StringRef(Msg).starts_with("corpus_description.json: "))
      std::abort();
    return 0;
  }
  std::string Text = render(D->toJSON());
  auto Again = CorpusDescription::parse(Text, "written.json");
  if (!Again || render(Again->toJSON()) != Text || Again->Modules != D->Modules)
    std::abort();
  (void)render(D->settings());
  return 0;
}
