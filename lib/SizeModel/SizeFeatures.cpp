//===- SizeFeatures.cpp - IR2Native's feature table -----------------------===//
//
// The names and specs generated from the tables in
// mlgo/SizeModel/SizeFeatures.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/SizeModel/SizeFeatures.h"

namespace mlgo {

llvm::ArrayRef<llvm::StringRef> getSizeFeatureNames() {
  static const llvm::StringRef Names[] = {
#define MLGO_SIZE_NAME(NAME, ...) #NAME,
      MLGO_SIZE_STRUCT_FEATURES(MLGO_SIZE_NAME)
          MLGO_SIZE_OPCODE_FEATURES(MLGO_SIZE_NAME)
#undef MLGO_SIZE_NAME
  };
  static_assert(sizeof(Names) / sizeof(Names[0]) == NumSizeFeatures,
                "one name per feature");
  return Names;
}

std::vector<TensorSpec> getSizeFeatureSpecs() {
  std::vector<TensorSpec> Specs;
  for (llvm::StringRef Name : getSizeFeatureNames())
    Specs.push_back(TensorSpec::createSpec<int64_t>(Name.str(), {1}));
  return Specs;
}

} // namespace mlgo
