//===- mlgo/Inline/InlineFeatures.h - Inliner features ----------*- C++ -*-===//
//
// Every feature the plugin can offer a model, defined once.
//
// The first 38 are stock LLVM 19's, taken from its own X-macro tables in
// llvm/Analysis/InlineModelFeatureMaps.h (25 inline-cost features, then 13
// call-graph/function-property features), so their names, order and
// meanings are LLVM's by construction; their values are computed by
// TrackingInlineAdvisor as LLVM's MLInlineAdvisor computes them. A model or
// host trained against stock LLVM's interactive mode therefore sees
// identical inputs.
//
// Upstream's global context is thin. MLGO_EXTRA_INLINE_FEATURES adds ours
// after the upstream ones. A model asks for features by name, so models that
// don't know the extras keep working (versioning): their buffers are
// scratch. Adding a feature = one line below + its computation in
// computeExtraFeatures().
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_INLINEFEATURES_H
#define MLGO_INLINE_INLINEFEATURES_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/Analysis/InlineModelFeatureMaps.h"

#include <cstddef>
#include <vector>

#include "llvm/IR/PassManager.h"

namespace llvm {
class CallBase;
} // namespace llvm

namespace mlgo {

struct InlineFunctionProps;

// M(type, shape, name, description) - same shape as LLVM's tables.
#define MLGO_EXTRA_INLINE_FEATURES(M)                                          \
  M(int64_t, {1}, callee_ir_instructions,                                      \
    "IR instructions in the callee (inlining copies roughly these)")           \
  M(int64_t, {1}, caller_ir_instructions, "IR instructions in the caller")     \
  M(int64_t, {1}, callee_is_local,                                             \
    "1 if the callee has internal or private linkage: once its last call is "  \
    "inlined, its body is deleted")                                            \
  M(int64_t, {1}, callee_is_linkonce,                                          \
    "1 if the callee is linkonce/linkonce_odr (e.g. a C++ inline function): "  \
    "its body is dropped when no longer referenced")                           \
  M(int64_t, {1}, callee_direct_calls,                                         \
    "calls to defined functions inside the callee, which inlining copies "     \
    "into the caller")                                                         \
  M(int64_t, {1}, call_site_loop_depth,                                        \
    "loop nesting depth of the call site in the caller")

/// Indices into the full feature list: LLVM's 38 first, then ours.
enum class InlineFeature : size_t {
#define MLGO_FEATURE_INDEX(DTYPE, SHAPE, NAME, DOC) NAME,
  INLINE_COST_FEATURE_ITERATOR(MLGO_FEATURE_INDEX)
      INLINE_FEATURE_ITERATOR(MLGO_FEATURE_INDEX)
          MLGO_EXTRA_INLINE_FEATURES(MLGO_FEATURE_INDEX)
#undef MLGO_FEATURE_INDEX
              NumberOfFeatures
};

/// Number of features stock LLVM 19 offers.
constexpr size_t NumUpstreamInlineFeatures = llvm::NumberOfFeatures;
/// Number of features the plugin can offer (upstream + extras).
constexpr size_t NumInlineFeatures =
    static_cast<size_t>(InlineFeature::NumberOfFeatures);
static_assert(static_cast<size_t>(InlineFeature::callee_ir_instructions) ==
                  NumUpstreamInlineFeatures,
              "our extra features must follow LLVM's, in LLVM's order");

/// The specs of the features offered: the 38 upstream ones, plus the extras
/// when \p WithExtras.
std::vector<TensorSpec> getInlineFeatureSpecs(bool WithExtras);

/// One-line description of every feature, in index order.
const char *getInlineFeatureDescription(size_t Index);

/// The decision tensor ("inlining_decision", int64_t [1]), as in LLVM.
TensorSpec getInlineDecisionSpec();
/// The heuristic's decision ("inlining_default", int64_t [1]), as in LLVM.
TensorSpec getInlineDefaultSpec();

/// Fills the extra features for call site \p CB into \p Buffers (one int64_t
/// pointer per extra feature, in table order), from its caller's and
/// callee's properties and the loop depth of its block.
void computeExtraFeatures(llvm::CallBase &CB,
                          const InlineFunctionProps &CallerProps,
                          const InlineFunctionProps &CalleeProps,
                          unsigned LoopDepth, int64_t *const *Buffers);

} // namespace mlgo

#endif // MLGO_INLINE_INLINEFEATURES_H
