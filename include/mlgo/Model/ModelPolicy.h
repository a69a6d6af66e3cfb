//===- mlgo/Model/ModelPolicy.h - A model as a serve policy -----*- C++ -*-===//
//
// `mlgo serve --policy model=FILE`: answers each observation of a compiler's
// interactive stream with a text model, interpreted. The model binds the
// stream's features by name (the stream may offer more than it uses), so
// the same model file drives stock opt-19/clang-19 over the protocol and
// mlgo's plugin, with the same decisions.
//
// The protocol library's policy registry (mlgo/Protocol/ServePolicy.h)
// does not know this policy: a program that wants "model=FILE" calls
// registerModelPolicy() once, before createPolicy().
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_MODELPOLICY_H
#define MLGO_MODEL_MODELPOLICY_H

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Protocol/ServePolicy.h"

#include <functional>
#include <string>

namespace mlgo {

/// Makes a runner for the features a compiler's stream offers.
using PolicyRunnerFactory =
    std::function<llvm::Expected<std::unique_ptr<PolicyRunner>>(
        std::vector<TensorSpec> Features)>;

/// A policy that answers every observation with a runner \p Make creates
/// when the compiler connects (its header names the features). \p What
/// names the model in errors.
std::unique_ptr<ServePolicy> createRunnerPolicy(PolicyRunnerFactory Make,
                                                std::string What);

/// A policy deciding with \p M, interpreted; \p What names it in errors.
std::unique_ptr<ServePolicy> createModelPolicy(std::shared_ptr<const Model> M,
                                               std::string What);

/// Loads the model in \p Path and returns a policy deciding with it.
llvm::Expected<std::unique_ptr<ServePolicy>>
createModelPolicy(llvm::StringRef Path);

/// Makes createPolicy() accept "model=FILE" (createModelPolicy). Calling it
/// again changes nothing.
void registerModelPolicy();

} // namespace mlgo

#endif // MLGO_MODEL_MODELPOLICY_H
