//===- TrackingInlineAdvisor.cpp - Features across inlining ---------------===//
//
// See TrackingInlineAdvisor.h. The rules and the features follow LLVM 19's
// MLInlineAdvisor (llvm/lib/Analysis/MLInlineAdvisor.cpp) and the property
// update LLVM's FunctionPropertiesUpdater; what is new is how reachability
// and loop depth are kept.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/TrackingInlineAdvisor.h"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CallGraph.h"
#include "llvm/Analysis/FunctionPropertiesAnalysis.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Analysis/InlineModelFeatureMaps.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ProfileSummaryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

// Upstream's remarks keep upstream's pass name.
#define DEBUG_TYPE "inline-ml"

namespace mlgo {

static cl::opt<bool> VerifyTracking(
    "mlgo-inline-verify-tracking", cl::Hidden, cl::init(false),
    cl::desc("Check every reachability, loop depth and function property "
             "the inline advisor keeps against one computed from scratch"));

static cl::opt<bool> TrackingStats(
    "mlgo-inline-tracking-stats", cl::Hidden, cl::init(false),
    cl::desc("Print, per inliner run, how many inlinings the advisor "
             "followed, how many cut old paths and how many loop depth "
             "recomputations it made"));

namespace {

/// LLVM's -ml-advisor-size-increase-threshold (a static cl::opt<float> in
/// MLInlineAdvisor.cpp), read through the option registry.
float getSizeIncreaseThreshold() {
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find("ml-advisor-size-increase-threshold");
  if (It == Opts.end())
    return 2.0f;
  return static_cast<cl::opt<float> *>(It->second)->getValue();
}

/// Blocks a conditional branch or a switch at the end of \p BB reaches, as
/// FunctionPropertiesInfo counts them.
int64_t getBlocksReachedFromCondition(const BasicBlock &BB) {
  const Instruction *T = BB.getTerminator();
  if (const auto *BI = dyn_cast<BranchInst>(T))
    return BI->isConditional() ? BI->getNumSuccessors() : 0;
  if (const auto *SI = dyn_cast<SwitchInst>(T))
    return SI->getNumCases() + (SI->getDefaultDest() != nullptr);
  return 0;
}

/// The blocks of \p F reachable from its entry.
void collectReachable(const Function &F, DenseSet<const BasicBlock *> &Out) {
  Out.clear();
  SmallVector<const BasicBlock *, 32> Stack{&F.getEntryBlock()};
  Out.insert(&F.getEntryBlock());
  while (!Stack.empty()) {
    const BasicBlock *BB = Stack.pop_back_val();
    for (const BasicBlock *S : successors(BB))
      if (Out.insert(S).second)
        Stack.push_back(S);
  }
}

/// A call the inliner could inline: a direct call of a defined function.
const CallBase *getInlinableCall(const Instruction &I) {
  if (const auto *CB = dyn_cast<CallBase>(&I))
    if (const Function *Callee = CB->getCalledFunction())
      if (!Callee->isDeclaration())
        return CB;
  return nullptr;
}

} // namespace

//===-- Function properties -----------------------------------------------===//

void InlineFunctionProps::addBlock(const BasicBlock &BB, int64_t Direction) {
  BasicBlockCount += Direction;
  BlocksReachedFromConditionalInstruction +=
      Direction * getBlocksReachedFromCondition(BB);
  for (const Instruction &I : BB)
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (const Function *Callee = CB->getCalledFunction())
        if (!Callee->isIntrinsic() && !Callee->isDeclaration())
          DirectCallsToDefinedFunctions += Direction;
  TotalInstructionCount += Direction * int64_t(BB.sizeWithoutDebug());
}

void InlineFunctionProps::setUses(const Function &F) {
  Uses = (F.hasLocalLinkage() ? 0 : 1) + int64_t(F.getNumUses());
}

bool InlineFunctionProps::operator==(const InlineFunctionProps &O) const {
  return BasicBlockCount == O.BasicBlockCount &&
         BlocksReachedFromConditionalInstruction ==
             O.BlocksReachedFromConditionalInstruction &&
         Uses == O.Uses &&
         DirectCallsToDefinedFunctions == O.DirectCallsToDefinedFunctions &&
         TotalInstructionCount == O.TotalInstructionCount;
}

static InlineFunctionProps
computeProps(const Function &F, const DenseSet<const BasicBlock *> &Reachable) {
  InlineFunctionProps P;
  for (const BasicBlock &BB : F)
    if (Reachable.contains(&BB))
      P.addBlock(BB, +1);
  P.setUses(F);
  return P;
}

//===-- Per-function reachability and loop depth --------------------------===//

struct TrackingInlineAdvisor::CFGState {
  /// The blocks reachable from the entry, exact after every inlining the
  /// advisor followed.
  DenseSet<const BasicBlock *> Reachable;
  /// Loop depths of the blocks that existed at the last computation; valid
  /// while every inlining since kept the paths among old blocks. Blocks
  /// inlined since have no entry.
  DenseMap<const BasicBlock *, unsigned> Depths;
};

TrackingInlineAdvisor::CFGState &
TrackingInlineAdvisor::getCFG(const Function &F) {
  std::unique_ptr<CFGState> &S = CFGs[&F];
  if (!S) {
    S = std::make_unique<CFGState>();
    collectReachable(F, S->Reachable);
  }
  return *S;
}

bool TrackingInlineAdvisor::isReachable(const BasicBlock &BB) {
  Function &F = const_cast<Function &>(*BB.getParent());
  // Once the size bound stops the policy, mandatory inlinings go on without
  // being followed; MLInlineAdvisor then asks the analysis manager's
  // dominator tree, as it was last computed, and so do we.
  if (ForceStop)
    return FAM.getResult<DominatorTreeAnalysis>(F).isReachableFromEntry(&BB);
  bool R = getCFG(F).Reachable.contains(&BB);
  if (VerifyTracking && R != DominatorTree(F).isReachableFromEntry(&BB))
    report_fatal_error("mlgo: -mlgo-inline-verify-tracking: reachability of "
                       "a block of '" +
                       F.getName() + "' is out of date");
  return R;
}

unsigned TrackingInlineAdvisor::getLoopDepth(const BasicBlock &BB) {
  Function &F = const_cast<Function &>(*BB.getParent());
  // Kept fresh, the analysis manager's loops are current.
  if (ForceStop || keepsAnalysesFresh(F))
    return FAM.getResult<LoopAnalysis>(F).getLoopDepth(&BB);
  CFGState &S = getCFG(F);
  auto It = S.Depths.find(&BB);
  if (It == S.Depths.end()) {
    ++NumLoopRebuilds;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    S.Depths.clear();
    for (const BasicBlock &B : F)
      S.Depths[&B] = LI.getLoopDepth(&B);
    It = S.Depths.find(&BB);
  }
  if (VerifyTracking) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    if (LI.getLoopDepth(&BB) != It->second)
      report_fatal_error("mlgo: -mlgo-inline-verify-tracking: the loop depth "
                         "of a block of '" +
                         F.getName() + "' is out of date");
  }
  return It->second;
}

InlineFunctionProps &TrackingInlineAdvisor::getCachedProps(Function &F) {
  auto [It, Inserted] = PropsCache.try_emplace(&F);
  if (Inserted) {
    // From the analysis manager, as MLInlineAdvisor takes them: a
    // function no pass changed keeps the result of an earlier run, whose
    // uses may since have dropped (a feature reads them so).
    const FunctionPropertiesInfo &FPI =
        FAM.getResult<FunctionPropertiesAnalysis>(F);
    InlineFunctionProps &P = It->second;
    P.BasicBlockCount = FPI.BasicBlockCount;
    P.BlocksReachedFromConditionalInstruction =
        FPI.BlocksReachedFromConditionalInstruction;
    P.Uses = FPI.Uses;
    P.DirectCallsToDefinedFunctions = FPI.DirectCallsToDefinedFunctions;
    P.TotalInstructionCount = FPI.TotalInstructionCount;
  }
  return It->second;
}

void TrackingInlineAdvisor::verifyTracking(Function &F) {
  DenseSet<const BasicBlock *> Fresh;
  collectReachable(F, Fresh);
  if (Fresh != getCFG(F).Reachable)
    report_fatal_error("mlgo: -mlgo-inline-verify-tracking: the reachable "
                       "blocks of '" +
                       F.getName() + "' are out of date");
}

void TrackingInlineAdvisor::verifyCallerProps(Function &F) {
  // Only the caller of an inlining is brought up to date, as
  // MLInlineAdvisor does (the callee's uses, for one, stay as cached).
  if (!(computeProps(F, getCFG(F).Reachable) == getCachedProps(F)))
    report_fatal_error("mlgo: -mlgo-inline-verify-tracking: the properties "
                       "of '" +
                       F.getName() + "' after an inlining are out of date");
}

void TrackingInlineAdvisor::clearCaches() {
  PropsCache.clear();
  CFGs.clear();
}

//===-- The advisor -------------------------------------------------------===//

TrackingInlineAdvisor::TrackingInlineAdvisor(Module &M,
                                             ModuleAnalysisManager &MAM,
                                             std::unique_ptr<ModelRunner> R)
    : InlineAdvisor(
          M, MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager()),
      Runner(std::move(R)), CG(MAM.getResult<LazyCallGraphAnalysis>(M)),
      PSI(MAM.getResult<ProfileSummaryAnalysis>(M)),
      SizeIncreaseThreshold(getSizeIncreaseThreshold()) {
  Runner->switchContext("");
  int64_t Size = 0;
  for (Function &F : M)
    if (!F.isDeclaration())
      Size += getIRSize(F);
  InitialIRSize = int32_t(Size);
  CurrentIRSize = InitialIRSize;
  // The call site height: a function's level is one more than the highest
  // level of the functions it calls, over the call graph's SCCs bottom-up;
  // a callee of the same SCC (not yet levelled) does not count. It is not
  // updated as inlining goes.
  CallGraph CGraph(M);
  for (auto SCC = scc_begin(&CGraph); !SCC.isAtEnd(); ++SCC) {
    unsigned Level = 0;
    for (CallGraphNode *Node : *SCC) {
      Function *F = Node->getFunction();
      if (!F || F->isDeclaration())
        continue;
      for (Instruction &I : instructions(F))
        if (const CallBase *CB = getInlinableCall(I)) {
          auto Pos = FunctionLevels.find(&CG.get(*CB->getCalledFunction()));
          if (Pos != FunctionLevels.end())
            Level = std::max(Level, Pos->second + 1);
        }
    }
    for (CallGraphNode *Node : *SCC)
      if (Function *F = Node->getFunction(); F && !F->isDeclaration())
        FunctionLevels[&CG.get(*F)] = Level;
  }
  for (const auto &[Node, Level] : FunctionLevels) {
    AllNodes.insert(Node);
    EdgeCount += getLocalCalls(Node->getFunction());
  }
  NodeCount = int64_t(AllNodes.size());
}

TrackingInlineAdvisor::~TrackingInlineAdvisor() {
  if (TrackingStats)
    errs() << "mlgo: inline tracking: " << M.getSourceFileName() << ": "
           << NumInlinings << " inlinings followed, " << NumPathsCut
           << " cut old paths, " << NumLoopRebuilds
           << " loop depth recomputations\n";
}

unsigned
TrackingInlineAdvisor::getInitialFunctionLevel(const Function &F) const {
  const LazyCallGraph::Node *N = CG.lookup(F);
  return N ? FunctionLevels.at(N) : 0;
}

void TrackingInlineAdvisor::onPassEntry(LazyCallGraph::SCC *CurSCC) {
  if (!CurSCC || ForceStop)
    return;
  // Function passes between inliner runs change functions unseen.
  clearCaches();
  // Nodes of the last SCC that survived, and the nodes they reach that were
  // never seen (new functions, e.g. from coroutine splitting), which take
  // their neighbour's level; edges are recounted on the survivors.
  while (!NodesInLastSCC.empty()) {
    const LazyCallGraph::Node *N = *NodesInLastSCC.begin();
    NodesInLastSCC.erase(N);
    EdgeCount += getLocalCalls(N->getFunction());
    const unsigned Level = FunctionLevels.at(N);
    for (const LazyCallGraph::Edge &E : *(*N)) {
      const LazyCallGraph::Node *Adjacent = &E.getNode();
      if (AllNodes.insert(Adjacent).second) {
        ++NodeCount;
        NodesInLastSCC.insert(Adjacent);
        FunctionLevels[Adjacent] = Level;
      }
    }
  }
  EdgeCount -= EdgesOfLastSeenNodes;
  EdgesOfLastSeenNodes = 0;
  for (const LazyCallGraph::Node &N : *CurSCC)
    NodesInLastSCC.insert(&N);
}

void TrackingInlineAdvisor::onPassExit(LazyCallGraph::SCC *CurSCC) {
  clearCaches();
  if (!CurSCC || ForceStop)
    return;
  EdgesOfLastSeenNodes = 0;
  for (const LazyCallGraph::Node *N : NodesInLastSCC)
    EdgesOfLastSeenNodes += getLocalCalls(N->getFunction());
  for (const LazyCallGraph::Node &N : *CurSCC)
    if (NodesInLastSCC.insert(&N).second)
      EdgesOfLastSeenNodes += getLocalCalls(N.getFunction());
}

std::unique_ptr<InlineAdvice>
TrackingInlineAdvisor::getSkipAdviceIfUnreachable(CallBase &CB) {
  if (!isReachable(*CB.getParent()))
    return std::make_unique<InlineAdvice>(this, CB, getCallerORE(CB), false);
  return nullptr;
}

std::unique_ptr<InlineAdvice>
TrackingInlineAdvisor::getMandatoryAdvice(CallBase &CB, bool Advice) {
  if (auto Skip = getSkipAdviceIfUnreachable(CB))
    return Skip;
  if (Advice && !ForceStop)
    return getMandatoryAdviceImpl(CB);
  return std::make_unique<InlineAdvice>(this, CB, getCallerORE(CB), Advice);
}

std::unique_ptr<TrackedAdvice>
TrackingInlineAdvisor::getMandatoryAdviceImpl(CallBase &CB) {
  return std::make_unique<TrackedAdvice>(this, CB, getCallerORE(CB), true);
}

std::unique_ptr<TrackedAdvice>
TrackingInlineAdvisor::getAdviceFromModel(CallBase &CB,
                                          OptimizationRemarkEmitter &ORE) {
  return std::make_unique<TrackedAdvice>(this, CB, ORE,
                                         Runner->evaluate<int64_t>() != 0);
}

std::unique_ptr<InlineAdvice>
TrackingInlineAdvisor::getAdviceImpl(CallBase &CB) {
  if (auto Skip = getSkipAdviceIfUnreachable(CB))
    return Skip;
  Function &Caller = *CB.getCaller();
  Function &Callee = *CB.getCalledFunction();
  if (VerifyTracking && !ForceStop) {
    verifyTracking(Caller);
    verifyTracking(Callee);
  }
  auto GetAssumptionCache = [&](Function &F) -> AssumptionCache & {
    return FAM.getResult<AssumptionAnalysis>(F);
  };
  auto &TIR = FAM.getResult<TargetIRAnalysis>(Callee);
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(Caller);
  const MandatoryInliningKind Kind = getMandatoryKind(CB, FAM, ORE);
  if (Kind == MandatoryInliningKind::Never || &Caller == &Callee)
    return getMandatoryAdvice(CB, false);
  const bool Mandatory = Kind == MandatoryInliningKind::Always;
  if (ForceStop) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "ForceStop", &CB)
             << "Won't attempt inlining because module size grew too much.";
    });
    return std::make_unique<InlineAdvice>(this, CB, ORE, Mandatory);
  }
  int CostEstimate = 0;
  if (!Mandatory) {
    std::optional<int> Estimate =
        getInliningCostEstimate(CB, TIR, GetAssumptionCache);
    if (!Estimate)
      return std::make_unique<InlineAdvice>(this, CB, ORE, false);
    CostEstimate = *Estimate;
  }
  std::optional<InlineCostFeatures> CostFeatures =
      getInliningCostFeatures(CB, TIR, GetAssumptionCache);
  if (!CostFeatures)
    return std::make_unique<InlineAdvice>(this, CB, ORE, false);
  if (Mandatory)
    return getMandatoryAdvice(CB, true);

  int64_t ConstantArgs = 0;
  for (const Use &Arg : CB.args())
    ConstantArgs += isa<Constant>(Arg);
  const InlineFunctionProps &CallerP = getCachedProps(Caller);
  const InlineFunctionProps &CalleeP = getCachedProps(Callee);
  auto Set = [&](FeatureIndex I, int64_t V) {
    *Runner->getTensor<int64_t>(I) = V;
  };
  Set(FeatureIndex::callee_basic_block_count, CalleeP.BasicBlockCount);
  Set(FeatureIndex::callsite_height, getInitialFunctionLevel(Caller));
  Set(FeatureIndex::node_count, NodeCount);
  Set(FeatureIndex::nr_ctant_params, ConstantArgs);
  Set(FeatureIndex::edge_count, EdgeCount);
  Set(FeatureIndex::caller_users, CallerP.Uses);
  Set(FeatureIndex::caller_conditionally_executed_blocks,
      CallerP.BlocksReachedFromConditionalInstruction);
  Set(FeatureIndex::caller_basic_block_count, CallerP.BasicBlockCount);
  Set(FeatureIndex::callee_conditionally_executed_blocks,
      CalleeP.BlocksReachedFromConditionalInstruction);
  Set(FeatureIndex::callee_users, CalleeP.Uses);
  Set(FeatureIndex::cost_estimate, CostEstimate);
  Set(FeatureIndex::is_callee_avail_external,
      Callee.hasAvailableExternallyLinkage());
  Set(FeatureIndex::is_caller_avail_external,
      Caller.hasAvailableExternallyLinkage());
  for (size_t I = 0; I < size_t(InlineCostFeatureIndex::NumberOfFeatures); ++I)
    Set(inlineCostFeatureToMlFeature(InlineCostFeatureIndex(I)),
        (*CostFeatures)[I]);
  return getAdviceFromModel(CB, ORE);
}

//===-- After an inlining -------------------------------------------------===//

void TrackingInlineAdvisor::updateCaller(TrackedAdvice &A) {
  Function &Caller = *A.getCaller();
  CFGState &S = getCFG(Caller);
  ++NumInlinings;
  // The region the inlining added: what the call's block now reaches
  // before meeting a block that was reachable already.
  BasicBlock *B = A.CallSiteBB;
  SmallVector<BasicBlock *, 32> Stack(succ_begin(B), succ_end(B));
  SmallPtrSet<const BasicBlock *, 32> Region;
  SmallPtrSet<const BasicBlock *, 4> MetOld;
  while (!Stack.empty()) {
    BasicBlock *X = Stack.pop_back_val();
    if (S.Reachable.contains(X)) {
      MetOld.insert(X);
      continue;
    }
    if (!Region.insert(X).second)
      continue;
    for (BasicBlock *Succ : successors(X))
      Stack.push_back(Succ);
  }
  // The region stands for the call's old edges when it leads to exactly
  // the old successors, and the landing pad of an invoke kept its own.
  bool KeepsPaths =
      MetOld.size() == SmallPtrSet<const BasicBlock *, 4>(
                           A.OldSuccessors.begin(), A.OldSuccessors.end())
                           .size() &&
      llvm::all_of(A.OldSuccessors,
                   [&](const BasicBlock *Old) { return MetOld.contains(Old); });
  if (KeepsPaths && A.UnwindDest)
    KeepsPaths = llvm::equal(successors(A.UnwindDest), A.OldUnwindSuccessors);
  if (KeepsPaths) {
    S.Reachable.insert(Region.begin(), Region.end());
  } else {
    ++NumPathsCut;
    collectReachable(Caller, S.Reachable);
    S.Depths.clear();
  }

  // FunctionPropertiesUpdater's finish, with the reachable set: the entry,
  // the old successors still reachable and everything from the call's
  // block up to them are counted again; old successors no longer reachable
  // (already discounted) and what only they reached are discounted.
  InlineFunctionProps &P = getCachedProps(Caller);
  SetVector<const BasicBlock *> Reinclude, Unreachable;
  if (B != &Caller.getEntryBlock())
    Reinclude.insert(&Caller.getEntryBlock());
  for (const BasicBlock *Succ : A.Frontier)
    (S.Reachable.contains(Succ) ? Reinclude : Unreachable).insert(Succ);
  const size_t FollowFrom = Reinclude.size();
  Reinclude.insert(B);
  for (size_t I = 0; I < Reinclude.size(); ++I) {
    const BasicBlock *BB = Reinclude[I];
    P.addBlock(*BB, +1);
    if (I >= FollowFrom)
      Reinclude.insert(succ_begin(BB), succ_end(BB));
  }
  const size_t DiscountedBefore = Unreachable.size();
  for (size_t I = 0; I < Unreachable.size(); ++I) {
    const BasicBlock *U = Unreachable[I];
    if (I >= DiscountedBefore)
      P.addBlock(*U, -1);
    for (const BasicBlock *Succ : successors(U))
      if (!S.Reachable.contains(Succ))
        Unreachable.insert(Succ);
  }
  P.setUses(Caller);
  if (VerifyTracking)
    verifyCallerProps(Caller);
}

void TrackingInlineAdvisor::onSuccessfulInlining(TrackedAdvice &A,
                                                 bool CalleeWasDeleted) {
  assert(!ForceStop && "no advice is followed once stopped");
  Function *Caller = A.getCaller();
  Function *Callee = A.getCallee();
  const bool KeepAnalysesFresh = keepsAnalysesFresh(*Caller);
  auto AbandonCallerAnalyses = [&] {
    PreservedAnalyses PA = PreservedAnalyses::all();
    PA.abandon<FunctionPropertiesAnalysis>();
    PA.abandon<DominatorTreeAnalysis>();
    PA.abandon<LoopAnalysis>();
    FAM.invalidate(*Caller, PA);
  };
  if (KeepAnalysesFresh) {
    AbandonCallerAnalyses();
  } else {
    // The properties the analysis manager holds are out of date.
    PreservedAnalyses PA = PreservedAnalyses::all();
    PA.abandon<FunctionPropertiesAnalysis>();
    FAM.invalidate(*Caller, PA);
  }
  updateCaller(A);
  if (KeepAnalysesFresh) {
    FAM.getResult<DominatorTreeAnalysis>(*Caller);
    FAM.getResult<LoopAnalysis>(*Caller);
  }
  const int64_t IRSizeAfter =
      getIRSize(*Caller) + (CalleeWasDeleted ? 0 : A.CalleeIRSize);
  CurrentIRSize += IRSizeAfter - (A.CallerIRSize + A.CalleeIRSize);
  if (CurrentIRSize > SizeIncreaseThreshold * InitialIRSize) {
    ForceStop = true;
    // From here on the analysis manager's dominator tree and loops answer,
    // as MLInlineAdvisor left them: computed right after this inlining.
    if (!KeepAnalysesFresh) {
      AbandonCallerAnalyses();
      FAM.getResult<DominatorTreeAnalysis>(*Caller);
      FAM.getResult<LoopAnalysis>(*Caller);
    }
  }
  int64_t NewEdges = getLocalCalls(*Caller);
  if (CalleeWasDeleted) {
    --NodeCount;
    NodesInLastSCC.erase(CG.lookup(*Callee));
    CFGs.erase(Callee);
  } else {
    NewEdges += getLocalCalls(*Callee);
  }
  EdgeCount += NewEdges - A.CallerAndCalleeEdges;
}

//===-- Advice ------------------------------------------------------------===//

TrackedAdvice::TrackedAdvice(TrackingInlineAdvisor *Advisor, CallBase &CB,
                             OptimizationRemarkEmitter &ORE,
                             bool Recommendation)
    : InlineAdvice(Advisor, CB, ORE, Recommendation),
      CallerIRSize(Advisor->isForcedToStop() ? 0 : Advisor->getIRSize(*Caller)),
      CalleeIRSize(Advisor->isForcedToStop() ? 0 : Advisor->getIRSize(*Callee)),
      CallerAndCalleeEdges(Advisor->isForcedToStop()
                               ? 0
                               : Advisor->getLocalCalls(*Caller) +
                                     Advisor->getLocalCalls(*Callee)),
      PreInlineCallerProps(Advisor->getCachedProps(*Caller)) {
  if (!Recommendation)
    return;
  // FunctionPropertiesUpdater's set-up: discount the blocks inlining may
  // change - the call's, the entry (new allocas), the successors (and the
  // landing pad's, which inlining through an invoke may split) - now.
  Tracks = true;
  CallSiteBB = CB.getParent();
  OldSuccessors.assign(succ_begin(CallSiteBB), succ_end(CallSiteBB));
  Frontier.insert(OldSuccessors.begin(), OldSuccessors.end());
  if (const auto *II = dyn_cast<InvokeInst>(&CB)) {
    UnwindDest = II->getUnwindDest();
    OldUnwindSuccessors.assign(succ_begin(UnwindDest), succ_end(UnwindDest));
    Frontier.insert(OldUnwindSuccessors.begin(), OldUnwindSuccessors.end());
  }
  Frontier.erase(CallSiteBB);
  SmallPtrSet<const BasicBlock *, 8> Discount(Frontier.begin(), Frontier.end());
  Discount.insert(CallSiteBB);
  Discount.insert(&Caller->getEntryBlock());
  InlineFunctionProps &P = Advisor->getCachedProps(*Caller);
  for (const BasicBlock *BB : Discount)
    P.addBlock(*BB, -1);
}

TrackingInlineAdvisor &TrackedAdvice::getTracker() const {
  return *static_cast<TrackingInlineAdvisor *>(Advisor);
}

void TrackedAdvice::remark(StringRef Name, bool Passed) {
  auto Fill = [&](auto R) {
    R << ore::NV("Callee", Callee->getName());
    ModelRunner &Runner = getTracker().getRunner();
    for (size_t I = 0; I < NumberOfFeatures; ++I)
      R << ore::NV(FeatureMap[I].name(), *Runner.getTensor<int64_t>(I));
    R << ore::NV("ShouldInline", isInliningRecommended());
    return R;
  };
  if (Passed)
    ORE.emit([&] {
      return Fill(OptimizationRemark(DEBUG_TYPE, Name, DLoc, Block));
    });
  else
    ORE.emit([&] {
      return Fill(OptimizationRemarkMissed(DEBUG_TYPE, Name, DLoc, Block));
    });
}

void TrackedAdvice::recordInliningImpl() {
  remark("InliningSuccess", true);
  getTracker().onSuccessfulInlining(*this, /*CalleeWasDeleted=*/false);
}

void TrackedAdvice::recordInliningWithCalleeDeletedImpl() {
  remark("InliningSuccessWithCalleeDeleted", true);
  getTracker().onSuccessfulInlining(*this, /*CalleeWasDeleted=*/true);
}

void TrackedAdvice::recordUnsuccessfulInliningImpl(const InlineResult &) {
  getTracker().getCachedProps(*Caller) = PreInlineCallerProps;
  remark("InliningAttemptedAndUnsuccessful", false);
}

void TrackedAdvice::recordUnattemptedInliningImpl() {
  assert(!Tracks && "a recommended inlining is attempted");
  remark("IniningNotAttempted", false);
}

} // namespace mlgo
