//===- ModelRunner.cpp - The model runner contract ------------------------===//
//
// Buffer management shared by every runner, the model-selector encoding and
// the NoInference runner.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Runner/ModelRunner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace llvm;

namespace mlgo {

ErrorHandler getDefaultErrorHandler() {
  return [](Error E) {
    WithColor::error(errs(), "mlgo") << toString(std::move(E)) << "\n";
    std::exit(1);
  };
}

ModelRunner::ModelRunner(Kind K, std::vector<TensorSpec> Inputs,
                         ErrorHandler OnError)
    : InputSpecs(std::move(Inputs)), TheKind(K), OnError(std::move(OnError)),
      InputBuffers(InputSpecs.size(), nullptr) {}

ModelRunner::~ModelRunner() = default;

void ModelRunner::setUpBufferForTensor(size_t Index, const TensorSpec &Spec,
                                       void *Buffer) {
  assert(Index < InputBuffers.size() && "input index out of range");
  if (!Buffer) {
    size_t Words = (Spec.getTotalTensorBufferSize() + 7) / 8;
    OwnedBuffers.push_back(std::make_unique<uint64_t[]>(Words ? Words : 1));
    Buffer = OwnedBuffers.back().get();
  }
  InputBuffers[Index] = Buffer;
}

TensorSpec getModelSelectorSpec() {
  return TensorSpec::createSpec<uint64_t>("_model_selector", {2});
}

void writeModelSelector(StringRef Selector, uint64_t Buffer[2]) {
  MD5::MD5Result Hash = MD5::hash(arrayRefFromStringRef(Selector));
  Buffer[0] = Hash.high();
  Buffer[1] = Hash.low();
}

NoInferenceRunner::NoInferenceRunner(std::vector<TensorSpec> Inputs)
    : ModelRunner(Kind::NoInference, std::move(Inputs)) {
  for (size_t I = 0; I < InputSpecs.size(); ++I)
    setUpBufferForTensor(I, InputSpecs[I], nullptr);
}

void *NoInferenceRunner::evaluateUntyped() {
  // A programming error, but one that must not become undefined behaviour in
  // release builds (where llvm_unreachable would): stop loudly.
  report_fatal_error("mlgo: a NoInference runner only holds features; the "
                     "decision comes from elsewhere and it must never be "
                     "evaluated",
                     /*gen_crash_diag=*/false);
}

} // namespace mlgo
