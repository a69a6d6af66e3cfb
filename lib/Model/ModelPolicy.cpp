//===- ModelPolicy.cpp - A model as a serve policy ------------------------===//

#include "mlgo/Model/ModelPolicy.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace mlgo {
namespace {

class ModelPolicy final : public ServePolicy {
public:
  ModelPolicy(std::shared_ptr<const Model> M, std::string Path)
      : TheModel(std::move(M)), Path(std::move(Path)) {}

  Error begin(const LogHeader &Header) override {
    if (!Header.Advice)
      return makeError("the compiler's stream declares no advice "
                       "tensor; model '" +
                       Path + "' cannot answer it");
    auto R = InterpretedRunner::create(TheModel, Header.Features);
    if (!R)
      return R.takeError();
    Runner = std::move(*R);
    return Error::success();
  }

  Error decide(const LogHeader &Header, const LogRecord &Obs,
               const LogReader &Reader, char *AdviceOut) override {
    for (size_t I = 0; I < Header.Features.size(); ++I)
      std::memcpy(Runner->getTensorUntyped(I), Reader.getFeatureData(I),
                  Header.Features[I].getTotalTensorBufferSize());
    fillTensor(*Header.Advice, Runner->evaluate<int64_t>(), AdviceOut);
    return Error::success();
  }

private:
  std::shared_ptr<const Model> TheModel;
  std::string Path;
  std::unique_ptr<InterpretedRunner> Runner;
};

} // namespace

Expected<std::unique_ptr<ServePolicy>> createModelPolicy(StringRef Path) {
  if (Path.empty())
    return makeError("policy 'model' needs a file: model=FILE");
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  return std::make_unique<ModelPolicy>(
      std::make_shared<const Model>(std::move(*M)), Path.str());
}

void registerModelPolicy() { registerPolicyKind("model", createModelPolicy); }

} // namespace mlgo
