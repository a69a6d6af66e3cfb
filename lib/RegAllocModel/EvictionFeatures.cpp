//===- EvictionFeatures.cpp - The eviction feature table ------------------===//
//
// The specs generated from MLGO_EVICTION_FEATURES, and the inverted answer;
// see mlgo/RegAllocModel/EvictionFeatures.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/EvictionFeatures.h"

namespace mlgo {

std::vector<TensorSpec> getEvictionFeatureSpecs() {
  return {
#define MLGO_EVICTION_FEATURE_SPEC(TYPE, NAME, SHAPE, DOC)                     \
  TensorSpec::createSpec<TYPE>(#NAME, SHAPE),
      MLGO_EVICTION_FEATURES(MLGO_EVICTION_FEATURE_SPEC)
#undef MLGO_EVICTION_FEATURE_SPEC
  };
}

TensorSpec getEvictionAdviceSpec() {
  return TensorSpec::createSpec<int64_t>("index_to_evict", {1});
}

int64_t invertEviction(const int64_t *Mask, int64_t Choice) {
  const int64_t Nothing = EvictionLiveRangeColumn;
  if (Choice != Nothing && Mask[Nothing])
    return Nothing;
  for (int64_t I = 0; I < Nothing; ++I)
    if (Mask[I] && I != Choice)
      return I;
  return Choice;
}

} // namespace mlgo
