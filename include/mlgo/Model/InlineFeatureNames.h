//===- mlgo/Model/InlineFeatureNames.h - Inliner tensor names ---*- C++ -*-===//
//
// The names of the inliner's tensors that code outside the advisor reads or
// writes by name: the heuristic's decision, which models may take as an
// input, and the decision itself, every model's output and the advice of
// the interactive protocol. They are stock LLVM 19's
// (DefaultDecisionName, DecisionName in
// llvm/Analysis/InlineModelFeatureMaps.h), spelled here once so that code
// which must not include LLVM's analyses - models, training numerics,
// decision logs - uses the same strings as the advisor
// (mlgo/Inline/InlineFeatures.h, which builds its specs from these).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_MODEL_INLINEFEATURENAMES_H
#define MLGO_MODEL_INLINEFEATURENAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlgo {

/// LLVM's heuristic decision for the call site, int64_t [1]: 1 if the
/// stock inliner would inline it. An input for models that refine the
/// heuristic; a logged feature in training logs.
inline constexpr llvm::StringLiteral InlineDefaultFeatureName =
    "inlining_default";

/// The inlining decision, int64_t [1]: 1 inlines. A model's output, the
/// advice tensor of the interactive protocol, and the decision column of
/// training logs.
inline constexpr llvm::StringLiteral InlineDecisionFeatureName =
    "inlining_decision";

} // namespace mlgo

#endif // MLGO_MODEL_INLINEFEATURENAMES_H
