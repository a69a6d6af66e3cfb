//===- InlinerPlugin.cpp - Hooking the advisor into LLVM ------------------===//
//
// The -mlgo-* options, the choice of decision source they describe, and the
// advisor factory handed to LLVM's PluginInlineAdvisorAnalysis.
//
// LLVM calls the factory with a FunctionAnalysisManager only, while
// MLInlineAdvisor needs the ModuleAnalysisManager; we remember the latter
// when the analysis is registered with it (one per compilation, on the
// compiling thread).
//
// Setup errors (a missing or malformed model, conflicting options, an
// unwritable log) are compiler errors: they go to the module's
// LLVMContext's diagnostic handler, as LLVM's own backend errors do, so
// clang prints "error: mlgo: ..." and exits 1 without writing its output
// (and without a crash banner); where no handler takes errors (opt) they
// stop the compilation as a fatal error ("LLVM ERROR: mlgo: ..."), which
// removes the output file. The compilation is
// never finished with another policy in silence: after the error, LLVM's
// own advisor stands in only so that the pipeline can end cleanly, and its
// output is discarded. The options are checked at the start of every
// pipeline, -O0 included, so a bad -mlgo-model is an error whatever the
// optimization level.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/InlinerPlugin.h"

#include "mlgo/IR2Native/SizePredictor.h"

#include "mlgo/Inline/MLGOInlineAdvisor.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Protocol/InteractiveRunner.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/InlineAdvisor.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"

#include "llvm/Support/raw_ostream.h"
#include <optional>

#include <cmath>

using namespace llvm;

namespace mlgo {
namespace {

cl::OptionCategory MLGOCategory("mlgo inliner options");

cl::opt<std::string> ModelPath(
    "mlgo-model", cl::Hidden, cl::cat(MLGOCategory), cl::value_desc("file"),
    cl::desc("Decide with the model in this file (interpreted) instead of "
             "the model embedded in the plugin"));
cl::opt<std::string> ChannelBase(
    "mlgo-interactive-channel-base", cl::Hidden, cl::cat(MLGOCategory),
    cl::value_desc("base"),
    cl::desc("Let a host process decide over the interactive protocol: "
             "observations go to <base>.out, advice comes from <base>.in"));
cl::opt<unsigned> ChannelTimeout(
    "mlgo-interactive-timeout", cl::Hidden, cl::cat(MLGOCategory),
    cl::value_desc("seconds"),
    cl::init(InteractiveRunner::DefaultTimeoutSeconds),
    cl::desc("Interactive mode: how long to wait for the host's advice to "
             "one observation before the compile fails (0: for ever)"));
cl::opt<bool> IncludeDefault(
    "mlgo-interactive-include-default", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Interactive mode: also send LLVM's heuristic decision as the "
             "last feature, 'inlining_default'"));
cl::opt<std::string> StepInfo(
    "mlgo-interactive-step-info", cl::Hidden, cl::cat(MLGOCategory),
    cl::value_desc("file"),
    cl::desc("Interactive mode: write each decision's call site to this "
             "file before its observation is sent, and with "
             "-mlgo-size-score its predicted size delta once known "
             "(docs/python.md, \"Step info\")"));
cl::opt<bool> StepIRStats(
    "mlgo-interactive-ir-stats", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("With -mlgo-interactive-step-info: also write the IR "
             "statistics of each site's caller and callee (IR2Native's "
             "features)"));
cl::opt<std::string> TrainingLog(
    "mlgo-training-log", cl::Hidden, cl::cat(MLGOCategory),
    cl::value_desc("file"),
    cl::desc("Write every policy decision, its features and LLVM's default "
             "decision to this file, in LLVM's training log format"));
cl::opt<bool> TrainingLogScore(
    "mlgo-training-log-score", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Add a per-module score to the training log: the module's IR "
             "instruction count when the inliner finishes ('module_ir_size', "
             "logged after the module's last decision)"));
cl::opt<bool> SizeScore(
    "mlgo-size-score", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Add a per-decision score to the training log: the native "
             "bytes each decision saves as the size model predicts them "
             "('delta_size', float; docs/ir2native.md)"));
cl::opt<bool> SizeScoreDeclined(
    "mlgo-size-score-declined", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("With -mlgo-size-score: a site the policy declines scores the "
             "bytes inlining it would save, estimated without inlining "
             "(docs/ir2native.md), instead of 0"));
cl::opt<bool> SizeScoreVerify(
    "mlgo-size-score-verify", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("With -mlgo-size-score: check each cached prediction and each "
             "reused dominator tree and loop info against a computation "
             "from scratch (a fatal error names the function; for tests)"));
cl::opt<std::string> SizeModelPath(
    "mlgo-size-model", cl::Hidden, cl::cat(MLGOCategory),
    cl::value_desc("file"),
    cl::desc("The native-size model of -mlgo-size-score and "
             "print<ir2native>, interpreted (default: the model embedded in "
             "the plugin)"));
cl::opt<bool> DefaultPolicy(
    "mlgo-default-policy", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Let LLVM's heuristic decide (through mlgo's advisor, so the "
             "decisions can be logged)"));
cl::opt<uint64_t> ExploreSeed(
    "mlgo-explore-seed", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Explore: sample each decision from the model's probability, "
             "with this seed"));
cl::opt<float> ExploreTemperature(
    "mlgo-explore-temperature", cl::Hidden, cl::cat(MLGOCategory),
    cl::init(1.0),
    cl::desc("Exploration temperature: p(inline) = sigmoid(logit / T)"));
cl::opt<float> SizeIncreaseThreshold(
    "mlgo-size-increase-threshold", cl::Hidden, cl::cat(MLGOCategory),
    cl::init(2.0f),
    cl::desc("Stop ML-driven inlining in a module once its IR has grown by "
             "this factor (mandatory inlining continues)"));
cl::opt<bool> ExtraFeatures(
    "mlgo-extra-features", cl::Hidden, cl::cat(MLGOCategory), cl::init(true),
    cl::desc("Offer the features beyond upstream's 38 (to models, hosts and "
             "logs)"));
cl::list<uint32_t> Flip(
    "mlgo-flip", cl::Hidden, cl::cat(MLGOCategory), cl::CommaSeparated,
    cl::value_desc("i,j,..."),
    cl::desc("Invert the policy's decisions with these indices (0, 1, ... "
             "in the order the inliner asks, per module; the 'decision' "
             "column of a training run's counterfactuals.csv) and apply the "
             "others as the policy decides"));
cl::opt<std::string> DecisionsPath(
    "mlgo-decisions", cl::Hidden, cl::cat(MLGOCategory), cl::value_desc("file"),
    cl::desc("Apply the inlining decisions in this file (written by `mlgo "
             "tune`) at the call sites it lists; the policy decides every "
             "other site"));
cl::opt<bool> UseLLVMAdvisor(
    "mlgo-use-llvm-advisor", cl::Hidden, cl::cat(MLGOCategory),
    cl::desc("Use LLVM's own DefaultInlineAdvisor, exactly as if the plugin "
             "were not loaded (baselines)"));

thread_local ModuleAnalysisManager *CurrentMAM = nullptr;
thread_local std::shared_ptr<const InlinerConfig> CurrentConfig;
/// Whether the pipeline this thread built last optimizes for speed
/// (-O1/-O2/-O3), noted when it starts; a pass pipeline named without a
/// level (opt -passes=inline) counts as not.
thread_local bool PipelineForSpeed = false;
[[noreturn]] void fatal(const Twine &Message) {
  report_fatal_error("mlgo: " + Message, /*gen_crash_diag=*/false);
}

/// The module whose setup error was reported last: each module's
/// compilation reports it once, whether the pipeline-start check or the
/// advisor factory finds it first.
thread_local const Module *ReportedModule = nullptr;

/// Reports a setup error as an error of \p M's compilation (once per
/// module).
void reportSetupError(Module &M, Error E) {
  if (ReportedModule == &M) {
    consumeError(std::move(E));
    return;
  }
  ReportedModule = &M;
  std::string Message = toString(std::move(E));
  // What LLVMContext::emitError sends, without its exit(1) when no
  // handler takes it.
  // The diagnostic keeps a reference to its Twine.
  std::string Full = "mlgo: " + Message;
  Twine Text(Full);
  DiagnosticInfoInlineAsm DI(Text, DS_Error);
  // clang's handler reports it as an error and fails the compilation.
  const DiagnosticHandler *H = M.getContext().getDiagHandlerPtr();
  if (H && const_cast<DiagnosticHandler *>(H)->handleDiagnostics(DI))
    return;
  // No handler takes it (opt): stop now, as LLVM does for a fatal error,
  // which also removes the output file.
  fatal(Message);
}

/// Forwards LLVM's size bound option from ours, when ours is given.
void applySizeThreshold() {
  if (SizeIncreaseThreshold.getNumOccurrences() == 0)
    return;
  auto &Opts = cl::getRegisteredOptions();
  auto It = Opts.find("ml-advisor-size-increase-threshold");
  if (It == Opts.end())
    fatal("this LLVM has no -ml-advisor-size-increase-threshold option");
  // Let LLVM's own option parse the value, so the type always matches.
  std::string Value;
  raw_string_ostream(Value) << SizeIncreaseThreshold.getValue();
  It->second->addOccurrence(0, It->second->ArgStr, Value);
}

/// What the model the configuration selects needs from the heuristic.
Expected<ModelHeuristicUse> heuristicUseOf(const InlinerConfig &C) {
  if (C.TheModel)
    return mlgo::getModelHeuristicUse(*C.TheModel);
  return mlgo::getModelHeuristicUse(C.ModelPath);
}

Expected<std::unique_ptr<ModelRunner>>
createRunner(Module &M, const InlinerConfig &C, MLGOInlineAdvisorOptions &O) {
  std::vector<TensorSpec> Inputs = MLGOInlineAdvisor::getRunnerInputs(O);
  switch (O.Source) {
  case InlineDecisionSource::DefaultHeuristic:
    return std::make_unique<NoInferenceRunner>(std::move(Inputs));
  case InlineDecisionSource::Interactive: {
    LLVMContext &Ctx = M.getContext();
    // Stock LLVM emits protocol errors through the context; so do we, and
    // emitError's default handler stops the compilation.
    auto OnError = [&Ctx](Error E) {
      Ctx.emitError("mlgo: " + toString(std::move(E)));
    };
    return std::make_unique<InteractiveRunner>(
        std::move(Inputs), getInlineDecisionSpec(), C.ChannelBase + ".out",
        C.ChannelBase + ".in", OnError, C.ChannelTimeoutSeconds);
  }
  case InlineDecisionSource::Model: {
    auto R = C.TheModel ? createModelRunner(C.TheModel, std::move(Inputs), O)
                        : createModelRunner(C.ModelPath, std::move(Inputs), O);
    if (!R)
      return R.takeError();
    return std::move(*R);
  }
  }
  llvm_unreachable("unknown decision source");
}

Expected<InlineAdvisor *> tryCreateAdvisor(const InlinerConfig &C, Module &M,
                                           FunctionAnalysisManager &FAM,
                                           InlineParams Params,
                                           InlineContext IC) {
  if (C.UseLLVMAdvisor)
    return new DefaultInlineAdvisor(M, FAM, Params, IC);
  if (!CurrentMAM)
    fatal("the inline advisor was requested before mlgo's analysis was "
          "registered");
  MLGOInlineAdvisorOptions Options = C.Options;
  Options.Stage = getInlineStage(IC.LTOPhase);
  // clang runs in the directory the build compiled the source in.
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    Cwd.clear();
  if (C.Decisions && Options.Stage == InlineStage::FullLTOLink &&
      !C.Decisions->Modules.empty() && llvm::none_of(M, [](const Function &F) {
        return F.getMetadata("mlgo.src") != nullptr;
      }))
    return makeError(
        C.DecisionsPath +
        ": a decisions file cannot apply in this full LTO link: no function "
        "of its merged module carries the name of its source, which mlgo's "
        "plugin gives them in the compile steps (docs/decisions.md, "
        "\"LTO\"); compile with mlgo-clang or -fpass-plugin");
  if (isLinkStage(Options.Stage) && !Options.TrainingLogPath.empty() &&
      Options.TrainingLogPath != "-" &&
      Options.Stage == InlineStage::ThinLTOLink) {
    // The ThinLTO backends run in parallel, one module each: one log per
    // module, named after it.
    std::string Name = M.getModuleIdentifier();
    for (char &Ch : Name)
      if (!isAlnum(Ch) && Ch != '.' && Ch != '-' && Ch != '_')
        Ch = '_';
    Options.TrainingLogPath += "." + Name;
    Options.SitesPath = Options.TrainingLogPath + ".sites";
  }
  if (C.Decisions && isLinkStage(Options.Stage)) {
    // In a link, entries are found by the names the compile steps left
    // (docs/decisions.md, "LTO").
    Options.LinkDecisions = C.Decisions;
    Options.FixedFileName = C.DecisionsPath;
    if (Options.Stage == InlineStage::ThinLTOLink)
      Options.LinkModuleSource = resolveSourcePath(M.getSourceFileName(), Cwd);
  } else if (C.Decisions) {
    Options.Fixed =
        C.Decisions->find(resolveSourcePath(M.getSourceFileName(), Cwd));
    Options.ProgramFixed = C.Decisions->Program;
    Options.FixedFileName = C.DecisionsPath;
  }
  if (Options.Stage == InlineStage::ThinLTOPreLink ||
      Options.Stage == InlineStage::FullLTOPreLink)
    Options.SiteNamesSource = resolveSourcePath(M.getSourceFileName(), Cwd);
  if (Options.Source == InlineDecisionSource::Model) {
    // A model that reads the heuristic's decision gets it, taken with the
    // model's own heuristic settings.
    Expected<ModelHeuristicUse> Use = heuristicUseOf(C);
    if (!Use)
      return Use.takeError();
    Options.IncludeDefault = Use->ReadsDefault;
    if (Use->Settings.InlineThreshold)
      setInlineThreshold(Params, *Use->Settings.InlineThreshold);
  }
  std::unique_ptr<LogWriter> Log;
  if (C.LogBuffer || !Options.TrainingLogPath.empty()) {
    std::optional<TensorSpec> Score;
    if (Options.SizeScore)
      Score = MLGOInlineAdvisor::getSizeScoreSpec();
    else if (Options.LogModuleScore)
      Score = MLGOInlineAdvisor::getLogScoreSpec();
    if (C.LogBuffer) {
      Log = std::make_unique<LogWriter>(
          std::make_unique<raw_string_ostream>(*C.LogBuffer),
          MLGOInlineAdvisor::getLogFeatures(Options), Score);
    } else {
      std::error_code EC;
      auto File = std::make_unique<raw_fd_ostream>(Options.TrainingLogPath, EC);
      if (EC)
        return makeError("cannot open training log '" +
                         Options.TrainingLogPath + "': " + EC.message());
      Log = std::make_unique<LogWriter>(
          std::move(File), MLGOInlineAdvisor::getLogFeatures(Options), Score);
    }
  }
  Expected<std::unique_ptr<ModelRunner>> Runner = createRunner(M, C, Options);
  if (!Runner)
    return Runner.takeError();
  return new MLGOInlineAdvisor(M, *CurrentMAM, std::move(*Runner), Params,
                               std::move(Options), std::move(Log));
}

/// The advisor for \p C, or (the setup error reported) LLVM's own, so that
/// the pipeline ends without a crash; the compilation fails either way.
InlineAdvisor *createAdvisor(const InlinerConfig &C, Module &M,
                             FunctionAnalysisManager &FAM, InlineParams Params,
                             InlineContext IC) {
  Expected<InlineAdvisor *> A = tryCreateAdvisor(C, M, FAM, Params, IC);
  if (A)
    return *A;
  reportSetupError(M, A.takeError());
  return new DefaultInlineAdvisor(M, FAM, Params, IC);
}

/// mlgo's advisor deciding as LLVM's heuristic does, with \p C's decisions
/// file, logs and site names; \p ModelInTheLink says (in its remarks) that
/// the model decides in the link instead.
InlineAdvisor *createHeuristicAdvisor(const InlinerConfig &C, Module &M,
                                      FunctionAnalysisManager &FAM,
                                      InlineParams Params, InlineContext IC,
                                      bool ModelInTheLink = false) {
  InlinerConfig H = C;
  H.Options.Source = InlineDecisionSource::DefaultHeuristic;
  H.Options.ModelInTheLink = ModelInTheLink;
  return createAdvisor(H, M, FAM, Params, IC);
}

/// The configuration the -mlgo-* options describe, read once per process
/// (clang parses -mllvm options after loading the plugin, so not before the
/// first compilation), or why they describe none.
struct OptionsConfig {
  std::optional<InlinerConfig> Config;
  std::string Error;
};
const OptionsConfig &getOptionsConfig() {
  static const OptionsConfig Config = [] {
    OptionsConfig O;
    Expected<InlinerConfig> C = getInlinerConfigFromOptions();
    if (!C) {
      O.Error = toString(C.takeError());
      return O;
    }
    applySizeThreshold();
    O.Config = std::move(*C);
    return O;
  }();
  return Config;
}

/// The other areas' checks (registerSetupCheck).
std::vector<std::function<Error()>> &getSetupChecks() {
  static std::vector<std::function<Error()>> Checks;
  return Checks;
}

/// Why the -mlgo-* options cannot configure a compilation, if they cannot:
/// conflicting options, or a model that does not load.
Error checkOptions() {
  for (const std::function<Error()> &Check : getSetupChecks())
    if (Error E = Check())
      return E;
  const OptionsConfig &O = getOptionsConfig();
  if (!O.Config)
    return makeError(O.Error);
  const InlinerConfig &C = *O.Config;
  if (C.UseLLVMAdvisor || C.Options.Source != InlineDecisionSource::Model)
    return Error::success();
  Expected<ModelHeuristicUse> Use = heuristicUseOf(C);
  return Use ? Error::success() : Use.takeError();
}

/// Whether the decisions file in \p C was written for the kind of pipeline
/// this thread built (docs/decisions.md, "Size and speed"): entries tuned
/// for size must not decide a speed build, nor the reverse.
Error checkObjective(const InlinerConfig &C) {
  if (!C.Decisions)
    return Error::success();
  bool ForSpeed = C.Decisions->isForSpeed();
  // The file and the line of its 'meta objective' (none for a file for
  // size that does not say so).
  std::string Where = C.DecisionsPath;
  if (unsigned Line = C.Decisions->getMetaLine("objective"))
    Where += ":" + std::to_string(Line);
  if (PipelineForSpeed && !ForSpeed)
    return makeError(Where +
                     ": decisions tuned for size (-Os/-Oz) cannot apply to "
                     "a build for speed (-O1/-O2/-O3); tune for speed with "
                     "`mlgo tune --objective speed`");
  if (!PipelineForSpeed && ForSpeed)
    return makeError(Where +
                     ": decisions tuned for speed (-O2) cannot apply to a "
                     "build for size or without an optimization level; "
                     "build with -O2");
  return Error::success();
}

/// Checks the options at the start of every pipeline, -O0 included.
struct CheckOptionsPass : PassInfoMixin<CheckOptionsPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (Error E = checkOptions()) {
      reportSetupError(M, std::move(E));
      return PreservedAnalyses::all();
    }
    // Here too, not only where an inline advisor is made: -O0 (and clang
    // without -O) makes none, and a file for speed must be refused there
    // as documented, not silently left unused.
    if (const OptionsConfig &O = getOptionsConfig(); O.Config)
      if (Error E = checkObjective(*O.Config))
        reportSetupError(M, std::move(E));
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

/// Whether \p C's decisions file is for speed and has inlining entries for
/// \p M.
bool hasSpeedInliningEntries(const InlinerConfig &C, Module &M) {
  if (!C.Decisions || !C.Decisions->isForSpeed())
    return false;
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    Cwd.clear();
  std::shared_ptr<const ModuleDecisions> E =
      C.Decisions->find(resolveSourcePath(M.getSourceFileName(), Cwd));
  return E && !E->Sites.empty();
}

/// Whether some function of \p M is optimized for size (optsize or
/// minsize: built with -Os or -Oz).
bool hasSizeFunctions(const Module &M) {
  for (const Function &F : M)
    if (!F.isDeclaration() && F.hasOptSize())
      return true;
  return false;
}

/// The advisor of an LTO link's inliner (docs/plugin.md, "In the link").
/// No pipeline-start callback runs there, so the options are checked
/// here. The link's pipeline is -O2 whatever the compile steps' level was
/// (clang passes -plugin-opt=O2 for -Os and -Oz), so the level cannot say
/// whether to optimize for size; the functions' attributes can. Without a
/// policy asked for, a module with no -Os/-Oz function keeps LLVM's
/// advisor (a speed build links as with stock clang), and in the others
/// the embedded model decides the sites whose caller is optimized for
/// size and LLVM's heuristic the rest.
InlineAdvisor *createLinkAdvisor(const InlinerConfig &Config, Module &M,
                                 FunctionAnalysisManager &FAM,
                                 InlineParams Params, InlineContext IC) {
  if (Error E = checkOptions()) {
    reportSetupError(M, std::move(E));
    return new DefaultInlineAdvisor(M, FAM, Params, IC);
  }
  if (IC.Pass == InlinePass::EarlyInliner)
    return new DefaultInlineAdvisor(M, FAM, Params, IC);
  if (Config.ExplicitPolicy || Config.UseLLVMAdvisor)
    return createAdvisor(Config, M, FAM, Params, IC);
  // A decisions file for speed fixes some of the heuristic's decisions.
  if (Config.Decisions && Config.Decisions->isForSpeed())
    return createHeuristicAdvisor(Config, M, FAM, Params, IC);
  if (!hasSizeFunctions(M))
    return new DefaultInlineAdvisor(M, FAM, Params, IC);
  InlinerConfig C = Config;
  C.Options.HeuristicForSpeedCallers = true;
  return createAdvisor(C, M, FAM, Params, IC);
}

} // namespace

Expected<InlinerConfig> getInlinerConfigFromOptions() {
  InlinerConfig C;
  MLGOInlineAdvisorOptions &O = C.Options;
  unsigned Sources = !ModelPath.empty() + !ChannelBase.empty() + DefaultPolicy;
  if (Sources > 1)
    return makeError("-mlgo-model, -mlgo-interactive-channel-base and "
                     "-mlgo-default-policy are exclusive; give at most one");
  if (!ChannelBase.empty())
    O.Source = InlineDecisionSource::Interactive;
  else if (DefaultPolicy)
    O.Source = InlineDecisionSource::DefaultHeuristic;
  else
    O.Source = InlineDecisionSource::Model;
  if (ExploreSeed.getNumOccurrences()) {
    if (O.Source != InlineDecisionSource::Model)
      return makeError(
          "-mlgo-explore-seed samples from a model's probability; it "
          "cannot be combined with interactive or default-policy mode");
    if (!(ExploreTemperature > 0) || !std::isfinite(ExploreTemperature))
      return makeError("-mlgo-explore-temperature must be a positive number");
    O.ExploreSeed = ExploreSeed;
    O.ExploreTemperature = ExploreTemperature;
  }
  if (IncludeDefault && O.Source != InlineDecisionSource::Interactive)
    return makeError("-mlgo-interactive-include-default needs "
                     "-mlgo-interactive-channel-base");
  O.IncludeDefault = IncludeDefault;
  if (!StepInfo.empty() && O.Source != InlineDecisionSource::Interactive)
    return makeError("-mlgo-interactive-step-info needs "
                     "-mlgo-interactive-channel-base");
  if (StepIRStats && StepInfo.empty())
    return makeError("-mlgo-interactive-ir-stats needs "
                     "-mlgo-interactive-step-info");
  O.StepInfoPath = StepInfo;
  O.StepIRStats = StepIRStats;
  O.ExtraFeatures = ExtraFeatures;
  O.TrainingLogPath = TrainingLog;
  // Names beside the log, for `mlgo log dump`.
  if (!TrainingLog.empty() && TrainingLog != "-")
    O.SitesPath = TrainingLog + ".sites";
  if (TrainingLogScore && TrainingLog.empty())
    return makeError("-mlgo-training-log-score needs -mlgo-training-log");
  O.LogModuleScore = TrainingLogScore;
  if (SizeScore) {
    if (TrainingLog.empty())
      return makeError("-mlgo-size-score needs -mlgo-training-log");
    if (TrainingLogScore)
      return makeError("-mlgo-size-score and -mlgo-training-log-score are "
                       "exclusive: a log has one score");
    Expected<std::unique_ptr<SizePredictor>> P =
        SizePredictor::create(SizeModelPath);
    if (!P)
      return P.takeError();
    O.SizeScore = std::move(*P);
    O.VerifySizeScore = SizeScoreVerify;
    O.ScoreDeclined = SizeScoreDeclined;
  } else if (SizeScoreDeclined) {
    return makeError("-mlgo-size-score-declined needs -mlgo-size-score");
  } else if (!SizeModelPath.empty() && !TrainingLog.empty()) {
    return makeError("-mlgo-size-model names the model of -mlgo-size-score, "
                     "which is not given");
  }
  if (!Flip.empty()) {
    if (UseLLVMAdvisor)
      return makeError("-mlgo-flip inverts decisions of mlgo's advisor; it "
                       "cannot be combined with -mlgo-use-llvm-advisor");
    O.OverrideDecision = invertDecisionsAt({Flip.begin(), Flip.end()});
  }
  if (!DecisionsPath.empty()) {
    if (UseLLVMAdvisor)
      return makeError("-mlgo-decisions applies decisions through mlgo's "
                       "advisor; it cannot be combined with "
                       "-mlgo-use-llvm-advisor");
    Expected<DecisionsFile> F = DecisionsFile::load(DecisionsPath);
    if (!F)
      return F.takeError();
    C.Decisions = std::make_shared<const DecisionsFile>(std::move(*F));
    C.DecisionsPath = DecisionsPath;
  }
  C.ModelPath = ModelPath;
  C.ChannelBase = ChannelBase;
  C.ChannelTimeoutSeconds = ChannelTimeout;
  C.UseLLVMAdvisor = UseLLVMAdvisor;
  // A file for speed fixes some decisions of LLVM's own heuristic.
  C.ExplicitPolicy = Sources > 0 || !TrainingLog.empty() ||
                     (C.Decisions && !C.Decisions->isForSpeed()) ||
                     !Flip.empty() || ExploreSeed.getNumOccurrences() > 0;
  return C;
}

void registerInliner(PassBuilder &PB,
                     std::shared_ptr<const InlinerConfig> Config) {
  // LLVM's factory is a plain function pointer, so the configuration travels
  // like the analysis manager: per compiling thread, set when the analyses
  // are registered at the start of the compilation.
  PB.registerAnalysisRegistrationCallback([Config](ModuleAnalysisManager &MAM) {
    CurrentMAM = &MAM;
    CurrentConfig = Config;
    MAM.registerPass([] {
      return PluginInlineAdvisorAnalysis(
          [](Module &M, FunctionAnalysisManager &FAM, InlineParams Params,
             InlineContext IC) {
            return createAdvisor(*CurrentConfig, M, FAM, Params, IC);
          });
    });
  });
}

std::shared_ptr<const DecisionsFile>
getDecisionsFromOptions(std::string &Path) {
  const OptionsConfig &O = getOptionsConfig();
  if (!O.Config)
    return nullptr;
  Path = O.Config->DecisionsPath;
  return O.Config->Decisions;
}

void registerSetupCheck(std::function<Error()> Check) {
  getSetupChecks().push_back(std::move(Check));
}

void registerInliner(PassBuilder &PB) {
  // print<ir2native>: every function's predicted native size.
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "print<ir2native>")
          return false;
        MPM.addPass(PrintSizePredictionsPass(outs(), SizeModelPath));
        return true;
      });
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM,
                                        OptimizationLevel Level) {
    PipelineForSpeed = Level.getSpeedupLevel() > 0 && Level.getSizeLevel() == 0;
    MPM.addPass(CheckOptionsPass());
  });
  PB.registerAnalysisRegistrationCallback([](ModuleAnalysisManager &MAM) {
    CurrentMAM = &MAM;
    MAM.registerPass([] {
      return PluginInlineAdvisorAnalysis(
          [](Module &M, FunctionAnalysisManager &FAM, InlineParams Params,
             InlineContext IC) -> InlineAdvisor * {
            const OptionsConfig &O = getOptionsConfig();
            if (!O.Config) {
              reportSetupError(M, makeError(O.Error));
              return new DefaultInlineAdvisor(M, FAM, Params, IC);
            }
            InlineStage Stage = getInlineStage(IC.LTOPhase);
            if (isLinkStage(Stage))
              return createLinkAdvisor(*O.Config, M, FAM, Params, IC);
            if (Error E = checkObjective(*O.Config)) {
              reportSetupError(M, std::move(E));
              return new DefaultInlineAdvisor(M, FAM, Params, IC);
            }
            // PGO's pre-inliner (-fprofile-generate and -fprofile-use
            // builds) stays LLVM's: a profile is recorded and read after
            // it, so its decisions must be the instrumented build's, and
            // a decisions file names the main inliner's sites only.
            if (IC.Pass == InlinePass::EarlyInliner)
              return new DefaultInlineAdvisor(M, FAM, Params, IC);
            // A speed build without a policy asked for is stock LLVM's;
            // a file for speed fixes some of LLVM's heuristic's decisions
            // (through mlgo's advisor) in the modules it has inlining
            // entries for.
            if (PipelineForSpeed && !O.Config->ExplicitPolicy) {
              if (!hasSpeedInliningEntries(*O.Config, M))
                return new DefaultInlineAdvisor(M, FAM, Params, IC);
              return createHeuristicAdvisor(*O.Config, M, FAM, Params, IC);
            }
            // The compile step of a full LTO build, without a policy asked
            // for, decides as LLVM's heuristic does: the embedded model
            // decides in the link, where the whole program is seen. Its
            // decisions before a full LTO link made linked programs
            // larger; before a ThinLTO link they paid, and stay
            // (docs/plugin.md, "In the link"). mlgo's advisor still names
            // the sites, for a decisions file given to the link.
            if (Stage == InlineStage::FullLTOPreLink &&
                !O.Config->ExplicitPolicy)
              return createHeuristicAdvisor(*O.Config, M, FAM, Params, IC,
                                            /*ModelInTheLink=*/true);
            return createAdvisor(*O.Config, M, FAM, Params, IC);
          });
    });
  });
}

} // namespace mlgo
