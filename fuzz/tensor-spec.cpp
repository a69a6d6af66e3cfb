//===- fuzz/tensor-spec.cpp - Fuzz TensorSpec's JSON reader ---------------===//
//
// Feeds the input to parseJSON (mlgo/Support/Files.h) and the result to
// TensorSpec::fromJSON. A spec that parses must write back
// (toJSONString) to JSON that parses to an equal spec.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/Files.h"
#include "mlgo/Tensor/TensorSpec.h"

#include <cstdlib>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<llvm::json::Value> V = parseJSON(Input);
  if (!V) {
    llvm::consumeError(V.takeError());
    return 0;
  }
  llvm::Expected<TensorSpec> Spec = TensorSpec::fromJSON(*V);
  if (!Spec) {
    llvm::consumeError(Spec.takeError());
    return 0;
  }
  llvm::Expected<llvm::json::Value> Back =
      llvm::json::parse(Spec->toJSONString());
  if (!Back)
    std::abort();
  llvm::Expected<TensorSpec> Again = TensorSpec::fromJSON(*Back);
  if (!Again || *Again != *Spec)
    std::abort();
  return 0;
}
