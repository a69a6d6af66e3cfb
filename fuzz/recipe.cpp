//===- fuzz/recipe.cpp - Fuzz the training recipe reader ------------------===//
//
// Feeds the input to parseJSON (mlgo/Support/Files.h) and the result to
// TrainRecipe::fromJSON, as `mlgo train --recipe` does. A recipe that is
// read must write (toJSON) to JSON that reads back to a recipe writing the
// same JSON; errors must name the file.
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/Recipe.h"
#include "mlgo/Support/Files.h"

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
  llvm::Expected<llvm::json::Value> V = parseJSON(Input);
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  llvm::Expected<TrainRecipe> R = TrainRecipe::fromJSON(*V, "recipe.json");
  if (!R) {
    std::string Msg = llvm::toString(R.takeError());
    if (!llvm::StringRef(Msg).starts_with("recipe.json: "))
      std::abort();
    return 0;
  }
  std::string Text = render(R->toJSON());
  llvm::Expected<TrainRecipe> Again =
      TrainRecipe::fromJSON(R->toJSON(), "written.json");
  if (!Again || render(Again->toJSON()) != Text)
    std::abort();
  return 0;
}
