//===- lib/Teacher/Teacher.cpp - mlgo teacher build / train / dagger ------===//
//
// See mlgo/Teacher/Teacher.h. Building reuses the tuner whole (runTuning) and
// the compile of `mlgo tune check` (each module with the entries the plugin
// applies in it), asking the compile for its training log and its call
// sites at once: one row of features and one site per policy decision, in
// the same order. A DAgger round reuses the same tune (from the student)
// and the same logged compile without entries (the student's rollout),
// looking each rollout site up in the tuned decisions with the plugin's
// own DecisionTable. Training reuses the one classifier and the flip
// policy the counterfactual trainer ships (lib/Train).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Teacher/Teacher.h"

#include "mlgo/Compile/DecisionLog.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Compile/WorkerPool.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Learn/Classifier.h"
#include "mlgo/Learn/FlipPolicy.h"
#include "mlgo/Model/InlineFeatureNames.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Tune/ProgramDecisions.h"
#include "mlgo/Tune/Tuner.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <optional>

using namespace llvm;

namespace mlgo {

namespace {

/// The saved bytes of the kept moves of a tries log, by
/// "<program>\0<module>\0<move key>" (the log's own spelling of each).
using KeptMoves = StringMap<uint64_t>;

std::string keptKey(StringRef Program, StringRef Module, StringRef Move) {
  return (Program + Twine('\0') + Module + Twine('\0') + Move).str();
}

Expected<KeptMoves> readKeptMoves(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  KeptMoves Kept;
  SmallVector<StringRef, 0> Lines;
  (*B)->getBuffer().split(Lines, '\n', -1, false);
  // step compiles program module move logit changed callee_sites position
  // unit_text delta ok kept
  for (size_t I = 1; I < Lines.size(); ++I) {
    SmallVector<StringRef, 13> F;
    Lines[I].split(F, '\t');
    int64_t Delta = 0;
    if (F.size() != 13 || F[10].getAsInteger(10, Delta))
      return makeError(Path + ":" + Twine(I + 1) +
                       ": not a line of a tries log (docs/tune.md)");
    if (F[12] != "1" || Delta >= 0)
      continue;
    Kept[keptKey(F[2], F[3], F[4])] = uint64_t(-Delta);
  }
  return Kept;
}

/// The bytes the kept move that fixed \p S (to its applied answer) saved.
uint64_t savedBy(const KeptMoves &Kept, StringRef Program, StringRef Module,
                 const SiteDecision &S) {
  TuneMove Site;
  Site.Entry = S;
  TuneMove Group;
  Group.Entry = S;
  Group.Entry.Caller.clear();
  TuneMove Heuristic;
  Heuristic.Heuristic = true;
  for (const TuneMove *M : {&Site, &Group, &Heuristic}) {
    auto It = Kept.find(keptKey(Program, Module, M->getKey()));
    if (It != Kept.end())
      return It->second;
  }
  return 0;
}

std::string md5Hex(StringRef Bytes) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Bytes));
  return std::string(R.digest());
}

/// A corpus tuned in WorkDir/tune: its modules, their source names and
/// decisions-file keys, the decisions files by program ("" for the one
/// program) and their bytes, and the tries log's kept moves.
struct TunedCorpus {
  std::vector<CorpusModule> Mods;
  std::vector<std::string> Sources, Keys;
  std::vector<std::string> Programs;
  std::map<std::string, DecisionsFile> Files;
  std::string DecisionsBytes;
  KeptMoves Kept;
};

Expected<TunedCorpus> tuneCorpus(const TeacherBuildOptions &O) {
  // 1. The search.
  TuneOptions T;
  T.CorpusDir = O.CorpusDir;
  SmallString<256> TuneDir(O.WorkDir), Decisions(O.WorkDir);
  sys::path::append(TuneDir, "tune");
  sys::path::append(Decisions, O.PerPackage ? "decisions" : "decisions.txt");
  T.WorkDir = std::string(TuneDir);
  T.Output = std::string(Decisions);
  T.PerPackage = O.PerPackage;
  T.MaxCompiles = O.MaxCompiles;
  T.ModelPath = O.ModelPath;
  T.Workers = O.Workers;
  T.Verbose = O.Verbose;
  if (Error E = runTuning(T))
    return E;
  TunedCorpus C;
  SmallString<256> TriesPath(TuneDir);
  sys::path::append(TriesPath, "tries-" + getName(T.getOrder()).str() + ".tsv");
  Expected<KeptMoves> Kept = readKeptMoves(TriesPath);
  if (!Kept)
    return Kept.takeError();
  C.Kept = std::move(*Kept);

  // 2. The modules, their programs and keys (as the tuner names them).
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(O.CorpusDir);
  if (!Mods)
    return Mods.takeError();
  C.Mods = std::move(*Mods);
  std::map<std::string, std::vector<size_t>> ModsOf;
  C.Keys.resize(C.Mods.size());
  for (size_t M = 0; M < C.Mods.size(); ++M) {
    Expected<std::string> Src = getSourceFileName(C.Mods[M]);
    if (!Src)
      return Src.takeError();
    C.Sources.push_back(std::move(*Src));
    std::string P = O.PerPackage ? C.Mods[M].Package : "";
    auto &Of = ModsOf[P];
    if (Of.empty())
      C.Programs.push_back(P);
    Of.push_back(M);
  }
  for (const std::string &P : C.Programs) {
    std::vector<std::string> Srcs;
    for (size_t M : ModsOf[P])
      Srcs.push_back(C.Sources[M]);
    std::vector<std::string> K = getSourceKeys(Srcs);
    for (size_t I = 0; I < K.size(); ++I)
      C.Keys[ModsOf[P][I]] = K[I];
    SmallString<256> Path(Decisions);
    if (O.PerPackage)
      sys::path::append(Path,
                        (P.empty() ? "_" : P) + std::string(".decisions"));
    Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
    if (!B)
      return B.takeError();
    C.DecisionsBytes += (*B)->getBuffer();
    Expected<DecisionsFile> F = DecisionsFile::parse((*B)->getBuffer(), Path);
    if (!F)
      return F.takeError();
    C.Files.emplace(P, std::move(*F));
  }
  return C;
}

/// The model the search ran: O.ModelPath, else the embedded one.
Expected<CompilePolicy> loadBasePolicy(const TeacherBuildOptions &O) {
  if (O.ModelPath.empty())
    return CompilePolicy::embedded();
  return CompilePolicy::loadModel(O.ModelPath);
}

/// The entries a build applies in module \p M: its module's, and the
/// program section's for the linkonce_odr functions it defines.
Expected<std::shared_ptr<const ModuleDecisions>>
getAppliedEntries(const TunedCorpus &C, size_t M, bool PerPackage) {
  const CorpusModule &CM = C.Mods[M];
  const DecisionsFile &F = C.Files.at(PerPackage ? CM.Package : "");
  std::shared_ptr<const ModuleDecisions> Fixed = F.find(C.Sources[M]);
  if (!F.Program)
    return Fixed;
  Expected<StringSet<>> LinkOnce = getLinkOnceODRFunctions(CM.BitcodePath);
  if (!LinkOnce)
    return LinkOnce.takeError();
  static const ModuleDecisions NoEntries;
  ModuleDecisions Applied =
      expandForModule(Fixed ? *Fixed : NoEntries, *F.Program, *LinkOnce);
  if (!Applied.Sites.empty())
    Fixed = std::make_shared<const ModuleDecisions>(std::move(Applied));
  return Fixed;
}

/// Every module of \p C compiled with the model the search ran
/// (loadBasePolicy) and, with \p Tuned, the entries a build applies in it;
/// each compile logs its features and names its call sites.
Expected<std::vector<JobOutcome>>
compileLogged(const TunedCorpus &C, bool Tuned, const TeacherBuildOptions &O) {
  Expected<CompilePolicy> Policy = loadBasePolicy(O);
  if (!Policy)
    return Policy.takeError();
  std::vector<CompileJob> Jobs;
  for (size_t M = 0; M < C.Mods.size(); ++M) {
    CompilePolicy P = *Policy;
    if (Tuned) {
      auto Fixed = getAppliedEntries(C, M, O.PerPackage);
      if (!Fixed)
        return Fixed.takeError();
      P.Fixed = std::move(*Fixed);
    }
    CompileJob J = C.Mods[M].makeJob(P, /*WantLog=*/true);
    J.WantSites = true;
    Jobs.push_back(std::move(J));
  }
  WorkerPoolOptions PO;
  PO.Workers = O.Workers;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  return (*Pool)->run(Jobs);
}

/// The log of a module's compile, checked against its call sites and the
/// feature names of the modules before it (\p Names, set by the first).
Expected<DecisionLog> readLog(const CorpusModule &CM, const CompileResult &C,
                              std::vector<std::string> &Names) {
  Expected<DecisionLog> Log = parseDecisionLog(C.Log, CM.Name);
  if (!Log)
    return Log.takeError();
  if (Log->size() != C.Sites.size())
    return makeError(formatv("{0}: the compile logged {1} decisions and "
                             "named {2} call sites",
                             CM.Name, Log->size(), C.Sites.size())
                         .str());
  std::vector<std::string> These;
  for (const TensorSpec &S : Log->Specs)
    These.push_back(S.name());
  if (Names.empty())
    Names = These;
  else if (These != Names)
    return makeError(CM.Name + ": logged other features than the modules "
                               "before it");
  for (size_t K = 0; K < Log->size(); ++K) {
    const DecidedSite &D = C.Sites[K];
    if (std::isnan(D.Logit))
      return makeError(CM.Name + ": the model gave no logit at " +
                       D.Site.Caller + " -> " + D.Site.Callee);
    if (D.Site.Inline != (Log->Decisions[K] != 0))
      return makeError(CM.Name +
                       ": the log and the call sites disagree on "
                       "the decision at " +
                       D.Site.Caller + " -> " + D.Site.Callee);
  }
  return Log;
}

/// The site \p K of a module's logged compile, its answers and features;
/// Tuned, Moved and Saved are left to the caller.
TeacherSite makeSite(StringRef Program, StringRef Key, const DecidedSite &D,
                     const DecisionLog &Log, size_t K) {
  TeacherSite S;
  S.Program = Program.str();
  S.Module = Key.str();
  S.Caller = D.Site.Caller;
  S.Callee = D.Site.Callee;
  S.Ordinal = D.Site.Ordinal;
  S.Llvm = Log.Defaults[K] != 0;
  S.ModelAnswer = D.Logit > 0;
  S.Tuned = D.Site.Inline;
  ArrayRef<int64_t> Row = Log.row(K);
  S.Features.assign(Row.begin(), Row.end());
  return S;
}

/// A failed compile as the tuner's baseline failed (clang's error, a
/// crash) leaves its module out, named; a failure of the machine (a
/// timeout, a full disk) stops the command, whose rerun compiles it again.
Error checkOutcomes(const TunedCorpus &C, const std::vector<JobOutcome> &R,
                    TeacherSet &Set, StringRef Command, StringRef Key) {
  for (size_t M = 0; M < C.Mods.size(); ++M)
    if (!R[M].ok()) {
      if (R[M].Transient || R[M].Environment)
        return makeError(R[M].Error);
      Set.Meta.emplace_back(Key.str(), encodeName(C.Mods[M].Name));
      errs() << Command << ": warning: left out: " << R[M].Error << "\n";
    }
  return Error::success();
}

} // namespace

Expected<TeacherSet> buildTeacherSet(const TeacherBuildOptions &O) {
  Expected<TunedCorpus> TC = tuneCorpus(O);
  if (!TC)
    return TC.takeError();
  const TunedCorpus &C = *TC;
  // 3. Every module compiled with what the plugin applies in it.
  Expected<std::vector<JobOutcome>> RO = compileLogged(C, /*Tuned=*/true, O);
  if (!RO)
    return RO.takeError();
  const std::vector<JobOutcome> &R = *RO;

  // 4. One site per decision.
  TeacherSet Set;
  const DecisionsFile &First = C.Files.at(C.Programs.front());
  Set.Meta.emplace_back("llvm", First.getMeta("llvm").str());
  Set.Meta.emplace_back("corpus", getCorpusFingerprint(C.Mods));
  Set.Meta.emplace_back("model", First.getMeta("model").str());
  Set.Meta.emplace_back(
      "budget", O.MaxCompiles ? std::to_string(O.MaxCompiles) + " compiles"
                              : std::string("none"));
  Set.Meta.emplace_back("programs", O.PerPackage ? "per package" : "one");
  Set.Meta.emplace_back("decisions", md5Hex(C.DecisionsBytes));
  if (Error E = checkOutcomes(C, R, Set, "mlgo teacher build", "left-out"))
    return E;
  for (size_t M = 0; M < C.Mods.size(); ++M) {
    const CorpusModule &CM = C.Mods[M];
    if (!R[M].ok())
      continue;
    const CompileResult &CR = *R[M].Result;
    Expected<DecisionLog> Log = readLog(CM, CR, Set.FeatureNames);
    if (!Log)
      return Log.takeError();
    std::string Program = O.PerPackage ? CM.Package : "*";
    std::string Shown =
        O.PerPackage ? describePackage(CM.Package) : std::string("the corpus");
    for (size_t K = 0; K < Log->size(); ++K) {
      const DecidedSite &D = CR.Sites[K];
      TeacherSite S = makeSite(Program, C.Keys[M], D, *Log, K);
      S.Moved = D.Fixed && S.Tuned != S.ModelAnswer;
      if (S.Moved)
        S.Saved = savedBy(C.Kept, Shown, C.Keys[M], D.Site);
      Set.Sites.push_back(std::move(S));
    }
  }
  if (Error E = writeFileAtomically(O.Output, Set.print()))
    return E;
  return Set;
}

Expected<DaggerReport> runDaggerRound(const TeacherSet &Set,
                                      const DaggerOptions &DO) {
  TeacherBuildOptions O = DO.Build;
  if (O.ModelPath.empty())
    return makeError("a DAgger round needs the student (--student)");
  StringRef Programs = Set.getMeta("programs");
  if (Programs != "one" && Programs != "per package")
    return makeError(DO.SetName + ": its 'meta programs' is '" + Programs +
                     "', not 'one' or 'per package'");
  O.PerPackage = Programs == "per package";
  // The set must be of this corpus (checked before the search runs).
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(O.CorpusDir);
  if (!Mods)
    return Mods.takeError();
  std::string Corpus = getCorpusFingerprint(*Mods);
  if (Corpus != Set.getMeta("corpus"))
    return makeError(DO.SetName + ": a set of corpus " + Set.getMeta("corpus") +
                     ", not of " + O.CorpusDir + " (corpus " + Corpus + ")");
  // The search, started from the student.
  Expected<TunedCorpus> TC = tuneCorpus(O);
  if (!TC)
    return TC.takeError();
  const TunedCorpus &C = *TC;
  // The student's rollout: every module compiled with the student alone,
  // nothing fixed, logging its features and naming its sites.
  Expected<std::vector<JobOutcome>> RO = compileLogged(C, /*Tuned=*/false, O);
  if (!RO)
    return RO.takeError();
  const std::vector<JobOutcome> &R = *RO;

  DaggerReport Rep;
  Rep.Set = Set;
  TeacherSet &Out = Rep.Set;
  // New meta lines go after the set's, so that every round is named.
  TeacherSet Round;
  const DecisionsFile &First = C.Files.at(C.Programs.front());
  Round.Meta.emplace_back("dagger-model", First.getMeta("model").str());
  Round.Meta.emplace_back("dagger-budget",
                          O.MaxCompiles
                              ? std::to_string(O.MaxCompiles) + " compiles"
                              : std::string("none"));
  Round.Meta.emplace_back("dagger-decisions", md5Hex(C.DecisionsBytes));
  if (Error E =
          checkOutcomes(C, R, Round, "mlgo teacher dagger", "dagger-left-out"))
    return E;
  for (size_t M = 0; M < C.Mods.size(); ++M) {
    const CorpusModule &CM = C.Mods[M];
    if (!R[M].ok())
      continue;
    const CompileResult &CR = *R[M].Result;
    Expected<DecisionLog> Log = readLog(CM, CR, Round.FeatureNames);
    if (!Log)
      return Log.takeError();
    if (Round.FeatureNames != Set.FeatureNames)
      return makeError(CM.Name +
                       ": the student's compile logged other "
                       "features than " +
                       DO.SetName + " holds");
    Rep.RolloutSites += Log->size();
    Expected<std::shared_ptr<const ModuleDecisions>> Fixed =
        getAppliedEntries(C, M, O.PerPackage);
    if (!Fixed)
      return Fixed.takeError();
    if (!*Fixed)
      continue;
    // The search's answer at a site of the rollout is the entry of the
    // tuned decisions that fixes it (its site entry, else its callee's
    // group entry); the site diverges where that is not the student's.
    DecisionTable Tuned(*Fixed);
    std::string Program = O.PerPackage ? CM.Package : "*";
    std::string Shown =
        O.PerPackage ? describePackage(CM.Package) : std::string("the corpus");
    for (size_t K = 0; K < Log->size(); ++K) {
      const DecidedSite &D = CR.Sites[K];
      std::optional<bool> A =
          Tuned.lookup(D.Site.Caller, D.Site.Callee, D.Site.Ordinal);
      if (!A || *A == D.Site.Inline)
        continue;
      TeacherSite S = makeSite(Program, C.Keys[M], D, *Log, K);
      S.Tuned = *A;
      S.Moved = true;
      SiteDecision Applied = D.Site;
      Applied.Inline = *A;
      S.Saved = savedBy(C.Kept, Shown, C.Keys[M], Applied);
      Round.Sites.push_back(std::move(S));
    }
  }
  Rep.Added = Round.Sites.size();
  for (auto &KV : Round.Meta)
    Out.Meta.push_back(std::move(KV));
  Out.Meta.emplace_back("dagger-added", std::to_string(Rep.Added));
  for (TeacherSite &S : Round.Sites)
    Out.Sites.push_back(std::move(S));
  if (Error E = writeFileAtomically(O.Output, Out.print()))
    return E;
  return Rep;
}

Expected<DaggerRoundsReport> runDaggerRounds(const TeacherSet &Set,
                                             const DaggerOptions &DO,
                                             unsigned Rounds,
                                             const StudentOptions &SO) {
  if (Rounds == 0)
    return makeError("--rounds must be at least 1");
  DaggerRoundsReport Rep;
  Rep.Set = Set;
  std::string Student = DO.Build.ModelPath, SetName = DO.SetName;
  for (unsigned K = 1; K <= Rounds; ++K) {
    SmallString<256> Dir(DO.Build.WorkDir);
    sys::path::append(Dir, "round-" + std::to_string(K));
    DaggerOptions O = DO;
    O.SetName = SetName;
    O.Build.WorkDir = std::string(Dir);
    O.Build.ModelPath = Student;
    SmallString<256> Out(Dir);
    sys::path::append(Out, "set.txt");
    O.Build.Output = std::string(Out);
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return makeError("cannot create '" + Dir.str() + "': " + EC.message());
    Expected<DaggerReport> R = runDaggerRound(Rep.Set, O);
    if (!R)
      return R.takeError();
    Rep.Rounds.emplace_back(R->RolloutSites, R->Added);
    Rep.Set = std::move(R->Set);
    SetName = O.Build.Output;
    if (R->Added == 0 || K == Rounds)
      break;
    // The next round's student, trained on this round's set as `mlgo
    // teacher train` trains it.
    Expected<StudentReport> S = trainStudent(Rep.Set, SO);
    if (!S)
      return S.takeError();
    SmallString<256> Path(Dir);
    sys::path::append(Path, "student.json");
    if (Error E = S->Student.save(Path))
      return E;
    Student = std::string(Path);
  }
  if (Error E = writeFileAtomically(DO.Build.Output, Rep.Set.print()))
    return E;
  return Rep;
}

Expected<StudentReport> trainStudent(const TeacherSet &Set,
                                     const StudentOptions &O) {
  learn::Dataset D(Set.FeatureNames);
  int64_t DefaultF = D.getFeatureIndex(InlineDefaultFeatureName);
  if (DefaultF < 0)
    return makeError("the teacher set has no feature " +
                     InlineDefaultFeatureName);
  if (Set.Sites.empty())
    return makeError("the teacher set has no sites");
  StudentReport Rep;
  std::vector<float> Row(Set.FeatureNames.size());
  for (const TeacherSite &S : Set.Sites) {
    for (size_t I = 0; I < Row.size(); ++I)
      Row[I] = float(S.Features[I]);
    bool Invert = S.getTarget() != S.Llvm;
    D.addRow(Row, Invert, float(S.getWeight()));
    Rep.Inversions += Invert;
  }
  Rep.Sites = D.size();

  learn::ClassifierOptions CO;
  CO.Hidden = O.Hidden;
  CO.Epochs = O.Epochs;
  CO.BatchSize = O.BatchSize;
  CO.Optimizer.LearningRate = O.LearningRate;
  CO.L2 = O.L2;
  CO.Seed = O.Seed;
  CO.ResidualFeature = InlineDefaultFeatureName.str();
  CO.Metadata.Name = O.Name;
  CO.Metadata.Description =
      "Inlining for size (-Oz): LLVM's heuristic, inverted where a scorer "
      "trained to imitate the decisions mlgo tune found (a teacher set, "
      "docs/teacher.md) says so.";
  CO.Metadata.LLVMVersion = "19";
  CO.Metadata.FeatureSet = "llvm19-inline+mlgo-extra";
  CO.Metadata.Recipe =
      formatv("mlgo teacher train (teacher set {0}, {1} epochs)",
              Set.getFingerprint(), O.Epochs)
          .str();
  CO.Metadata.CorpusHash = Set.getMeta("corpus").str();
  auto T = learn::ClassifierTrainer::create(D, CO);
  if (!T)
    return T.takeError();
  (*T)->run();
  Expected<Model> G = (*T)->exportModel();
  if (!G)
    return G.takeError();
  Expected<Model> P = learn::buildFlipPolicy(*G, 0.0f);
  if (!P)
    return P.takeError();
  P->Metadata = G->Metadata;
  for (size_t I = 0; I < D.size(); ++I) {
    bool Invert = (*T)->predictLogit(D.row(I)) > 0;
    Rep.Agree += Invert == (D.label(I) != 0);
    Rep.InversionsKept += Invert && D.label(I) != 0;
  }
  Rep.Student = std::move(*P);
  return Rep;
}

} // namespace mlgo
