//===- MLGOInlineAdvisor.cpp - mlgo's inline advisor ----------------------===//
//
// See MLGOInlineAdvisor.h. The base TrackingInlineAdvisor fills the 38
// upstream features into the runner's buffers and only then calls
// getAdviceFromModel(), which is where this class takes over.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/MLGOInlineAdvisor.h"

#include "mlgo/IR2Native/SizePredictor.h"

#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Support/Files.h"

#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ProfileSummaryInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace llvm;

#define DEBUG_TYPE "mlgo-inline"

namespace mlgo {

namespace {

/// The metadata a compile step of an LTO build names functions, sites and
/// used entries with (MLGOInlineAdvisorOptions::SiteNamesSource).
constexpr const char *SourceNameKind = "mlgo.src";
constexpr const char *SiteNameKind = "mlgo.site";
constexpr const char *UsedEntriesName = "mlgo.used";

bool getInlineDeferralDefault() {
  // LLVM's -inline-deferral (a static cl::opt<bool> in InlineAdvisor.cpp)
  // decides deferral for the default advice when InlineParams leaves it
  // open; read it through the option registry.
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find("inline-deferral");
  if (It == Opts.end())
    return false;
  return static_cast<cl::opt<bool> *>(It->second)->getValue();
}

/// Emits "<Verb> <Describe...>" under mlgo-inline as a passed remark if
/// \p Inline, else as a missed one.
template <typename DescribeT>
void emitDecisionRemark(OptimizationRemarkEmitter &ORE, CallBase &CB,
                        bool Inline, StringRef RemarkName, StringRef Verb,
                        DescribeT Describe) {
  if (Inline)
    ORE.emit([&] {
      OptimizationRemark R(DEBUG_TYPE, RemarkName, &CB);
      R << Verb;
      Describe(R);
      return R;
    });
  else
    ORE.emit([&] {
      OptimizationRemarkMissed R(DEBUG_TYPE, RemarkName, &CB);
      R << Verb;
      Describe(R);
      return R;
    });
}

std::string formatNumber(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.4g", V);
  return Buf;
}

} // namespace

InlineStage getInlineStage(ThinOrFullLTOPhase Phase) {
  switch (Phase) {
  case ThinOrFullLTOPhase::None:
    return InlineStage::Compile;
  case ThinOrFullLTOPhase::ThinLTOPreLink:
    return InlineStage::ThinLTOPreLink;
  case ThinOrFullLTOPhase::FullLTOPreLink:
    return InlineStage::FullLTOPreLink;
  case ThinOrFullLTOPhase::ThinLTOPostLink:
    return InlineStage::ThinLTOLink;
  case ThinOrFullLTOPhase::FullLTOPostLink:
    return InlineStage::FullLTOLink;
  }
  llvm_unreachable("unknown LTO phase");
}

StringRef getStageContextName(InlineStage S) {
  switch (S) {
  case InlineStage::Compile:
    return "";
  case InlineStage::ThinLTOPreLink:
    return "thinlto-prelink";
  case InlineStage::FullLTOPreLink:
    return "lto-prelink";
  case InlineStage::ThinLTOLink:
    return "thinlto-link";
  case InlineStage::FullLTOLink:
    return "lto-link";
  }
  llvm_unreachable("unknown inline stage");
}

StringRef getStageRemarkText(InlineStage S) {
  switch (S) {
  case InlineStage::Compile:
    return "";
  case InlineStage::ThinLTOPreLink:
    return "in the ThinLTO compile step";
  case InlineStage::FullLTOPreLink:
    return "in the LTO compile step";
  case InlineStage::ThinLTOLink:
    return "in the ThinLTO link";
  case InlineStage::FullLTOLink:
    return "in the LTO link";
  }
  llvm_unreachable("unknown inline stage");
}

std::function<bool(uint64_t, bool, int64_t)>
invertDecisionsAt(std::vector<uint32_t> Indices) {
  llvm::sort(Indices);
  Indices.erase(std::unique(Indices.begin(), Indices.end()), Indices.end());
  return [Indices = std::move(Indices)](uint64_t Index, bool Proposed,
                                        int64_t) {
    return std::binary_search(Indices.begin(), Indices.end(), Index) ? !Proposed
                                                                     : Proposed;
  };
}

std::vector<TensorSpec>
MLGOInlineAdvisor::getRunnerInputs(const MLGOInlineAdvisorOptions &Options) {
  std::vector<TensorSpec> Specs = getInlineFeatureSpecs(Options.ExtraFeatures);
  if (Options.IncludeDefault)
    Specs.push_back(getInlineDefaultSpec());
  return Specs;
}

std::vector<TensorSpec>
MLGOInlineAdvisor::getLogFeatures(const MLGOInlineAdvisorOptions &Options) {
  std::vector<TensorSpec> Specs = getInlineFeatureSpecs(Options.ExtraFeatures);
  Specs.push_back(getInlineDefaultSpec());
  Specs.push_back(getInlineDecisionSpec());
  return Specs;
}

MLGOInlineAdvisor::MLGOInlineAdvisor(Module &M, ModuleAnalysisManager &MAM,
                                     std::unique_ptr<mlgo::ModelRunner> R,
                                     InlineParams Params,
                                     MLGOInlineAdvisorOptions Opts,
                                     std::unique_ptr<LogWriter> Log)
    : TrackingInlineAdvisor(M, MAM, std::move(R)), Runner(getRunner()),
      Params(Params), Options(std::move(Opts)), Log(std::move(Log)) {
  assert(Runner.getInputSpecs() == getRunnerInputs(Options) &&
         "runner built with the wrong inputs");
  if (Options.ExtraFeatures)
    for (size_t I = NumUpstreamInlineFeatures; I < NumInlineFeatures; ++I)
      ExtraFeatureBuffers.push_back(Runner.getTensor<int64_t>(I));
  if (this->Log)
    this->Log->switchContext(getStageContextName(Options.Stage));
  if (Options.Fixed)
    Table.emplace(Options.Fixed);
  if (Options.ProgramFixed)
    ProgramTable.emplace(Options.ProgramFixed);
  if (Options.LinkDecisions)
    setUpLink();
  if (!Options.SiteNamesSource.empty()) {
    LLVMContext &Ctx = M.getContext();
    MDNode *Source =
        MDNode::get(Ctx, MDString::get(Ctx, Options.SiteNamesSource));
    for (Function &F : M)
      if (!F.isDeclaration() && !F.getMetadata(SourceNameKind))
        F.setMetadata(SourceNameKind, Source);
  }
  Record = Options.SiteRecord          ? Options.SiteRecord
           : Options.SitesPath.empty() ? nullptr
                                       : &OwnSites;
  if (!Options.StepInfoPath.empty()) {
    std::error_code EC;
    // Appended to: every advisor of the compile adds its steps.
    StepInfo = std::make_unique<raw_fd_ostream>(Options.StepInfoPath, EC,
                                                sys::fs::OF_Append);
    if (EC) {
      M.getContext().emitError("mlgo: cannot write the step info file '" +
                               Options.StepInfoPath + "': " + EC.message());
      StepInfo.reset();
    } else {
      StepInfo->SetUnbuffered();
    }
  }
}

void MLGOInlineAdvisor::writeStepInfo(CallBase &CB, uint32_t Ordinal) {
  Function &Caller = *CB.getCaller();
  Function &Callee = *CB.getCalledFunction();
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "site " << encodeName(Caller.getName()) << ' '
     << encodeName(Callee.getName()) << ' ' << Ordinal << '\n';
  if (Options.StepIRStats)
    for (auto [Tag, F] : {std::pair<StringRef, Function *>("caller", &Caller),
                          {"callee", &Callee}}) {
      OS << Tag;
      for (int64_t V : computeSizeFeatures(*F, FAM))
        OS << ' ' << V;
      OS << '\n';
    }
  // One write per step: the host reads whole lines once the observation
  // has come, and this write precedes the observation's.
  *StepInfo << Text;
  checkStepInfo();
}

void MLGOInlineAdvisor::checkStepInfo() {
  if (!StepInfo || !StepInfo->has_error())
    return;
  // A full disk: an error of the compilation naming the file, not the
  // stream's "IO failure on output stream" abort when it is destroyed.
  std::error_code EC = StepInfo->error();
  StepInfo->clear_error();
  M.getContext().emitError("mlgo: cannot write the step info file '" +
                           Options.StepInfoPath + "': " + EC.message());
  StepInfo.reset();
}

TensorSpec MLGOInlineAdvisor::getLogScoreSpec() {
  return TensorSpec::createSpec<int64_t>("module_ir_size", {1});
}

TensorSpec MLGOInlineAdvisor::getSizeScoreSpec() {
  return TensorSpec::createSpec<float>("delta_size", {1});
}

/// The advice of a policy decision whose predicted size change is logged
/// as the decision's score (MLGOInlineAdvisorOptions::SizeScore). The
/// sizes before are predicted when the advice is made, the caller's after
/// when the inliner reports the outcome.
class SizeScoredAdvice final : public TrackedAdvice {
public:
  SizeScoredAdvice(MLGOInlineAdvisor *Advisor, CallBase &CB,
                   OptimizationRemarkEmitter &ORE, bool Recommendation,
                   FunctionAnalysisManager &FAM)
      : TrackedAdvice(Advisor, CB, ORE, Recommendation), Owner(*Advisor),
        TTI(FAM.getResult<TargetIRAnalysis>(*CB.getCaller())),
        CallerBefore(Owner.predictSize(*CB.getCaller(), TTI)),
        CalleeBefore(Owner.predictSize(*CB.getCalledFunction(), TTI)),
        DeclinedSaving(!Recommendation && Owner.Options.ScoreDeclined
                           ? Owner.estimateDeclinedSaving(CB, TTI)
                           : 0) {}

  // The base class's record*Impl run first: with a training log it brings
  // the caller's dominator tree and loops up to date.
  void recordInliningImpl() override {
    TrackedAdvice::recordInliningImpl();
    log(CallerBefore - callerAfter());
  }
  void recordInliningWithCalleeDeletedImpl() override {
    // The callee is gone: its address may name another function later.
    Owner.SizeCache.erase(getCallee());
    TrackedAdvice::recordInliningWithCalleeDeletedImpl();
    log(CallerBefore + CalleeBefore - callerAfter());
  }
  void recordUnsuccessfulInliningImpl(const InlineResult &Result) override {
    TrackedAdvice::recordUnsuccessfulInliningImpl(Result);
    log(0);
  }
  // The inliner attempts no site the policy declined.
  void recordUnattemptedInliningImpl() override {
    TrackedAdvice::recordUnattemptedInliningImpl();
    log(DeclinedSaving);
  }

private:
  float callerAfter() {
    return Owner.predictSizeAfterInlining(*getCaller(), TTI);
  }
  void log(float DeltaSize) {
    if (Owner.Log && Owner.Log->hasObservationInProgress())
      Owner.Log->logReward(DeltaSize);
    if (Owner.StepInfo) {
      *Owner.StepInfo << "delta " << format("%.9g", DeltaSize) << '\n';
      Owner.checkStepInfo();
    }
  }

  MLGOInlineAdvisor &Owner;
  const TargetTransformInfo &TTI;
  const float CallerBefore, CalleeBefore;
  /// Options.ScoreDeclined's estimate when the policy declined, else 0.
  const float DeclinedSaving;
};

float MLGOInlineAdvisor::predictFresh(Function &F,
                                      const TargetTransformInfo &TTI,
                                      const DominatorTree *DT,
                                      const LoopInfo *LI) {
  SizeFeatureVector V = computeSizeFeatures(F, TTI, DT, LI);
  if (Options.VerifySizeScore && (DT || LI) &&
      V != computeSizeFeatures(F, TTI, nullptr, nullptr))
    report_fatal_error("mlgo: -mlgo-size-score-verify: the analysis "
                       "manager's dominator tree or loops of '" +
                       F.getName() + "' are out of date");
  float P = Options.SizeScore->predict(V);
  SizeCache[&F] = {P, V};
  return P;
}

float MLGOInlineAdvisor::predictSize(Function &F,
                                     const TargetTransformInfo &TTI) {
  auto It = SizeCache.find(&F);
  if (It != SizeCache.end()) {
    float P = It->second.Prediction;
    if (Options.VerifySizeScore &&
        P != Options.SizeScore->predict(
                 computeSizeFeatures(F, TTI, nullptr, nullptr)))
      report_fatal_error("mlgo: -mlgo-size-score-verify: the cached size "
                         "prediction of '" +
                         F.getName() + "' is out of date");
    return P;
  }
  // The analysis manager's results, when it has them, are current: passes
  // invalidate what they change, and every inlining in this run went
  // through the base class, which (with a training log) updates them.
  return predictFresh(F, TTI, FAM.getCachedResult<DominatorTreeAnalysis>(F),
                      FAM.getCachedResult<LoopAnalysis>(F));
}

float MLGOInlineAdvisor::predictSizeAfterInlining(
    Function &F, const TargetTransformInfo &TTI) {
  return predictFresh(F, TTI, FAM.getCachedResult<DominatorTreeAnalysis>(F),
                      FAM.getCachedResult<LoopAnalysis>(F));
}

float MLGOInlineAdvisor::estimateDeclinedSaving(
    CallBase &CB, const TargetTransformInfo &TTI) {
  Function &Caller = *CB.getCaller();
  Function &Callee = *CB.getCalledFunction();
  const float CallerBefore = predictSize(Caller, TTI);
  const float CalleeBefore = predictSize(Callee, TTI);
  SizeFeatureVector Merged = estimateInlinedFeatures(
      SizeCache.find(&Caller)->second.Features,
      SizeCache.find(&Callee)->second.Features, CB, TTI);
  // A callee that can be dropped once unused and is used only as the
  // callee of calls goes when all of them are inlined: each is credited
  // with its share, so that the sites of a move that inlines every call
  // sum to the whole callee, and the last call gets all of it.
  float Share = 0;
  if (Callee.isDiscardableIfUnused() && !Callee.use_empty() &&
      llvm::all_of(Callee.uses(), [](const Use &U) {
        const auto *Call = dyn_cast<CallBase>(U.getUser());
        return Call && Call->isCallee(&U);
      }))
    Share = CalleeBefore / float(Callee.getNumUses());
  // The merged function is larger than any the model was trained on when
  // the caller is large, and the network is not monotone there: it may
  // predict the caller smaller for the callee's code. Without the
  // simplifications the merge does not see, inlining adds at least the
  // callee less what the call costs: a 5-byte call, an argument set-up
  // of about 3 bytes each, the callee's return.
  const float CallBytes = 5 + 3 * float(CB.arg_size()) + 1;
  const float After =
      std::max(Options.SizeScore->predict(Merged),
               CallerBefore + std::max(CalleeBefore - CallBytes, 0.0f));
  return CallerBefore + Share - After;
}

bool MLGOInlineAdvisor::keepsAnalysesFresh(const Function &Caller) const {
  // The size predictor and the step records read the analysis manager's
  // dominator tree and loops.
  if (Options.SizeScore || !Options.StepInfoPath.empty())
    return true;
  // LLVM's heuristic, where it may decide or be logged, reads the caller's
  // block frequencies unless the caller is optimized for minimum size and
  // there is no profile (InlineCostCallAnalyzer::updateThreshold).
  const bool ReadsHeuristic =
      Log || Options.Source != InlineDecisionSource::Model ||
      Options.IncludeDefault || Options.OverrideDecision ||
      Options.HeuristicForSpeedCallers;
  return ReadsHeuristic &&
         (!Caller.hasMinSize() || getProfileSummary().hasProfileSummary());
}

void MLGOInlineAdvisor::onPassEntry(LazyCallGraph::SCC *SCC) {
  SizeCache.clear();
  TrackingInlineAdvisor::onPassEntry(SCC);
}

std::unique_ptr<TrackedAdvice>
MLGOInlineAdvisor::getMandatoryAdviceImpl(CallBase &CB) {
  // A mandatory inlining changes the caller without a score.
  SizeCache.erase(CB.getCaller());
  return TrackingInlineAdvisor::getMandatoryAdviceImpl(CB);
}

MLGOInlineAdvisor::~MLGOInlineAdvisor() {
  if (!Options.SiteNamesSource.empty())
    finishCompileStepNames();
  if (Table && !Options.FixedFileName.empty())
    reportStaleEntries(*Table, Table->getUnused());
  if (Options.LinkDecisions && !Options.FixedFileName.empty())
    reportLinkStaleEntries();
  if (!Options.SitesPath.empty()) {
    std::string Sites;
    raw_string_ostream OS(Sites);
    for (const DecidedSite &S : OwnSites)
      OS << encodeName(S.Site.Caller) << ' ' << encodeName(S.Site.Callee) << ' '
         << S.Site.Ordinal << '\n';
    if (Error E = writeFileAtomically(Options.SitesPath, Sites))
      M.getContext().emitError("mlgo: " + toString(std::move(E)));
  }
  if (!Log)
    return;
  // LLVM discards the advisor when its inliner run ends, so this is the
  // module as the inliner leaves it. An outcome must follow an observation:
  // a module where the policy decided nothing gets no score.
  if (Options.LogModuleScore && !Options.SizeScore &&
      Log->hasObservationInProgress()) {
    int64_t Size = 0;
    for (const Function &F : M)
      Size += F.getInstructionCount();
    Log->logReward(Size);
  }
  if (std::error_code EC = Log->flushAndTakeError())
    M.getContext().emitError("mlgo: cannot write training log '" +
                             Options.TrainingLogPath + "': " + EC.message());
}

//===-- Names that survive an LTO link ------------------------------------===//
//
// docs/decisions.md, "LTO". A compile step of an LTO build names, in the
// IR it hands the link: each defined function's source (!mlgo.src, the
// resolved source path), each call site it decides by its name there
// (!mlgo.site: source, caller, callee, ordinal, and whether the caller was
// linkonce_odr, for the program's entries), and the entries of the
// decisions file that fixed a site (!mlgo.used, "key\nentry line"). The
// metadata travels with the functions and the calls: into the merged
// module of a full LTO link, into the modules a ThinLTO function is
// imported to, and into the callers the call is inlined into, and no code
// generator reads it.

void MLGOInlineAdvisor::nameSite(CallBase &CB, StringRef Caller,
                                 StringRef Callee, uint32_t Ordinal) {
  LLVMContext &Ctx = M.getContext();
  Metadata *Ops[] = {
      MDString::get(Ctx, Options.SiteNamesSource), MDString::get(Ctx, Caller),
      MDString::get(Ctx, Callee),
      ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), Ordinal)),
      ConstantAsMetadata::get(ConstantInt::get(
          Type::getInt1Ty(Ctx), CB.getCaller()->hasLinkOnceODRLinkage()))};
  CB.setMetadata(SiteNameKind, MDTuple::get(Ctx, Ops));
}

/// "key\nentry line": how !mlgo.used names an entry of module \p Key.
static std::string usedEntryName(StringRef Key, const SiteDecision &S) {
  ModuleDecisions One;
  One.Sites.push_back(S);
  return (Key + "\n" + StringRef(One.printSites()).rtrim('\n')).str();
}

void MLGOInlineAdvisor::finishCompileStepNames() {
  if (!Table)
    return;
  LLVMContext &Ctx = M.getContext();
  NamedMDNode *Used = M.getOrInsertNamedMetadata(UsedEntriesName);
  for (const SiteDecision &S : Table->getUsed())
    Used->addOperand(MDNode::get(
        Ctx, MDString::get(Ctx, usedEntryName(Table->getEntries().Module, S))));
}

std::string MLGOInlineAdvisor::getLinkSource(const Function &F) const {
  if (const MDNode *N = F.getMetadata(SourceNameKind))
    if (N->getNumOperands() == 1)
      if (const auto *S = dyn_cast<MDString>(N->getOperand(0)))
        return S->getString().str();
  if (!F.hasAvailableExternallyLinkage())
    return Options.LinkModuleSource;
  return "";
}

DecisionTable *MLGOInlineAdvisor::getLinkTable(StringRef Source) {
  std::shared_ptr<const ModuleDecisions> E =
      Options.LinkDecisions->find(Source);
  if (!E)
    return nullptr;
  std::unique_ptr<DecisionTable> &T = LinkTables[E->Module];
  if (!T)
    T = std::make_unique<DecisionTable>(E);
  return T.get();
}

void MLGOInlineAdvisor::setUpLink() {
  if (Options.LinkDecisions->Program)
    ProgramTable.emplace(Options.LinkDecisions->Program);
  // The modules whose entries this link answers for: the sources of its
  // own functions (a ThinLTO backend's imported ones are their own
  // backend's), and the modules whose compile steps used entries.
  auto Cover = [&](StringRef Source) {
    if (DecisionTable *T = getLinkTable(Source))
      if (!llvm::is_contained(LinkCovered, T->getEntries().Module))
        LinkCovered.push_back(T->getEntries().Module);
  };
  for (const Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage())
      Cover(getLinkSource(F));
  if (!Options.LinkModuleSource.empty())
    Cover(Options.LinkModuleSource);
  if (const NamedMDNode *Used = M.getNamedMetadata(UsedEntriesName))
    for (const MDNode *N : Used->operands())
      if (N->getNumOperands() == 1)
        if (const auto *S = dyn_cast<MDString>(N->getOperand(0))) {
          UsedInCompileSteps.insert(S->getString());
          StringRef Key = S->getString().split('\n').first;
          for (const auto &Mod : Options.LinkDecisions->Modules)
            if (Mod->Module == Key)
              Cover(Key);
        }
}

std::optional<bool> MLGOInlineAdvisor::lookupInLink(CallBase &CB,
                                                    std::string &Module,
                                                    bool &ForProgram) {
  // A site a compile step decided: by its name there.
  if (const MDNode *Tag = CB.getMetadata(SiteNameKind)) {
    if (Tag->getNumOperands() != 5)
      return std::nullopt;
    const auto *Source = dyn_cast<MDString>(Tag->getOperand(0));
    const auto *Caller = dyn_cast<MDString>(Tag->getOperand(1));
    const auto *Callee = dyn_cast<MDString>(Tag->getOperand(2));
    auto *Ordinal = mdconst::dyn_extract<ConstantInt>(Tag->getOperand(3));
    auto *LinkOnce = mdconst::dyn_extract<ConstantInt>(Tag->getOperand(4));
    if (!Source || !Caller || !Callee || !Ordinal || !LinkOnce)
      return std::nullopt;
    uint32_t N = Ordinal->getZExtValue();
    if (DecisionTable *T = getLinkTable(Source->getString()))
      if (std::optional<bool> D =
              T->lookup(Caller->getString(), Callee->getString(), N)) {
        Module = T->getEntries().Module;
        return D;
      }
    if (!LinkOnce->isZero() && ProgramTable)
      if (std::optional<bool> D = ProgramTable->lookup(
              Caller->getString(), Callee->getString(), N)) {
        ForProgram = true;
        return D;
      }
    return std::nullopt;
  }
  // A site only the link has (a call of another module's function): by its
  // caller's source, caller, callee and ordinal among such sites.
  std::string Source = getLinkSource(*CB.getCaller());
  if (Source.empty())
    return std::nullopt;
  StringRef Caller = getCompileStepName(CB.getCaller()->getName()),
            Callee = getCompileStepName(CB.getCalledFunction()->getName());
  uint32_t N =
      LinkOrdinals[(Source + Twine('\0') + Caller + Twine('\0') + Callee)
                       .str()]++;
  DecisionTable *T = getLinkTable(Source);
  if (!T)
    return std::nullopt;
  std::optional<bool> D = T->lookup(Caller, Callee, N);
  if (D)
    Module = T->getEntries().Module;
  return D;
}

void MLGOInlineAdvisor::reportLinkStaleEntries() {
  for (const std::string &Key : LinkCovered) {
    const DecisionTable &T = *LinkTables.at(Key);
    std::vector<SiteDecision> Stale;
    for (const SiteDecision &S : T.getUnused())
      if (!UsedInCompileSteps.contains(usedEntryName(Key, S)))
        Stale.push_back(S);
    reportStaleEntries(T, Stale);
  }
}

void MLGOInlineAdvisor::reportStaleEntries(
    const DecisionTable &T, const std::vector<SiteDecision> &Stale) {
  if (Stale.empty())
    return;
  // A remark per entry, on its caller when the module defines it (else on
  // the module's first function), for -Rpass-missed=mlgo-inline.
  const Function *First = nullptr;
  for (const Function &F : M)
    if (!F.isDeclaration()) {
      First = &F;
      break;
    }
  for (const SiteDecision &S : Stale) {
    const Function *On = S.isGroup() ? nullptr : M.getFunction(S.Caller);
    if (!On || On->isDeclaration())
      On = First;
    if (!On)
      break;
    OptimizationRemarkMissed R(DEBUG_TYPE, "StaleDecision", On);
    if (!R.isEnabled())
      break;
    R << "decision '" << StringRef(S.Inline ? "inline" : "no-inline") << " "
      << (S.isGroup() ? StringRef("*") : StringRef(S.Caller)) << " " << S.Callee
      << " " << (S.isGroup() ? std::string("*") : std::to_string(S.Ordinal))
      << "' in " << Options.FixedFileName;
    if (S.Line)
      R << ":" << std::to_string(S.Line);
    R << " matches no call site (stale)";
    M.getContext().diagnose(R);
  }
  errs() << "mlgo: " << M.getSourceFileName() << ": " << Stale.size() << " of "
         << T.size() << " entries of module '" << T.getEntries().Module
         << "' in " << Options.FixedFileName
         << " match no call site (stale; `mlgo tune check` lists them)\n";
}

bool MLGOInlineAdvisor::getDefaultDecision(CallBase &CB) {
  // LLVM 19's getDefaultInlineAdvice (static in InlineAdvisor.cpp), through
  // its public pieces: the same cost model, parameters and deferral rule.
  Function &Caller = *CB.getCaller();
  ProfileSummaryInfo *PSI =
      FAM.getResult<ModuleAnalysisManagerFunctionProxy>(Caller)
          .getCachedResult<ProfileSummaryAnalysis>(*Caller.getParent());
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(Caller);
  auto GetAssumptionCache = [&](Function &F) -> AssumptionCache & {
    return FAM.getResult<AssumptionAnalysis>(F);
  };
  auto GetBFI = [&](Function &F) -> BlockFrequencyInfo & {
    return FAM.getResult<BlockFrequencyAnalysis>(F);
  };
  auto GetTLI = [&](Function &F) -> const TargetLibraryInfo & {
    return FAM.getResult<TargetLibraryAnalysis>(F);
  };
  auto GetInlineCost = [&](CallBase &CB) {
    Function &Callee = *CB.getCalledFunction();
    auto &CalleeTTI = FAM.getResult<TargetIRAnalysis>(Callee);
    bool RemarksEnabled =
        Callee.getContext().getDiagHandlerPtr()->isMissedOptRemarkEnabled(
            "inline");
    return getInlineCost(CB, Params, CalleeTTI, GetAssumptionCache, GetTLI,
                         GetBFI, PSI, RemarksEnabled ? &ORE : nullptr);
  };
  return llvm::shouldInline(
             CB, GetInlineCost, ORE,
             Params.EnableDeferral.value_or(getInlineDeferralDefault()))
      .has_value();
}

std::unique_ptr<TrackedAdvice>
MLGOInlineAdvisor::getAdviceFromModel(CallBase &CB,
                                      OptimizationRemarkEmitter &ORE) {
  DecidedByPolicy = true;
  if (!ExtraFeatureBuffers.empty())
    computeExtraFeatures(CB, getCachedProps(*CB.getCaller()),
                         getCachedProps(*CB.getCalledFunction()),
                         getLoopDepth(*CB.getParent()),
                         ExtraFeatureBuffers.data());

  // In a link, a caller built for speed keeps LLVM's heuristic.
  const bool SpeedCaller =
      Options.HeuristicForSpeedCallers && !CB.getCaller()->hasOptSize();
  const InlineDecisionSource Source =
      SpeedCaller ? InlineDecisionSource::DefaultHeuristic : Options.Source;
  const bool NeedDefault = Log || Options.IncludeDefault ||
                           Options.OverrideDecision ||
                           Source == InlineDecisionSource::DefaultHeuristic;
  int64_t Default = NeedDefault ? getDefaultDecision(CB) : 0;
  if (Options.IncludeDefault)
    *Runner.getTensor<int64_t>(Runner.getNumInputs() - 1) = Default;

  // The site's identity, before the source decides: interactive mode
  // sends it ahead of the observation (StepInfo).
  StringRef CallerName = CB.getCaller()->getName(),
            CalleeName = CB.getCalledFunction()->getName();
  const bool NamesSite = Table || ProgramTable || Record ||
                         Options.LinkDecisions ||
                         !Options.SiteNamesSource.empty();
  uint32_t Ordinal = 0;
  if (NamesSite || StepInfo)
    Ordinal = Ordinals[(CallerName + Twine('\0') + CalleeName).str()]++;
  if (StepInfo && Source == InlineDecisionSource::Interactive)
    writeStepInfo(CB, Ordinal);

  int64_t Decision = 0;
  std::optional<double> Logit, Probability;
  switch (Source) {
  case InlineDecisionSource::DefaultHeuristic:
    Decision = Default;
    break;
  case InlineDecisionSource::Interactive:
    Decision = Runner.evaluate<int64_t>() != 0;
    break;
  case InlineDecisionSource::Model: {
    // Model runners are PolicyRunners (see createModelRunner); in
    // exploration mode they sample the decision themselves.
    auto &Policy = static_cast<PolicyRunner &>(Runner);
    Decision = Runner.evaluate<int64_t>() != 0;
    Logit = Policy.getLastLogit();
    if (Options.ExploreSeed)
      Probability = Policy.getLastProbability();
    break;
  }
  }
  bool FixedHere = false, FixedForProgram = false;
  std::string FixedModule;
  const int64_t SourceDecision = Decision;
  if (NamesSite) {
    StringRef Caller = CallerName, Callee = CalleeName;
    if (Table)
      if (std::optional<bool> D = Table->lookup(Caller, Callee, Ordinal)) {
        Decision = *D;
        FixedHere = true;
        FixedModule = Table->getEntries().Module;
      }
    if (Options.LinkDecisions)
      if (std::optional<bool> D =
              lookupInLink(CB, FixedModule, FixedForProgram)) {
        Decision = *D;
        FixedHere = true;
      }
    if (!Options.SiteNamesSource.empty())
      nameSite(CB, Caller, Callee, Ordinal);
    // A program entry decides every copy of a linkonce_odr caller alike,
    // where the module's own entries do not.
    if (!FixedHere && ProgramTable && !Options.LinkDecisions &&
        CB.getCaller()->hasLinkOnceODRLinkage())
      if (std::optional<bool> D =
              ProgramTable->lookup(Caller, Callee, Ordinal)) {
        Decision = *D;
        FixedHere = FixedForProgram = true;
      }
    if (Record) {
      DecidedSite &R = Record->emplace_back();
      R.Site = {Caller.str(), Callee.str(), Ordinal, false};
      R.Logit = Logit ? float(*Logit) : std::nanf("");
      R.Fixed = FixedHere;
    }
  }
  bool Overridden = false;
  if (Options.OverrideDecision) {
    int64_t Applied =
        Options.OverrideDecision(Decisions, Decision != 0, Default);
    Overridden = Applied != Decision;
    Decision = Applied;
  }
  if (Record)
    Record->back().Site.Inline = Decision != 0;
  ++Decisions;
  if (Options.DecisionCounter)
    ++*Options.DecisionCounter;

  if (Log) {
    Log->startObservation();
    const size_t NumFeatures =
        Options.ExtraFeatures ? NumInlineFeatures : NumUpstreamInlineFeatures;
    for (size_t I = 0; I < NumFeatures; ++I)
      Log->logTensorValue(I, Runner.getTensorUntyped(I));
    Log->logTensorValue(NumFeatures, &Default);
    Log->logTensorValue(NumFeatures + 1, &Decision);
    Log->endObservation();
  }

  auto Describe = [&](auto &R) {
    R << "'" << ore::NV("Callee", CB.getCalledFunction()) << "' into '"
      << ore::NV("Caller", CB.getCaller()) << "': ";
    switch (Source) {
    case InlineDecisionSource::DefaultHeuristic:
      R << (SpeedCaller ? "LLVM's heuristic decided (the caller is not "
                          "optimized for size)"
            : Options.ModelInTheLink
                ? "LLVM's heuristic decided (the model decides in the link)"
                : "LLVM's heuristic decided (default-policy mode)");
      break;
    case InlineDecisionSource::Interactive:
      R << "the interactive host decided";
      break;
    case InlineDecisionSource::Model:
      R << (Options.ExploreSeed ? "sampled from " : "decided by ")
        << Options.ModelDescription;
      if (Logit)
        R << " (logit " << ore::NV("Logit", formatNumber(*Logit)) << ")";
      if (Probability)
        R << " (p(inline) " << formatNumber(*Probability) << ")";
      break;
    }
    if (FixedForProgram)
      R << "; fixed by the decisions for the program (the source proposed "
        << (SourceDecision ? "inline" : "no inline") << ")";
    else if (FixedHere)
      R << "; fixed by the decisions for module '" << FixedModule
        << "' (the source proposed "
        << (SourceDecision ? "inline" : "no inline") << ")";
    if (Overridden)
      R << "; inverted on request (-mlgo-flip, or a trainer's flips)";
    if (NeedDefault)
      R << "; heuristic: " << (Default ? "inline" : "no inline");
    if (Options.Stage != InlineStage::Compile)
      R << "; " << getStageRemarkText(Options.Stage);
  };
  emitDecisionRemark(
      ORE, CB, Decision, Decision ? "Inline" : "NoInline",
      Decision ? "advised inlining " : "advised against inlining ", Describe);
  if (Log && Options.SizeScore)
    return std::make_unique<SizeScoredAdvice>(this, CB, ORE, Decision != 0,
                                              FAM);
  return std::make_unique<TrackedAdvice>(this, CB, ORE, Decision != 0);
}

std::unique_ptr<InlineAdvice> MLGOInlineAdvisor::getAdviceImpl(CallBase &CB) {
  DecidedByPolicy = false;
  std::unique_ptr<InlineAdvice> Advice =
      TrackingInlineAdvisor::getAdviceImpl(CB);
  if (!DecidedByPolicy)
    emitNonModelRemark(CB, *Advice);
  return Advice;
}

void MLGOInlineAdvisor::emitNonModelRemark(CallBase &CB,
                                           const InlineAdvice &Advice) {
  // The base class decided without asking the policy. Say why; the checks
  // mirror the order of MLInlineAdvisor::getAdviceImpl and only run when
  // remarks are requested.
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(*CB.getCaller());
  if (!ORE.enabled())
    return;
  Function &Caller = *CB.getCaller();
  Function *Callee = CB.getCalledFunction();
  const MandatoryInliningKind Kind = getMandatoryKind(CB, FAM, ORE);
  StringRef Reason;
  if (!isReachable(*CB.getParent()))
    Reason = "unreachable call site (mandatory)";
  else if (Kind == MandatoryInliningKind::Never)
    Reason = "never-inline call site (mandatory)";
  else if (&Caller == Callee)
    Reason = "recursive call (mandatory)";
  else if (isForcedToStop())
    Reason = "module size bound reached; ML inlining stopped for this module";
  else if (Kind == MandatoryInliningKind::Always)
    Reason = "always-inline call site (mandatory)";
  else
    Reason = "callee cannot be inlined (not viable)";
  auto Describe = [&](auto &R) {
    R << "'" << ore::NV("Callee", Callee) << "' into '"
      << ore::NV("Caller", &Caller) << "': " << Reason;
    if (Options.Stage != InlineStage::Compile)
      R << "; " << getStageRemarkText(Options.Stage);
  };
  bool Inline = Advice.isInliningRecommended();
  emitDecisionRemark(ORE, CB, Inline, "Mandatory",
                     Inline ? "inlining " : "not inlining ", Describe);
}

} // namespace mlgo
