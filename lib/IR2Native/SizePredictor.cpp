//===- SizePredictor.cpp - Native size from IR ----------------------------===//
//
// The feature collector, the predictor over embedded or interpreted
// models, and print<ir2native>; see mlgo/IR2Native/SizePredictor.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/IR2Native/SizePredictor.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/SizeModel/SizeData.h"
#include "mlgo/Support/Error.h"
#include "mlgo/embedded/ir2native.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace mlgo {

SizePredictor::SizePredictor(std::unique_ptr<PolicyRunner> Runner,
                             std::string Description)
    : Runner(std::move(Runner)), Description(std::move(Description)) {}

SizePredictor::~SizePredictor() = default;

Expected<std::unique_ptr<SizePredictor>>
SizePredictor::create(std::shared_ptr<const Model> M) {
  if (Error E = checkSizeModel(*M, M->Metadata.Name))
    return E;
  Expected<std::unique_ptr<InterpretedRunner>> R =
      InterpretedRunner::create(M, getSizeFeatureSpecs());
  if (!R)
    return R.takeError();
  return std::unique_ptr<SizePredictor>(new SizePredictor(
      std::move(*R), "interpreted model '" + M->Metadata.Name + "'"));
}

Expected<std::unique_ptr<SizePredictor>>
SizePredictor::create(StringRef ModelPath) {
  if (!ModelPath.empty()) {
    Expected<Model> M = Model::load(ModelPath);
    if (!M)
      return M.takeError();
    if (Error E = checkSizeModel(*M, ModelPath))
      return E;
    Expected<std::unique_ptr<SizePredictor>> P =
        create(std::make_shared<const Model>(std::move(*M)));
    if (!P)
      return makeError(ModelPath + ": " + toString(P.takeError()));
    (*P)->Description = ("interpreted " + ModelPath).str();
    return P;
  }
  Expected<std::unique_ptr<EmbeddedRunner>> R =
      EmbeddedRunner::create<embedded::ir2native::Model>(getSizeFeatureSpecs());
  if (!R)
    return R.takeError();
  return std::unique_ptr<SizePredictor>(
      new SizePredictor(std::move(*R), "embedded ir2native"));
}

float SizePredictor::predict(const SizeFeatureVector &Features) {
  for (size_t K = 0; K < NumSizeFeatures; ++K)
    *Runner->getTensor<int64_t>(K) = Features[K];
  Runner->evaluateUntyped();
  return Runner->getLastLogit();
}

PreservedAnalyses PrintSizePredictionsPass::run(Module &M,
                                                ModuleAnalysisManager &MAM) {
  Expected<std::unique_ptr<SizePredictor>> P = SizePredictor::create(ModelPath);
  if (!P) {
    M.getContext().emitError("mlgo: " + toString(P.takeError()));
    return PreservedAnalyses::all();
  }
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  OS << "native sizes predicted by " << (*P)->describe() << "\n";
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    float Size = (*P)->predict(F, FAM);
    OS << F.getName() << ' ' << format("%.1f", Size) << ' '
       << format("%a", static_cast<double>(Size)) << '\n';
  }
  return PreservedAnalyses::all();
}

} // namespace mlgo
