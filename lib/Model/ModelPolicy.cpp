//===- ModelPolicy.cpp - A model as a serve policy ------------------------===//

#include "mlgo/Model/ModelPolicy.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace mlgo {
namespace {

class RunnerPolicy final : public ServePolicy {
public:
  RunnerPolicy(PolicyRunnerFactory Make, std::string What)
      : Make(std::move(Make)), What(std::move(What)) {}

  Error begin(const LogHeader &Header) override {
    if (!Header.Advice)
      return makeError("the compiler's stream declares no advice "
                       "tensor; model '" +
                       What + "' cannot answer it");
    auto R = Make(Header.Features);
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
  PolicyRunnerFactory Make;
  std::string What;
  std::unique_ptr<PolicyRunner> Runner;
};

} // namespace

std::unique_ptr<ServePolicy> createRunnerPolicy(PolicyRunnerFactory Make,
                                                std::string What) {
  return std::make_unique<RunnerPolicy>(std::move(Make), std::move(What));
}

Expected<std::unique_ptr<ServePolicy>> createModelPolicy(StringRef Path) {
  if (Path.empty())
    return makeError("policy 'model' needs a file: model=FILE");
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  return createModelPolicy(std::make_shared<const Model>(std::move(*M)),
                           Path.str());
}

std::unique_ptr<ServePolicy> createModelPolicy(std::shared_ptr<const Model> M,
                                               std::string What) {
  return createRunnerPolicy(
      [M](std::vector<TensorSpec> Features)
          -> Expected<std::unique_ptr<PolicyRunner>> {
        auto R = InterpretedRunner::create(M, std::move(Features));
        if (!R)
          return R.takeError();
        return std::move(*R);
      },
      std::move(What));
}

void registerModelPolicy() {
  registerPolicyKind("model",
                     [](StringRef Path) { return createModelPolicy(Path); });
}

} // namespace mlgo
