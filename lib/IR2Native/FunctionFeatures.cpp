//===- FunctionFeatures.cpp - A function's size features ------------------===//
//
// Fills the feature table of mlgo/SizeModel/SizeFeatures.h from a Function.
//
//===----------------------------------------------------------------------===//

#include "mlgo/IR2Native/FunctionFeatures.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {

static size_t index(SizeFeature F) { return static_cast<size_t>(F); }

/// Intrinsics that never become code: the feature counts skip them.
static bool isPseudoIntrinsic(const IntrinsicInst &II) {
  if (isa<DbgInfoIntrinsic>(II))
    return true;
  switch (II.getIntrinsicID()) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::pseudoprobe:
  case Intrinsic::sideeffect:
    return true;
  default:
    return false;
  }
}

static int64_t opcodeFeature(unsigned Opcode) {
  switch (Opcode) {
#define MLGO_SIZE_OPCODE_CASE(NAME, OPCODE)                                    \
  case Instruction::OPCODE:                                                    \
    return static_cast<int64_t>(SizeFeature::NAME);
    MLGO_SIZE_OPCODE_FEATURES(MLGO_SIZE_OPCODE_CASE)
#undef MLGO_SIZE_OPCODE_CASE
  default:
    return -1;
  }
}

SizeFeatureVector computeSizeFeatures(Function &F,
                                      FunctionAnalysisManager &FAM) {
  return computeSizeFeatures(F, FAM.getResult<TargetIRAnalysis>(F));
}

SizeFeatureVector computeSizeFeatures(Function &F,
                                      const TargetTransformInfo &TTI) {
  return computeSizeFeatures(F, TTI, nullptr, nullptr);
}

SizeFeatureVector computeSizeFeatures(Function &F,
                                      const TargetTransformInfo &TTI,
                                      const DominatorTree *CurrentDT,
                                      const LoopInfo *CurrentLI) {
  SizeFeatureVector V{};
  auto Add = [&](SizeFeature Feature, int64_t N) { V[index(Feature)] += N; };
  std::optional<DominatorTree> OwnDT;
  std::optional<LoopInfo> OwnLI;
  if (!CurrentDT || !CurrentLI) {
    OwnDT.emplace(F);
    OwnLI.emplace(*OwnDT);
  }
  const DominatorTree &DT = OwnDT ? *OwnDT : *CurrentDT;
  const LoopInfo &LI = OwnLI ? *OwnLI : *CurrentLI;

  Add(SizeFeature::arguments, F.arg_size());
  Add(SizeFeature::is_local, F.hasLocalLinkage() ? 1 : 0);
  Add(SizeFeature::is_comdat,
      F.hasLinkOnceLinkage() || F.hasWeakLinkage() || F.hasComdat() ? 1 : 0);
  for (BasicBlock &BB : F) {
    Add(SizeFeature::basic_blocks, 1);
    for (Instruction &I : BB) {
      if (const auto *II = dyn_cast<IntrinsicInst>(&I)) {
        if (isPseudoIntrinsic(*II))
          continue;
        Add(SizeFeature::intrinsic_calls, 1);
      } else if (const auto *CB = dyn_cast<CallBase>(&I)) {
        Add(SizeFeature::calls, 1);
        Add(SizeFeature::call_arguments, CB->arg_size());
        if (CB->getFunctionType()->isVarArg())
          Add(SizeFeature::vararg_calls, 1);
        // A call the function returns right after becomes a jump.
        if (const auto *Ret = dyn_cast_or_null<ReturnInst>(I.getNextNode()))
          if (!Ret->getReturnValue() || Ret->getReturnValue() == &I)
            Add(SizeFeature::tail_calls, 1);
      }
      Add(SizeFeature::instructions, 1);
      InstructionCost Cost =
          TTI.getInstructionCost(&I, TargetTransformInfo::TCK_CodeSize);
      if (std::optional<InstructionCost::CostType> C = Cost.getValue())
        Add(SizeFeature::tti_code_size, *C);
      int64_t Op = opcodeFeature(I.getOpcode());
      if (Op >= 0)
        V[Op] += 1;
      Type *Ty = I.getType();
      if (Ty->isPointerTy() || Ty->isIntegerTy(64))
        Add(SizeFeature::wide_values, 1);
      if (Ty->isFloatingPointTy())
        Add(SizeFeature::fp_values, 1);
      if (I.isUsedOutsideOfBlock(&BB))
        Add(SizeFeature::cross_block_values, 1);
      if (const auto *GEP = dyn_cast<GetElementPtrInst>(&I))
        if (GEP->hasAllConstantIndices())
          Add(SizeFeature::constant_geps, 1);
      if (const auto *Phi = dyn_cast<PHINode>(&I))
        Add(SizeFeature::phi_operands, Phi->getNumIncomingValues());
      if (const auto *Switch = dyn_cast<SwitchInst>(&I))
        Add(SizeFeature::switch_cases, Switch->getNumCases());
      for (const Use &U : I.operands()) {
        const auto *CB = dyn_cast<CallBase>(&I);
        if (isa<GlobalValue>(U.get()->stripInBoundsConstantOffsets()) &&
            !(CB && CB->isCallee(&U)))
          Add(SizeFeature::global_operands, 1);
        if (const auto *C = dyn_cast<ConstantInt>(U.get()))
          if (C->getBitWidth() <= 64 && !isa<SwitchInst>(I) &&
              (C->getSExtValue() < -128 || C->getSExtValue() > 127))
            Add(SizeFeature::large_constants, 1);
      }
    }
  }
  auto Loops = LI.getLoopsInPreorder();
  Add(SizeFeature::loops, Loops.size());
  int64_t LoopDepth = 0;
  for (const Loop *L : Loops)
    LoopDepth = std::max<int64_t>(LoopDepth, L->getLoopDepth());
  Add(SizeFeature::max_loop_depth, LoopDepth);
  int64_t DomDepth = 0;
  for (const auto *Node : depth_first(DT.getRootNode()))
    DomDepth = std::max<int64_t>(DomDepth, Node->getLevel());
  Add(SizeFeature::domtree_depth, DomDepth);
  return V;
}

SizeFeatureVector estimateInlinedFeatures(const SizeFeatureVector &Caller,
                                          const SizeFeatureVector &Callee,
                                          const CallBase &CB,
                                          const TargetTransformInfo &TTI) {
  SizeFeatureVector V;
  for (size_t I = 0; I < NumSizeFeatures; ++I)
    V[I] = Caller[I] + Callee[I];
  auto At = [&](SizeFeature F) -> int64_t & { return V[index(F)]; };
  auto Of = [](const SizeFeatureVector &W, SizeFeature F) {
    return W[index(F)];
  };
  for (SizeFeature F :
       {SizeFeature::arguments, SizeFeature::is_local, SizeFeature::is_comdat})
    At(F) = Of(Caller, F);
  for (SizeFeature F :
       {SizeFeature::max_loop_depth, SizeFeature::domtree_depth})
    At(F) = std::max(Of(Caller, F), Of(Callee, F));

  // The call goes, counted as computeSizeFeatures counted it.
  At(SizeFeature::instructions) -= 1;
  At(SizeFeature::calls) -= 1;
  At(SizeFeature::call_arguments) -= CB.arg_size();
  if (CB.getFunctionType()->isVarArg())
    At(SizeFeature::vararg_calls) -= 1;
  if (const auto *Ret = dyn_cast_or_null<ReturnInst>(CB.getNextNode()))
    if (!Ret->getReturnValue() || Ret->getReturnValue() == &CB)
      At(SizeFeature::tail_calls) -= 1;
  InstructionCost Cost =
      TTI.getInstructionCost(&CB, TargetTransformInfo::TCK_CodeSize);
  if (std::optional<InstructionCost::CostType> C = Cost.getValue())
    At(SizeFeature::tti_code_size) -= *C;
  int64_t Op = opcodeFeature(CB.getOpcode());
  if (Op >= 0)
    V[Op] -= 1;
  Type *Ty = CB.getType();
  if (Ty->isPointerTy() || Ty->isIntegerTy(64))
    At(SizeFeature::wide_values) -= 1;
  if (Ty->isFloatingPointTy())
    At(SizeFeature::fp_values) -= 1;
  if (CB.isUsedOutsideOfBlock(CB.getParent()))
    At(SizeFeature::cross_block_values) -= 1;
  for (const Use &U : CB.operands()) {
    if (isa<GlobalValue>(U.get()->stripInBoundsConstantOffsets()) &&
        !CB.isCallee(&U))
      At(SizeFeature::global_operands) -= 1;
    if (const auto *C = dyn_cast<ConstantInt>(U.get()))
      if (C->getBitWidth() <= 64 &&
          (C->getSExtValue() < -128 || C->getSExtValue() > 127))
        At(SizeFeature::large_constants) -= 1;
  }

  // The callee's returns: a one-block callee runs into the rest of its
  // caller's block; otherwise each return branches to the block that
  // continues the caller (one more block), through a phi of the returned
  // values when there are several.
  const int64_t Returns = Of(Callee, SizeFeature::op_ret);
  At(SizeFeature::op_ret) -= Returns;
  if (Of(Callee, SizeFeature::basic_blocks) <= 1) {
    At(SizeFeature::instructions) -= Returns;
    At(SizeFeature::basic_blocks) -= 1;
  } else {
    At(SizeFeature::op_br) += Returns;
    if (!Ty->isVoidTy() && Returns > 1) {
      At(SizeFeature::op_phi) += 1;
      At(SizeFeature::instructions) += 1;
      At(SizeFeature::phi_operands) += Returns;
    }
  }
  for (int64_t &X : V)
    X = std::max<int64_t>(X, 0);
  return V;
}

PreservedAnalyses CollectSizeFeaturesPass::run(Module &M,
                                               ModuleAnalysisManager &MAM) {
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  for (Function &F : M)
    if (!F.isDeclaration())
      Out->push_back({F.getName().str(), computeSizeFeatures(F, FAM)});
  return PreservedAnalyses::all();
}

} // namespace mlgo
