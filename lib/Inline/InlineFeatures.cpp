//===- InlineFeatures.cpp - The inliner's feature table -------------------===//
//
// Specs built from the one table in InlineFeatures.h, and the computation of
// the features we add beyond upstream.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/InlineFeatures.h"

#include "mlgo/Model/InlineFeatureNames.h"

#include "mlgo/Inline/TrackingInlineAdvisor.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace mlgo {

std::vector<TensorSpec> getInlineFeatureSpecs(bool WithExtras) {
  std::vector<TensorSpec> Specs;
#define MLGO_FEATURE_SPEC(DTYPE, SHAPE, NAME, DOC)                             \
  Specs.push_back(TensorSpec::createSpec<DTYPE>(#NAME, SHAPE));
  INLINE_COST_FEATURE_ITERATOR(MLGO_FEATURE_SPEC)
  INLINE_FEATURE_ITERATOR(MLGO_FEATURE_SPEC)
  if (WithExtras) {
    MLGO_EXTRA_INLINE_FEATURES(MLGO_FEATURE_SPEC)
  }
#undef MLGO_FEATURE_SPEC
  return Specs;
}

const char *getInlineFeatureDescription(size_t Index) {
  static const char *const Descriptions[] = {
#define MLGO_FEATURE_DOC(DTYPE, SHAPE, NAME, DOC) DOC,
      INLINE_COST_FEATURE_ITERATOR(MLGO_FEATURE_DOC)
          INLINE_FEATURE_ITERATOR(MLGO_FEATURE_DOC)
              MLGO_EXTRA_INLINE_FEATURES(MLGO_FEATURE_DOC)
#undef MLGO_FEATURE_DOC
  };
  static_assert(std::size(Descriptions) == NumInlineFeatures);
  return Index < NumInlineFeatures ? Descriptions[Index] : "";
}

TensorSpec getInlineDecisionSpec() {
  return TensorSpec::createSpec<int64_t>(InlineDecisionFeatureName.str(), {1});
}

TensorSpec getInlineDefaultSpec() {
  return TensorSpec::createSpec<int64_t>(InlineDefaultFeatureName.str(), {1});
}

void computeExtraFeatures(CallBase &CB, const InlineFunctionProps &CallerProps,
                          const InlineFunctionProps &CalleeProps,
                          unsigned LoopDepth, int64_t *const *Buffers) {
  const Function &Callee = *CB.getCalledFunction();
  auto Set = [&](InlineFeature F, int64_t V) {
    *Buffers[static_cast<size_t>(F) - NumUpstreamInlineFeatures] = V;
  };
  Set(InlineFeature::callee_ir_instructions, CalleeProps.TotalInstructionCount);
  Set(InlineFeature::caller_ir_instructions, CallerProps.TotalInstructionCount);
  Set(InlineFeature::callee_is_local, Callee.hasLocalLinkage());
  Set(InlineFeature::callee_is_linkonce, Callee.hasLinkOnceLinkage());
  Set(InlineFeature::callee_direct_calls,
      CalleeProps.DirectCallsToDefinedFunctions);
  Set(InlineFeature::call_site_loop_depth, LoopDepth);
}

} // namespace mlgo
