//===- lib/Compile/CompileWorker.cpp - Compiling one module in-process
//------===//
//
// compileModule() does what `clang-19 -cc1 <args> -x ir m.bc -o m.o` does
// (cc1_main: parse the arguments into a CompilerInvocation, run
// EmitObjAction), with differences that do not change the object:
//  * the object goes to a per-process file on a RAM disk (clang writes IR
//    inputs' objects to a file whatever output stream is set), read back
//    and removed;
//  * memory is freed after each compile (no -disable-free);
//  * diagnostics go to a string, returned in the error;
//  * mlgo's advisor is registered through CodeGenOptions'
//    PassBuilderCallbacks - the hook -fpass-plugin uses - with an explicit
//    InlinerConfig instead of -mllvm options.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CompileWorker.h"

#include "mlgo/Compile/CodegenMemo.h"
#include "mlgo/Compile/PreInlineCache.h"
#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/IR2Native/FunctionFeatures.h"
#include "mlgo/IR2Native/SizePredictor.h"
#include "mlgo/Inline/InlinerPlugin.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Support/Error.h"

#include "clang/CodeGen/BackendUtil.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace mlgo {

uint64_t hashGroupedName(StringRef Name) { return xxh3_64bits(Name); }

/// Models parsed once per process, by the hash of their text: a worker
/// compiles many modules with the same model.
static Expected<std::shared_ptr<const Model>> getModel(StringRef JSON) {
  static StringMap<std::shared_ptr<const Model>> Cache;
  MD5::MD5Result Digest = MD5::hash(arrayRefFromStringRef(JSON));
  std::string Key(Digest.digest());
  auto It = Cache.find(Key);
  if (It != Cache.end())
    return It->second;
  Expected<Model> M = Model::parse(JSON, "policy model");
  if (!M)
    return M.takeError();
  if (Cache.size() > 64)
    Cache.clear();
  auto Shared = std::make_shared<const Model>(std::move(*M));
  Cache[Key] = Shared;
  return Shared;
}

static Expected<std::shared_ptr<InlinerConfig>>
getInlinerConfig(const CompileJob &Job, std::string *LogBuffer,
                 std::vector<DecidedSite> *Sites, uint64_t *DecisionCounter) {
  const CompilePolicy &P = Job.ThePolicy;
  auto C = std::make_shared<InlinerConfig>();
  switch (P.Kind) {
  case PolicyKind::Stock:
    C->UseLLVMAdvisor = true;
    return C;
  case PolicyKind::Heuristic:
    C->Options.Source = InlineDecisionSource::DefaultHeuristic;
    break;
  case PolicyKind::Embedded:
    // No model in the configuration: the advisor takes the plugin's own.
    C->Options.Source = InlineDecisionSource::Model;
    break;
  case PolicyKind::Model: {
    Expected<std::shared_ptr<const Model>> M = getModel(P.getModelJSON());
    if (!M)
      return M.takeError();
    C->Options.Source = InlineDecisionSource::Model;
    C->TheModel = *M;
    break;
  }
  }
  if (P.ExploreSeed && C->Options.Source == InlineDecisionSource::Model) {
    C->Options.ExploreSeed = P.ExploreSeed;
    C->Options.ExploreTemperature = P.ExploreTemperature;
  }
  if (!P.Flips.empty())
    C->Options.OverrideDecision = invertDecisionsAt(P.Flips);
  C->Options.Fixed = P.Fixed;
  if (Job.WantLog)
    C->LogBuffer = LogBuffer;
  if (Job.WantLog && Job.WantSizeScore) {
    Expected<std::unique_ptr<SizePredictor>> Predictor =
        SizePredictor::create("");
    if (!Predictor)
      return Predictor.takeError();
    C->Options.SizeScore = std::move(*Predictor);
    C->Options.ScoreDeclined = Job.WantDeclinedScore;
  }
  if (Job.WantSites)
    C->Options.SiteRecord = Sites;
  C->Options.DecisionCounter = DecisionCounter;
  return C;
}

char OutputWriteError::ID = 0;

StringRef getScratchObjectPath() {
  // clang writes the object of an IR input to a file, whatever output
  // stream is set; use one per process, on a RAM disk when there is one.
  static const std::string ObjectPath = [] {
    SmallString<128> Path;
    const char *TmpDir = std::getenv("TMPDIR");
    if (TmpDir && *TmpDir)
      Path = TmpDir;
    else if (sys::fs::is_directory("/dev/shm"))
      Path = "/dev/shm";
    else
      sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
    sys::path::append(Path, "mlgo-worker-%%%%%%%%.o");
    SmallString<128> Unique;
    sys::fs::createUniquePath(Path, Unique, /*MakeAbsolute=*/false);
    return std::string(Unique);
  }();
  return ObjectPath;
}

namespace {

/// Keeps the code generator's errors of a memoized compile (the action's
/// own handler went with the action); any error makes it compile again
/// without the memo, which reports it as clang does.
struct CodegenErrors : DiagnosticHandler {
  std::string Text;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() != DS_Error)
      return true;
    raw_string_ostream OS(Text);
    DiagnosticPrinterRawOStream Printer(OS);
    DI.print(Printer);
    OS << '\n';
    return true;
  }
};

/// The rest of a compile whose IR pipeline \p CI is set up for, through
/// the codegen memo (CodegenMemo.h): the object's bytes in \p Object, or
/// false when the memo's result would not be exact and the compile must be
/// done again without it.
Expected<bool> compileThroughMemo(clang::CompilerInstance &CI,
                                  const CompileJob &Job,
                                  const std::string &DiagText,
                                  SmallVectorImpl<char> &Object) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  {
    clang::EmitLLVMOnlyAction Action(&Ctx);
    if (!CI.ExecuteAction(Action))
      return makeError(Job.Module +
                       ": compilation failed: " + StringRef(DiagText).trim());
    M = Action.takeModule();
  }
  if (!M)
    return false;
  auto Errors = std::make_unique<CodegenErrors>();
  CodegenErrors &Seen = *Errors;
  Ctx.setDiagnosticHandler(std::move(Errors));
  CodegenMemo &Memo = getProcessCodegenMemo();
  CodegenMemo::Plan P =
      Memo.prepare(*M, Job.CC1Args, !CI.getCodeGenOpts().VerifyModule);
  // The module is optimized: only the code generator is left to run, with
  // the options and target of the compile.
  clang::CodeGenOptions CodeGen = CI.getCodeGenOpts();
  CodeGen.DisableLLVMPasses = true;
  CodeGen.PassBuilderCallbacks.clear();
  clang::EmitBackendOutput(CI.getDiagnostics(), CI.getHeaderSearchOpts(),
                           CodeGen, CI.getTargetOpts(), CI.getLangOpts(),
                           CI.getTarget().getDataLayoutString(), M.get(),
                           clang::Backend_EmitObj,
                           CI.getFileManager().getVirtualFileSystemPtr(),
                           std::make_unique<raw_svector_ostream>(Object));
  if (!Seen.Text.empty() || CI.getDiagnostics().hasErrorOccurred())
    return false;
  return Memo.finish(
      P, MemoryBufferRef(StringRef(Object.data(), Object.size()), Job.Module));
}

Expected<CompileResult> compileModuleImpl(const CompileJob &Job, bool UseMemo,
                                          bool UsePreInline);

} // namespace

Expected<CompileResult> compileModule(const CompileJob &Job) {
  // The memo gives sizes only: a compile that also reads functions'
  // symbols goes the whole way.
  return compileModuleImpl(
      Job, isCodegenMemoEnabled() && !Job.WantFunctionSizes && !Job.PredictOnly,
      isPreInlineCacheEnabled());
}

namespace {

/// Whether a compile with the options of \p CI may start from a module
/// saved before the inliner: its input is the module's file alone (no
/// bitcode linked in or embedded, no ThinLTO backend).
bool allowsPreInlineCache(const clang::CompilerInstance &CI) {
  const clang::CodeGenOptions &CG = CI.getCodeGenOpts();
  const clang::FrontendOptions &FO = CI.getFrontendOpts();
  return CG.getEmbedBitcode() == clang::CodeGenOptions::Embed_Off &&
         CG.LinkBitcodeFiles.empty() && CG.ThinLTOIndexFile.empty() &&
         FO.Inputs.size() == 1 && FO.Inputs[0].isFile();
}

/// A compile's use of the pre-inline cache (PreInlineCache.h).
struct PreInlineUse {
  std::string Key;
  PreInlineCache::Lookup Found;
  /// With Found.Module: the input's name, which the buffer takes.
  std::string InputName;
  /// With Found.Module: whether the pipeline reached the inliner.
  bool ReachedInliner = false;
  /// With Found.Save.
  PreInlineSnapshot Snapshot;

  /// Sets up \p CI's compile to start from a saved module or to save one.
  void prepare(clang::CompilerInstance &CI, const CompileJob &Job) {
    if (!allowsPreInlineCache(CI))
      return;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Bitcode =
        MemoryBuffer::getFile(Job.BitcodePath, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    // Without its file the compile fails as it would have.
    if (!Bitcode)
      return;
    Key = PreInlineCache::makeKey((*Bitcode)->getBuffer(), Job.CC1Args);
    Found = getProcessPreInlineCache().lookup(Key);
    if (Found.Module) {
      clang::FrontendInputFile &In = CI.getFrontendOpts().Inputs[0];
      InputName = In.getFile().str();
      In = clang::FrontendInputFile(MemoryBufferRef(*Found.Module, InputName),
                                    In.getKind(), In.isSystem());
      CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
          [this](PassBuilder &PB) { skipBeforeInliner(PB, ReachedInliner); });
    } else if (Found.Save) {
      CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
          [this](PassBuilder &PB) { saveBeforeInliner(PB, Snapshot); });
    }
  }

  /// After the IR pipeline ran (\p Succeeded: without an error): saves the
  /// module, or returns true if the compile started from a saved module
  /// and did not reach the inliner (to be done again from the file).
  bool finish(bool Succeeded) {
    PreInlineCache &Cache = getProcessPreInlineCache();
    if (Found.Module) {
      if (ReachedInliner)
        return false;
      Cache.countRedone();
      return true;
    }
    if (!Found.Save)
      return false;
    if (Snapshot.Reached && Snapshot.Cacheable)
      Cache.insert(Key, std::move(Snapshot.Bitcode));
    else if (Snapshot.Reached || Succeeded)
      Cache.markNotCacheable(Key);
    Found.Save = false;
    return false;
  }
};

Expected<CompileResult> compileModuleImpl(const CompileJob &Job, bool UseMemo,
                                          bool UsePreInline) {
  auto Start = std::chrono::steady_clock::now();
  // What cc1_main does before compiling.
  static std::once_flag TargetsInitialized;
  std::call_once(TargetsInitialized, [] {
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers();
  });
  if (Job.WantSites && Job.ThePolicy.Kind == PolicyKind::Stock)
    return makeError(Job.Module + ": the stock policy does not record its "
                                  "call sites; use the heuristic policy");
  if (Job.WantLog && Job.ThePolicy.Kind == PolicyKind::Stock)
    return makeError(Job.Module +
                     ": the stock policy has no decision log; use the "
                     "heuristic policy to log LLVM's decisions");
  CompileResult Result;
  uint64_t Decisions = 0;
  Expected<std::shared_ptr<InlinerConfig>> Config =
      getInlinerConfig(Job, &Result.Log, &Result.Sites, &Decisions);
  if (!Config)
    return makeError(Job.Module + ": " + toString(Config.takeError()));

  // The arguments clang -cc1 would get (CompileCommand.h), minus argv[0]
  // and "-cc1".
  std::string ObjectPath = getScratchObjectPath().str();
  CompileRequest Request;
  Request.CC1Args = Job.CC1Args;
  Request.BitcodePath = Job.BitcodePath;
  Request.OutputPath = ObjectPath;
  std::vector<std::string> Argv = buildCompileCommand(Request);
  std::vector<const char *> Args;
  for (size_t I = 2; I < Argv.size(); ++I)
    Args.push_back(Argv[I].c_str());

  std::string DiagText;
  raw_string_ostream DiagOS(DiagText);
  IntrusiveRefCntPtr<clang::DiagnosticOptions> DiagOpts =
      new clang::DiagnosticOptions();
  auto *Printer = new clang::TextDiagnosticPrinter(DiagOS, &*DiagOpts);
  IntrusiveRefCntPtr<clang::DiagnosticIDs> DiagIDs(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine ArgDiags(DiagIDs, &*DiagOpts, Printer,
                                    /*ShouldOwnClient=*/false);

  clang::CompilerInstance CI;
  auto Invocation = std::make_shared<clang::CompilerInvocation>();
  bool ArgsOK = clang::CompilerInvocation::CreateFromArgs(*Invocation, Args,
                                                          ArgDiags, "clang-19");
  if (!ArgsOK) {
    delete Printer;
    return makeError(Job.Module + ": bad cc1 arguments: " + DiagText);
  }
  // cc1 arguments carry -disable-free (a process that exits right after
  // need not free); a worker compiles thousands of modules. Parsing copies
  // the flag into the code generator's options, where it makes clang leak
  // the TargetMachine of every compile: clear both.
  Invocation->getFrontendOpts().DisableFree = false;
  Invocation->getCodeGenOpts().DisableFree = false;
  CI.setInvocation(std::move(Invocation));
  CI.createDiagnostics(Printer, /*ShouldOwnClient=*/true);
  // The diagnostics are in the error; "N errors generated." would go to
  // stderr, once per failed compile of a run.
  CI.setVerboseOutputStream(std::make_unique<raw_null_ostream>());

  // Before any callback that adds passes: the module may come from the
  // pre-inline cache.
  PreInlineUse PreInline;
  if (UsePreInline)
    PreInline.prepare(CI, Job);

  // Registered for every policy, the stock one included (it then builds
  // LLVM's own DefaultInlineAdvisor): once a process has registered a
  // plugin advisor, LLVM's inliner asks for one in every later compile.
  std::shared_ptr<const InlinerConfig> Shared = std::move(*Config);
  CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
      [Shared](PassBuilder &PB) { registerInliner(PB, Shared); });
  // IR2Native's dataset: the functions as the code generator gets them.
  std::vector<FunctionFeatureRow> FeatureRows;
  if (Job.WantFunctionSizes && !Job.PredictOnly)
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [&FeatureRows](PassBuilder &PB) {
          PB.registerOptimizerLastEPCallback(
              [&FeatureRows](ModulePassManager &MPM, OptimizationLevel) {
                MPM.addPass(CollectSizeFeaturesPass(&FeatureRows));
              });
        });

  // A prediction: the functions as the code generator would get them,
  // predicted in place; no code generator, no object.
  std::unique_ptr<SizePredictor> Predictor;
  if (Job.PredictOnly) {
    Expected<std::unique_ptr<SizePredictor>> P = SizePredictor::create("");
    if (!P)
      return makeError(Job.Module + ": " + toString(P.takeError()));
    Predictor = std::move(*P);
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [&FeatureRows](PassBuilder &PB) {
          PB.registerOptimizerLastEPCallback(
              [&FeatureRows](ModulePassManager &MPM, OptimizationLevel) {
                MPM.addPass(CollectSizeFeaturesPass(&FeatureRows));
              });
        });
    clang::EmitLLVMOnlyAction Action;
    bool Compiled = CI.ExecuteAction(Action);
    if (PreInline.finish(Compiled))
      return compileModuleImpl(Job, UseMemo, /*UsePreInline=*/false);
    if (!Compiled)
      return makeError(Job.Module +
                       ": compilation failed: " + StringRef(DiagText).trim());
    // Summed in module order, in double: the same IR gives the same bits.
    for (const FunctionFeatureRow &Row : FeatureRows)
      Result.PredictedText += double(Predictor->predict(Row.Features));
    Result.NumDecisions = Decisions;
    Result.Seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
            .count();
    return Result;
  }

  SmallString<0> MemoObject;
  std::unique_ptr<MemoryBuffer> Owned;
  MemoryBufferRef ObjectRef;
  if (UseMemo) {
    Expected<bool> Exact = compileThroughMemo(CI, Job, DiagText, MemoObject);
    if (PreInline.finish(bool(Exact))) {
      consumeError(Exact.takeError());
      return compileModuleImpl(Job, UseMemo, /*UsePreInline=*/false);
    }
    if (!Exact)
      return Exact.takeError();
    if (!*Exact)
      return compileModuleImpl(Job, /*UseMemo=*/false, UsePreInline);
    ObjectRef = MemoryBufferRef(StringRef(MemoObject.data(), MemoObject.size()),
                                Job.Module);
  } else {
    clang::EmitObjAction Action;
    bool Compiled = CI.ExecuteAction(Action);
    if (PreInline.finish(Compiled)) {
      sys::fs::remove(ObjectPath);
      return compileModuleImpl(Job, UseMemo, /*UsePreInline=*/false);
    }
    if (!Compiled) {
      sys::fs::remove(ObjectPath);
      // clang names the output file only when it cannot open or write it.
      if (StringRef(DiagText).contains(ObjectPath))
        return make_error<OutputWriteError>(
            (Job.Module + ": cannot write the compiled object: " +
             StringRef(DiagText).trim())
                .str());
      return makeError(Job.Module +
                       ": compilation failed: " + StringRef(DiagText).trim());
    }
    ErrorOr<std::unique_ptr<MemoryBuffer>> Object =
        MemoryBuffer::getFile(ObjectPath, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Object)
      return makeError(Job.Module + ": cannot read the object clang wrote to " +
                       ObjectPath + ": " + Object.getError().message());
    sys::fs::remove(ObjectPath);
    Owned = std::move(*Object);
    ObjectRef = MemoryBufferRef(Owned->getBuffer(), Job.Module);
  }
  Expected<CodeSize> Code = getCodeSize(ObjectRef);
  if (!Code)
    return Code.takeError();
  Result.TextSize = Code->Total;
  if (Job.WantFunctionSizes) {
    Expected<std::vector<std::pair<std::string, uint64_t>>> Sizes =
        getFunctionSizes(ObjectRef);
    if (!Sizes)
      return Sizes.takeError();
    for (const FunctionFeatureRow &Row : FeatureRows) {
      auto It =
          llvm::lower_bound(*Sizes, Row.Name,
                            [](const std::pair<std::string, uint64_t> &S,
                               const std::string &N) { return S.first < N; });
      bool Found = It != Sizes->end() && It->first == Row.Name;
      Result.Functions.push_back(
          {Row.Name, Found ? It->second : 0,
           std::vector<int64_t>(Row.Features.begin(), Row.Features.end())});
    }
  }
  for (const auto &[Name, Bytes] : Code->Grouped)
    Result.Grouped.push_back({hashGroupedName(Name), Bytes});
  llvm::sort(Result.Grouped);
  Result.NumDecisions = Decisions;
  Result.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Result;
}

} // namespace

} // namespace mlgo
