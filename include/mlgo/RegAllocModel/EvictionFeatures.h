//===- mlgo/RegAllocModel/EvictionFeatures.h - Table ------------*- C++ -*-===//
//
// Every feature LLVM 19's ML eviction advisor sends, defined once, in
// LLVM's order: the table is LLVM's RA_EVICT_FEATURES_LIST(M) from
// llvm/lib/CodeGen/MLRegallocEvictAdvisor.cpp (which no installed header
// exports), with the same M(type, name, shape, description) form, so that
// the enum, the names and the tensor specs below are generated from it as
// LLVM generates its own. The plugin (RegAlloc/EvictionPlugin.h) binds
// models against these specs, the tie-breaker (TieBreak.h) and the trainer
// read logs by these names, and the column count is this file's. Nothing
// here needs LLVM: an eviction log or model is data.
//
// An observation has one row of EvictionColumns values per feature: the 32
// candidate registers' interfering live ranges, then column 32, the live
// range being allocated (choosing it means "evict nothing"). Adding a
// feature LLVM adds is one line in the table; a model binds features by
// name, so older models keep working.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_REGALLOCMODEL_EVICTIONFEATURES_H
#define MLGO_REGALLOCMODEL_EVICTIONFEATURES_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlgo {

/// Candidate registers per eviction question (LLVM's
/// NumberOfInterferences).
inline constexpr int64_t EvictionCandidates = 32;
/// Columns of an observation: the candidates, then the live range being
/// allocated.
inline constexpr int64_t EvictionColumns = EvictionCandidates + 1;
/// The live range's column: answering it evicts nothing.
inline constexpr int64_t EvictionLiveRangeColumn = EvictionCandidates;

/// The shapes the table uses: one row of EvictionColumns, or one value.
#define MLGO_EVICTION_ROW_SHAPE {1, ::mlgo::EvictionColumns}
#define MLGO_EVICTION_SCALAR_SHAPE {1}

// M(type, name, shape, description): LLVM 19's RA_EVICT_FEATURES_LIST.
// clang-format off
#define MLGO_EVICTION_FEATURES(M)                                              \
  M(int64_t, mask, MLGO_EVICTION_ROW_SHAPE,                                    \
    "1 for a column the allocator allows, 0 for one it cannot take")          \
  M(int64_t, is_free, MLGO_EVICTION_ROW_SHAPE,                                 \
    "1 if the register is free (no interference)")                             \
  M(float, nr_urgent, MLGO_EVICTION_ROW_SHAPE,                                 \
    "urgent interfering ranges (that may break cascades), normalized")        \
  M(float, nr_broken_hints, MLGO_EVICTION_ROW_SHAPE,                           \
    "hints broken if this register's ranges were evicted")                     \
  M(int64_t, is_hint, MLGO_EVICTION_ROW_SHAPE,                                 \
    "1 if the register is a hint of the live range")                           \
  M(int64_t, is_local, MLGO_EVICTION_ROW_SHAPE,                                \
    "1 if the ranges are local to one basic block")                            \
  M(float, nr_rematerializable, MLGO_EVICTION_ROW_SHAPE,                       \
    "rematerializable ranges")                                                 \
  M(float, nr_defs_and_uses, MLGO_EVICTION_ROW_SHAPE,                          \
    "block-frequency weighed definitions and uses")                            \
  M(float, weighed_reads_by_max, MLGO_EVICTION_ROW_SHAPE,                      \
    "block-frequency weighed reads, normalized")                               \
  M(float, weighed_writes_by_max, MLGO_EVICTION_ROW_SHAPE,                     \
    "block-frequency weighed writes, normalized")                              \
  M(float, weighed_read_writes_by_max, MLGO_EVICTION_ROW_SHAPE,                \
    "block-frequency weighed read-writes, normalized")                         \
  M(float, weighed_indvars_by_max, MLGO_EVICTION_ROW_SHAPE,                    \
    "block-frequency weighed induction-variable uses, normalized")             \
  M(float, hint_weights_by_max, MLGO_EVICTION_ROW_SHAPE,                       \
    "block-frequency weighed hint uses, normalized")                           \
  M(float, start_bb_freq_by_max, MLGO_EVICTION_ROW_SHAPE,                      \
    "frequency of the start block, normalized")                                \
  M(float, end_bb_freq_by_max, MLGO_EVICTION_ROW_SHAPE,                        \
    "frequency of the end block, normalized")                                  \
  M(float, hottest_bb_freq_by_max, MLGO_EVICTION_ROW_SHAPE,                    \
    "frequency of the hottest block, normalized")                              \
  M(float, liverange_size, MLGO_EVICTION_ROW_SHAPE,                            \
    "size of the live range (instruction index difference)")                   \
  M(float, use_def_density, MLGO_EVICTION_ROW_SHAPE,                           \
    "the spill weight LLVM's heuristic compares, normalized")                  \
  M(int64_t, max_stage, MLGO_EVICTION_ROW_SHAPE,                               \
    "largest allocation stage of the ranges")                                  \
  M(int64_t, min_stage, MLGO_EVICTION_ROW_SHAPE,                               \
    "smallest allocation stage of the ranges")                                 \
  M(float, progress, MLGO_EVICTION_SCALAR_SHAPE,                               \
    "ratio of the allocation queue's size to its initial size")
// clang-format on

/// Indices into the feature list, in LLVM's order.
enum class EvictionFeature : size_t {
#define MLGO_EVICTION_FEATURE_INDEX(TYPE, NAME, SHAPE, DOC) NAME,
  MLGO_EVICTION_FEATURES(MLGO_EVICTION_FEATURE_INDEX)
#undef MLGO_EVICTION_FEATURE_INDEX
      NumberOfFeatures
};

/// The number of features LLVM 19's eviction advisor sends (21).
inline constexpr size_t NumEvictionFeatures =
    static_cast<size_t>(EvictionFeature::NumberOfFeatures);

/// The name of feature \p F, as logs, specs and models spell it.
constexpr const char *getEvictionFeatureName(EvictionFeature F) {
  constexpr const char *Names[] = {
#define MLGO_EVICTION_FEATURE_NAME(TYPE, NAME, SHAPE, DOC) #NAME,
      MLGO_EVICTION_FEATURES(MLGO_EVICTION_FEATURE_NAME)
#undef MLGO_EVICTION_FEATURE_NAME
  };
  return Names[static_cast<size_t>(F)];
}

/// The specs of the features, in the table's order.
std::vector<TensorSpec> getEvictionFeatureSpecs();

/// The advice tensor: "index_to_evict", int64 [1].
TensorSpec getEvictionAdviceSpec();

/// The other answer to an eviction question whose allowed columns are
/// \p Mask (EvictionColumns elements, LLVM's "mask") and whose answer was
/// \p Choice: "evict nothing" (the live range's column) for an eviction
/// where LLVM allows it, and otherwise the first allowed register column
/// other than \p Choice; \p Choice itself when no other column is allowed.
/// Never a masked column. The -mlgo-evict-flips research option answers
/// with it.
int64_t invertEviction(const int64_t *Mask, int64_t Choice);

} // namespace mlgo

#endif // MLGO_REGALLOCMODEL_EVICTIONFEATURES_H
