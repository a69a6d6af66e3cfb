//===- mlgo/Runner/ModelRunner.h - The model runner contract ----*- C++ -*-===//
//
// A ModelRunner is the compiler's view of a decision maker: a function from a
// fixed list of named input tensors to one output tensor. It follows the
// contract of LLVM's MLModelRunner (see docs/design.md and LLVM's MLGO docs):
//
//  * The input TensorSpecs are given at construction. Input I lives in one
//    contiguous buffer of getTotalTensorBufferSize() bytes that stays at the
//    same address for the runner's lifetime, so users may fill constant
//    features once and cache buffer addresses.
//  * Users fill the inputs through getTensor<T>(I) and call evaluate<T>().
//    evaluate() never modifies or clears the inputs, so a logger can read
//    them back after the decision.
//  * Versioning: an implementation whose model does not know input I still
//    calls setUpBufferForTensor(I, Spec, nullptr); the base class then owns a
//    scratch buffer the user can write into harmlessly. A compiler can thus
//    offer more features than an older model consumes.
//  * Model selection: a model that bundles several policies exposes a
//    "_model_selector" uint64_t[2] input, which receives the MD5 of the
//    selector name as {high, low}, exactly as LLVM's ReleaseModeModelRunner
//    does.
//
// Unlike llvm::MLModelRunner this class needs no LLVMContext: failures that
// cannot be returned through evaluate() (a peer that dies, say) go to an
// ErrorHandler, which the LLVM-bound code routes to LLVMContext::emitError.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_RUNNER_MODELRUNNER_H
#define MLGO_RUNNER_MODELRUNNER_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <vector>

namespace mlgo {

/// Receives errors a runner cannot return from evaluate(). It may return
/// (the runner then produces an all-zero output) or not return at all.
using ErrorHandler = std::function<void(llvm::Error)>;

/// The default handler: print the error and exit with status 1.
ErrorHandler getDefaultErrorHandler();

class ModelRunner {
public:
  enum class Kind { NoInference, Interactive, Interpreted, Embedded, Custom };

  ModelRunner(const ModelRunner &) = delete;
  ModelRunner &operator=(const ModelRunner &) = delete;
  virtual ~ModelRunner();

  /// Evaluates the model on the current inputs and returns the first element
  /// of the output. The inputs are left untouched.
  template <typename T> T evaluate() {
    return *reinterpret_cast<T *>(evaluateUntyped());
  }

  template <typename T, typename I> T *getTensor(I FeatureID) {
    return reinterpret_cast<T *>(
        getTensorUntyped(static_cast<size_t>(FeatureID)));
  }
  template <typename T, typename I> const T *getTensor(I FeatureID) const {
    return reinterpret_cast<const T *>(
        getTensorUntyped(static_cast<size_t>(FeatureID)));
  }
  void *getTensorUntyped(size_t Index) { return InputBuffers[Index]; }
  const void *getTensorUntyped(size_t Index) const {
    return InputBuffers[Index];
  }

  size_t getNumInputs() const { return InputSpecs.size(); }
  const std::vector<TensorSpec> &getInputSpecs() const { return InputSpecs; }
  Kind getKind() const { return TheKind; }

  /// Starts a new independent trace (e.g. a new function for regalloc).
  virtual void switchContext(llvm::StringRef Name) {}

  /// Evaluates and returns the raw output buffer, laid out as described by
  /// the runner's output spec. Callers normally use evaluate<T>().
  virtual void *evaluateUntyped() = 0;

protected:
  ModelRunner(Kind K, std::vector<TensorSpec> Inputs,
              ErrorHandler OnError = getDefaultErrorHandler());

  /// Binds input \p Index to \p Buffer, which must hold
  /// Spec.getTotalTensorBufferSize() bytes and outlive the runner. A null
  /// \p Buffer means "the model does not use this input": the runner then
  /// owns a zeroed scratch buffer of the right size.
  void setUpBufferForTensor(size_t Index, const TensorSpec &Spec, void *Buffer);

  void reportError(llvm::Error E) { OnError(std::move(E)); }

  const std::vector<TensorSpec> InputSpecs;

private:
  const Kind TheKind;
  ErrorHandler OnError;
  std::vector<void *> InputBuffers;
  // 8-byte aligned scratch storage for inputs the model does not consume.
  std::vector<std::unique_ptr<uint64_t[]>> OwnedBuffers;
};

/// The spec of the model selector input, as LLVM names it.
TensorSpec getModelSelectorSpec();

/// Writes the MD5 of \p Selector into \p Buffer as {high, low}, the value
/// LLVM's ReleaseModeModelRunner feeds to a "_model_selector" input.
void writeModelSelector(llvm::StringRef Selector, uint64_t Buffer[2]);

/// Holds feature values for a decision made elsewhere (by LLVM's own
/// heuristic, typically, while logging). It must never be evaluated.
class NoInferenceRunner final : public ModelRunner {
public:
  explicit NoInferenceRunner(std::vector<TensorSpec> Inputs);
  void *evaluateUntyped() override;
};

} // namespace mlgo

#endif // MLGO_RUNNER_MODELRUNNER_H
