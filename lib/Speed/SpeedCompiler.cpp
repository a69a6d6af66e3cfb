//===- lib/Speed/SpeedCompiler.cpp - Cached speed compiles ----------------===//
//
// See mlgo/Speed/SpeedCompiler.h: a module's compile under a policy as a
// task, its cost and decisions read back, and the files of the cache.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/SpeedCompiler.h"

#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

bool isApplied(const EvictDecision &E, ArrayRef<EvictionStep> Trajectory) {
  return llvm::any_of(Trajectory, [&](const EvictionStep &D) {
    return D.Function == E.Function && D.Ordinal == E.Ordinal &&
           D.Hash == E.Hash && D.Choice == int64_t(E.Column);
  });
}

Error walkEvictionLog(
    LogReader &R,
    function_ref<Error(StringRef Function, uint32_t Ordinal, uint64_t Hash)>
        Step) {
  const LogHeader &H = R.getHeader();
  std::map<std::string, uint32_t> Next;
  for (;;) {
    Expected<const LogRecord &> Rec = R.next();
    if (!Rec)
      return Rec.takeError();
    if (Rec->TheKind == LogRecord::Kind::End)
      return Error::success();
    if (Rec->TheKind != LogRecord::Kind::Observation)
      continue;
    EvictionHash Hash;
    for (size_t I = 0; I + 1 < H.Features.size(); ++I)
      Hash.add(StringRef(R.getFeatureData(I),
                         H.Features[I].getTotalTensorBufferSize()));
    if (Error E = Step(Rec->Context, Next[Rec->Context]++, Hash.get()))
      return E;
  }
}

namespace speed {
namespace {

/// The trajectory in the plugin's eviction training log at \p Path.
Expected<std::vector<EvictionStep>> readTrajectory(StringRef Path) {
  Expected<std::unique_ptr<LogReader>> R = LogReader::open(Path);
  if (!R)
    return R.takeError();
  const LogHeader &H = (*R)->getHeader();
  std::optional<size_t> Mask =
      H.findFeature(getEvictionFeatureName(EvictionFeature::mask));
  // The log's last tensor is the answer (index_to_evict).
  size_t Features = H.Features.size();
  if (!Mask || Features < 2)
    return makeError(Path + ": not an eviction training log");
  --Features;
  std::vector<EvictionStep> Out;
  auto Step = [&](StringRef Function, uint32_t Ordinal, uint64_t Hash) {
    EvictionStep D;
    D.Function = Function.str();
    D.Ordinal = Ordinal;
    D.Hash = Hash;
    std::memcpy(&D.Choice, (*R)->getFeatureData(Features), sizeof(D.Choice));
    std::memcpy(D.Mask, (*R)->getFeatureData(*Mask), sizeof(D.Mask));
    Out.push_back(std::move(D));
    return Error::success();
  };
  if (Error E = walkEvictionLog(**R, Step))
    return E;
  return Out;
}

/// The inliner's decisions of a compile: the sites file the plugin writes
/// beside its training log (caller, callee and ordinal per decision) and
/// the log's decisions, one observation per line, in order.
Expected<std::vector<DecidedSite>> readInlineTrajectory(StringRef LogPath) {
  std::string SitesPath = (LogPath + ".sites").str();
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(SitesPath);
  if (!Buf)
    return Buf.takeError();
  Expected<std::unique_ptr<LogReader>> R = LogReader::open(LogPath);
  if (!R)
    return R.takeError();
  std::optional<size_t> Choice =
      (*R)->getHeader().findFeature("inlining_decision");
  if (!Choice)
    return makeError(LogPath + ": not an inlining training log");
  std::vector<DecidedSite> Out;
  SmallVector<StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  for (StringRef Line : Lines) {
    SmallVector<StringRef, 3> F;
    Line.split(F, ' ');
    DecidedSite S;
    S.Logit = std::nanf("");
    if (F.size() != 3 || !decodeName(F[0], S.Site.Caller) ||
        !decodeName(F[1], S.Site.Callee) ||
        F[2].getAsInteger(10, S.Site.Ordinal))
      return makeError(SitesPath + ": malformed line '" + Line + "'");
    Expected<const LogRecord &> Rec = (*R)->next();
    while (Rec && Rec->TheKind != LogRecord::Kind::Observation &&
           Rec->TheKind != LogRecord::Kind::End)
      Rec = (*R)->next();
    if (!Rec)
      return Rec.takeError();
    if (Rec->TheKind == LogRecord::Kind::End)
      return makeError(LogPath + ": fewer decisions than " + SitesPath);
    int64_t D;
    std::memcpy(&D, (*R)->getFeatureData(*Choice), sizeof(D));
    S.Site.Inline = D != 0;
    Out.push_back(std::move(S));
  }
  return Out;
}

/// Whether the object \p Obj defines no function.
bool hasNoFunction(MemoryBufferRef Obj) {
  Expected<std::unique_ptr<object::ObjectFile>> O =
      object::ObjectFile::createObjectFile(Obj);
  if (!O) {
    consumeError(O.takeError());
    return false;
  }
  for (const object::SymbolRef &S : (*O)->symbols()) {
    Expected<object::SymbolRef::Type> T = S.getType();
    if (!T) {
      consumeError(T.takeError());
      return false;
    }
    if (*T == object::SymbolRef::ST_Function)
      return false;
  }
  return true;
}

/// The entries of a plugin compile under \p P (none: stock clang).
const ModuleDecisions *getEntries(const CompilePolicy &P) {
  static const ModuleDecisions None;
  if (!P.usesPlugin())
    return nullptr;
  return P.Fixed ? P.Fixed.get() : &None;
}

} // namespace

Expected<std::string> getSpeedKeySalt(StringRef Profile, StringRef Identity) {
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(Profile);
  if (!Bytes)
    return Bytes.takeError();
  return toHex(MD5::hash(arrayRefFromStringRef((*Bytes)->getBuffer())),
               /*LowerCase=*/true) +
         "\n" + Identity.str();
}

std::string formatCostFile(const ObjectCost &C) {
  // Exact to the instruction: the values are integers.
  std::string Text = formatv("{0:f1} {1:f1}\n", C.Instructions, C.Cycles);
  for (const FunctionCost &F : C.Functions)
    if (F.Instructions > 0)
      Text += formatv("{0:f1} {1}\n", F.Instructions, F.Name).str();
  return Text;
}

Error parseCostFile(StringRef Text, StringRef Path, CompiledModule &Out) {
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n', -1, false);
  auto Bad = [&] { return makeError(Path + ": malformed"); };
  if (Lines.empty())
    return Bad();
  auto [I, C] = Lines[0].split(' ');
  if (!to_float(I, Out.Instructions) || !to_float(C, Out.Cycles))
    return Bad();
  for (StringRef L : ArrayRef(Lines).drop_front()) {
    auto [V, Name] = L.split(' ');
    double X;
    if (!to_float(V, X))
      return Bad();
    Out.FunctionCost[Name.str()] = X;
  }
  return Error::success();
}

ModuleSpeedCompiler::ModuleSpeedCompiler(const SpeedCompileSetup &Setup,
                                         const SpeedCache &Cache,
                                         TaskBatcher &Batcher, std::string Name,
                                         std::string ContentHash,
                                         std::string LookupKey)
    : Setup(Setup), Cache(Cache), Batcher(Batcher), Name(std::move(Name)),
      ContentHash(std::move(ContentHash)), LookupKey(std::move(LookupKey)) {}

ModuleSpeedCompiler::~ModuleSpeedCompiler() = default;

std::string ModuleSpeedCompiler::getKey(const CompilePolicy &P) const {
  std::string Text = "llvm\n";
  if (const ModuleDecisions *Entries = getEntries(P)) {
    std::string Evict = "evict llvm\n";
    if (P.EvictModel) {
      // The embedded model's keys predate --evict-model; a file's add its
      // MD5.
      Evict = "evict model\n";
      if (Cache.ModelFile)
        Evict = "evict model " +
                StringRef(Cache.ModelMeta).rsplit(" (md5 ").second.str() + "\n";
      Evict += Entries->printEvictions();
    }
    Text = "sites\n" + Entries->printSites() + Evict;
  }
  MD5 Hash;
  Hash.update(ContentHash);
  Hash.update(Cache.KeySalt);
  Hash.update(Text);
  MD5::MD5Result R;
  Hash.final(R);
  return toHex(R, /*LowerCase=*/true);
}

Expected<CompiledModule> ModuleSpeedCompiler::compile(const CompilePolicy &P) {
  std::string Key = getKey(P);
  std::string Dir = Cache.Dir + "/" + Key.substr(0, 2);
  std::string Base = Dir + "/" + Key;
  if (!sys::fs::exists(Base + ".cost"))
    if (Error E = run(P, Dir, Base))
      return E;
  return load(Base, P.usesPlugin(), P.usesPlugin() && P.EvictModel);
}

Error ModuleSpeedCompiler::run(const CompilePolicy &P, StringRef Dir,
                               StringRef Base) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create '" + Dir + "': " + EC.message());
  // This process's own names: nothing another run left (or, killed, still
  // writes) is read as this compile's.
  std::string Tmp = (Base + formatv(".tmp-{0:d10}", ::getpid())).str();
  // The plugin's compiles record their decisions (the logs change none).
  CompilePolicy Policy = P;
  if (P.usesPlugin()) {
    if (P.Fixed) {
      ModuleDecisions Here = *P.Fixed;
      Here.Module = LookupKey;
      DecisionsFile F;
      F.setMeta("objective", "speed");
      if (Cache.ModelFile)
        F.setMeta("model", Cache.ModelMeta);
      F.addModule(std::move(Here));
      if (Error E = writeFileAtomically(Tmp + ".decisions", F.print()))
        return E;
      Policy.DecisionsPath = Tmp + ".decisions";
    }
    Policy.TrainingLogPath = SpeedInlineLog;
    if (P.EvictModel)
      Policy.EvictTrainingLogPath = SpeedEvictLog;
  }
  Expected<Task> T = makeSpeedCompileTask(Setup, Name, Policy);
  if (!T)
    return T.takeError();
  TaskOutcome Done = Batcher.run(std::move(*T));
  sys::fs::remove(Tmp + ".decisions");
  if (!Done.ok()) {
    // A profile that does not fit the module (another program's, or an
    // edited function's) is what -Werror=backend-plugin stops: the error
    // names the profile, which clang's own message does not.
    auto [What, Stderr] = StringRef(Done.Error).split(":\n");
    if (Stderr.contains("-Wbackend-plugin]"))
      return makeError(Name + ": the profile " + Setup.Profile +
                       " does not fit this module (" + What +
                       " on its profile diagnostics):\n" + Stderr);
    return makeError(Name + ": " + Done.Error);
  }
  Expected<SpeedCompileAnswer> A = decodeSpeedCompileAnswer(*Done.Result);
  if (!A)
    return makeError(Name + ": " + toString(A.takeError()));
  // Every entry the search wrote must apply: a stale one is a bug.
  if (!AllowStale && StringRef(A->Stderr).contains("match no decision (stale"))
    return makeError(Name + ": the search's own entries were stale:\n" +
                     A->Stderr);
  if (!Coster) {
    Expected<std::unique_ptr<BlockCoster>> BC =
        BlockCoster::create("x86_64-unknown-linux-gnu", "");
    if (!BC)
      return BC.takeError();
    Coster = std::move(*BC);
  }
  MemoryBufferRef Obj(A->Object, Name);
  Expected<ObjectCost> C = measureExecutionCost(Obj, &*Coster);
  if (!C) {
    // A module without code (crctable.c: tables only) has no address map
    // and costs nothing.
    if (!hasNoFunction(Obj))
      return makeError(Name + ": " + toString(C.takeError()));
    consumeError(C.takeError());
    C = ObjectCost();
  }
  if (P.usesPlugin()) {
    std::vector<std::pair<StringRef, const std::optional<std::string> *>> Logs =
        {{".ilog", &A->InlineLog}, {".ilog.sites", &A->InlineSites}};
    if (P.EvictModel)
      Logs.push_back({".log", &A->EvictLog});
    for (auto [Ext, Bytes] : Logs) {
      if (!*Bytes)
        return makeError(Name + ": the compile wrote no '" + Ext + "' file");
      if (Error E = writeFileAtomically(Base + Ext, **Bytes))
        return E;
    }
  }
  if (Error E = writeFileAtomically(Base + ".o", A->Object))
    return E;
  // Last: its presence says the compile is done.
  return writeFileAtomically(Base + ".cost", formatCostFile(*C));
}

Expected<CompiledModule>
ModuleSpeedCompiler::load(StringRef Base, bool WithSites, bool WithLog) const {
  std::string CostPath = (Base + ".cost").str();
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(CostPath);
  if (!Buf)
    return Buf.takeError();
  CompiledModule Out;
  Out.Object = (Base + ".o").str();
  if (Error E = parseCostFile((*Buf)->getBuffer(), CostPath, Out))
    return E;
  if (WithSites) {
    Expected<std::vector<DecidedSite>> S =
        readInlineTrajectory((Base + ".ilog").str());
    if (!S)
      return S.takeError();
    Out.Sites = std::move(*S);
  }
  if (WithLog) {
    Out.EvictLog = (Base + ".log").str();
    Expected<std::vector<EvictionStep>> T = readTrajectory(Out.EvictLog);
    if (!T)
      return T.takeError();
    Out.Trajectory = std::move(*T);
  }
  return Out;
}

} // namespace speed
} // namespace mlgo
