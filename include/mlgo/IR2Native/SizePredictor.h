//===- mlgo/IR2Native/SizePredictor.h - Native size from IR -----*- C++ -*-===//
//
// IR2Native inside the compiler (docs/ir2native.md):
//
//  * SizePredictor evaluates a native-size model - the one embedded in the
//    plugin (models/ir2native, compiled at build time) or a model.json
//    interpreted at run time - through the same PolicyRunners as the
//    inliner's models, so both give the same bits. The prediction is the
//    model's logit, in bytes;
//  * PrintSizePredictionsPass (`-passes=print<ir2native>`) prints each
//    function's features' prediction, for tests and for looking.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_IR2NATIVE_SIZEPREDICTOR_H
#define MLGO_IR2NATIVE_SIZEPREDICTOR_H

#include "mlgo/IR2Native/FunctionFeatures.h"
#include "mlgo/Model/Model.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>

namespace mlgo {

class PolicyRunner;

/// Predicts a function's native .text bytes.
class SizePredictor {
public:
  /// The model in \p ModelPath, interpreted; the embedded model (release
  /// mode) if it is empty. A model that is not a native-size model (another
  /// output, or an input that is not a size feature) is an error naming
  /// the file.
  static llvm::Expected<std::unique_ptr<SizePredictor>>
  create(llvm::StringRef ModelPath);
  /// An interpreted model held in memory.
  static llvm::Expected<std::unique_ptr<SizePredictor>>
  create(std::shared_ptr<const Model> M);
  ~SizePredictor();

  float predict(const SizeFeatureVector &Features);
  float predict(llvm::Function &F, llvm::FunctionAnalysisManager &FAM) {
    return predict(computeSizeFeatures(F, FAM));
  }
  /// "embedded ir2native" or "interpreted <file>".
  llvm::StringRef describe() const { return Description; }

private:
  SizePredictor(std::unique_ptr<PolicyRunner> Runner, std::string Description);
  std::unique_ptr<PolicyRunner> Runner;
  std::string Description;
};

/// print<ir2native>: for every defined function, one line
///   <function> <predicted bytes, %.1f> <predicted as a hex float>
/// with the model -mlgo-size-model names (the embedded one by default).
class PrintSizePredictionsPass
    : public llvm::PassInfoMixin<PrintSizePredictionsPass> {
public:
  PrintSizePredictionsPass(llvm::raw_ostream &OS, std::string ModelPath)
      : OS(OS), ModelPath(std::move(ModelPath)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }

private:
  llvm::raw_ostream &OS;
  std::string ModelPath;
};

} // namespace mlgo

#endif // MLGO_IR2NATIVE_SIZEPREDICTOR_H
