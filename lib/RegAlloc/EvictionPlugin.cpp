//===- EvictionPlugin.cpp - Serving LLVM's eviction channel in-process ----===//
//
// See mlgo/RegAlloc/EvictionPlugin.h for what this does and promises. The
// pieces: the -mlgo-evict-* options, the policy (an embedded or interpreted
// per-column model behind the same ServePolicy `mlgo serve` uses), one
// channel session per code generation pipeline, and the hook that LLVM's
// pass registry calls to construct the eviction analysis.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAlloc/EvictionPlugin.h"

#include "mlgo/Inline/Decisions.h"
#include "mlgo/Inline/InlinerPlugin.h"
#include "mlgo/Log/ByteSource.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Model/ModelPolicy.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Protocol/Host.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/FileDescriptor.h"
#include "mlgo/embedded/regalloc_evict.h"

#include "llvm/IR/Module.h"
#include "llvm/InitializePasses.h"
#include "llvm/PassInfo.h"
#include "llvm/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <optional>
#include <set>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

/// Why \p M cannot answer LLVM's eviction questions, if it cannot.
static Error checkEvictionModel(const Model &M, StringRef What) {
  if (!M.Decision.isPerColumn() ||
      M.Decision.Columns != static_cast<size_t>(EvictionColumns))
    return makeError("model '" + What +
                     "' is not an eviction model: it must choose among " +
                     Twine(EvictionColumns) +
                     " columns (\"rule\": \"masked_argmax\", \"columns\": " +
                     Twine(EvictionColumns) + ")");
  if (M.Decision.MaskName != getEvictionFeatureName(EvictionFeature::mask))
    return makeError("model '" + What + "' takes its mask from '" +
                     M.Decision.MaskName +
                     "'; an eviction model must obey LLVM's 'mask'");
  // Binding against LLVM 19's features finds missing or mistyped inputs.
  auto R = InterpretedRunner::create(std::make_shared<const Model>(M),
                                     getEvictionFeatureSpecs());
  if (!R)
    return R.takeError();
  return Error::success();
}

using EmbeddedEvictModel = embedded::regalloc_evict::Model;

Expected<std::unique_ptr<ServePolicy>> createEvictionPolicy(StringRef Path) {
  if (Path.empty()) {
    // Checked at build time (the model file) and here (the binding).
    auto R =
        EmbeddedRunner::create<EmbeddedEvictModel>(getEvictionFeatureSpecs());
    if (!R)
      return R.takeError();
    return createRunnerPolicy(
        [](std::vector<TensorSpec> Features)
            -> Expected<std::unique_ptr<PolicyRunner>> {
          auto R =
              EmbeddedRunner::create<EmbeddedEvictModel>(std::move(Features));
          if (!R)
            return R.takeError();
          return std::move(*R);
        },
        EmbeddedEvictModel::Name);
  }
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  if (Error E = checkEvictionModel(*M, Path))
    return E;
  return createModelPolicy(std::make_shared<const Model>(std::move(*M)),
                           Path.str());
}

namespace {

cl::OptionCategory EvictCategory("mlgo register allocation options");

cl::opt<bool> EvictEnabled(
    "mlgo-evict", cl::Hidden, cl::cat(EvictCategory),
    cl::desc("Let mlgo's eviction model (the embedded one, or "
             "-mlgo-evict-model) decide LLVM's register-allocation "
             "evictions in code for speed; off by default until a trained "
             "model beats LLVM's advisor (docs/regalloc.md)"));
cl::opt<std::string> EvictModelPath(
    "mlgo-evict-model", cl::Hidden, cl::cat(EvictCategory),
    cl::value_desc("file"),
    cl::desc("Decide register-allocation evictions with the model in this "
             "file (interpreted) instead of the model embedded in the "
             "plugin; implies -mlgo-evict"));
cl::opt<std::string> EvictTrainingLog(
    "mlgo-evict-training-log", cl::Hidden, cl::cat(EvictCategory),
    cl::value_desc("file"),
    cl::desc("Write every eviction decision to this file in LLVM's training "
             "log format: the features LLVM sent, then index_to_evict; one "
             "context per function"));
cl::list<uint64_t> EvictFlips(
    "mlgo-evict-flips", cl::Hidden, cl::cat(EvictCategory), cl::CommaSeparated,
    cl::value_desc("n,m,..."),
    cl::desc("Research: invert the model's eviction decisions with these "
             "indices (counted from 0 over the process): an eviction becomes "
             "\"evict nothing\" where LLVM allows it, and otherwise the first "
             "other allowed column (docs/regalloc.md, \"Headroom\")"));
cl::opt<bool> EvictUseLLVMAdvisor(
    "mlgo-evict-use-llvm-advisor", cl::Hidden, cl::cat(EvictCategory),
    cl::desc("Leave register-allocation eviction to LLVM's own advisor, "
             "exactly as if the plugin were not loaded, even with "
             "-mlgo-evict"));

constexpr const char *ModeOptionName = "regalloc-enable-advisor";
constexpr const char *ChannelOptionName =
    "regalloc-evict-interactive-channel-base";

[[noreturn]] void fatal(const Twine &Message) {
  report_fatal_error("mlgo: " + Message, /*gen_crash_diag=*/false);
}

cl::Option &getOption(StringRef Name) {
  StringMap<cl::Option *> &Opts = cl::getRegisteredOptions();
  auto It = Opts.find(Name);
  if (It == Opts.end())
    fatal("this LLVM has no -" + Name +
          " option; the eviction model needs LLVM 19's ML eviction advisor");
  return *It->second;
}

/// The -mlgo-evict-training-log writer, shared by the process's sessions
/// (which run one after another, on the main thread's pipelines).
struct TrainingLogState {
  std::mutex Mutex;
  std::unique_ptr<LogWriter> Writer;
  raw_fd_ostream *Stream = nullptr;
  std::optional<LogHeader> Header;
};
/// Never destroyed: serving threads may write to it while the process
/// exits; SessionsCleanup flushes it.
TrainingLogState &getTrainingLog() {
  static TrainingLogState *State = new TrainingLogState;
  return *State;
}

/// NoteModuleProfilePass's record: whether the module leaving the
/// optimization pipeline on this thread has a profile.
thread_local bool ModuleProfiled = true;

/// One channel: LLVM's runner writes its log into LogPipe and reads advice
/// from AdvicePipe. Owned jointly by the serving thread and the list of
/// sessions (which closes the plugin's copy of the log pipe's write end
/// when the next pipeline starts, so a finished session's thread sees the
/// end of its stream).
struct Session {
  FileDescriptor LogRead, LogWrite, AdviceRead, AdviceWrite;
  std::string Directory, Base;
  std::unique_ptr<ServePolicy> Policy;
  /// The decisions file's eviction entries for the module, if any, and
  /// what the stale report names.
  std::shared_ptr<EvictionTable> Fixed;
  std::string FixedFile, Source;
  /// Whether the module was compiled with a profile (NoteModuleProfilePass).
  bool Profiled = true;
  std::atomic<bool> DirectoryRemoved{false};
  /// The serving thread waits for LLVM's next bytes (it has handled all
  /// earlier ones), or has ended.
  std::atomic<bool> Waiting{false}, Ended{false};

  void closeLogWrite() { LogWrite.reset(); }
  /// The links are needed only until LLVM has opened both ends.
  void removeDirectory() {
    if (DirectoryRemoved.exchange(true) || Directory.empty())
      return;
    sys::fs::remove(Base + ".in");
    sys::fs::remove(Base + ".out");
    sys::fs::remove(Directory);
  }
};

class SessionServer final : public SessionIO {
public:
  explicit SessionServer(Session &S) : S(S) {}

  Error start(const LogHeader &H) override {
    S.removeDirectory();
    if (EvictTrainingLog.empty())
      return Error::success();
    TrainingLogState &L = getTrainingLog();
    std::lock_guard<std::mutex> Lock(L.Mutex);
    if (L.Header) {
      if (H.Features != L.Header->Features || H.Advice != L.Header->Advice)
        return makeError("the register allocator sent another header than "
                         "before; cannot record both in '" +
                         EvictTrainingLog + "'");
      return Error::success();
    }
    std::error_code EC;
    auto OS = std::make_unique<raw_fd_ostream>(EvictTrainingLog, EC);
    if (EC)
      return makeError("cannot open training log '" + EvictTrainingLog +
                       "': " + EC.message());
    L.Stream = OS.get();
    std::vector<TensorSpec> Features = H.Features;
    Features.push_back(*H.Advice);
    L.Writer = std::make_unique<LogWriter>(std::move(OS), std::move(Features));
    L.Header = H;
    // A compile with no decision still leaves a valid (empty) log.
    L.Writer->flush();
    if (L.Stream->has_error())
      return makeError("cannot write training log '" + EvictTrainingLog +
                       "': " + L.Stream->error().message());
    return Error::success();
  }

  void switchContext(StringRef Name) override {
    if (EvictTrainingLog.empty())
      return;
    TrainingLogState &L = getTrainingLog();
    std::lock_guard<std::mutex> Lock(L.Mutex);
    L.Writer->switchContext(Name);
  }

  Error advise(const LogHeader &H, const LogRecord &, const LogReader &Reader,
               const char *Advice, size_t Size) override {
    if (!EvictTrainingLog.empty()) {
      TrainingLogState &L = getTrainingLog();
      std::lock_guard<std::mutex> Lock(L.Mutex);
      L.Writer->startObservation();
      for (size_t I = 0; I < H.Features.size(); ++I)
        L.Writer->logTensorValue(I, Reader.getFeatureData(I));
      L.Writer->logTensorValue(H.Features.size(), Advice);
      L.Writer->endObservation();
      // Flushed with each decision: the compiler may end the process
      // without destroying anything.
      L.Writer->flush();
      if (L.Stream->has_error())
        return makeError("cannot write training log '" + EvictTrainingLog +
                         "': " + L.Stream->error().message());
    }
    if (std::error_code EC =
            writeAll(S.AdviceWrite.get(), StringRef(Advice, Size)))
      return makeError("cannot send advice to the register allocator: " +
                       EC.message());
    return Error::success();
  }

private:
  Session &S;
};

/// The index of LLVM's int64 'mask' of EvictionColumns columns in \p H,
/// which a policy that rewrites LLVM's advice needs (with an int64 advice);
/// else an error starting with \p Who.
static Expected<size_t> findMask(const LogHeader &H, StringRef Who) {
  std::optional<size_t> Mask =
      H.findFeature(getEvictionFeatureName(EvictionFeature::mask));
  if (!Mask || !H.Features[*Mask].isElementType<int64_t>() ||
      H.Features[*Mask].getElementCount() != EvictionColumns || !H.Advice ||
      !H.Advice->isElementType<int64_t>())
    return makeError(Who + " LLVM's int64 'mask' of " + Twine(EvictionColumns) +
                     " columns and an int64 advice");
  return *Mask;
}

/// -mlgo-evict-flips: a policy that answers as \p Inner does, except at the
/// listed decisions, which it inverts (invertEviction).
class FlippingPolicy final : public ServePolicy {
public:
  explicit FlippingPolicy(std::unique_ptr<ServePolicy> Inner)
      : Inner(std::move(Inner)), Flips(EvictFlips.begin(), EvictFlips.end()) {}

  Error begin(const LogHeader &H) override {
    Expected<size_t> Mask = findMask(H, "-mlgo-evict-flips needs");
    if (!Mask)
      return Mask.takeError();
    MaskIndex = *Mask;
    return Inner->begin(H);
  }
  void switchContext(StringRef Name) override { Inner->switchContext(Name); }
  Error decide(const LogHeader &H, const LogRecord &Obs, const LogReader &R,
               char *AdviceOut) override {
    if (Error E = Inner->decide(H, Obs, R, AdviceOut))
      return E;
    // Decisions are counted over the whole process: its sessions run one
    // after another.
    static std::atomic<uint64_t> Next{0};
    if (!Flips.count(Next++))
      return Error::success();
    int64_t Mask[EvictionColumns], Choice;
    std::memcpy(Mask, R.getFeatureData(MaskIndex), sizeof(Mask));
    std::memcpy(&Choice, AdviceOut, sizeof(Choice));
    Choice = invertEviction(Mask, Choice);
    std::memcpy(AdviceOut, &Choice, sizeof(Choice));
    return Error::success();
  }

private:
  std::unique_ptr<ServePolicy> Inner;
  std::set<uint64_t> Flips;
  size_t MaskIndex = 0;
};

/// -mlgo-decisions: a policy that answers as \p Inner does, except at the
/// decisions the file's eviction entries fix (same function, same ordinal,
/// same hash of the features; docs/decisions.md).
class FixedEvictionPolicy final : public ServePolicy {
public:
  FixedEvictionPolicy(std::unique_ptr<ServePolicy> Inner,
                      std::shared_ptr<EvictionTable> Table, StringRef File)
      : Inner(std::move(Inner)), Table(std::move(Table)), File(File.str()) {}

  Error begin(const LogHeader &H) override {
    Expected<size_t> Mask = findMask(H, "eviction entries need");
    if (!Mask)
      return Mask.takeError();
    MaskIndex = *Mask;
    return Inner->begin(H);
  }
  void switchContext(StringRef Name) override {
    Function = Name.str();
    Ordinal = 0;
    Inner->switchContext(Name);
  }
  Error decide(const LogHeader &H, const LogRecord &Obs, const LogReader &R,
               char *AdviceOut) override {
    if (Error E = Inner->decide(H, Obs, R, AdviceOut))
      return E;
    EvictionHash Hash;
    for (size_t I = 0; I < H.Features.size(); ++I)
      Hash.add(StringRef(R.getFeatureData(I),
                         H.Features[I].getTotalTensorBufferSize()));
    const EvictDecision *Entry =
        Table->lookupEntry(Function, Ordinal++, Hash.get());
    if (!Entry)
      return Error::success();
    int64_t Mask[EvictionColumns];
    std::memcpy(Mask, R.getFeatureData(MaskIndex), sizeof(Mask));
    // The mask is part of the hash, so the answer was allowed when the
    // entry was written; a hand-edited file may still name a masked column.
    if (!Mask[Entry->Column])
      return makeError(File + ":" + Twine(Entry->Line) + ": eviction entry " +
                       Twine(Ordinal - 1) + " of '" + Function +
                       "' answers column " + Twine(Entry->Column) +
                       ", which LLVM does not allow there");
    int64_t Choice = Entry->Column;
    std::memcpy(AdviceOut, &Choice, sizeof(Choice));
    return Error::success();
  }

private:
  std::unique_ptr<ServePolicy> Inner;
  std::shared_ptr<EvictionTable> Table;
  /// The decisions file, as its diagnostics name it.
  std::string File;
  std::string Function;
  uint32_t Ordinal = 0;
  size_t MaskIndex = 0;
};

/// The session's log pipe, noting when the serving thread waits on it.
class WatchedSource final : public ByteSource {
public:
  explicit WatchedSource(Session &S)
      : S(S), Inner(createFDSource(S.LogRead.get(), /*TakeOwnership=*/false)) {}
  Expected<size_t> read(char *Buf, size_t Size) override {
    S.Waiting = true;
    Expected<size_t> N = Inner->read(Buf, Size);
    S.Waiting = false;
    return N;
  }

private:
  Session &S;
  std::unique_ptr<ByteSource> Inner;
};

void serveSession(std::shared_ptr<Session> S) {
  SessionServer IO(*S);
  Error E = serveStream(std::make_unique<WatchedSource>(*S), S->Base + ".out",
                        *S->Policy, IO);
  S->Ended = true;
  if (!E)
    return;
  // The compiler waits for advice that will not come: stop it cleanly.
  S->removeDirectory();
  errs() << "mlgo: error: register allocation eviction: "
         << toString(std::move(E)) << "\n";
  errs().flush();
  sys::RunInterruptHandlers();
  ::_exit(1);
}

Expected<std::shared_ptr<Session>>
startSession(std::unique_ptr<ServePolicy> Policy,
             std::shared_ptr<EvictionTable> Fixed, StringRef FixedFile,
             StringRef Source) {
  auto S = std::make_shared<Session>();
  S->Policy = std::move(Policy);
  S->Fixed = std::move(Fixed);
  S->FixedFile = FixedFile.str();
  S->Source = Source.str();
  S->Profiled = ModuleProfiled;
  int Log[2], Advice[2];
  if (::pipe2(Log, O_CLOEXEC) != 0 || ::pipe2(Advice, O_CLOEXEC) != 0)
    return makeError(Twine("cannot create the eviction channel's pipes: ") +
                     std::strerror(errno));
  S->LogRead.reset(Log[0]);
  S->LogWrite.reset(Log[1]);
  S->AdviceRead.reset(Advice[0]);
  S->AdviceWrite.reset(Advice[1]);
  SmallString<128> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("mlgo-evict", Dir))
    return makeError("cannot create the eviction channel's directory: " +
                     EC.message());
  S->Directory = Dir.str().str();
  S->Base = S->Directory + "/channel";
  auto Link = [&](int FD, StringRef Suffix) -> Error {
    std::string Target = "/proc/self/fd/" + std::to_string(FD);
    if (std::error_code EC =
            sys::fs::create_link(Target, S->Base + Suffix.str()))
      return makeError("cannot create '" + S->Base + Suffix +
                       "': " + EC.message());
    return Error::success();
  };
  if (Error E = Link(S->AdviceRead.get(), ".in"))
    return E;
  if (Error E = Link(S->LogWrite.get(), ".out"))
    return E;
  std::thread(serveSession, S).detach();
  return S;
}

/// checkEvictionOptions()'s verdict: empty if the options are good.
const std::string &getOptionsError() {
  static const std::string Error = [] {
    Expected<std::unique_ptr<ServePolicy>> P =
        createEvictionPolicy(EvictModelPath);
    return P ? std::string() : toString(P.takeError());
  }();
  return Error;
}
/// Whether checkEvictionOptions() has handed the error to the compiler.
std::atomic<bool> OptionsErrorReported{false};

/// checkEvictionOptions()'s verdict on the decisions file: empty if its
/// eviction entries (if any) were tuned on the eviction model this compile
/// uses (-mlgo-evict-model, or the embedded one).
const std::string &getModelMismatch() {
  static const std::string Error = []() -> std::string {
    std::string File;
    std::shared_ptr<const DecisionsFile> F = getDecisionsFromOptions(File);
    if (EvictUseLLVMAdvisor || !F || !F->isForSpeed())
      return "";
    llvm::Error E = checkDecisionsModel(*F, File, EvictModelPath,
                                        getEmbeddedEvictionModelMD5());
    return E ? toString(std::move(E)) : "";
  }();
  return Error;
}

/// noteOptimizationLevel()'s record for this thread's pipeline.
thread_local bool SizePipeline = false;
/// NoteModuleSourcePass's record: the source of the module whose
/// optimization pipeline ran last on this thread, as given and resolved
/// against the working directory (the decisions file's lookup path).
thread_local std::string ModuleSource, ModuleSourceResolved;

std::mutex HookMutex;
PassInfo::NormalCtor_t LLVMConstructor = nullptr;
/// How many times this plugin set LLVM's advisor mode option.
int OwnModeOccurrences = 0;
/// The sessions whose pipelines may still exist.
std::vector<std::shared_ptr<Session>> Sessions;

/// Whether \p S has handled every byte LLVM wrote to its stream.
bool isDrained(Session &S) {
  if (S.Ended)
    return true;
  int Pending = 0;
  return S.Waiting && ::ioctl(S.LogRead.get(), FIONREAD, &Pending) == 0 &&
         Pending == 0;
}

/// One line on stderr for a session whose eviction entries did not all fix
/// a decision (docs/decisions.md, "Applying a file").
void reportStale(Session &S) {
  if (!S.Fixed)
    return;
  size_t Stale = S.Fixed->getUnused().size();
  if (!Stale)
    return;
  errs() << "mlgo: " << S.Source << ": " << Stale << " of " << S.Fixed->size()
         << " eviction entries of module '" << S.Fixed->getEntries().Module
         << "' in " << S.FixedFile
         << " match no decision (stale; `mlgo tune check` lists them)";
  // Without the profile the file was tuned with, allocation sees other
  // code: every entry is stale, and this is why.
  if (!S.Profiled)
    errs() << "; the module was compiled without a profile (-fprofile-use), "
              "and the file's entries were tuned with one";
  errs() << "\n";
}

/// When the process exits: the training log gets every record LLVM sent
/// (the last context line and a decision-free compile's header arrive
/// without a question, so the serving thread may not have handled them
/// yet), and the channels' directories are removed. The serving threads may
/// still be blocked reading; they end with the process.
struct SessionsCleanup {
  ~SessionsCleanup() {
    bool AnyFixed = llvm::any_of(Sessions, [](auto &S) { return !!S->Fixed; });
    if (!EvictTrainingLog.empty() || AnyFixed)
      for (auto &S : Sessions)
        for (int Tick = 0; Tick < 10000 && !isDrained(*S); ++Tick)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (auto &S : Sessions)
      reportStale(*S);
    if (!EvictTrainingLog.empty()) {
      TrainingLogState &L = getTrainingLog();
      std::lock_guard<std::mutex> Lock(L.Mutex);
      if (L.Writer)
        L.Writer->flush();
    }
    for (auto &S : Sessions)
      S->removeDirectory();
  }
} Cleanup;

void setAdvisorMode(StringRef Value) {
  cl::Option &Mode = getOption(ModeOptionName);
  if (Mode.addOccurrence(0, Mode.ArgStr, Value))
    fatal("LLVM refused -" + Twine(ModeOptionName) + "=" + Value);
  ++OwnModeOccurrences;
}

bool onMainThread() {
  return static_cast<pid_t>(::syscall(SYS_gettid)) == ::getpid();
}

/// Whether the decisions file (-mlgo-decisions) is for speed and has
/// eviction entries.
bool haveEvictionEntries() {
  static const bool Have = [] {
    std::string File;
    std::shared_ptr<const DecisionsFile> F = getDecisionsFromOptions(File);
    return F && F->isForSpeed() && llvm::any_of(F->Modules, [](const auto &M) {
             return !M->Evictions.empty();
           });
  }();
  return Have;
}

/// Whether the options ask for mlgo's eviction model in every module:
/// -mlgo-evict, or -mlgo-evict-model=FILE but in a build with a decisions
/// file that has eviction entries, where it names the model they were tuned
/// on and only the modules with entries use it (the others keep LLVM's
/// advisor, as with the embedded model; docs/decisions.md).
bool evictionRequested() {
  if (EvictUseLLVMAdvisor)
    return false;
  return EvictEnabled || (!EvictModelPath.empty() && !haveEvictionEntries());
}

/// The eviction entries of the decisions file (-mlgo-decisions, a file for
/// speed) for the module whose pipeline ran last on this thread, if any,
/// and the file's path.
std::shared_ptr<const ModuleDecisions> findEvictionEntries(std::string &File) {
  if (EvictUseLLVMAdvisor || ModuleSourceResolved.empty())
    return nullptr;
  std::shared_ptr<const DecisionsFile> F = getDecisionsFromOptions(File);
  if (!F || !F->isForSpeed())
    return nullptr;
  std::shared_ptr<const ModuleDecisions> M = F->find(ModuleSourceResolved);
  if (!M || M->Evictions.empty())
    return nullptr;
  return M;
}

/// The eviction analysis constructor LLVM's pass registry calls.
Pass *createEvictionAnalysis() {
  std::lock_guard<std::mutex> Lock(HookMutex);
  // A new pipeline starts: the earlier ones on this thread are gone, so
  // their sessions' streams can end.
  for (auto &S : Sessions)
    S->closeLogWrite();
  bool UserChoice =
      getOption(ModeOptionName).getNumOccurrences() > OwnModeOccurrences ||
      getOption(ChannelOptionName).getNumOccurrences() > 0;
  std::string FixedFile;
  std::shared_ptr<const ModuleDecisions> Fixed = findEvictionEntries(FixedFile);
  if (UserChoice)
    return LLVMConstructor();
  if (Fixed && !getModelMismatch().empty()) {
    // Reported already (checkEvictionOptions): the compilation fails.
    if (OptionsErrorReported)
      return LLVMConstructor();
    fatal(getModelMismatch());
  }
  if (!evictionRequested() && !Fixed) {
    // An earlier module of this process may have had entries.
    if (OwnModeOccurrences > 0)
      setAdvisorMode("default");
    return LLVMConstructor();
  }
  if (SizePipeline) {
    setAdvisorMode("default");
    return LLVMConstructor();
  }
  if (!onMainThread()) {
    setAdvisorMode("default");
    return LLVMConstructor();
  }
  if (!getOptionsError().empty()) {
    // Reported already: the compilation fails; let it end cleanly.
    if (OptionsErrorReported)
      return LLVMConstructor();
    fatal(getOptionsError());
  }
  Expected<std::unique_ptr<ServePolicy>> Policy =
      createEvictionPolicy(EvictModelPath);
  if (!Policy)
    fatal(toString(Policy.takeError()));
  std::shared_ptr<EvictionTable> Table;
  if (Fixed) {
    Table = std::make_shared<EvictionTable>(Fixed);
    *Policy = std::make_unique<FixedEvictionPolicy>(std::move(*Policy), Table,
                                                    FixedFile);
  }
  if (!EvictFlips.empty())
    *Policy = std::make_unique<FlippingPolicy>(std::move(*Policy));
  Expected<std::shared_ptr<Session>> S =
      startSession(std::move(*Policy), Table, FixedFile, ModuleSource);
  if (!S)
    fatal(toString(S.takeError()));
  Sessions.push_back(*S);
  // LLVM's own option, whose type (cl::opt<std::string>) is public.
  static_cast<cl::opt<std::string> &>(getOption(ChannelOptionName))
      .setValue((*S)->Base);
  setAdvisorMode("release");
  return LLVMConstructor();
}

} // namespace

void noteOptimizationLevel(bool OptimizesForSize) {
  SizePipeline = OptimizesForSize;
}

PreservedAnalyses NoteModuleProfilePass::run(Module &M,
                                             ModuleAnalysisManager &) {
  ModuleProfiled = M.getProfileSummary(/*IsCS=*/false) != nullptr;
  return PreservedAnalyses::all();
}

PreservedAnalyses NoteModuleSourcePass::run(Module &M,
                                            ModuleAnalysisManager &) {
  // clang runs in the directory the build compiled the source in.
  SmallString<256> Cwd;
  if (sys::fs::current_path(Cwd))
    Cwd.clear();
  ModuleSource = M.getSourceFileName();
  ModuleProfiled = true;
  ModuleSourceResolved = resolveSourcePath(ModuleSource, Cwd);
  return PreservedAnalyses::all();
}

Error checkEvictionOptions() {
  if (!getModelMismatch().empty()) {
    OptionsErrorReported = true;
    return makeError(getModelMismatch());
  }
  bool ModelNamed =
      !EvictUseLLVMAdvisor && (EvictEnabled || !EvictModelPath.empty());
  if (!ModelNamed || getOptionsError().empty())
    return Error::success();
  OptionsErrorReported = true;
  return makeError(getOptionsError());
}

void installEvictionHook() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    PassRegistry &Registry = *PassRegistry::getPassRegistry();
    initializeRegAllocEvictionAdvisorAnalysisPass(Registry);
    const PassInfo *Info = Registry.getPassInfo(StringRef("regalloc-evict"));
    if (!Info || !Info->getNormalCtor())
      fatal("this LLVM has no 'regalloc-evict' analysis to serve");
    LLVMConstructor = Info->getNormalCtor();
    // The registry hands out const PassInfo; the object itself is not.
    const_cast<PassInfo *>(Info)->setNormalCtor(createEvictionAnalysis);
  });
}

} // namespace mlgo
