//===- mlgo/Inline/TrackingInlineAdvisor.h - Feature upkeep -----*- C++ -*-===//
//
// TrackingInlineAdvisor does what LLVM 19's MLInlineAdvisor does - the
// mandatory rules (unreachable, never/always-inline, recursion, the module
// size bound), LLVM's 38 features and their upkeep across inlining - with
// the same values, so that a model sees the inputs it saw under
// MLInlineAdvisor and decides alike. It differs in what the upkeep costs.
//
// MLInlineAdvisor, after every inlining, abandons the caller's dominator
// tree and loops and rebuilds both (FunctionPropertiesUpdater::finish asks
// for them), and the inliner then rebuilds the caller's block frequencies,
// which depend on the loops: three passes over the whole caller for each
// inlined call, quadratic in a caller with many inlined calls (tinyxml2's
// xmltest.cpp `main` took 2.3 times stock clang's instructions, half of it
// there). This class keeps, per caller, the set of blocks reachable from the
// entry and the loop depth of blocks, and updates them from the inlined
// region alone:
//
//  * Reachability. An inlining at block B adds the region reached from B's
//    new successors before they meet an old block. When those old blocks are
//    exactly B's successors before the inlining (and, through an invoke, the
//    landing pad keeps its successors), every path among old blocks is kept
//    (the region stands for the old edges), so old blocks keep their
//    reachability and their loops. Otherwise (a callee that never returns,
//    a nounwind callee inlined through an invoke, a split landing pad) the
//    caller's reachable set is recomputed by one walk from the entry.
//  * Loop depth (mlgo's call_site_loop_depth). Depths are computed with a
//    fresh LoopInfo when a site's block has none, and stay valid for old
//    blocks across inlinings that keep every old path; a recomputation
//    happens only when a site lies in code inlined since the last one, or
//    after an inlining that cut old paths.
//  * Function properties. MLInlineAdvisor's FunctionPropertiesInfo fields
//    that are features (blocks, conditionally reached blocks, uses, calls
//    to defined functions, instructions) are taken from the analysis
//    manager when a function is first met in an inliner run (a result of
//    an earlier run included, as MLInlineAdvisor takes them: an unchanged
//    callee keeps its uses as then counted) and kept by the same
//    block-wise update as LLVM's FunctionPropertiesUpdater, with
//    reachability from the set above instead of a dominator tree.
//
// The analysis manager is left as the stock inliner leaves it: the caller's
// analyses are not abandoned after each inlining, so the inliner does not
// rebuild them either. Where LLVM's heuristic may read a caller's block
// frequencies (a caller not optimized for minimum size, or a profile), or
// mlgo's size predictor reads the analyses, the advisor abandons and
// rebuilds them as MLInlineAdvisor did (keepsAnalysesFresh), so that they
// read the same values.
//
// -mlgo-inline-verify-tracking checks every reachable set and loop depth
// served, and the caller's properties after each inlining, against ones
// computed from scratch (a fatal error naming the function on a
// difference).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_TRACKINGINLINEADVISOR_H
#define MLGO_INLINE_TRACKINGINLINEADVISOR_H

#include "mlgo/Runner/ModelRunner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/InlineAdvisor.h"
#include "llvm/Analysis/LazyCallGraph.h"

#include <map>
#include <memory>

namespace llvm {
class ProfileSummaryInfo;
} // namespace llvm

namespace mlgo {

/// The properties of a function that the features read, as LLVM's
/// FunctionPropertiesInfo counts them over the blocks reachable from the
/// entry.
struct InlineFunctionProps {
  int64_t BasicBlockCount = 0;
  int64_t BlocksReachedFromConditionalInstruction = 0;
  int64_t Uses = 0;
  int64_t DirectCallsToDefinedFunctions = 0;
  int64_t TotalInstructionCount = 0;

  /// Adds (\p Direction 1) or removes (-1) \p BB's contribution.
  void addBlock(const llvm::BasicBlock &BB, int64_t Direction);
  /// Sets the uses of \p F (its users, plus one if it is visible outside).
  void setUses(const llvm::Function &F);
  bool operator==(const InlineFunctionProps &O) const;
};

class TrackingInlineAdvisor;

/// The advice of a call site the advisor follows: when inlined, the caller's
/// properties, reachable blocks and the module-wide counts are brought up
/// to date (MLInlineAdvice's role).
class TrackedAdvice : public llvm::InlineAdvice {
public:
  TrackedAdvice(TrackingInlineAdvisor *Advisor, llvm::CallBase &CB,
                llvm::OptimizationRemarkEmitter &ORE, bool Recommendation);

  void recordInliningImpl() override;
  void recordInliningWithCalleeDeletedImpl() override;
  void recordUnsuccessfulInliningImpl(const llvm::InlineResult &R) override;
  void recordUnattemptedInliningImpl() override;

  llvm::Function *getCaller() const { return Caller; }
  llvm::Function *getCallee() const { return Callee; }

private:
  friend class TrackingInlineAdvisor;
  TrackingInlineAdvisor &getTracker() const;
  void remark(llvm::StringRef Name, bool Passed);

  const int64_t CallerIRSize;
  const int64_t CalleeIRSize;
  const int64_t CallerAndCalleeEdges;
  /// The caller's properties before inlining, restored when it fails.
  const InlineFunctionProps PreInlineCallerProps;
  /// Set when inlining is recommended: the call's block, its successors
  /// (and the landing pad's, through an invoke) before the inlining.
  bool Tracks = false;
  llvm::BasicBlock *CallSiteBB = nullptr;
  llvm::BasicBlock *UnwindDest = nullptr;
  llvm::SmallVector<llvm::BasicBlock *, 4> OldSuccessors;
  llvm::SmallVector<llvm::BasicBlock *, 4> OldUnwindSuccessors;
  /// FunctionPropertiesUpdater's frontier: the old successors, which the
  /// update stops at.
  llvm::SmallPtrSet<const llvm::BasicBlock *, 4> Frontier;
};

class TrackingInlineAdvisor : public llvm::InlineAdvisor {
public:
  TrackingInlineAdvisor(llvm::Module &M, llvm::ModuleAnalysisManager &MAM,
                        std::unique_ptr<ModelRunner> Runner);
  ~TrackingInlineAdvisor() override;

  void onPassEntry(llvm::LazyCallGraph::SCC *SCC) override;
  void onPassExit(llvm::LazyCallGraph::SCC *SCC) override;

  bool isForcedToStop() const { return ForceStop; }
  /// \p F's properties, as the last inlining left them.
  InlineFunctionProps &getCachedProps(llvm::Function &F);
  int64_t getIRSize(llvm::Function &F) {
    return getCachedProps(F).TotalInstructionCount;
  }
  int64_t getLocalCalls(llvm::Function &F) {
    return getCachedProps(F).DirectCallsToDefinedFunctions;
  }
  /// Whether \p BB is reachable from its function's entry, as the advisor
  /// decides unreachable call sites.
  bool isReachable(const llvm::BasicBlock &BB);
  /// The loop depth of \p BB in its function.
  unsigned getLoopDepth(const llvm::BasicBlock &BB);

protected:
  std::unique_ptr<llvm::InlineAdvice>
  getAdviceImpl(llvm::CallBase &CB) override;
  std::unique_ptr<llvm::InlineAdvice> getMandatoryAdvice(llvm::CallBase &CB,
                                                         bool Advice) override;
  virtual std::unique_ptr<TrackedAdvice>
  getMandatoryAdviceImpl(llvm::CallBase &CB);
  /// The decision of a call site for the policy: the 38 features are in the
  /// runner's first inputs.
  virtual std::unique_ptr<TrackedAdvice>
  getAdviceFromModel(llvm::CallBase &CB, llvm::OptimizationRemarkEmitter &ORE);
  unsigned getInitialFunctionLevel(const llvm::Function &F) const;
  /// Whether inlinings into \p Caller abandon and rebuild its dominator
  /// tree and loops, as MLInlineAdvisor's do: where something reads the
  /// analysis manager's view of them, or the block frequencies the inliner
  /// rebuilds from them. The answer must not change during a compile.
  virtual bool keepsAnalysesFresh(const llvm::Function &Caller) const {
    return false;
  }
  llvm::ProfileSummaryInfo &getProfileSummary() const { return PSI; }

  ModelRunner &getRunner() { return *Runner; }

private:
  friend class TrackedAdvice;
  struct CFGState;
  CFGState &getCFG(const llvm::Function &F);
  std::unique_ptr<llvm::InlineAdvice>
  getSkipAdviceIfUnreachable(llvm::CallBase &CB);
  void onSuccessfulInlining(TrackedAdvice &Advice, bool CalleeWasDeleted);
  /// Brings the caller's reachable blocks and its properties up to date
  /// after \p Advice's inlining.
  void updateCaller(TrackedAdvice &Advice);
  void verifyTracking(llvm::Function &F);
  void verifyCallerProps(llvm::Function &F);
  void clearCaches();

  std::unique_ptr<ModelRunner> Runner;
  llvm::LazyCallGraph &CG;
  llvm::ProfileSummaryInfo &PSI;
  const float SizeIncreaseThreshold;

  std::map<const llvm::Function *, InlineFunctionProps> PropsCache;
  llvm::DenseMap<const llvm::Function *, std::unique_ptr<CFGState>> CFGs;

  int64_t NodeCount = 0;
  int64_t EdgeCount = 0;
  int64_t EdgesOfLastSeenNodes = 0;
  std::map<const llvm::LazyCallGraph::Node *, unsigned> FunctionLevels;
  int32_t InitialIRSize = 0;
  int32_t CurrentIRSize = 0;
  llvm::SmallPtrSet<const llvm::LazyCallGraph::Node *, 1> NodesInLastSCC;
  llvm::DenseSet<const llvm::LazyCallGraph::Node *> AllNodes;
  bool ForceStop = false;
  /// For -mlgo-inline-tracking-stats: tracked inlinings, those that cut old
  /// paths, and loop depth recomputations.
  uint64_t NumInlinings = 0, NumPathsCut = 0, NumLoopRebuilds = 0;
};

} // namespace mlgo

#endif // MLGO_INLINE_TRACKINGINLINEADVISOR_H
