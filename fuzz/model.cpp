//===- fuzz/model.cpp - Fuzz the text-model loader and checker ------------===//
//
// Feeds the input to Model::parse (JSON, then the model checks of
// Model::validate), as `mlgo model check` and the plugin's -mlgo-model do.
// A model that parses must write (Model::write) to text that parses to a
// model writing the same bytes - the canonical form `mlgo model check
// --canonical` compares against - and must evaluate (ModelEvaluator) on
// zero inputs, a per-column model on every column; errors must name the
// file.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Model/Model.h"
#include "mlgo/Model/PolicyRunner.h"

#include <cstdlib>
#include <memory>
#include <vector>

using namespace mlgo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<Model> M = Model::parse(Input, "fuzz.json");
  if (!M) {
    std::string Msg = llvm::toString(M.takeError());
    if (!llvm::StringRef(Msg).starts_with("fuzz.json: "))
      std::abort();
    return 0;
  }
  std::string Text = M->toJSONString();
  llvm::Expected<Model> Again = Model::parse(Text, "written.json");
  if (!Again || Again->toJSONString() != Text)
    std::abort();
  std::string Summary;
  llvm::raw_string_ostream OS(Summary);
  M->printSummary(OS);

  // Zero inputs; inputs without pipelines may be large and unread.
  std::vector<std::unique_ptr<uint64_t[]>> Buffers;
  std::vector<const void *> Inputs;
  for (const ModelInput &In : M->Inputs) {
    if (In.Spec.getTotalTensorBufferSize() > (1 << 16))
      return 0;
    Buffers.emplace_back(
        new uint64_t[In.Spec.getTotalTensorBufferSize() / 8 + 1]());
    Inputs.push_back(Buffers.back().get());
  }
  ModelEvaluator E(*M);
  // A per-column model (eviction) is evaluated on every column.
  size_t Columns = M->Decision.isPerColumn() ? M->Decision.Columns : 1;
  for (size_t C = 0; C < Columns; ++C)
    E.evaluate(Inputs.data(), C);
  return 0;
}
