//===- mlgo/IR2Native/FunctionFeatures.h - A function's size features -*- C++
//-*-===//
//
// The compiler's side of IR2Native's feature table
// (mlgo/SizeModel/SizeFeatures.h): the features of one function, computed
// with the function's own analyses (TargetTransformInfo for the code-size
// estimate, LoopInfo, DominatorTree) from a FunctionAnalysisManager. The
// dataset reads them at the end of the -Oz pipeline; the plugin reads them
// for a caller before and after an inlining decision.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_IR2NATIVE_FUNCTIONFEATURES_H
#define MLGO_IR2NATIVE_FUNCTIONFEATURES_H

#include "mlgo/SizeModel/SizeFeatures.h"

#include "llvm/IR/PassManager.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class CallBase;
class DominatorTree;
class Function;
class LoopInfo;
class Module;
class TargetTransformInfo;
} // namespace llvm

namespace mlgo {

using SizeFeatureVector = std::array<int64_t, NumSizeFeatures>;

/// The features of \p F (a definition), in feature-vector order. The
/// dominator tree and loops are computed here: an analysis manager's may
/// be stale for a function the inliner has just changed, unless the
/// caller knows better (the overload below).
SizeFeatureVector computeSizeFeatures(llvm::Function &F,
                                      const llvm::TargetTransformInfo &TTI);
/// Same, with the function's current dominator tree and loops when the
/// caller has them (both non-null: e.g. an analysis manager's results known
/// to be up to date); else they are computed here. The features are the
/// same either way.
SizeFeatureVector computeSizeFeatures(llvm::Function &F,
                                      const llvm::TargetTransformInfo &TTI,
                                      const llvm::DominatorTree *CurrentDT,
                                      const llvm::LoopInfo *CurrentLI);
/// Same, with the target's TTI from \p FAM.
SizeFeatureVector computeSizeFeatures(llvm::Function &F,
                                      llvm::FunctionAnalysisManager &FAM);

/// The features the caller of \p CB would have if \p CB were inlined, from
/// the caller's features \p Caller and the callee's \p Callee alone, with
/// no inlining done (docs/ir2native.md, "In the plugin"): every count is
/// the sum of the two, less the call itself (its instruction, arguments,
/// TTI cost and operands) and with the callee's returns turned into
/// branches to the rest of the caller (dropped for a one-block callee);
/// the depths are the larger of the two; the linkage and the formal
/// arguments are the caller's. What inlining would simplify (constant
/// arguments, dead branches) is not seen: an estimate without code.
SizeFeatureVector estimateInlinedFeatures(const SizeFeatureVector &Caller,
                                          const SizeFeatureVector &Callee,
                                          const llvm::CallBase &CB,
                                          const llvm::TargetTransformInfo &TTI);

/// A function's name and features.
struct FunctionFeatureRow {
  std::string Name;
  SizeFeatureVector Features;
};

/// Appends the features of every function the module defines, in module
/// order (the dataset adds it at the end of the -Oz IR pipeline and
/// joins the rows with the object's symbol sizes).
class CollectSizeFeaturesPass
    : public llvm::PassInfoMixin<CollectSizeFeaturesPass> {
public:
  explicit CollectSizeFeaturesPass(std::vector<FunctionFeatureRow> *Out)
      : Out(Out) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

private:
  std::vector<FunctionFeatureRow> *Out;
};

} // namespace mlgo

#endif // MLGO_IR2NATIVE_FUNCTIONFEATURES_H
