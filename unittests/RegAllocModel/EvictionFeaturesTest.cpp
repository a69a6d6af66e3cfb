//===- unittests/RegAllocModel/EvictionFeaturesTest.cpp - Feature table ---===//
//
// The specs, names and column count generated from MLGO_EVICTION_FEATURES:
// LLVM 19's 21 eviction features in its order, 33 columns each but the
// scalar progress. (test/RegAlloc/eviction-plugin.test checks them against
// the features a real llc-19 sends.)
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocModel/EvictionFeatures.h"

#include "mlgo/Tensor/TensorSpec.h"

#include "gtest/gtest.h"

#include <string>
#include <string_view>
#include <vector>

using namespace mlgo;

namespace {

TEST(EvictionFeaturesTest, LLVMsTableInLLVMsOrder) {
  static_assert(EvictionColumns == 33, "32 candidates and the live range");
  static_assert(EvictionLiveRangeColumn == 32, "the last column");
  static_assert(NumEvictionFeatures == 21, "LLVM 19 sends 21 features");
  static_assert(getEvictionFeatureName(EvictionFeature::use_def_density) ==
                    std::string_view("use_def_density"),
                "names are the table's");
  std::vector<TensorSpec> Specs = getEvictionFeatureSpecs();
  std::vector<std::string> Names;
  for (const TensorSpec &S : Specs)
    Names.push_back(S.name());
  EXPECT_EQ(Names, (std::vector<std::string>{"mask",
                                             "is_free",
                                             "nr_urgent",
                                             "nr_broken_hints",
                                             "is_hint",
                                             "is_local",
                                             "nr_rematerializable",
                                             "nr_defs_and_uses",
                                             "weighed_reads_by_max",
                                             "weighed_writes_by_max",
                                             "weighed_read_writes_by_max",
                                             "weighed_indvars_by_max",
                                             "hint_weights_by_max",
                                             "start_bb_freq_by_max",
                                             "end_bb_freq_by_max",
                                             "hottest_bb_freq_by_max",
                                             "liverange_size",
                                             "use_def_density",
                                             "max_stage",
                                             "min_stage",
                                             "progress"}));
  for (size_t I = 0; I < Specs.size(); ++I)
    EXPECT_EQ(Specs[I].name(),
              getEvictionFeatureName(static_cast<EvictionFeature>(I)));
  EXPECT_EQ(Specs[0], TensorSpec::createSpec<int64_t>("mask", {1, 33}));
  EXPECT_EQ(Specs[17],
            TensorSpec::createSpec<float>("use_def_density", {1, 33}));
  EXPECT_EQ(Specs[19], TensorSpec::createSpec<int64_t>("min_stage", {1, 33}));
  EXPECT_EQ(Specs[20], TensorSpec::createSpec<float>("progress", {1}));
  EXPECT_EQ(getEvictionAdviceSpec(),
            TensorSpec::createSpec<int64_t>("index_to_evict", {1}));
}

} // namespace
