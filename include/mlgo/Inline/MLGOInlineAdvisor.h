//===- mlgo/Inline/MLGOInlineAdvisor.h - mlgo's inline advisor --*- C++ -*-===//
//
// MLGOInlineAdvisor is LLVM 19's MLInlineAdvisor with the decision step
// replaced. Its base, TrackingInlineAdvisor, does what MLInlineAdvisor does -
// correctness-preserving decisions (always/never-inline, recursion,
// non-viable callees, unreachable call sites), the 38 features, the
// function-property caches and the module size bound - with the same values
// at a lower cost (TrackingInlineAdvisor.h). This class adds:
//
//  * the decision source: a learned model (embedded or interpreted), a host
//    over the interactive protocol, or LLVM's own heuristic (for logging);
//  * exploration: sample the decision from the model's probability with a
//    seeded generator, for training;
//  * extra features beyond upstream, offered to models that ask for them;
//  * a training log in LLVM's format, in every mode;
//  * optimization remarks under the name "mlgo-inline" that say, for every
//    call site, what was decided and why.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_MLGOINLINEADVISOR_H
#define MLGO_INLINE_MLGOINLINEADVISOR_H

#include "mlgo/IR2Native/FunctionFeatures.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Inline/InlineFeatures.h"
#include "mlgo/Inline/TrackingInlineAdvisor.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Runner/ModelRunner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/InlineCost.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace mlgo {

class SizePredictor;

/// Where decisions come from.
enum class InlineDecisionSource {
  /// A model: embedded in the plugin, or loaded from a file.
  Model,
  /// A host process over the interactive protocol.
  Interactive,
  /// LLVM's own heuristic; the runner only holds features for logging.
  DefaultHeuristic,
};

/// Where an inliner runs: in a compile step (with or without -flto), or in
/// the optimization backend of an LTO link. LLVM says so in the
/// InlineContext it hands the advisor factory (its LTOPhase), which every
/// pipeline sets, the ThinLTO backends' parallel ones included.
enum class InlineStage {
  /// A compile step without LTO (or opt with a pipeline of no LTO phase).
  Compile,
  /// The compile step of a -flto=thin build (its pre-link pipeline).
  ThinLTOPreLink,
  /// The compile step of a -flto (full) build.
  FullLTOPreLink,
  /// A ThinLTO backend in the link, one module at a time.
  ThinLTOLink,
  /// The full LTO link, on the one merged module.
  FullLTOLink,
};

/// The stage of an inliner whose InlineContext has \p Phase.
InlineStage getInlineStage(llvm::ThinOrFullLTOPhase Phase);
/// Whether \p S runs in the link (post-link) rather than a compile step.
inline bool isLinkStage(InlineStage S) {
  return S == InlineStage::ThinLTOLink || S == InlineStage::FullLTOLink;
}
/// The stage's name in training logs, the context of each module's trace:
/// "" for Compile (the name logs had before stages existed),
/// "thinlto-prelink", "lto-prelink", "thinlto-link", "lto-link".
llvm::StringRef getStageContextName(InlineStage S);
/// The stage as remarks end with it: "" for Compile, else e.g. "in the
/// ThinLTO link".
llvm::StringRef getStageRemarkText(InlineStage S);

struct MLGOInlineAdvisorOptions {
  InlineDecisionSource Source = InlineDecisionSource::Model;
  /// Where this inliner runs; remarks and the log's contexts say so.
  InlineStage Stage = InlineStage::Compile;
  /// Call sites whose caller is not optimized for size (neither optsize
  /// nor minsize) take LLVM's heuristic's decision instead of the
  /// source's: an LTO link runs one -O2 pipeline for every function, and
  /// the size model decides only for the -Os/-Oz ones (docs/plugin.md,
  /// "In the link").
  bool HeuristicForSpeedCallers = false;
  /// The heuristic decides because this is a full LTO build's compile step
  /// and the model decides in its link (docs/plugin.md, "In the link").
  bool ModelInTheLink = false;
  /// Exploration: the model runner samples decisions from
  /// sigmoid(logit / temperature) with this seed.
  std::optional<uint64_t> ExploreSeed;
  float ExploreTemperature = 1.0f;
  /// Offer the features beyond upstream's 38.
  bool ExtraFeatures = true;
  /// Interactive mode: offer the heuristic's decision as a last feature,
  /// "inlining_default" (without stock LLVM 19's slot bug).
  bool IncludeDefault = false;
  /// Where to write a training log; empty for none.
  std::string TrainingLogPath;
  /// Log a per-module score: after the module's last decision, an outcome
  /// holding the module's IR instruction count when the inliner finishes
  /// (getLogScoreSpec()).
  bool LogModuleScore = false;
  /// Log a per-decision score (exclusive with LogModuleScore): after each
  /// policy decision, an outcome "delta_size" (float) holding the native
  /// bytes the decision saves as this predictor sees them - the caller's
  /// predicted size before minus after, plus the callee's before when
  /// inlining deleted it; 0 when nothing was inlined (upstream's
  /// development-mode reward, with mlgo's IR2Native model,
  /// docs/ir2native.md).
  std::shared_ptr<SizePredictor> SizeScore;
  /// With SizeScore: a decision that inlined nothing because the policy
  /// declined the site logs, instead of 0, the bytes inlining it would
  /// save as the predictor estimates them without inlining: the caller's
  /// prediction before, plus the callee's share of its own prediction
  /// when the callee would go once all its calls are inlined, minus the
  /// prediction of the caller's features merged with the callee's
  /// (estimateInlinedFeatures; docs/ir2native.md).
  bool ScoreDeclined = false;
  /// Check every cached or reused size feature vector against one computed
  /// from scratch (-mlgo-size-score-verify); a difference is a fatal error
  /// naming the function.
  bool VerifySizeScore = false;
  /// Short description of the model for remarks ("embedded inline-oz").
  std::string ModelDescription;
  /// Training and research hook: called with each policy decision's index
  /// in the module (0, 1, ...), the decision the source proposed and the
  /// heuristic's decision (always computed when a hook is set); returns the
  /// decision to apply. The log and remarks record the applied decision.
  /// Search-based trainers use it to flip single decisions of a trajectory.
  std::function<bool(uint64_t Index, bool Proposed, int64_t Default)>
      OverrideDecision;
  /// When set, incremented for every policy decision (the in-process
  /// compile worker reports how many decisions a module has).
  uint64_t *DecisionCounter = nullptr;
  /// Decisions fixed per call site (mlgo/Inline/Decisions.h): a decisions
  /// file's entries for this module (-mlgo-decisions), or a tuning try's.
  /// Where an entry names the site, its decision replaces the source's;
  /// OverrideDecision then applies to the result.
  std::shared_ptr<const ModuleDecisions> Fixed;
  /// A decisions file's program entries (its 'program' section): they fix
  /// the sites whose caller is a linkonce_odr function, in every module
  /// that defines it, where Fixed names no entry for the site.
  std::shared_ptr<const ModuleDecisions> ProgramFixed;
  /// The file Fixed (or LinkDecisions) came from. When set, entries that
  /// fixed no decision by the end of the module are reported: a remark each
  /// ("StaleDecision") and a one-line summary on stderr.
  std::string FixedFileName;
  /// In the compile step of an LTO build: the module's source path as a
  /// decisions file is searched with (resolveSourcePath). The advisor then
  /// names, in the IR, every defined function by its source (!mlgo.src),
  /// every call site it decides by its compile-step name (!mlgo.site), and
  /// the entries of Fixed that fixed a site (!mlgo.used), so that the link
  /// finds them wherever the site ends up (docs/decisions.md, "LTO").
  std::string SiteNamesSource;
  /// In an LTO link: the decisions file whose entries fix the link's call
  /// sites, found by the names the compile steps left (or, for a site no
  /// compile step decided, by its caller's source, caller, callee and
  /// ordinal among such sites). Fixed and ProgramFixed are unset then.
  std::shared_ptr<const DecisionsFile> LinkDecisions;
  /// In a ThinLTO link: the source path of the backend's module, for its
  /// own functions that carry no !mlgo.src (compiled without mlgo).
  std::string LinkModuleSource;
  /// When set, every policy decision is appended: its call site, the
  /// applied decision, the model's logit and whether Fixed decided it.
  std::vector<DecidedSite> *SiteRecord = nullptr;
  /// When set, the call site of every policy decision is written to this
  /// file when the module ends, one line per decision in order (beside a
  /// training log, <log>.sites, for `mlgo log dump`):
  ///   <caller> ' ' <callee> ' ' <ordinal> '\n'
  /// with names escaped as in decisions files (docs/decisions.md).
  std::string SitesPath;
  /// Interactive mode: when set, a text record per line is appended to
  /// this file as the compile goes (unbuffered), for the host to read
  /// beside the stream (mlgo.InliningEnv; docs/python.md, "Step info"):
  ///   site <caller> <callee> <ordinal>   before each observation is sent
  ///   caller <n> <n> ...                 with StepIRStats: the caller's and
  ///   callee <n> <n> ...                 callee's IR2Native features
  ///                                      (getSizeFeatureNames() order)
  ///   delta <float>                      with SizeScore: the decision's
  ///                                      score, once the inliner reports it
  /// Names are escaped as in decisions files.
  std::string StepInfoPath;
  /// With StepInfoPath: write the caller and callee records.
  bool StepIRStats = false;
};

/// An OverrideDecision that inverts the decisions at \p Indices (any
/// order, duplicates allowed) and applies every other one as proposed: what
/// the compile worker's flips and the plugin's -mlgo-flip do.
std::function<bool(uint64_t Index, bool Proposed, int64_t Default)>
invertDecisionsAt(std::vector<uint32_t> Indices);

class MLGOInlineAdvisor final : public TrackingInlineAdvisor {
public:
  /// \p Runner's inputs must be getInlineFeatureSpecs(Options.ExtraFeatures)
  /// (+ "inlining_default" when Options.IncludeDefault), in that order.
  MLGOInlineAdvisor(llvm::Module &M, llvm::ModuleAnalysisManager &MAM,
                    std::unique_ptr<mlgo::ModelRunner> Runner,
                    llvm::InlineParams Params, MLGOInlineAdvisorOptions Options,
                    std::unique_ptr<LogWriter> Log);
  ~MLGOInlineAdvisor() override;

  /// The input specs a runner must be built with for \p Options.
  static std::vector<TensorSpec>
  getRunnerInputs(const MLGOInlineAdvisorOptions &Options);
  /// The feature list of the training log for \p Options.
  static std::vector<TensorSpec>
  getLogFeatures(const MLGOInlineAdvisorOptions &Options);
  /// The per-module score: "module_ir_size", int64_t [1].
  static TensorSpec getLogScoreSpec();
  /// The per-decision score: "delta_size", float [1].
  static TensorSpec getSizeScoreSpec();

  void onPassEntry(llvm::LazyCallGraph::SCC *SCC) override;

protected:
  std::unique_ptr<llvm::InlineAdvice>
  getAdviceImpl(llvm::CallBase &CB) override;
  std::unique_ptr<TrackedAdvice>
  getMandatoryAdviceImpl(llvm::CallBase &CB) override;
  std::unique_ptr<TrackedAdvice>
  getAdviceFromModel(llvm::CallBase &CB,
                     llvm::OptimizationRemarkEmitter &ORE) override;
  bool keepsAnalysesFresh(const llvm::Function &Caller) const override;

private:
  bool getDefaultDecision(llvm::CallBase &CB);
  friend class SizeScoredAdvice;
  /// The size model's prediction for \p F as it is now, from the cache
  /// when it holds F's (SizeCache).
  float predictSize(llvm::Function &F, const llvm::TargetTransformInfo &TTI);
  /// The prediction for \p F, which an inlining has just changed: the
  /// analysis manager's dominator tree and loops are up to date (with a
  /// training log the base class keeps them fresh after every inlining, as
  /// MLInlineAdvisor did), so only the instruction walk is done.
  float predictSizeAfterInlining(llvm::Function &F,
                                 const llvm::TargetTransformInfo &TTI);
  float predictFresh(llvm::Function &F, const llvm::TargetTransformInfo &TTI,
                     const llvm::DominatorTree *DT, const llvm::LoopInfo *LI);
  /// Options.ScoreDeclined's estimate for the declined call site \p CB,
  /// its caller and callee predicted (and so cached) first.
  float estimateDeclinedSaving(llvm::CallBase &CB,
                               const llvm::TargetTransformInfo &TTI);
  void reportStaleEntries(const DecisionTable &T,
                          const std::vector<SiteDecision> &Stale);
  /// The names of a site in a compile step of an LTO build, in the IR.
  void nameSite(llvm::CallBase &CB, llvm::StringRef Caller,
                llvm::StringRef Callee, uint32_t Ordinal);
  /// In an LTO link: the fixed decision of \p CB, if an entry of
  /// Options.LinkDecisions names it; sets \p Module to the entry's module
  /// key, or \p ForProgram for a program entry.
  std::optional<bool> lookupInLink(llvm::CallBase &CB, std::string &Module,
                                   bool &ForProgram);
  /// The link's table of the entries for source \p Source, or null.
  DecisionTable *getLinkTable(llvm::StringRef Source);
  /// The source a function of the link was compiled from, or "".
  std::string getLinkSource(const llvm::Function &F) const;
  void setUpLink();
  void finishCompileStepNames();
  void reportLinkStaleEntries();
  void emitNonModelRemark(llvm::CallBase &CB, const llvm::InlineAdvice &Advice);

  mlgo::ModelRunner &Runner; // Owned by the base class.
  const llvm::InlineParams Params;
  const MLGOInlineAdvisorOptions Options;
  std::unique_ptr<LogWriter> Log;
  std::vector<int64_t *> ExtraFeatureBuffers;
  /// Set when getAdviceFromModel ran for the current call site.
  bool DecidedByPolicy = false;
  uint64_t Decisions = 0;
  /// Options.Fixed, indexed.
  std::optional<DecisionTable> Table;
  /// Options.ProgramFixed, indexed.
  std::optional<DecisionTable> ProgramTable;
  /// Where decisions' sites are recorded: Options.SiteRecord, or OwnSites
  /// for Options.SitesPath, or nowhere.
  std::vector<DecidedSite> *Record = nullptr;
  std::vector<DecidedSite> OwnSites;
  /// Options.StepInfoPath, open.
  std::unique_ptr<llvm::raw_fd_ostream> StepInfo;
  /// Writes the step info records that precede \p CB's observation.
  void writeStepInfo(llvm::CallBase &CB, uint32_t Ordinal);
  /// Reports a failed write of the step info (naming the file) and stops
  /// writing it.
  void checkStepInfo();
  /// Policy decisions so far per caller and callee ("caller\0callee"): the
  /// next call site's ordinal.
  llvm::StringMap<uint32_t> Ordinals;
  /// In a link: a table per module of Options.LinkDecisions met, by key;
  /// the keys whose stale entries this link reports, in order; the entries
  /// the compile steps used ("key\nentry line", from !mlgo.used); the
  /// ordinals of the sites no compile step named, per source, caller and
  /// callee.
  std::map<std::string, std::unique_ptr<DecisionTable>> LinkTables;
  std::vector<std::string> LinkCovered;
  llvm::StringSet<> UsedInCompileSteps;
  llvm::StringMap<uint32_t> LinkOrdinals;
  /// -mlgo-size-score's predictions during one inliner run: a function's
  /// prediction after a decision is its prediction before the next one
  /// when nothing else changed it in between. Within a run only the
  /// inliner changes functions: every scored inlining stores the caller's
  /// new prediction, a mandatory one drops the caller's, a deleted callee
  /// is dropped. Cleared when a run starts (the function simplification
  /// passes between runs change functions unseen). -mlgo-size-score-verify
  /// checks every hit. (No instruction-count guard: counting is linear in
  /// the function and cost a third of what the cache saves.)
  /// Each entry keeps the features predicted from, for
  /// Options.ScoreDeclined.
  struct CachedSize {
    float Prediction;
    SizeFeatureVector Features;
  };
  llvm::DenseMap<const llvm::Function *, CachedSize> SizeCache;
};

/// Builds the runner for InlineDecisionSource::Model: the interpreted model
/// in \p ModelPath, or the model embedded in the plugin if it is empty. The
/// runner is a PolicyRunner (it reports logits and does the exploration
/// sampling). Sets Options.ModelDescription.
llvm::Expected<std::unique_ptr<ModelRunner>>
createModelRunner(llvm::StringRef ModelPath, std::vector<TensorSpec> Inputs,
                  MLGOInlineAdvisorOptions &Options);
/// Same, for a model held in memory (the compile worker's case).
llvm::Expected<std::unique_ptr<ModelRunner>>
createModelRunner(std::shared_ptr<const Model> TheModel,
                  std::vector<TensorSpec> Inputs,
                  MLGOInlineAdvisorOptions &Options);

/// What a model needs from LLVM's heuristic: whether it reads the
/// heuristic's decision (the input "inlining_default"), and the settings
/// that decision is taken with.
struct ModelHeuristicUse {
  bool ReadsDefault = false;
  HeuristicSettings Settings;
};
/// For \p M.
ModelHeuristicUse getModelHeuristicUse(const Model &M);
/// For the model in \p ModelPath (the embedded model if empty).
llvm::Expected<ModelHeuristicUse>
getModelHeuristicUse(llvm::StringRef ModelPath);

/// Makes \p Params what LLVM's -inline-threshold=\p Threshold makes them:
/// \p Threshold for every call site, with no -Os/-Oz or cold-callee
/// thresholds below it.
void setInlineThreshold(llvm::InlineParams &Params, int32_t Threshold);

} // namespace mlgo

#endif // MLGO_INLINE_MLGOINLINEADVISOR_H
