//===- lib/Teacher/Teacher.cpp - mlgo teacher build / train ---------------===//
//
// See mlgo/Teacher/Teacher.h. Building reuses the tuner whole (runTuning) and
// the compile of `mlgo tune check` (each module with the entries the plugin
// applies in it), asking the compile for its training log and its call
// sites at once: one row of features and one site per policy decision, in
// the same order. Training reuses the one classifier and the flip policy
// the counterfactual trainer ships (lib/Train).
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
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>

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

} // namespace

Expected<TeacherSet> buildTeacherSet(const TeacherBuildOptions &O) {
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
  SmallString<256> TriesPath(TuneDir);
  sys::path::append(TriesPath, "tries-" + getName(T.getOrder()).str() + ".tsv");
  Expected<KeptMoves> Kept = readKeptMoves(TriesPath);
  if (!Kept)
    return Kept.takeError();

  // 2. The modules, their programs and keys (as the tuner names them).
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(O.CorpusDir);
  if (!Mods)
    return Mods.takeError();
  std::vector<std::string> Programs;
  std::map<std::string, std::vector<size_t>> ModsOf;
  std::vector<std::string> Sources, Keys(Mods->size());
  for (size_t M = 0; M < Mods->size(); ++M) {
    Expected<std::string> Src = getSourceFileName((*Mods)[M]);
    if (!Src)
      return Src.takeError();
    Sources.push_back(std::move(*Src));
    std::string P = O.PerPackage ? (*Mods)[M].Package : "";
    auto &Of = ModsOf[P];
    if (Of.empty())
      Programs.push_back(P);
    Of.push_back(M);
  }
  std::map<std::string, DecisionsFile> Files;
  std::string DecisionsBytes;
  for (const std::string &P : Programs) {
    std::vector<std::string> Srcs;
    for (size_t M : ModsOf[P])
      Srcs.push_back(Sources[M]);
    std::vector<std::string> K = getSourceKeys(Srcs);
    for (size_t I = 0; I < K.size(); ++I)
      Keys[ModsOf[P][I]] = K[I];
    SmallString<256> Path(Decisions);
    if (O.PerPackage)
      sys::path::append(Path,
                        (P.empty() ? "_" : P) + std::string(".decisions"));
    Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
    if (!B)
      return B.takeError();
    DecisionsBytes += (*B)->getBuffer();
    Expected<DecisionsFile> F = DecisionsFile::parse((*B)->getBuffer(), Path);
    if (!F)
      return F.takeError();
    Files.emplace(P, std::move(*F));
  }

  // 3. Every module compiled with what the plugin applies in it.
  CompilePolicy Base = CompilePolicy::embedded();
  if (!O.ModelPath.empty()) {
    Expected<CompilePolicy> P = CompilePolicy::loadModel(O.ModelPath);
    if (!P)
      return P.takeError();
    Base = std::move(*P);
  }
  std::vector<CompileJob> Jobs;
  const ModuleDecisions NoEntries;
  for (size_t M = 0; M < Mods->size(); ++M) {
    const CorpusModule &CM = (*Mods)[M];
    const DecisionsFile &F = Files.at(O.PerPackage ? CM.Package : "");
    CompilePolicy P = Base;
    P.Fixed = F.find(Sources[M]);
    if (F.Program) {
      Expected<StringSet<>> LinkOnce = getLinkOnceODRFunctions(CM.BitcodePath);
      if (!LinkOnce)
        return LinkOnce.takeError();
      ModuleDecisions Applied = expandForModule(P.Fixed ? *P.Fixed : NoEntries,
                                                *F.Program, *LinkOnce);
      if (!Applied.Sites.empty())
        P.Fixed = std::make_shared<const ModuleDecisions>(std::move(Applied));
    }
    CompileJob J = CM.makeJob(P, /*WantLog=*/true);
    J.WantSites = true;
    Jobs.push_back(std::move(J));
  }
  WorkerPoolOptions PO;
  PO.Workers = O.Workers;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  std::vector<JobOutcome> R = (*Pool)->run(Jobs);

  // 4. One site per decision.
  TeacherSet Set;
  const DecisionsFile &First = Files.at(Programs.front());
  Set.Meta.emplace_back("llvm", First.getMeta("llvm").str());
  Set.Meta.emplace_back("corpus", getCorpusFingerprint(*Mods));
  Set.Meta.emplace_back("model", First.getMeta("model").str());
  Set.Meta.emplace_back(
      "budget", O.MaxCompiles ? std::to_string(O.MaxCompiles) + " compiles"
                              : std::string("none"));
  Set.Meta.emplace_back("programs", O.PerPackage ? "per package" : "one");
  Set.Meta.emplace_back("decisions", md5Hex(DecisionsBytes));
  // A module whose compile fails as the tuner's baseline did (clang's
  // error, a crash) is left out, as the tuner leaves it out, and named; a
  // failure of the machine (a timeout, a full disk) stops the build, whose
  // rerun then compiles it again.
  for (size_t M = 0; M < Mods->size(); ++M)
    if (!R[M].ok()) {
      if (R[M].Transient || R[M].Environment)
        return makeError(R[M].Error);
      Set.Meta.emplace_back("left-out", encodeName((*Mods)[M].Name));
      errs() << "mlgo teacher build: warning: left out: " << R[M].Error << "\n";
    }
  for (size_t M = 0; M < Mods->size(); ++M) {
    const CorpusModule &CM = (*Mods)[M];
    if (!R[M].ok())
      continue;
    const CompileResult &C = *R[M].Result;
    Expected<DecisionLog> Log = parseDecisionLog(C.Log, CM.Name);
    if (!Log)
      return Log.takeError();
    if (Log->size() != C.Sites.size())
      return makeError(formatv("{0}: the compile logged {1} decisions and "
                               "named {2} call sites",
                               CM.Name, Log->size(), C.Sites.size())
                           .str());
    std::vector<std::string> Names;
    for (const TensorSpec &S : Log->Specs)
      Names.push_back(S.name());
    if (Set.FeatureNames.empty())
      Set.FeatureNames = Names;
    else if (Names != Set.FeatureNames)
      return makeError(CM.Name + ": logged other features than the modules "
                                 "before it");
    std::string Program = O.PerPackage ? CM.Package : "*";
    std::string Shown =
        O.PerPackage ? describePackage(CM.Package) : std::string("the corpus");
    for (size_t K = 0; K < Log->size(); ++K) {
      const DecidedSite &D = C.Sites[K];
      if (std::isnan(D.Logit))
        return makeError(CM.Name + ": the model gave no logit at " +
                         D.Site.Caller + " -> " + D.Site.Callee);
      TeacherSite S;
      S.Program = Program;
      S.Module = Keys[M];
      S.Caller = D.Site.Caller;
      S.Callee = D.Site.Callee;
      S.Ordinal = D.Site.Ordinal;
      S.Llvm = Log->Defaults[K] != 0;
      S.ModelAnswer = D.Logit > 0;
      S.Tuned = D.Site.Inline;
      if (S.Tuned != (Log->Decisions[K] != 0))
        return makeError(CM.Name +
                         ": the log and the call sites disagree on "
                         "the decision at " +
                         D.Site.Caller + " -> " + D.Site.Callee);
      S.Moved = D.Fixed && S.Tuned != S.ModelAnswer;
      if (S.Moved)
        S.Saved = savedBy(*Kept, Shown, Keys[M], D.Site);
      ArrayRef<int64_t> Row = Log->row(K);
      S.Features.assign(Row.begin(), Row.end());
      Set.Sites.push_back(std::move(S));
    }
  }
  if (Error E = writeFileAtomically(O.Output, Set.print()))
    return E;
  return Set;
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
