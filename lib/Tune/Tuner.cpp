//===- lib/Tune/Tuner.cpp - mlgo tune: the search loop --------------------===//
//
// See mlgo/Tune/Tuner.h and docs/tune.md. The search runs in lockstep over
// the programs' units - a step makes each unit's next tries, its compiles
// in parallel - and judges a step's tries one after the other, each
// against the programs as the tries before it left them, so that every
// kept move is measured exactly.
//
// It is one loop over plain values (mlgo/Tune/SearchState.h) with its parts
// around it: the move source and the ranker (planMoves, MoveRanker), the
// objective that measures (Objective, SizeObjective over the compile
// service) and the report writer
// (TuneReport). The loop reads the plan (TuneOptions) only through them.
//
// Setting up is a sequence of functions over values, in the order
// runTuning calls them: loadModels, openCaches, mapPrograms (programs and
// source keys), compileBaselines (-Oz and the model) and layOutUnits (the
// units and the programs' linked sizes); the Tuner is given what they
// return and runs the search over it.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/Tuner.h"

#include "mlgo/Corpus/LinkedProgram.h"
#include "mlgo/Support/WorkDirLock.h"
#include "mlgo/Tune/LtoObjective.h"
#include "mlgo/Tune/MoveRanker.h"
#include "mlgo/Tune/ProgramDecisions.h"
#include "mlgo/Tune/SearchState.h"
#include "mlgo/Tune/SizeObjective.h"
#include "mlgo/Tune/TuneReport.h"

#include "mlgo/Compile/CompileService.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Config.h"
#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Percent.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

using namespace llvm;

namespace mlgo {

StringRef getName(TuneGuide G) {
  switch (G) {
  case TuneGuide::Ranker:
    return "ranker";
  case TuneGuide::Logit:
    return "logit";
  case TuneGuide::Trajectory:
    return "trajectory";
  }
  llvm_unreachable("unknown TuneGuide");
}

namespace {

/// One program: its modules' objects linked together.
struct Program {
  std::string Name;
  /// Linked .text with -Oz, and with the model.
  uint64_t Stock = 0, Model = 0;
  std::vector<size_t> Units;
};

/// How the linked size counts a compile's object.
ObjectCode getCode(const CompileCache::Entry &E) {
  return {E.TextSize, E.Grouped};
}

/// The model that decides untuned sites and guides the search, the ranker
/// that orders the guided search's moves, and how the report and the
/// decisions file name them.
struct TuneModels {
  CompilePolicy Base;
  /// "embedded (model.json md5 …)" or "file PATH (md5 …)".
  std::string ModelDescription;
  /// None: the guided order ranks by |logit|.
  std::optional<MoveRanker> Ranker;
  /// "shipped (md5 …)" or "file PATH (md5 …)".
  std::string RankerDescription;
};

Expected<TuneModels> loadModels(const TuneOptions &O) {
  TuneModels M;
  if (O.ModelPath.empty()) {
    M.Base = CompilePolicy::embedded();
    M.ModelDescription = std::string("embedded (model.json md5 ") +
                         config::EmbeddedModelMD5 + ")";
  } else {
    Expected<CompilePolicy> P = CompilePolicy::loadModel(O.ModelPath);
    if (!P)
      return P.takeError();
    M.Base = std::move(*P);
    M.ModelDescription =
        "file " + O.ModelPath + " (md5 " +
        toHex(MD5::hash(arrayRefFromStringRef(M.Base.getModelJSON())),
              /*LowerCase=*/true) +
        ")";
  }
  if (O.Guide != TuneGuide::Ranker)
    return M;
  Expected<MoveRanker> R = O.RankerPath.empty()
                               ? MoveRanker::getShipped()
                               : MoveRanker::load(O.RankerPath);
  if (!R)
    return R.takeError();
  M.Ranker.emplace(std::move(*R));
  M.RankerDescription =
      (O.RankerPath.empty() ? std::string("shipped") : "file " + O.RankerPath) +
      " (md5 " +
      toHex(
          MD5::hash(arrayRefFromStringRef(M.Ranker->getModel().toJSONString())),
          /*LowerCase=*/true) +
      ")";
  return M;
}

/// The path of \p Name in the work directory.
std::string getWorkFile(const TuneOptions &O, StringRef Name) {
  SmallString<256> P(O.WorkDir);
  sys::path::append(P, Name);
  return std::string(P);
}

/// Opens the work directory's caches (compiles.tsv, sites.tsv) in \p S, so
/// that a rerun compiles only what no run before it did.
Error openCaches(CompileService &S, const TuneOptions &O) {
  if (Error E = S.openCache(getWorkFile(O, "compiles.tsv")))
    return E;
  if (Error E = S.openSiteCache(getWorkFile(O, "sites.tsv")))
    return E;
  S.setNeedGrouped(true);
  S.setProgress("mlgo tune", O.Verbose);
  return Error::success();
}

/// Which program each module belongs to, and its source key.
struct ProgramMap {
  /// Per program, in the order their first modules come.
  std::vector<std::string> Names;
  /// Per module: its program, and its source key relative to that
  /// program's sources (getSourceKeys).
  std::vector<size_t> ProgramOf;
  std::vector<std::string> KeyOf;
};

/// Each module's program (its package, with PerPackage; else the one
/// program) and source key; errors are getSourceFileName's.
Expected<ProgramMap> mapPrograms(ArrayRef<CorpusModule> Mods,
                                 const TuneOptions &O) {
  std::vector<std::string> Sources;
  for (const CorpusModule &M : Mods) {
    Expected<std::string> Src = getSourceFileName(M);
    if (!Src)
      return Src.takeError();
    Sources.push_back(std::move(*Src));
  }
  ProgramMap Map;
  std::map<std::string, size_t> ProgramOf;
  for (const CorpusModule &M : Mods) {
    std::string Name = O.PerPackage ? M.Package : O.ProgramName;
    auto [It, New] = ProgramOf.try_emplace(Name, Map.Names.size());
    if (New)
      Map.Names.push_back(Name);
    Map.ProgramOf.push_back(It->second);
  }
  // Keys are computed per program, so that each program's keys are
  // relative to its own directory.
  std::vector<std::vector<size_t>> ModsOf(Map.Names.size());
  for (size_t M = 0; M < Mods.size(); ++M)
    ModsOf[Map.ProgramOf[M]].push_back(M);
  Map.KeyOf.resize(Mods.size());
  for (const std::vector<size_t> &Of : ModsOf) {
    std::vector<std::string> Srcs;
    for (size_t M : Of)
      Srcs.push_back(Sources[M]);
    std::vector<std::string> Keys = getSourceKeys(Srcs);
    for (size_t K = 0; K < Of.size(); ++K)
      Map.KeyOf[Of[K]] = Keys[K];
  }
  return Map;
}

/// Per module: its -Oz compile, and the model's with its call sites.
struct Baselines {
  std::vector<CompileCache::Entry> Stock;
  std::vector<CompileService::SitesResult> Start;
};

Expected<Baselines> compileBaselines(CompileService &S,
                                     const CompilePolicy &Base) {
  Baselines B;
  std::vector<ModuleRequest> Req;
  for (size_t M = 0; M < S.modules().size(); ++M)
    Req.push_back({M, CompilePolicy::stock()});
  Expected<std::vector<CompileCache::Entry>> Oz = S.compile(Req, "-Oz");
  if (!Oz)
    return Oz.takeError();
  B.Stock = std::move(*Oz);
  for (ModuleRequest &R : Req)
    R.second = Base;
  Expected<std::vector<CompileService::SitesResult>> Model =
      S.compileWithSites(Req, "the model");
  if (!Model)
    return Model.takeError();
  B.Start = std::move(*Model);
  return B;
}

/// What the search tunes: the programs, their units, and the modules left
/// out because a baseline compile failed.
struct TuneLayout {
  std::vector<Program> Programs;
  /// Per program: the model's objects linked (the search's start).
  std::vector<LinkedProgram> Linked;
  std::vector<Unit> Units;
  /// The failed compiles' errors, in module order.
  std::vector<std::string> Failures;
};

/// Groups the modules that compiled both ways into units (one per program
/// and source key) and links each program's -Oz and model objects; each
/// module left out is warned about, even with --quiet. An error if no
/// module compiled.
Expected<TuneLayout> layOutUnits(const ProgramMap &Map, const Baselines &B,
                                 const TuneOptions &O) {
  TuneLayout L;
  for (const std::string &Name : Map.Names) {
    L.Programs.emplace_back();
    L.Programs.back().Name = Name;
    L.Linked.emplace_back();
  }
  std::map<std::pair<size_t, std::string>, size_t> UnitOf;
  for (size_t M = 0; M < Map.ProgramOf.size(); ++M) {
    const CompileCache::Entry &E =
        !B.Stock[M].Ok ? B.Stock[M] : B.Start[M].Entry;
    if (!E.Ok) {
      // Named even with --quiet: the tuned program lacks this module.
      WithColor::warning(errs(), "mlgo tune")
          << "left out: " << E.Error << "\n";
      L.Failures.push_back(E.Error);
      continue;
    }
    size_t P = Map.ProgramOf[M];
    auto [It, New] = UnitOf.try_emplace({P, Map.KeyOf[M]}, L.Units.size());
    if (New) {
      L.Units.push_back({P, Map.KeyOf[M], {}, {}});
      L.Programs[P].Units.push_back(It->second);
    }
    Unit &U = L.Units[It->second];
    U.Mods.push_back(M);
    U.Slots.push_back(L.Linked[P].add(getCode(B.Start[M].Entry)));
  }
  for (size_t I = 0; I < L.Programs.size(); ++I) {
    Program &P = L.Programs[I];
    std::vector<std::pair<uint64_t, const std::vector<GroupedSection> *>> Objs;
    for (size_t U : P.Units)
      for (size_t M : L.Units[U].Mods)
        Objs.push_back({B.Stock[M].TextSize, &B.Stock[M].Grouped});
    P.Stock = getCodeOnce<uint64_t>(Objs);
    P.Model = L.Linked[I].size();
  }
  if (L.Units.empty())
    return makeError("no module of " + O.CorpusDir + " compiled (" +
                     Twine(L.Failures.size()) + " failed); first: " +
                     (L.Failures.empty() ? "none" : L.Failures.front()));
  if (O.Verbose)
    errs() << formatv("mlgo tune: {0} modules in {1} program{2}; {3} failed "
                      "to compile and are left out\n",
                      Map.ProgramOf.size(), L.Programs.size(),
                      L.Programs.size() == 1 ? "" : "s", L.Failures.size());
  return L;
}

/// The search's objective: the programs' objects linked (SizeObjective),
/// or under --lto the final artifacts of --link (LtoObjective), whose stock
/// and model sizes then replace \p L's.
Expected<std::unique_ptr<Objective>>
makeObjective(CompileService &S, const TuneOptions &O,
              const CompilePolicy &Base, const Baselines &B, TuneLayout &L) {
  if (O.Lto == LtoMode::None)
    return std::make_unique<SizeObjective>(S, B.Stock, L.Linked);
  LtoSetup Setup;
  Setup.Mode = O.Lto;
  Setup.Link = O.Link;
  Setup.LinkEnv = O.LinkEnv;
  Setup.LinkSource = O.LinkSource;
  // Absolute: the link runs in the caller's directory with these paths.
  SmallString<256> Work(getWorkFile(O, "lto"));
  sys::fs::make_absolute(Work);
  Setup.WorkDir = std::string(Work);
  Setup.PluginPath = getInstallDirs().Plugin;
  SmallString<256> Ld(sys::path::parent_path(Setup.PluginPath));
  sys::path::append(Ld, "lld", "ld.lld");
  Setup.LdPath = std::string(Ld);
  if (!sys::fs::exists(Setup.LdPath))
    return makeError(Setup.LdPath + ": no such file (mlgo's ld.lld, which "
                                    "loads the plugin into the LTO link)");
  Setup.TimeoutSeconds = O.TimeoutSeconds;
  std::vector<std::vector<LtoObjective::Slot>> Slots(L.Programs.size());
  for (const Unit &U : L.Units)
    for (size_t K = 0; K < U.Mods.size(); ++K) {
      std::vector<LtoObjective::Slot> &P = Slots[U.Program];
      if (P.size() <= U.Slots[K])
        P.resize(U.Slots[K] + 1);
      P[U.Slots[K]] = {U.Mods[K], U.Key};
    }
  auto Obj = std::make_unique<LtoObjective>(S, std::move(Setup), Base, B.Stock,
                                            std::move(Slots));
  if (O.Verbose)
    errs() << "mlgo tune: linking each program with stock LTO and with the "
              "model ("
           << getLtoFlag(O.Lto) << ")\n";
  Expected<std::vector<uint64_t>> Stock = Obj->start();
  if (!Stock)
    return Stock.takeError();
  for (size_t P = 0; P < L.Programs.size(); ++P) {
    L.Programs[P].Stock = (*Stock)[P];
    L.Programs[P].Model = Obj->cost(P);
  }
  return Obj;
}

/// The decisions a run writes: per unit its entries, per program its
/// whole-program entries and what hoisting did, per unit the functions its
/// modules define linkonce_odr.
struct FileEntries {
  std::vector<ModuleDecisions> Entries;
  std::vector<ModuleDecisions> ProgramEntries;
  std::vector<StringSet<>> LinkOnce;
  std::vector<HoistStats> Hoisted;
};

/// The search over a set-up program, and what it writes: every value it
/// works on is given to its constructor and stays as given.
class Tuner {
public:
  Tuner(const TuneOptions &O, CompileService &S, TuneModels Models,
        std::vector<CompileService::SitesResult> Start, TuneLayout Layout,
        std::unique_ptr<Objective> Obj)
      : O(O), S(S), Base(std::move(Models.Base)),
        ModelDescription(std::move(Models.ModelDescription)),
        Ranker(std::move(Models.Ranker)),
        RankerDescription(std::move(Models.RankerDescription)),
        Start(std::move(Start)), Programs(std::move(Layout.Programs)),
        Units(std::move(Layout.Units)), Failures(std::move(Layout.Failures)),
        Obj(std::move(Obj)) {}
  Error run();

private:
  const std::vector<CorpusModule> &modules() const { return S.modules(); }
  std::string workFile(StringRef Name) const { return getWorkFile(O, Name); }
  void log(const Twine &Message) const {
    if (O.Verbose)
      errs() << "mlgo tune: " << Message << "\n";
  }
  CompilePolicy policyFor(const ModuleDecisions &Fixed) const {
    CompilePolicy P = Base;
    if (!Fixed.Sites.empty())
      P.Fixed = std::make_shared<const ModuleDecisions>(Fixed);
    return P;
  }
  /// The policy that tries move \p M from state \p St.
  CompilePolicy policyFor(const UnitState &St, const TuneMove &M) const {
    return M.Heuristic ? CompilePolicy::heuristic()
                       : policyFor(applyMove(St.Fixed, M));
  }
  /// The plan of a unit in state \p St: the move source (planMoves, ordered
  /// by the ranker, |logit| or the trajectory), then the filter; the moves
  /// it takes out are recorded in \p R.
  std::vector<TuneMove> plan(const UnitState &St, bool OfferHeuristic,
                             SearchState &R) const;
  Expected<SearchState> search();
  /// Compiles the tries of \p P; per try, the index of its first module's
  /// measurement.
  Expected<std::vector<Measurement>> measure(const StepPlan &P,
                                             const SearchState &R,
                                             unsigned Step,
                                             std::vector<size_t> &First);
  /// Judges the tries of \p P in order; the units that kept a move, and
  /// per unit the measurement that holds its new trajectory (none for a
  /// kept heuristic).
  struct Judged {
    std::vector<size_t> Kept, KeptHeuristic;
    std::vector<std::optional<size_t>> KeptFrom;
  };
  Judged judge(const StepPlan &P, unsigned Step, uint64_t StepCompiles,
               ArrayRef<Measurement> Res, ArrayRef<size_t> First,
               SearchState &R);
  /// A kept heuristic becomes its complete list of decisions.
  Error fixHeuristics(ArrayRef<size_t> KeptHeuristic, SearchState &R);
  /// Kept moves change the trajectory: learn it (a kept move's from its
  /// try, a kept heuristic's by a compile) and plan again.
  Error replan(const Judged &J, std::vector<Measurement> &Res, SearchState &R);

  /// "unguided", "guided by the ranker FILE|shipped (md5 …)", "guided by
  /// |logit|", and the filter.
  std::string describeOrder() const;
  /// A program's name in the report.
  std::string showProgram(StringRef Name) const;
  /// The decisions file entries of unit U in \p R.
  ModuleDecisions finalEntries(size_t U, const SearchState &R) const;
  /// The file's entries: with \p Hoist, each single-module unit's complete
  /// trajectory and linkonce_odr functions decided once per program;
  /// without, the entries the search compiled and measured.
  Expected<FileEntries> decide(const SearchState &R, bool Hoist) const;
  /// Per program, the form of its file (chooseFileForm) and why: the
  /// report's line, empty where the whole-program form is written as
  /// checked. Rewrites \p F and \p Tuned to the chosen forms.
  Expected<std::vector<std::string>> chooseForms(const SearchState &R,
                                                 FileEntries &F,
                                                 std::vector<uint64_t> &Tuned);
  /// Compiles the entries as the plugin applies them: per program, its
  /// linked .text with the decisions file.
  Expected<std::vector<uint64_t>> check(const SearchState &R,
                                        const FileEntries &F);
  Error writeDecisionsFiles(const SearchState &R, const FileEntries &F,
                            ArrayRef<uint64_t> Tuned) const;
  Error writeReport(const SearchState &R, const FileEntries &F,
                    ArrayRef<uint64_t> Tuned,
                    ArrayRef<std::string> FormNotes) const;
  /// The build the report's and the file's stock size is of.
  std::string getBaseline() const {
    return O.Lto == LtoMode::Thin   ? "stock -flto=thin"
           : O.Lto == LtoMode::Full ? "stock -flto"
                                    : "-Oz";
  }
  std::string describeBudget() const {
    return O.MaxCompiles         ? formatv("{0} compiles", O.MaxCompiles).str()
           : O.BudgetMinutes > 0 ? formatv("{0} minutes", O.BudgetMinutes).str()
                                 : std::string("none");
  }

  const TuneOptions &O;
  CompileService &S;
  const CompilePolicy Base;
  const std::string ModelDescription;
  const std::optional<MoveRanker> Ranker;
  const std::string RankerDescription;
  /// Per module: the model's compile with its sites.
  const std::vector<CompileService::SitesResult> Start;
  const std::vector<Program> Programs;
  const std::vector<Unit> Units;
  const std::vector<std::string> Failures;
  const std::unique_ptr<Objective> Obj;
};

std::vector<TuneMove> Tuner::plan(const UnitState &St, bool OfferHeuristic,
                                  SearchState &R) const {
  std::optional<uint64_t> Text;
  auto Score = [&](const TuneMove &M) {
    if (!Text)
      Text = St.getText();
    return Ranker->score(M, *Text);
  };
  return planMoves(St.Trajectory, O.getOrder(), TieBreakSeed, St.Tried,
                   OfferHeuristic, Ranker ? MoveScore(Score) : MoveScore());
}

std::string Tuner::describeOrder() const {
  return O.Guide == TuneGuide::Trajectory ? "unguided"
         : Ranker ? "guided by the ranker " + RankerDescription
                  : "guided by |logit|";
}

Expected<std::vector<Measurement>> Tuner::measure(const StepPlan &P,
                                                  const SearchState &R,
                                                  unsigned Step,
                                                  std::vector<size_t> &First) {
  std::vector<Trial> Trials;
  for (const PlannedTry &T : P.Tries) {
    const UnitState &St = R.States[T.Unit];
    First.push_back(Trials.size());
    CompilePolicy Policy = policyFor(St, St.Moves[T.Move]);
    for (size_t Mod : Units[T.Unit].Mods)
      Trials.push_back({Mod, Policy, T.Free});
  }
  return Obj->measure(Trials, ("step " + Twine(Step)).str());
}

Tuner::Judged Tuner::judge(const StepPlan &P, unsigned Step,
                           uint64_t StepCompiles, ArrayRef<Measurement> Res,
                           ArrayRef<size_t> First, SearchState &R) {
  Judged J;
  std::vector<bool> Moved(Units.size());
  for (size_t I = 0; I < P.Tries.size(); ++I) {
    const size_t U = P.Tries[I].Unit, F = First[I];
    UnitState &St = R.States[U];
    // A unit's later tries were made against a state that is gone.
    if (Moved[U])
      continue;
    const TuneMove Move = St.Moves[P.Tries[I].Move];
    St.Tried.insert(Move.getKey());
    std::vector<SlotChange> Changes;
    std::vector<CompileOutcome> Objects;
    bool Ok = true;
    for (size_t K = 0; K < Units[U].Mods.size(); ++K) {
      Ok &= Res[F + K].Outcome.Ok;
      Changes.push_back(
          {Units[U].Slots[K], &Res[F + K].Outcome, Res[F + K].Detail.get()});
      Objects.push_back(Res[F + K].Outcome);
    }
    const size_t Prog = Units[U].Program;
    const int64_t D = Ok ? Obj->delta(Prog, Changes) : 0;
    R.Tries.push_back(
        {Step, StepCompiles, U, Move, St.getText(), D, Ok, Ok && D < 0});
    if (!Ok || D >= 0) {
      St.Next = P.Tries[I].Move + 1;
      continue;
    }
    Moved[U] = true;
    Obj->apply(Prog, Changes);
    keepMove(St, Move, D, Objects);
    if (Move.Heuristic)
      J.KeptHeuristic.push_back(U);
    J.Kept.push_back(U);
    J.KeptFrom.push_back(Move.Heuristic ? std::nullopt
                                        : std::optional<size_t>(F));
  }
  return J;
}

Error Tuner::fixHeuristics(ArrayRef<size_t> KeptHeuristic, SearchState &R) {
  if (KeptHeuristic.empty())
    return Error::success();
  std::vector<Trial> HR;
  for (size_t U : KeptHeuristic)
    HR.push_back({Units[U].Mods.front(), CompilePolicy::heuristic()});
  Expected<std::vector<Measurement>> H = Obj->measure(HR, "heuristic sites");
  if (!H)
    return H.takeError();
  R.Compiles += HR.size();
  for (size_t K = 0; K < KeptHeuristic.size(); ++K) {
    const CompileOutcome &E = (*H)[K].Outcome;
    if (!E.Ok)
      return makeError("a compile that succeeded failed when repeated: " +
                       E.Error);
    // The try was judged from the -Oz compile: the heuristic's own
    // compile must be it, or the kept move's bytes are not its own.
    const CompileOutcome &Oz = R.States[KeptHeuristic[K]].Current[0];
    if (E.TextSize != Oz.TextSize || !llvm::equal(E.Grouped, Oz.Grouped))
      return makeError(
          formatv("{0}: LLVM's heuristic through mlgo's advisor built "
                  "{1} bytes of .text, stock clang -Oz {2}: the "
                  "heuristic's try cannot be judged from the -Oz compile",
                  modules()[HR[K].Module].BitcodePath, E.TextSize, Oz.TextSize)
              .str());
    R.States[KeptHeuristic[K]].Fixed =
        fixAll(Units[KeptHeuristic[K]].Key, (*H)[K].Trajectory);
  }
  return Error::success();
}

Error Tuner::replan(const Judged &J, std::vector<Measurement> &Res,
                    SearchState &R) {
  if (J.Kept.empty())
    return Error::success();
  std::vector<Trial> TR;
  for (size_t K = 0; K < J.Kept.size(); ++K)
    if (!J.KeptFrom[K])
      TR.push_back({Units[J.Kept[K]].Mods.front(),
                    policyFor(R.States[J.Kept[K]].Fixed)});
  std::vector<Measurement> T;
  if (!TR.empty()) {
    Expected<std::vector<Measurement>> Compiled =
        Obj->measure(TR, "new trajectories");
    if (!Compiled)
      return Compiled.takeError();
    T = std::move(*Compiled);
    R.Compiles += TR.size();
  }
  for (size_t K = 0, I = 0; K < J.Kept.size(); ++K) {
    UnitState &St = R.States[J.Kept[K]];
    if (J.KeptFrom[K]) {
      St.Trajectory = std::move(Res[*J.KeptFrom[K]].Trajectory);
    } else {
      if (!T[I].Outcome.Ok)
        return makeError("a compile that succeeded failed when repeated: " +
                         T[I].Outcome.Error);
      St.Trajectory = std::move(T[I++].Trajectory);
    }
    St.Moves = plan(St, /*OfferHeuristic=*/false, R);
    St.Next = 0;
  }
  return Error::success();
}

Expected<SearchState> Tuner::search() {
  using Clock = std::chrono::steady_clock;
  const auto Begin = Clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - Begin).count();
  };
  const SearchBudget Budget{O.MaxCompiles, O.BudgetMinutes};
  SearchState R;
  R.Units = Units;
  R.States.resize(Units.size());
  const uint64_t ModelTotal = Obj->total(Programs.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    UnitState &St = R.States[U];
    St.Fixed.Module = Units[U].Key;
    St.Trajectory = Start[Units[U].Mods.front()].Sites;
    for (size_t M : Units[U].Mods)
      St.Current.push_back(Start[M].Entry);
    // LLVM's heuristic is offered to single-module units only: a complete
    // list of one module's decisions reproduces only that module.
    St.Moves = plan(St, /*OfferHeuristic=*/Units[U].Mods.size() == 1, R);
  }
  R.Curve.push_back({0, ModelTotal, 0});
  // The search shows one progress line of its own.
  S.setProgress("mlgo tune", false);
  Progress Shown(("mlgo tune: search (" + getName(O.getOrder()) + ")").str(),
                 "compiles");
  auto Show = [&](uint64_t Total) {
    if (!O.Verbose)
      return;
    Shown.setDetail(formatv("; {0:F0} s elapsed; linked .text {1:F2}% vs the "
                            "model ({2} bytes)",
                            Elapsed(), percentChange(ModelTotal, Total),
                            int64_t(Total) - int64_t(ModelTotal))
                        .str());
    uint64_t Left = 0;
    for (size_t U = 0; U < Units.size(); ++U)
      Left +=
          (R.States[U].Moves.size() - R.States[U].Next) * Units[U].Mods.size();
    Shown.update(R.Compiles, Budget.getGoal(R.Compiles, Left, Elapsed()));
  };
  for (unsigned Step = 0;; ++Step) {
    if (Budget.isTimeUp(Elapsed())) {
      R.StoppedByBudget = true;
      break;
    }
    const StepPlan P = planStep(R, Budget);
    if (P.Tries.empty()) {
      R.StoppedByBudget = P.Full;
      break;
    }
    const uint64_t StepCompiles = R.Compiles;
    std::vector<size_t> First;
    Expected<std::vector<Measurement>> Res = measure(P, R, Step, First);
    if (!Res)
      return Res.takeError();
    R.Compiles += P.Compiles;
    Judged J = judge(P, Step, StepCompiles, *Res, First, R);
    if (Error E = Obj->takeError())
      return E;
    if (Error E = fixHeuristics(J.KeptHeuristic, R))
      return E;
    if (Error E = replan(J, *Res, R))
      return E;
    const uint64_t Total = Obj->total(Programs.size());
    R.Curve.push_back({R.Compiles, Total, Elapsed()});
    Show(Total);
  }
  Shown.end();
  S.setProgress("mlgo tune", O.Verbose);
  R.Seconds = Elapsed();
  log(formatv("search ({0}): {1} compiles in {2:F1} s{3}; linked .text "
              "{4:F2}% vs the model",
              getName(O.getOrder()), R.Compiles, R.Seconds,
              R.StoppedByBudget ? ", stopped by the budget" : "",
              percentChange(ModelTotal, Obj->total(Programs.size()))));
  return R;
}

ModuleDecisions Tuner::finalEntries(size_t U, const SearchState &R) const {
  const UnitState &St = R.States[U];
  if (St.Fixed.Sites.empty())
    return St.Fixed;
  // A single module's complete trajectory, so that the file reproduces its
  // decisions whatever the model proposes; several modules share their
  // fixed decisions as searched.
  if (Units[U].Mods.size() == 1)
    return fixAll(Units[U].Key, St.Trajectory);
  return St.Fixed;
}

std::string Tuner::showProgram(StringRef Name) const {
  if (O.PerPackage)
    return describePackage(Name);
  return Name.empty() ? std::string("the corpus") : Name.str();
}

Expected<FileEntries> Tuner::decide(const SearchState &R, bool Hoist) const {
  FileEntries F;
  F.Entries.resize(Units.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    // Without hoisting, the entries the search compiled and measured.
    F.Entries[U] = Hoist ? finalEntries(U, R) : R.States[U].Fixed;
    if (F.Entries[U].Module.empty())
      F.Entries[U].Module = Units[U].Key;
  }
  // Whole-program decisions: each linkonce_odr function's sites decided
  // once per program, in its 'program' section (ProgramDecisions.h); a
  // module is then compiled with what the plugin applies in it.
  F.ProgramEntries.resize(Programs.size());
  F.LinkOnce.resize(Units.size());
  F.Hoisted.resize(Programs.size());
  for (size_t P = 0; Hoist && P < Programs.size(); ++P) {
    std::vector<ProgramModule> Mods;
    for (size_t U : Programs[P].Units) {
      ProgramModule &PM = Mods.emplace_back();
      PM.Entries = F.Entries[U];
      PM.Trajectory = R.States[U].Trajectory;
      PM.Exact = Units[U].Mods.size() == 1;
      for (size_t M : Units[U].Mods) {
        Expected<StringSet<>> Fns =
            getLinkOnceODRFunctions(modules()[M].BitcodePath);
        if (!Fns)
          return Fns.takeError();
        for (const auto &Name : *Fns)
          F.LinkOnce[U].insert(Name.getKey());
      }
      PM.LinkOnceODR = F.LinkOnce[U];
    }
    F.ProgramEntries[P] = hoistLinkOnceDecisions(Mods, &F.Hoisted[P]);
    for (size_t I = 0; I < Mods.size(); ++I)
      F.Entries[Programs[P].Units[I]] = std::move(Mods[I].Entries);
  }
  return F;
}

Expected<std::vector<uint64_t>> Tuner::check(const SearchState &R,
                                             const FileEntries &F) {
  // The decisions as the file gives them, compiled once more: the sizes
  // the report and the file state are the ones a build gets.
  std::vector<Trial> Req;
  std::vector<std::pair<size_t, size_t>> Tuned; // (unit, first request)
  for (size_t U = 0; U < Units.size(); ++U) {
    ModuleDecisions Applied = expandForModule(
        F.Entries[U], F.ProgramEntries[Units[U].Program], F.LinkOnce[U]);
    if (Applied.Sites.empty())
      continue;
    Tuned.push_back({U, Req.size()});
    for (size_t M : Units[U].Mods)
      Req.push_back({M, policyFor(Applied)});
  }
  Expected<std::vector<Measurement>> Res =
      Obj->measure(Req, "check", /*WithTrajectory=*/false);
  if (!Res)
    return Res.takeError();
  // Each program as the search left it, every tuned unit's modules
  // replaced by their compiles from the file's entries.
  size_t Differ = 0;
  std::vector<std::vector<SlotChange>> Changes(Programs.size());
  for (auto [U, First] : Tuned) {
    for (size_t K = 0; K < Units[U].Mods.size(); ++K) {
      const Measurement &M = (*Res)[First + K];
      if (!M.Outcome.Ok)
        return makeError("the tuned decisions do not compile: " +
                         M.Outcome.Error);
      Differ += M.Outcome.TextSize != R.States[U].Current[K].TextSize;
      Changes[Units[U].Program].push_back(
          {Units[U].Slots[K], &M.Outcome, M.Detail.get()});
    }
  }
  if (Differ)
    log(formatv("{0} tuned modules compile to another size from their "
                "decisions file entries than in the search",
                Differ));
  std::vector<uint64_t> TunedSize;
  for (size_t P = 0; P < Programs.size(); ++P)
    TunedSize.push_back(
        uint64_t(int64_t(Obj->cost(P)) + Obj->delta(P, Changes[P])));
  if (Error E = Obj->takeError())
    return E;
  return TunedSize;
}

Expected<std::vector<std::string>>
Tuner::chooseForms(const SearchState &R, FileEntries &F,
                   std::vector<uint64_t> &Tuned) {
  std::vector<std::string> Notes(Programs.size());
  std::vector<uint64_t> Searched;
  bool Recheck = false;
  for (size_t P = 0; P < Programs.size(); ++P) {
    Searched.push_back(Obj->cost(P));
    Recheck |= mustCheckPerModule(!F.ProgramEntries[P].Sites.empty(), Tuned[P],
                                  Searched[P], Programs[P].Model);
  }
  // The per-module form, checked as the whole-program one was.
  std::optional<FileEntries> PerF;
  std::optional<std::vector<uint64_t>> PerTuned;
  if (Recheck) {
    Expected<FileEntries> D = decide(R, /*Hoist=*/false);
    if (!D)
      return D.takeError();
    Expected<std::vector<uint64_t>> T = check(R, *D);
    if (!T)
      return T.takeError();
    PerF = std::move(*D);
    PerTuned = std::move(*T);
  }
  for (size_t P = 0; P < Programs.size(); ++P) {
    const uint64_t Whole = Tuned[P], Model = Programs[P].Model;
    std::optional<uint64_t> PerModule;
    if (PerTuned && !F.ProgramEntries[P].Sites.empty())
      PerModule = (*PerTuned)[P];
    auto [Form, Size] = chooseFileForm(Whole, PerModule, Model);
    if (Form == FileForm::WholeProgram)
      continue;
    const HoistStats &H = F.Hoisted[P];
    std::string Whom = Whole > Model
                           ? formatv("the model's {0}", Model).str()
                           : formatv("the search's {0}", Searched[P]).str();
    std::string Collapse =
        H.Functions
            ? formatv("with its {0} linkonce_odr function{1} decided once "
                      "for the program ({2} program entries) the file "
                      "measured {3} bytes, more than {4}",
                      H.Functions, H.Functions == 1 ? "" : "s",
                      H.ProgramEntries, Whole, Whom)
                  .str()
            : formatv("the file measured {0} bytes, more than {1}", Whole, Whom)
                  .str();
    if (Form == FileForm::PerModule)
      Notes[P] = formatv("Written with each module's own entries, as "
                         "searched: {0}; with the per-module entries {1} "
                         "bytes.",
                         Collapse, Size)
                     .str();
    else
      Notes[P] =
          formatv("Written without entries (the model's build, {0} bytes): "
                  "{1}{2}.",
                  Model, Collapse,
                  PerModule ? formatv(", and with the per-module entries {0}",
                                      *PerModule)
                                  .str()
                            : std::string())
              .str();
    log(Notes[P]);
    F.ProgramEntries[P] = ModuleDecisions();
    F.Hoisted[P] = HoistStats();
    for (size_t U : Programs[P].Units)
      F.Entries[U] =
          Form == FileForm::PerModule ? PerF->Entries[U] : ModuleDecisions();
    Tuned[P] = Size;
  }
  return Notes;
}

Error Tuner::writeDecisionsFiles(const SearchState &R, const FileEntries &F,
                                 ArrayRef<uint64_t> TunedSize) const {
  std::string Fingerprint = getCorpusFingerprint(modules());
  if (O.PerPackage)
    if (std::error_code EC = sys::fs::create_directories(O.Output))
      return makeError(O.Output + ": " + EC.message());
  for (size_t P = 0; P < Programs.size(); ++P) {
    const Program &Prog = Programs[P];
    uint64_t Tuned = TunedSize[P];
    DecisionsFile File;
    File.setMeta("llvm", LLVM_VERSION_STRING);
    File.setMeta("corpus", Fingerprint);
    if (O.PerPackage)
      File.setMeta("package", Prog.Name);
    File.setMeta("model", ModelDescription);
    File.setMeta("order", describeOrder());
    File.setMeta("seed", std::to_string(TieBreakSeed));
    File.setMeta("budget", describeBudget());
    File.setMeta("compiles", std::to_string(R.Compiles));
    if (O.Lto != LtoMode::None)
      File.setMeta("lto", getLtoFlag(O.Lto));
    File.setMeta("measured",
                 formatv("linked .text: {5} {0}, model {1}, tuned {2} bytes "
                         "({3:F2}% vs {5}, {4:F2}% vs the model)",
                         Prog.Stock, Prog.Model, Tuned,
                         percentChange(Prog.Stock, Tuned),
                         percentChange(Prog.Model, Tuned), getBaseline())
                     .str());
    if (!F.ProgramEntries[P].Sites.empty())
      File.Program = std::make_shared<ModuleDecisions>(F.ProgramEntries[P]);
    for (size_t U : Prog.Units)
      if (!F.Entries[U].Sites.empty())
        File.addModule(F.Entries[U]);
    SmallString<256> Path(O.Output);
    if (O.PerPackage)
      sys::path::append(Path, (Prog.Name.empty() ? "_" : Prog.Name) +
                                  std::string(".decisions"));
    // Written whole or not at all.
    StringRef Parent = sys::path::parent_path(Path);
    if (!Parent.empty())
      if (std::error_code EC = sys::fs::create_directories(Parent))
        return makeError(Parent + ": " + EC.message());
    if (Error E = writeFileAtomically(Path, File.print()))
      return E;
  }
  return Error::success();
}

Error Tuner::writeReport(const SearchState &R, const FileEntries &F,
                         ArrayRef<uint64_t> TunedSize,
                         ArrayRef<std::string> FormNotes) const {
  RunReport Rep;
  Rep.CorpusDir = O.CorpusDir;
  Rep.Modules = modules().size();
  Rep.Fingerprint = getCorpusFingerprint(modules());
  Rep.ModelDescription = ModelDescription;
  Rep.OrderDescription = describeOrder();
  Rep.Budget = describeBudget();
  Rep.Seed = TieBreakSeed;
  Rep.Compiles = R.Compiles;
  Rep.StoppedByBudget = R.StoppedByBudget;
  for (const HoistStats &H : F.Hoisted) {
    Rep.HoistedFunctions += H.Functions;
    Rep.ProgramEntries += H.ProgramEntries;
    Rep.Removed += H.Removed;
    Rep.Added += H.Added;
  }
  Rep.Failures = Failures;
  if (O.Lto != LtoMode::None)
    Rep.Lto = (getLtoFlag(O.Lto) +
               Twine("; each program's cost is the .text of the final "
                     "artifact that ") +
               O.LinkSource +
               " makes from its modules' LTO compile steps, the plugin in "
               "every compile step and in the link")
                  .str();
  if (O.Lto != LtoMode::None && O.LinkSource != "--link")
    Rep.Lto += ": `" + O.Link + "`";
  for (size_t I = 0; I < Programs.size(); ++I) {
    const Program &P = Programs[I];
    ProgramReport &PR = Rep.Programs.emplace_back();
    PR.Shown = showProgram(P.Name);
    PR.Baseline = getBaseline();
    PR.Stock = P.Stock;
    PR.Model = P.Model;
    PR.Tuned = TunedSize[I];
    PR.FormNote = FormNotes[I];
    PR.Units = P.Units.size();
    for (size_t U : P.Units) {
      PR.UnitsTuned += !R.States[U].Fixed.Sites.empty();
      if (!R.States[U].Kept.empty())
        PR.KeptLines.push_back("- " + Units[U].Key + ": " +
                               join(R.States[U].Kept, "; "));
    }
  }
  // With several programs, each also in W/reports/<program>.md.
  for (size_t I = 0; Programs.size() > 1 && I < Programs.size(); ++I) {
    std::string Dir = workFile("reports");
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return makeError(Dir + ": " + EC.message());
    const std::string &Name = Programs[I].Name;
    if (Error E = writeFileAtomically(
            Dir + "/" + (Name.empty() ? std::string("_") : Name) + ".md",
            "# mlgo tune report: " + Rep.Programs[I].Shown + "\n\n" +
                formatProgramReport(Rep.Programs[I])))
      return E;
  }
  std::string Md = formatReport(Rep);
  if (Error E = writeFileAtomically(workFile("report.md"), Md))
    return E;
  if (O.Verbose)
    outs() << Md;
  return Error::success();
}

Error Tuner::run() {
  Expected<SearchState> R = search();
  if (!R)
    return R.takeError();
  const std::string Order = getName(O.getOrder()).str();
  uint64_t ModelTotal = 0;
  for (const Program &P : Programs)
    ModelTotal += P.Model;
  if (Error E = writeCurve(workFile("curve-" + Order), R->Curve, ModelTotal))
    return E;
  std::string Tries = formatTries(
      R->Tries,
      [&](size_t U) { return showProgram(Programs[Units[U].Program].Name); },
      [&](size_t U) { return Units[U].Key; });
  if (Error E = writeFileAtomically(workFile("tries-" + Order + ".tsv"), Tries))
    return E;
  Expected<FileEntries> F = decide(*R, /*Hoist=*/true);
  if (!F)
    return F.takeError();
  Expected<std::vector<uint64_t>> Tuned = check(*R, *F);
  if (!Tuned)
    return Tuned.takeError();
  // The file never measures more than the model's build, nor than its
  // per-module form where whole-program entries lose.
  Expected<std::vector<std::string>> Notes = chooseForms(*R, *F, *Tuned);
  if (!Notes)
    return Notes.takeError();
  if (Error E = writeDecisionsFiles(*R, *F, *Tuned))
    return E;
  return writeReport(*R, *F, *Tuned, *Notes);
}

} // namespace

Error runTuning(const TuneOptions &Options) {
  // The pool forks its workers before anything starts a thread.
  WorkerPoolOptions PO;
  PO.Workers = Options.Workers;
  PO.TimeoutSeconds = Options.TimeoutSeconds;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  // After the fork: the workers must not hold the lock past mlgo.
  Expected<WorkDirLock> Lock = WorkDirLock::acquire(Options.WorkDir);
  if (!Lock)
    return Lock.takeError();
  Expected<std::vector<CorpusModule>> Mods =
      loadTrainingCorpus(Options.CorpusDir);
  if (!Mods)
    return Mods.takeError();
  if (Mods->empty())
    return makeError(Options.CorpusDir + ": the corpus has no modules");
  if (std::error_code EC = sys::fs::create_directories(Options.WorkDir))
    return makeError(Options.WorkDir + ": " + EC.message());
  CompileService S(std::move(*Mods), **Pool, Options.Verbose);
  Expected<TuneModels> Models = loadModels(Options);
  if (!Models)
    return Models.takeError();
  if (Error E = openCaches(S, Options))
    return E;
  Expected<ProgramMap> Map = mapPrograms(S.modules(), Options);
  if (!Map)
    return Map.takeError();
  Expected<Baselines> B = compileBaselines(S, Models->Base);
  if (!B)
    return B.takeError();
  Expected<TuneLayout> Layout = layOutUnits(*Map, *B, Options);
  if (!Layout)
    return Layout.takeError();
  Expected<std::unique_ptr<Objective>> Obj =
      makeObjective(S, Options, Models->Base, *B, *Layout);
  if (!Obj)
    return Obj.takeError();
  Tuner T(Options, S, std::move(*Models), std::move(B->Start),
          std::move(*Layout), std::move(*Obj));
  return T.run();
}

} // namespace mlgo
