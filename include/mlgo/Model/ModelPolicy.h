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

#include "mlgo/Protocol/ServePolicy.h"

namespace mlgo {

/// Loads the model in \p Path and returns a policy deciding with it.
llvm::Expected<std::unique_ptr<ServePolicy>>
createModelPolicy(llvm::StringRef Path);

/// Makes createPolicy() accept "model=FILE" (createModelPolicy). Calling it
/// again changes nothing.
void registerModelPolicy();

} // namespace mlgo

#endif // MLGO_MODEL_MODELPOLICY_H
