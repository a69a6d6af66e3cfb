//===- lib/Tune/Tuner.cpp - mlgo tune: per-program inlining search --------===//
//
// See mlgo/Tune/Tuner.h and docs/tune.md. The search runs in lockstep over
// the program's modules - one try per module per step, a step's compiles
// in parallel - and judges a step's tries one after the other, each
// against the program as the tries before it left it, so that every kept
// move is measured exactly.
//
// Setting up is a sequence of functions over values, in the order
// runTuning calls them: loadModels, openCaches, mapPrograms (programs and
// source keys), compileBaselines (-Oz and the model) and layOutUnits (the
// units and the programs' linked sizes); the Tuner is given what they
// return and runs the searches over it.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/Tuner.h"

#include "mlgo/Tune/Components.h"
#include "mlgo/Tune/FunctionSlice.h"
#include "mlgo/Tune/LinkedProgram.h"
#include "mlgo/Tune/MoveRanker.h"
#include "mlgo/Tune/ProgramDecisions.h"
#include "mlgo/Tune/WorkDirLock.h"

#include "mlgo/Compile/CompileService.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Config.h"
#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Percent.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>

using namespace llvm;

namespace mlgo {

StringRef getName(TunePredictOn P) {
  switch (P) {
  case TunePredictOn::Module:
    return "module";
  case TunePredictOn::Components:
    return "components";
  case TunePredictOn::Moves:
    return "moves";
  }
  llvm_unreachable("unknown TunePredictOn");
}

StringRef getName(TunePredict P) {
  switch (P) {
  case TunePredict::Off:
    return "off";
  case TunePredict::Rank:
    return "rank";
  case TunePredict::Skip:
    return "skip";
  }
  llvm_unreachable("unknown TunePredict");
}

/// What a compile costs beyond its IR instructions, in instructions: a
/// prediction of a slice of I instructions from a module of M costs
/// (PredictionFixedInstructions + I) / (PredictionFixedInstructions + M) of
/// the module's. From the user CPU time of clang-19 -Oz -emit-llvm on
/// tinyxml2.o and libyaml's scanner.o, on move slices of both and on an
/// empty module (docs/tune.md, "On slices"): at or above the shares
/// measured.
constexpr double PredictionFixedInstructions = 5000;

/// A slice's prediction as a share of its module's (see above).
static double getPredictionShare(const SliceInstructions &N) {
  return (PredictionFixedInstructions + double(N.Slice)) /
         (PredictionFixedInstructions + double(N.Module));
}

/// The MD5 of the embedded IR2Native model that --predict uses.
static StringRef getSizeModelMD5() {
  for (const config::EmbeddedModel &M : config::EmbeddedModels)
    if (StringRef(M.Name) == "ir2native")
      return M.MD5;
  return "unknown";
}

/// The directory the compiler ran in, as clang's driver records it in
/// the cc1 command (-fdebug-compilation-dir=DIR, which it always passes);
/// empty if it is not there.
static std::string getCompileDir(ArrayRef<std::string> CC1Args) {
  for (StringRef A : CC1Args)
    if (A.consume_front("-fdebug-compilation-dir="))
      return A.str();
  return "";
}

Expected<std::string> readSourceFileName(const CorpusModule &M) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(M.BitcodePath);
  if (!Buf)
    return Buf.takeError();
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> Mod =
      getLazyBitcodeModule((*Buf)->getMemBufferRef(), Ctx);
  if (!Mod)
    return makeError(M.BitcodePath + ": " + toString(Mod.takeError()));
  return (*Mod)->getSourceFileName();
}

/// The module's source as the plugin resolves it in the build
/// (resolveSourcePath): its source_filename joined to the directory it was
/// compiled in.
Expected<std::string> getSourceFileName(const CorpusModule &M) {
  Expected<std::string> Name = readSourceFileName(M);
  if (!Name)
    return Name.takeError();
  return resolveSourcePath(*Name, getCompileDir(M.CC1Args));
}

namespace {

/// The modules of one program that share a source key: tuned as one, with
/// the same fixed decisions.
struct Unit {
  size_t Program;
  std::string Key;
  std::vector<size_t> Mods;
  std::vector<size_t> Slots;
};

/// A unit's search state.
struct UnitState {
  ModuleDecisions Fixed;
  std::vector<DecidedSite> Trajectory;
  std::vector<CompileCache::Entry> Current;
  StringSet<> Tried;
  std::vector<TuneMove> Moves;
  size_t Next = 0;
  std::vector<std::string> Kept;
  /// The key of the move that undoes the last kept move (the same site or
  /// callee, the other way; empty after a kept heuristic).
  std::string Undo;
  /// With --predict: the unit's predicted .text in its current state (NaN
  /// until predicted), and the moves of the current plan predicted so
  /// far, with their units' predicted .text (NaN: the prediction failed).
  double Predicted = std::numeric_limits<double>::quiet_NaN();
  StringMap<double> Screened;
  /// With --predict-slices, per state: each trajectory site's component of
  /// the statics graph (SIZE_MAX: none; components), found when first
  /// needed, and the slices moves are predicted on (one per component, or
  /// one per set of functions a move changes).
  struct PredictionSlice {
    /// None: the component has no slice (a caller the pipeline made).
    std::optional<SliceSpec> Spec;
    /// The slice in the compile service, once written.
    std::optional<size_t> Index;
    /// One prediction's cost in compiles.
    double Cost = 0;
    /// The slice's predicted .text as it is (NaN until predicted, or
    /// when that failed).
    double Base = std::numeric_limits<double>::quiet_NaN();
    bool BaseAsked = false;
  };
  bool SlicesFound = false;
  std::vector<size_t> SiteComponent;
  std::vector<PredictionSlice> Slices;
  /// With --predict-slices moves: the functions the module's bitcode
  /// defines, and each move slice's index in Slices by its functions.
  StringSet<> Defined;
  StringMap<size_t> MoveSlices;
  /// Forgets the predictions of the state (a new trajectory).
  void clearSlices() {
    SlicesFound = false;
    SiteComponent.clear();
    Slices.clear();
    Defined.clear();
    MoveSlices.clear();
  }
};

/// One program: its modules' objects linked together.
struct Program {
  std::string Name;
  /// Linked .text with -Oz, and with the model (Linked.size()).
  uint64_t Stock = 0, Model = 0;
  /// The model's objects, one slot per module of its units.
  LinkedProgram Linked;
  std::vector<size_t> Units;
};

/// Tries per step the search aims at (see search()).
constexpr size_t TriesPerStep = 8;

/// One judged try: the tries log's line (docs/tune.md).
struct TryRecord {
  unsigned Step;
  /// The search's compiles before the step.
  uint64_t Compiles;
  size_t Unit;
  TuneMove Move;
  /// The unit's .text (its modules' sum) before the move.
  uint64_t UnitText;
  /// The program's linked .text change; 0 for a failed compile.
  int64_t Delta;
  bool Ok;
  bool Kept;
  /// A program move (Unit: the first unit it changes).
  bool Program = false;
};

/// What the components phase did (docs/tune.md, "Components").
struct ComponentStats {
  /// Components of the modules searched, those searched exhaustively,
  /// the sites in them, and those whose best configuration saved bytes.
  size_t Components = 0, Exhaustive = 0, Sites = 0, Improving = 0;
  /// The phase's compiles, and those of them on slices (function-level).
  uint64_t Compiles = 0, SliceCompiles = 0;
  /// Per interaction detected: which sites, predicted and measured bytes.
  std::vector<std::string> Interactions;
  bool StoppedByBudget = false;
  /// Phases run: one, or with --interleave the rounds.
  unsigned Rounds = 0;
};

/// What one search found.
struct SearchResult {
  std::optional<ComponentStats> Components;
  std::vector<UnitState> States;
  std::vector<TryRecord> Tries;
  /// One point of the curve.
  struct Point {
    /// The budget spent: the search's compiles plus its predictions at
    /// their cost (spent()).
    uint64_t Spent;
    /// The programs' linked .text.
    uint64_t Total;
    /// Wall-clock seconds since the search began (not reproducible).
    double Seconds;
  };
  /// A point after each step (and each components round).
  std::vector<Point> Curve;
  std::chrono::steady_clock::time_point Begin =
      std::chrono::steady_clock::now();
  /// Seconds since Begin.
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Begin)
        .count();
  }
  /// Appends the point for the budget spent now and \p Total.
  void addPoint(double PredictionCost, uint64_t Total) {
    Curve.push_back({spent(PredictionCost), Total, elapsed()});
  }
  uint64_t Compiles = 0;
  bool StoppedByBudget = false;
  double Seconds = 0;
  /// With --predict: the predictions made (IR pipeline only, one per
  /// module), their wall-clock seconds, and the moves predicted not to
  /// shrink their unit (skipped, or tried last).
  uint64_t Predictions = 0;
  double PredictSeconds = 0;
  uint64_t PredictedBad = 0;
  /// With the logged filter: the moves planned whose logged gain is
  /// negative (skipped, or tried last), each time they are planned, with
  /// the search's compiles before the plan and the unit's key (the
  /// logged-<order>.tsv lines).
  struct LoggedRecord {
    uint64_t Compiles;
    std::string Unit;
    LoggedBadMove Move;
  };
  std::vector<LoggedRecord> LoggedBad;
  /// With --predict: every move predicted, in the order predicted, with
  /// the search's compiles before its step, the unit's key, what it was
  /// predicted on, and the predicted .text of the unit (or slice) as it is
  /// and after the move (NaN: the prediction failed); the
  /// predictions-<order>.tsv lines.
  struct PredictionRecord {
    uint64_t Compiles;
    std::string Unit;
    std::string Move;
    bool OnSlice;
    double Before, After;
  };
  std::vector<PredictionRecord> Predicted;
  /// With --predict-slices: the predictions of those made on slices, and
  /// what they cost in compiles (each its slice's share of the module).
  uint64_t SlicePredictions = 0;
  double SliceCharge = 0;
  /// With --program-moves: those tried and kept, their compiles (tries
  /// and the kept ones' trajectories), and the bytes they saved.
  uint64_t ProgramTries = 0, ProgramKept = 0, ProgramCompiles = 0;
  int64_t ProgramSaved = 0;

  /// What \p N module predictions at \p Cost compiles each and slice
  /// predictions costing \p Slices cost in --max-compiles, rounded up.
  static uint64_t charge(uint64_t N, double Cost, double Slices = 0) {
    return static_cast<uint64_t>(
        std::ceil(static_cast<double>(N) * Cost + Slices));
  }
  /// What the predictions made so far cost, rounded up.
  uint64_t charged(double Cost) const {
    return charge(Predictions - SlicePredictions, Cost, SliceCharge);
  }
  /// The budget spent: compiles, and predictions at their cost.
  uint64_t spent(double Cost) const { return Compiles + charged(Cost); }
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
  if (!O.UseRanker)
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
  S.setSizeScore(O.LoggedFilter != TunePredict::Off, O.LoggedDeclined);
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
  std::vector<CompileRequest> Req;
  for (size_t M = 0; M < S.modules().size(); ++M)
    Req.push_back({M, CompilePolicy::stock()});
  Expected<std::vector<CompileCache::Entry>> Oz = S.compile(Req, "-Oz");
  if (!Oz)
    return Oz.takeError();
  B.Stock = std::move(*Oz);
  for (CompileRequest &R : Req)
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
    U.Slots.push_back(L.Programs[P].Linked.add(getCode(B.Start[M].Entry)));
  }
  for (Program &P : L.Programs) {
    std::vector<std::pair<uint64_t, const std::vector<GroupedSection> *>> Objs;
    for (size_t U : P.Units)
      for (size_t M : L.Units[U].Mods)
        Objs.push_back({B.Stock[M].TextSize, &B.Stock[M].Grouped});
    P.Stock = getCodeOnce<uint64_t>(Objs);
    P.Model = P.Linked.size();
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

/// One component of a unit in its state when it was found, and its best
/// configuration from that state: the program's linked .text change
/// (Best) and its mask.
struct Comp {
  size_t Unit;
  ComponentChoice Choice;
  std::vector<uint64_t> Configs;
  int64_t Best = 0;
  /// With function-level compiles: the component's slice (none: its
  /// callers are not in the bitcode), the service's index of it once
  /// written, and its .text with the state's decisions.
  std::optional<SliceSpec> Spec;
  std::optional<size_t> Slice;
  std::optional<uint64_t> SliceBase;
  /// What searching it is expected to save (bytes): the ranker's scores of
  /// its sites' inversions, where positive, summed; without a ranker, one
  /// byte per site.
  double Expected = 0;
  /// Its unit, the unit's state (kept moves) and its sites, for
  /// RoundState::Searched.
  std::string Key;
  /// Compiles its search takes: its configurations, and its slice's base.
  uint64_t cost() const { return Configs.size() + (Spec ? 1 : 0); }
};

/// The components a components phase or round searches.
struct ComponentPlan {
  std::vector<Comp> Comps;
  /// All components found (the searched ones' counts with --interleave).
  size_t Components = 0, Exhaustive = 0, Sites = 0;
  /// The sum of the chosen components' Expected, and of their cost().
  double Expected = 0;
  uint64_t Cost = 0;
};

/// With --interleave: the components rounds' state through one search.
struct RoundState {
  /// Rounds run so far (a round's slices are named after its number).
  unsigned Rounds = 0;
  /// Per unit: the state (kept moves) its components were found in, and
  /// them.
  std::map<size_t, std::pair<size_t, std::vector<Comp>>> Found;
  /// The keys of components searched (Comp::Key).
  StringSet<> Searched;
  /// What the rounds so far were expected to save, and saved (bytes).
  double Expected = 0;
  int64_t Saved = 0;
  /// How far to believe a round's expected gain: what the rounds so far
  /// saved per byte expected, with one byte of each added (1 before any
  /// round). Rounds that save nothing make later ones wait until the
  /// moves save (almost) nothing either.
  double calibration() const { return (double(Saved) + 1) / (Expected + 1); }
};

/// The searches over a set-up program, and what they write: every value
/// it works on is given to its constructor and stays as given.
class Tuner {
public:
  Tuner(const TuneOptions &O, CompileService &S, TuneModels Models,
        std::vector<CompileCache::Entry> Stock,
        std::vector<CompileService::SitesResult> Start, TuneLayout Layout)
      : O(O), S(S), Base(std::move(Models.Base)),
        ModelDescription(std::move(Models.ModelDescription)),
        Ranker(std::move(Models.Ranker)),
        RankerDescription(std::move(Models.RankerDescription)),
        Stock(std::move(Stock)), Start(std::move(Start)),
        Programs(std::move(Layout.Programs)), Units(std::move(Layout.Units)),
        Failures(std::move(Layout.Failures)) {}
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
  Expected<SearchResult> search(TuneOrder Order);
  /// The components phase: from the model's state in \p R, each
  /// single-module unit's components searched and combined; \p Linked and
  /// \p Total follow the kept changes.
  Error searchComponents(TuneOrder Order, SearchResult &R,
                         std::vector<LinkedProgram> &Linked, uint64_t &Total,
                         ComponentPlan Plan, const RoundState *Rounds);
  /// The components to search from each single-module unit's state in
  /// \p R: all of them, in order (\p Rounds null); or, with --interleave,
  /// those not searched in the same state, highest Expected per compile
  /// first, that fit \p MaxCost compiles; those expected to save nothing
  /// only when \p Exhausted (the move search has no move left).
  Expected<ComponentPlan> planComponents(const SearchResult &R,
                                         RoundState *Rounds, uint64_t MaxCost,
                                         bool Exhausted = false) const;
  /// The policy that tries move \p M from state \p St.
  CompilePolicy policyFor(const UnitState &St, const TuneMove &M) const {
    return M.Heuristic ? CompilePolicy::heuristic()
                       : policyFor(applyMove(St.Fixed, M));
  }
  /// With --predict: predicts the moves each unit would try next, and
  /// drops (skip) or moves to the end of its plan (rank) every move whose
  /// unit is predicted no smaller than now, until the next \p PerUnit(N)
  /// moves of every unit (N units with moves left) are predicted to help.
  /// With slices (PredictOn), a move whose sites lie in one component of the
  /// statics graph is predicted on its slice against the slice as it is.
  Error screen(SearchResult &R, llvm::function_ref<size_t(size_t)> PerUnit);
  /// With slices (PredictOn): the slice of unit \p U's state that
  /// predicts move \p M, an index into St.Slices (writing it first), or
  /// none (the move is predicted on the module).
  Expected<std::optional<size_t>> predictionSlice(size_t U, UnitState &St,
                                                  const TuneMove &M);
  /// Writes module \p Mod's slice \p Spec to W/slices/<module>.<Tag>.bc
  /// and adds it to the compile service: its index there (and in \p
  /// Counts, if given, the instructions of the module and the slice).
  Expected<size_t> addSlice(size_t Mod, StringRef Tag, const SliceSpec &Spec,
                            SliceInstructions *Counts = nullptr);
  /// The decisions file entries of unit U in \p R.
  ModuleDecisions finalEntries(size_t U, const SearchResult &R) const;
  Error verifyAndWrite(const SearchResult &R);
  /// A program's name in the report.
  std::string showProgram(StringRef Name) const;
  Error writeCurves(ArrayRef<std::pair<TuneOrder, const SearchResult *>> Rs);
  Error writeTries(TuneOrder Order, const SearchResult &R);

  /// "unguided", "guided by the ranker FILE|shipped (md5 …)", "guided by
  /// |logit|".
  std::string describeOrder() const {
    std::string Components =
        O.Components
            ? formatv("components (exhaustive up to {0} sites{1}{2}{3}), then ",
                      O.ExhaustiveSites,
                      O.StaticsGraph     ? ", joined through statics"
                      : O.ReferenceGraph ? ""
                                         : ", joined by sites only",
                      O.FunctionLevel ? ", function-level" : "",
                      O.Interleave ? ", in rounds between the moves" : "")
                  .str()
            : "";
    if (O.ProgramMoves)
      Components += "program moves, ";
    std::string Guide = O.Order == TuneOrder::Unguided ? "unguided"
                        : Ranker ? "guided by the ranker " + RankerDescription
                                 : "guided by |logit|";
    if (O.Predict != TunePredict::Off)
      Guide += "; predicted gains: " + getName(O.Predict).str() +
               (O.PredictOn != TunePredictOn::Module
                    ? " on slices (" + getName(O.PredictOn).str() + ")"
                    : "") +
               " (embedded ir2native md5 " + getSizeModelMD5().str() + ")";
    if (O.LoggedFilter != TunePredict::Off)
      Guide += "; logged filter: " +
               (O.LoggedPromote ? "promote"
                : O.LoggedPredictInline
                    ? formatv("predict ({0} moves that inline per plan)",
                              O.LoggedPredictInline)
                          .str()
                : O.LoggedOnly ? "only"
                               : getName(O.LoggedFilter).str()) +
               (O.LoggedDeclined ? ", declined sites scored" : "") +
               " (embedded ir2native md5 " + getSizeModelMD5().str() + ")";
    return Components + Guide;
  }
  /// The moves of a unit in state \p St, in \p Order; with the logged
  /// filter, those it takes out counted in \p R.
  std::vector<TuneMove> plan(const UnitState &St, TuneOrder Order,
                             bool OfferHeuristic, SearchResult &R) const {
    uint64_t Text = 0;
    for (const CompileCache::Entry &E : St.Current)
      Text += E.TextSize;
    auto Score = [&](const TuneMove &M) { return Ranker->score(M, Text); };
    std::vector<TuneMove> Moves =
        planMoves(St.Trajectory, Order, O.Seed, St.Tried, OfferHeuristic,
                  Ranker ? MoveScore(Score) : MoveScore());
    if (O.LoggedFilter == TunePredict::Off)
      return Moves;
    // The logged filter `predict` leaves no prediction to the move that
    // undoes the unit's last kept move (measured to shrink it), and none
    // to a unit that has not kept a move yet.
    if (O.LoggedPredictInline && !St.Undo.empty()) {
      auto It = llvm::find_if(
          Moves, [&](const TuneMove &M) { return M.getKey() == St.Undo; });
      if (It != Moves.end() && It->Entry.Inline) {
        R.LoggedBad.push_back(
            {R.Compiles,
             St.Fixed.Module,
             {It->getKey(), std::numeric_limits<double>::quiet_NaN()}});
        Moves.erase(It);
      }
    }
    for (LoggedBadMove &B : filterByLoggedGain(
             St.Trajectory, Moves, O.LoggedFilter == TunePredict::Rank,
             O.LoggedPromote, O.LoggedOnly,
             St.Kept.empty() ? 0 : O.LoggedPredictInline))
      R.LoggedBad.push_back({R.Compiles, St.Fixed.Module, std::move(B)});
    return Moves;
  }

  const TuneOptions &O;
  CompileService &S;
  const CompilePolicy Base;
  const std::string ModelDescription;
  const std::optional<MoveRanker> Ranker;
  const std::string RankerDescription;
  /// Per module: the model's compile with its sites.
  /// Per module: its -Oz compile, which is also the result of trying LLVM's
  /// heuristic on it (docs/tune.md, "LLVM's heuristic without a
  /// compile"), and the model's compile with its sites.
  const std::vector<CompileCache::Entry> Stock;
  const std::vector<CompileService::SitesResult> Start;
  const std::vector<Program> Programs;
  const std::vector<Unit> Units;
  const std::vector<std::string> Failures;
};

Expected<size_t> Tuner::addSlice(size_t Mod, StringRef Tag,
                                 const SliceSpec &Spec,
                                 SliceInstructions *Counts) {
  const CorpusModule &M = modules()[Mod];
  SmallString<256> Path(O.WorkDir);
  sys::path::append(Path, "slices", M.Name + "." + Tag + ".bc");
  StringRef Parent = sys::path::parent_path(Path);
  if (std::error_code EC = sys::fs::create_directories(Parent))
    return makeError(Parent + ": cannot create: " + EC.message());
  if (Error E = writeSlice(M.BitcodePath, Path, Spec, Counts))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  CorpusModule Slice = M;
  Slice.Name = M.Name + "#" + Tag.str();
  Slice.BitcodePath = std::string(Path);
  Slice.ContentHash = getModuleContentHash((*Buf)->getBuffer(), M.CC1Args);
  Slice.BitcodeSize = (*Buf)->getBufferSize();
  return S.addModule(std::move(Slice));
}

/// A call site for reports: "caller -> callee #ordinal".
static std::string showSite(const DecidedSite &S) {
  return S.Site.Caller + " -> " + S.Site.Callee + " #" +
         std::to_string(S.Site.Ordinal);
}

Expected<ComponentPlan> Tuner::planComponents(const SearchResult &R,
                                              RoundState *Rounds,
                                              uint64_t MaxCost,
                                              bool Exhausted) const {
  ComponentPlan Plan;
  std::vector<Comp> All;
  for (size_t U = 0; U < Units.size(); ++U) {
    // Several modules of one source share their entries: the move search
    // tunes them.
    if (Units[U].Mods.size() != 1)
      continue;
    const UnitState &St = R.States[U];
    const size_t Version = St.Kept.size();
    if (Rounds) {
      auto It = Rounds->Found.find(U);
      if (It != Rounds->Found.end() && It->second.first == Version) {
        llvm::append_range(All, It->second.second);
        continue;
      }
    }
    size_t Mod = Units[U].Mods.front();
    const std::vector<DecidedSite> &T = St.Trajectory;
    // The components, and with function-level compiles the slice of
    // each (mlgo/Tune/FunctionSlice.h).
    std::vector<std::vector<size_t>> Parts;
    std::vector<std::optional<SliceSpec>> Slices;
    if (O.StaticsGraph || O.FunctionLevel) {
      Expected<ModuleComponents> MC = getModuleComponents(
          modules()[Mod].BitcodePath, T,
          O.StaticsGraph ? SplitKind::Statics : SplitKind::Components);
      if (!MC)
        return MC.takeError();
      Parts = std::move(MC->Sites);
      Slices = std::move(MC->Slices);
    } else {
      std::vector<FunctionEdge> Edges;
      if (O.ReferenceGraph) {
        Expected<std::vector<FunctionEdge>> E =
            getReferenceEdges(modules()[Mod].BitcodePath);
        if (!E)
          return E.takeError();
        Edges = std::move(*E);
      }
      Parts = partitionSites(T, Edges);
      Slices.resize(Parts.size());
    }
    // The ranker's score of each site's inversion.
    std::vector<double> SiteScore(T.size(), 1.0);
    if (Ranker) {
      uint64_t Text = 0;
      for (const CompileCache::Entry &E : St.Current)
        Text += E.TextSize;
      for (const TuneMove &M :
           planMoves(T, TuneOrder::Unguided, O.Seed, StringSet<>(), false))
        if (!M.Heuristic && !M.Entry.Caller.empty() &&
            M.Features.Position < T.size())
          SiteScore[M.Features.Position] =
              std::max(0.0, Ranker->score(M, Text));
    }
    std::vector<Comp> Found;
    for (size_t K = 0; K < Parts.size(); ++K) {
      Comp C;
      C.Unit = U;
      C.Configs = getConfigs(Parts[K].size(), O.ExhaustiveSites);
      // A caller the bitcode does not define (made by the pipeline) has
      // no slice: measured on the whole module.
      if (O.FunctionLevel && !C.Configs.empty() && Slices[K])
        C.Spec = std::move(*Slices[K]);
      for (size_t I : Parts[K])
        C.Expected += SiteScore[I];
      C.Key =
          formatv("{0}@{1}:{2}/{3}", U, Version,
                  Parts[K].empty() ? std::string() : showSite(T[Parts[K][0]]),
                  Parts[K].size())
              .str();
      C.Choice = {std::move(Parts[K]), 0};
      Found.push_back(std::move(C));
    }
    if (Rounds)
      Rounds->Found[U] = {Version, Found};
    llvm::append_range(All, std::move(Found));
  }
  if (!Rounds) {
    for (const Comp &C : All) {
      ++Plan.Components;
      Plan.Sites += C.Choice.Sites.size();
      Plan.Exhaustive += !C.Configs.empty();
      Plan.Expected += C.Expected;
      Plan.Cost += C.cost();
    }
    Plan.Comps = std::move(All);
    return Plan;
  }
  // Highest expected gain per compile first; ties in the order found.
  std::vector<size_t> Order;
  for (size_t K = 0; K < All.size(); ++K)
    if (!All[K].Configs.empty() && (All[K].Expected > 0 || Exhausted) &&
        !Rounds->Searched.contains(All[K].Key))
      Order.push_back(K);
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return All[A].Expected * double(All[B].cost()) >
           All[B].Expected * double(All[A].cost());
  });
  for (size_t K : Order) {
    if (Plan.Cost + All[K].cost() > MaxCost)
      continue;
    ++Plan.Components;
    ++Plan.Exhaustive;
    Plan.Sites += All[K].Choice.Sites.size();
    Plan.Expected += All[K].Expected;
    Plan.Cost += All[K].cost();
    Plan.Comps.push_back(std::move(All[K]));
  }
  return Plan;
}

Error Tuner::searchComponents(TuneOrder Order, SearchResult &R,
                              std::vector<LinkedProgram> &Linked,
                              uint64_t &Total, ComponentPlan Plan,
                              const RoundState *Rounds) {
  ComponentStats Stats;
  if (R.Components)
    Stats = *R.Components;
  const uint64_t Before = R.Compiles;
  Stats.Components += Plan.Components;
  Stats.Exhaustive += Plan.Exhaustive;
  Stats.Sites += Plan.Sites;
  ++Stats.Rounds;
  std::vector<Comp> Comps = std::move(Plan.Comps);
  // Each unit's state as the phase found it: its trajectory, object, and
  // the programs it is measured against.
  std::vector<std::vector<DecidedSite>> From(Units.size());
  std::vector<CompileCache::Entry> FromEntry(Units.size());
  for (const Comp &C : Comps) {
    From[C.Unit] = R.States[C.Unit].Trajectory;
    FromEntry[C.Unit] = R.States[C.Unit].Current.front();
  }
  const std::vector<LinkedProgram> FromLinked = Linked;
  for (Comp &C : Comps) {
    if (!C.Spec)
      continue;
    size_t Mod = Units[C.Unit].Mods.front();
    std::string Tag = formatv("component-{0}", C.Choice.Sites.front()).str();
    if (Rounds)
      Tag = formatv("r{0}-", Rounds->Rounds).str() + Tag;
    Expected<size_t> Slice = addSlice(Mod, Tag, *C.Spec);
    if (!Slice)
      return Slice.takeError();
    C.Slice = *Slice;
  }
  auto Request = [&](size_t U, ArrayRef<ComponentChoice> Choices) {
    size_t Mod = Units[U].Mods.front();
    return CompileRequest{Mod,
                          policyFor(configure(Units[U].Key, From[U], Choices))};
  };
  // A configuration of one component: on its slice, if it has one.
  auto RequestOne = [&](const Comp &C, uint64_t Mask) {
    CompileRequest R = Request(C.Unit, {{C.Choice.Sites, Mask}});
    if (C.Slice)
      R.first = *C.Slice;
    return R;
  };
  // The change of unit U's object to E against the programs as the phase
  // found them.
  auto FromModel = [&](size_t U, const CompileCache::Entry &E) {
    return FromLinked[Units[U].Program].delta(
        {{Units[U].Slots.front(), getCode(E)}});
  };
  // Whether N more compiles fit the budget, with Reserve held back.
  auto Fits = [&](uint64_t N, uint64_t Reserve) {
    return !O.MaxCompiles ||
           R.spent(O.PredictionCost) + N + Reserve <= O.MaxCompiles;
  };
  auto Compile =
      [&](ArrayRef<CompileRequest> Req,
          const Twine &What) -> Expected<std::vector<CompileCache::Entry>> {
    Expected<std::vector<CompileCache::Entry>> Res = S.compile(Req, What.str());
    if (Res)
      R.Compiles += Req.size();
    return Res;
  };

  // Function-level: each slice with the state's decisions, the base its
  // configurations are measured against. A slice that does not compile is
  // left to whole-module compiles. A round (--interleave) compiles the
  // bases with the configurations, in one batch, and a component whose
  // base fails saves nothing.
  if (!Rounds) {
    std::vector<size_t> Sliced;
    std::vector<CompileRequest> Req;
    for (size_t C = 0; C < Comps.size(); ++C)
      if (Comps[C].Slice) {
        Sliced.push_back(C);
        Req.push_back(RequestOne(Comps[C], 0));
      }
    if (!Req.empty() && Fits(Req.size(), 0)) {
      Expected<std::vector<CompileCache::Entry>> Res =
          Compile(Req, "component slices");
      if (!Res)
        return Res.takeError();
      Stats.SliceCompiles += Req.size();
      for (size_t K = 0; K < Sliced.size(); ++K) {
        Comp &C = Comps[Sliced[K]];
        if ((*Res)[K].Ok)
          C.SliceBase = (*Res)[K].TextSize;
        else
          C.Slice.reset();
      }
    } else {
      for (size_t C : Sliced)
        Comps[C].Slice.reset();
    }
  }

  // Each component alone, from the model's state, in order; a unit that
  // searches holds two compiles back (its combination and its trajectory).
  // Requests are made and compiled in chunks, so that a module with many
  // sites never holds all its configurations' entries at once.
  {
    std::vector<std::pair<size_t, size_t>> Planned; // (component, config)
    std::vector<bool> Reserved(Units.size());
    std::vector<bool> WithBase(Comps.size());
    uint64_t Reserve = 0, Bases = 0;
    for (size_t C = 0; C < Comps.size(); ++C) {
      if (Comps[C].Configs.empty())
        continue; // too large: left to the move search
      uint64_t Own = Reserved[Comps[C].Unit] ? 0 : 2;
      uint64_t Base = Rounds && Comps[C].Slice ? 1 : 0;
      if (!Fits(Planned.size() + Bases + Base + Comps[C].Configs.size(),
                Reserve + Own)) {
        Stats.StoppedByBudget = true;
        break;
      }
      Bases += Base;
      WithBase[C] = Base;
      Reserve += Own;
      Reserved[Comps[C].Unit] = true;
      for (size_t K = 0; K < Comps[C].Configs.size(); ++K)
        Planned.push_back({C, K});
    }
    const size_t Chunk = Rounds ? std::max<size_t>(Planned.size(), 1) : 256;
    for (size_t First = 0; First < Planned.size(); First += Chunk) {
      size_t End = std::min(Planned.size(), First + Chunk);
      std::vector<CompileRequest> Req;
      // A round's slice bases, first in its one batch.
      std::vector<size_t> Bases;
      if (Rounds)
        for (size_t C = 0; C < Comps.size(); ++C)
          if (WithBase[C]) {
            Bases.push_back(C);
            Req.push_back(RequestOne(Comps[C], 0));
            ++Stats.SliceCompiles;
          }
      for (size_t I = First; I < End; ++I) {
        const Comp &C = Comps[Planned[I].first];
        Req.push_back(RequestOne(C, C.Configs[Planned[I].second]));
        Stats.SliceCompiles += C.Slice.has_value();
      }
      Expected<std::vector<CompileCache::Entry>> Res =
          Compile(Req, formatv("components {0}-{1} of {2}", First + 1, End,
                               Planned.size()));
      if (!Res)
        return Res.takeError();
      for (size_t K = 0; K < Bases.size(); ++K)
        if ((*Res)[K].Ok)
          Comps[Bases[K]].SliceBase = (*Res)[K].TextSize;
      for (size_t I = First; I < End; ++I) {
        const CompileCache::Entry &E = (*Res)[Bases.size() + I - First];
        Comp &C = Comps[Planned[I].first];
        if (!E.Ok || (C.Slice && !C.SliceBase))
          continue;
        // A slice's change is its .text's: the component's functions.
        int64_t D = C.Slice ? int64_t(E.TextSize) - int64_t(*C.SliceBase)
                            : FromModel(C.Unit, E);
        if (D < C.Best) {
          C.Best = D;
          C.Choice.Mask = C.Configs[Planned[I].second];
        }
      }
    }
  }

  // Per unit, its improving components, best first.
  std::vector<std::vector<size_t>> Candidates(Units.size());
  for (size_t C = 0; C < Comps.size(); ++C)
    if (Comps[C].Best < 0) {
      Candidates[Comps[C].Unit].push_back(C);
      ++Stats.Improving;
    }
  for (std::vector<size_t> &Cs : Candidates)
    llvm::stable_sort(
        Cs, [&](size_t A, size_t B) { return Comps[A].Best < Comps[B].Best; });

  // Each unit with all its components' bests at once. Independent
  // components add up; a unit whose measured change is not the sum of its
  // components' has an interaction, and is combined one component at a
  // time instead (resolve below).
  std::vector<size_t> Combining;
  std::vector<CompileRequest> Req;
  for (size_t U = 0; U < Units.size(); ++U) {
    if (Candidates[U].empty())
      continue;
    std::vector<ComponentChoice> All;
    for (size_t C : Candidates[U])
      All.push_back(Comps[C].Choice);
    Combining.push_back(U);
    Req.push_back(Request(U, All));
  }
  // The budget held these back.
  Expected<std::vector<CompileCache::Entry>> Combined =
      std::vector<CompileCache::Entry>();
  if (!Req.empty())
    Combined = Compile(Req, "components combined");
  if (!Combined)
    return Combined.takeError();

  // Unit U's components combined one at a time, each measured against
  // those before it: where a component does not save what it saved alone,
  // the components it interacts with (found by pairs) and it are searched
  // jointly. Returns the choices kept and their compile. Every unit that
  // combines may need its trajectory compiled at the end: held back.
  const uint64_t Held = Combining.size();
  auto Resolve = [&](size_t U, std::vector<ComponentChoice> &Applied,
                     CompileCache::Entry &Cur) -> Error {
    const std::vector<DecidedSite> &T = From[U];
    std::vector<int64_t> Gains; // per applied choice, alone
    int64_t CurDelta = 0;
    auto Describe = [&](ArrayRef<size_t> Sites) {
      std::vector<std::string> Out;
      for (size_t I : Sites)
        Out.push_back(showSite(T[I]));
      return join(Out, ", ");
    };
    for (size_t C : Candidates[U]) {
      const Comp &Cand = Comps[C];
      if (!Fits(1, Held))
        return Error::success();
      std::vector<ComponentChoice> With = Applied;
      With.push_back(Cand.Choice);
      Expected<std::vector<CompileCache::Entry>> One =
          Compile({Request(U, With)}, "components one by one");
      if (!One)
        return One.takeError();
      const CompileCache::Entry &E = One->front();
      if (!E.Ok)
        continue;
      int64_t D = FromModel(U, E);
      if (D - CurDelta == Cand.Best) {
        Applied = std::move(With);
        Gains.push_back(Cand.Best);
        CurDelta = D;
        Cur = E;
        continue;
      }
      // An interaction: which applied components take part, by pairs.
      std::vector<size_t> Partners;
      if (!Applied.empty() && Fits(Applied.size(), Held)) {
        std::vector<CompileRequest> Pairs;
        for (const ComponentChoice &A : Applied)
          Pairs.push_back(Request(U, {A, Cand.Choice}));
        Expected<std::vector<CompileCache::Entry>> P =
            Compile(Pairs, "component pairs");
        if (!P)
          return P.takeError();
        for (size_t A = 0; A < Applied.size(); ++A)
          if ((*P)[A].Ok && FromModel(U, (*P)[A]) != Gains[A] + Cand.Best)
            Partners.push_back(A);
      }
      if (Partners.empty())
        for (size_t A = 0; A < Applied.size(); ++A)
          Partners.push_back(A);
      std::vector<size_t> Joint = Cand.Choice.Sites;
      for (size_t A : Partners)
        llvm::append_range(Joint, Applied[A].Sites);
      llvm::sort(Joint);
      int64_t Predicted = CurDelta + Cand.Best;
      Stats.Interactions.push_back(
          formatv("{0}: {1}: predicted {2} bytes, measured {3}; searched "
                  "jointly",
                  Units[U].Key, Describe(Joint), Predicted, D)
              .str());
      log("interaction in " + Units[U].Key + ": " + Describe(Joint) +
          formatv(" (predicted {0} bytes, measured {1})", Predicted, D));
      // The joint search: every configuration of the joint sites (the
      // others applied as they are), or, too many for that, this
      // component kept if it still saves bytes.
      std::vector<ComponentChoice> Others;
      std::vector<int64_t> OtherGains;
      for (size_t A = 0; A < Applied.size(); ++A)
        if (!llvm::is_contained(Partners, A)) {
          Others.push_back(Applied[A]);
          OtherGains.push_back(Gains[A]);
        }
      std::optional<std::pair<ComponentChoice, CompileCache::Entry>> Best;
      int64_t BestDelta = std::min(CurDelta, D);
      if (D < CurDelta)
        Best = {{Cand.Choice.Sites, Cand.Choice.Mask}, E};
      // At most 2^10 joint configurations.
      const unsigned JointMax = std::min(2 * O.ExhaustiveSites, 10u);
      std::vector<uint64_t> Configs = getConfigs(Joint.size(), JointMax);
      if (Joint.size() <= JointMax && Fits(Configs.size(), Held)) {
        std::vector<CompileRequest> JR;
        for (uint64_t M : Configs) {
          std::vector<ComponentChoice> Cs = Others;
          Cs.push_back({Joint, M});
          JR.push_back(Request(U, Cs));
        }
        Expected<std::vector<CompileCache::Entry>> J =
            Compile(JR, "joint components");
        if (!J)
          return J.takeError();
        for (size_t K = 0; K < Configs.size(); ++K)
          if ((*J)[K].Ok) {
            int64_t JD = FromModel(U, (*J)[K]);
            if (JD < BestDelta) {
              BestDelta = JD;
              Best = {{Joint, Configs[K]}, (*J)[K]};
            }
          }
      }
      if (!Best)
        continue;
      // The best joint configuration replaces its partners (a mask over
      // the candidate's own sites keeps the partners as they were).
      if (Best->first.Sites == Cand.Choice.Sites) {
        Others = Applied;
        OtherGains = Gains;
      }
      Others.push_back(Best->first);
      // Gains now count from the state before the joint choice.
      int64_t Rest = 0;
      for (int64_t G : OtherGains)
        Rest += G;
      OtherGains.push_back(BestDelta - Rest);
      Applied = std::move(Others);
      Gains = std::move(OtherGains);
      CurDelta = BestDelta;
      Cur = Best->second;
    }
    return Error::success();
  };

  std::vector<size_t> Changed;
  for (size_t K = 0; K < Combining.size(); ++K) {
    size_t U = Combining[K];
    std::vector<ComponentChoice> Applied;
    for (size_t C : Candidates[U])
      Applied.push_back(Comps[C].Choice);
    CompileCache::Entry Cur = (*Combined)[K];
    int64_t Predicted = 0;
    for (size_t C : Candidates[U])
      Predicted += Comps[C].Best;
    if (!Cur.Ok || FromModel(U, Cur) != Predicted) {
      if (Cur.Ok)
        log(formatv("{0}: components combined {1} bytes, predicted {2}; "
                    "combining one at a time",
                    Units[U].Key, FromModel(U, Cur), Predicted));
      Applied.clear();
      Cur = FromEntry[U];
      if (Error E = Resolve(U, Applied, Cur))
        return E;
    }
    if (Applied.empty())
      continue;
    // Kept if it makes the program, as the units before it left it,
    // smaller.
    LinkedProgram &L = Linked[Units[U].Program];
    std::vector<LinkedProgram::Change> Change = {
        {Units[U].Slots.front(), getCode(Cur)}};
    int64_t D = L.delta(Change);
    if (D >= 0)
      continue;
    L.apply(Change);
    Total += D;
    UnitState &St = R.States[U];
    St.Fixed = configure(Units[U].Key, From[U], Applied);
    St.Current = {Cur};
    St.Kept.push_back(formatv("components: {0} sites inverted in {1} "
                              "component{2} ({3} bytes)",
                              countInverted(Applied), Applied.size(),
                              Applied.size() == 1 ? "" : "s", D)
                          .str());
    Changed.push_back(U);
  }

  // The changed units' trajectories (held back in the budget).
  if (!Changed.empty()) {
    std::vector<CompileRequest> TR;
    for (size_t U : Changed)
      TR.push_back({Units[U].Mods.front(), policyFor(R.States[U].Fixed)});
    Expected<std::vector<CompileService::SitesResult>> T =
        S.compileWithSites(TR, "components' trajectories");
    if (!T)
      return T.takeError();
    R.Compiles += TR.size();
    for (size_t K = 0; K < Changed.size(); ++K) {
      if (!(*T)[K].Entry.Ok)
        return makeError("a compile that succeeded failed when repeated: " +
                         (*T)[K].Entry.Error);
      UnitState &St = R.States[Changed[K]];
      St.Trajectory = std::move((*T)[K].Sites);
      St.Moves = plan(St, Order, /*OfferHeuristic=*/true, R);
      St.Next = 0;
      St.Screened.clear();
      St.clearSlices();
      St.Predicted = std::numeric_limits<double>::quiet_NaN();
    }
  }
  Stats.Compiles += R.Compiles - Before;
  log(formatv("components: {0} in {1} modules ({2} searched exhaustively, "
              "{3} sites), {4} saving bytes, {5} interaction(s); {6} compiles",
              Stats.Components, Units.size(), Stats.Exhaustive, Stats.Sites,
              Stats.Improving, Stats.Interactions.size(), Stats.Compiles));
  R.Components = std::move(Stats);
  R.addPoint(O.PredictionCost, Total);
  return Error::success();
}

Expected<std::optional<size_t>> Tuner::predictionSlice(size_t U, UnitState &St,
                                                       const TuneMove &M) {
  // A slice holds one module's functions; the heuristic changes them all.
  if (Units[U].Mods.size() != 1 || M.Heuristic)
    return std::nullopt;
  const std::vector<DecidedSite> &T = St.Trajectory;
  const size_t Mod = Units[U].Mods.front();
  // Writes slice K of the state if it is not yet: named after the state
  // (its kept moves) and K, the same name and bytes in a rerun.
  auto Write = [&](size_t K) -> Error {
    UnitState::PredictionSlice &PS = St.Slices[K];
    if (PS.Index)
      return Error::success();
    std::string Tag = formatv("predict-{0}-{1}", St.Kept.size(), K).str();
    SliceInstructions N;
    Expected<size_t> Index = addSlice(Mod, Tag, *PS.Spec, &N);
    if (!Index)
      return Index.takeError();
    PS.Index = *Index;
    PS.Cost = O.PredictionCost * getPredictionShare(N);
    return Error::success();
  };
  if (O.PredictOn == TunePredictOn::Moves) {
    if (!St.SlicesFound) {
      Expected<std::vector<std::string>> D =
          getDefinedFunctions(modules()[Mod].BitcodePath);
      if (!D)
        return D.takeError();
      for (const std::string &F : *D)
        St.Defined.insert(F);
      St.SlicesFound = true;
    }
    std::vector<size_t> Changed;
    if (!M.Entry.isGroup()) {
      if (M.Features.Position < T.size())
        Changed.push_back(M.Features.Position);
    } else {
      for (size_t I = 0; I < T.size(); ++I)
        if (T[I].Site.Callee == M.Entry.Callee)
          Changed.push_back(I);
    }
    // A caller the bitcode does not define (made by the pipeline) would
    // be missing from its slice: the module predicts the move.
    if (Changed.empty() || llvm::any_of(Changed, [&](size_t I) {
          return !St.Defined.contains(T[I].Site.Caller);
        }))
      return std::nullopt;
    SliceSpec Spec = getMoveSlice(T, Changed);
    std::vector<StringRef> Names;
    for (const auto &E : Spec.Emit)
      Names.push_back(E.getKey());
    llvm::sort(Names);
    std::string Key = llvm::join(Names, " ");
    auto [It, New] = St.MoveSlices.try_emplace(Key, St.Slices.size());
    if (New) {
      St.Slices.emplace_back();
      St.Slices.back().Spec = std::move(Spec);
    }
    if (Error E = Write(It->second))
      return E;
    return It->second;
  }
  if (!St.SlicesFound) {
    Expected<ModuleComponents> MC =
        getModuleComponents(modules()[Mod].BitcodePath, T, SplitKind::Statics);
    if (!MC)
      return MC.takeError();
    St.SiteComponent.assign(T.size(), SIZE_MAX);
    for (size_t K = 0; K < MC->Sites.size(); ++K) {
      for (size_t I : MC->Sites[K])
        St.SiteComponent[I] = K;
      St.Slices.emplace_back();
      St.Slices.back().Spec = std::move(MC->Slices[K]);
    }
    St.SlicesFound = true;
  }
  // The component of every site the move changes: one, or none.
  size_t Comp = SIZE_MAX;
  auto Join = [&](size_t I) {
    size_t C = I < St.SiteComponent.size() ? St.SiteComponent[I] : SIZE_MAX;
    if (C == SIZE_MAX || (Comp != SIZE_MAX && C != Comp))
      return false;
    Comp = C;
    return true;
  };
  if (!M.Entry.isGroup()) {
    if (!Join(M.Features.Position))
      return std::nullopt;
  } else {
    for (size_t I = 0; I < T.size(); ++I)
      if (T[I].Site.Callee == M.Entry.Callee && !Join(I))
        return std::nullopt;
  }
  if (Comp == SIZE_MAX)
    return std::nullopt;
  if (!St.Slices[Comp].Spec)
    return std::nullopt;
  if (Error E = Write(Comp))
    return E;
  return Comp;
}

Error Tuner::screen(SearchResult &R, function_ref<size_t(size_t)> PerUnit) {
  auto Begin = std::chrono::steady_clock::now();
  const bool Slicing = O.PredictOn != TunePredictOn::Module;
  // The step's compile slots: what its tries may compile at most. Its
  // predictions may cost as much (PredictionCost each, a slice's share of
  // that on a slice), no more, and never so much that the budget has no
  // compile left: a move left unpredicted is compiled as it is, like one
  // whose prediction failed.
  size_t Active = 0, Slots = 0;
  for (size_t U = 0; U < Units.size(); ++U)
    Active += R.States[U].Next < R.States[U].Moves.size();
  for (size_t U = 0; U < Units.size(); ++U)
    if (R.States[U].Next < R.States[U].Moves.size())
      Slots += PerUnit(Active) * Units[U].Mods.size();
  uint64_t StepModule = 0, StepMade = 0;
  double StepSlices = 0;
  // Each round predicts the unpredicted moves among each unit's next
  // PerUnit ones (and the unit itself, once per state; with slices, the
  // slice of each component a move is predicted on, once per state); a
  // round that drops or defers a move looks at the move after it in the
  // next one.
  for (;;) {
    Active = 0;
    for (const UnitState &St : R.States)
      Active += St.Next < St.Moves.size();
    const size_t Window = PerUnit(Active);
    enum class AskKind : uint8_t { Unit, SliceBase, Move, SliceMove };
    struct Ask {
      size_t Unit;
      AskKind Kind;
      /// The move's index in the unit's plan (Move, SliceMove).
      size_t Move;
      /// The component (SliceBase, SliceMove).
      size_t Comp;
      size_t First;
    };
    std::vector<Ask> Asks;
    std::vector<CompileRequest> Req;
    uint64_t RoundModule = 0, RoundSlicePredictions = 0;
    double RoundSlices = 0;
    for (size_t U = 0; U < Units.size(); ++U) {
      UnitState &St = R.States[U];
      if (St.Next >= St.Moves.size())
        continue;
      auto AskFor = [&](AskKind Kind, size_t Move, const CompilePolicy &P) {
        Asks.push_back({U, Kind, Move, 0, Req.size()});
        for (size_t M : Units[U].Mods)
          Req.push_back({M, P});
        RoundModule += Units[U].Mods.size();
      };
      // With slices, the unit itself is predicted only when a move is
      // predicted on the module; without, first, as always.
      // LLVM's heuristic is not predicted: its try costs no compile (its
      // result is the -Oz compile, search()).
      // With the logged filter `predict`, a move whose logged gain is
      // positive is tried as the scores judged it, unpredicted.
      auto Logged = [&](const TuneMove &M) {
        if (!O.LoggedPredictInline)
          return false;
        std::optional<double> Gain = getLoggedGain(St.Trajectory, M);
        return Gain && *Gain > 0;
      };
      std::vector<std::pair<size_t, std::optional<size_t>>> Moves;
      for (size_t K = St.Next; K < St.Moves.size() && K < St.Next + Window; ++K)
        if (!St.Moves[K].Heuristic &&
            !St.Screened.count(St.Moves[K].getKey()) && !Logged(St.Moves[K])) {
          std::optional<size_t> Comp;
          if (Slicing) {
            Expected<std::optional<size_t>> C =
                predictionSlice(U, St, St.Moves[K]);
            if (!C)
              return C.takeError();
            Comp = *C;
          }
          Moves.push_back({K, Comp});
        }
      bool OnModule = !Moves.empty() &&
                      (!Slicing || llvm::any_of(Moves, [](const auto &KC) {
                        return !KC.second.has_value();
                      }));
      if (std::isnan(St.Predicted) && OnModule)
        AskFor(AskKind::Unit, SIZE_MAX, policyFor(St.Fixed));
      // On a slice every site is fixed as the trajectory decided it: the
      // model's features count the whole module, so a site left to it
      // could decide otherwise in the slice.
      ModuleDecisions All;
      if (Slicing)
        All = fixAll(Units[U].Key, St.Trajectory);
      auto SliceAsk = [&](AskKind Kind, size_t Move, size_t Comp,
                          const CompilePolicy &P) {
        UnitState::PredictionSlice &PS = St.Slices[Comp];
        Asks.push_back({U, Kind, Move, Comp, Req.size()});
        Req.push_back({*PS.Index, P});
        RoundSlices += PS.Cost;
        ++RoundSlicePredictions;
      };
      for (const auto &[K, MaybeComp] : Moves) {
        if (!MaybeComp) {
          AskFor(AskKind::Move, K, policyFor(St, St.Moves[K]));
          continue;
        }
        const size_t Comp = *MaybeComp;
        // The slice as it is, once per state (asked when the round runs).
        if (!St.Slices[Comp].BaseAsked &&
            llvm::none_of(Asks, [&](const Ask &A) {
              return A.Unit == U && A.Kind == AskKind::SliceBase &&
                     A.Comp == Comp;
            }))
          SliceAsk(AskKind::SliceBase, SIZE_MAX, Comp, policyFor(All));
        SliceAsk(AskKind::SliceMove, K, Comp,
                 policyFor(applyMove(All, St.Moves[K])));
      }
    }
    if (Req.empty())
      break;
    if (StepMade &&
        SearchResult::charge(StepModule + RoundModule, O.PredictionCost,
                             StepSlices + RoundSlices) > Slots)
      break;
    // What the step's tries need after the predictions: one compile; or,
    // where a unit's next moves hold LLVM's heuristic (a free try), the
    // two compiles that keep it, so that predicting other moves never
    // leaves the heuristic untried.
    size_t Needed = 1;
    for (const UnitState &St : R.States)
      for (size_t K = St.Next; K < St.Moves.size() && K < St.Next + Window; ++K)
        if (St.Moves[K].Heuristic)
          Needed += Needed == 1 ? 1 : 2;
    if (O.MaxCompiles &&
        R.Compiles +
                SearchResult::charge(
                    R.Predictions - R.SlicePredictions + RoundModule,
                    O.PredictionCost, R.SliceCharge + RoundSlices) +
                Needed >
            O.MaxCompiles)
      break;
    Expected<std::vector<CompileService::Prediction>> P =
        S.predict(Req, "predictions");
    if (!P)
      return P.takeError();
    R.Predictions += Req.size();
    R.SlicePredictions += RoundSlicePredictions;
    R.SliceCharge += RoundSlices;
    StepModule += RoundModule;
    StepSlices += RoundSlices;
    StepMade += Req.size();
    for (const Ask &A : Asks)
      if (A.Kind == AskKind::SliceBase)
        R.States[A.Unit].Slices[A.Comp].BaseAsked = true;
    auto BytesOf = [&](const Ask &A) {
      const size_t N = A.Kind == AskKind::Unit || A.Kind == AskKind::Move
                           ? Units[A.Unit].Mods.size()
                           : 1;
      double Bytes = 0;
      bool Ok = true;
      for (size_t K = 0; K < N; ++K) {
        Ok &= (*P)[A.First + K].Ok;
        Bytes += (*P)[A.First + K].Bytes;
      }
      return Ok ? Bytes : std::numeric_limits<double>::quiet_NaN();
    };
    // The bases first: a slice's may come after a move asked on it.
    for (const Ask &A : Asks) {
      UnitState &St = R.States[A.Unit];
      if (A.Kind == AskKind::Unit)
        St.Predicted = BytesOf(A);
      else if (A.Kind == AskKind::SliceBase)
        St.Slices[A.Comp].Base = BytesOf(A);
    }
    // Per unit, its moves predicted not to help, in plan order.
    std::vector<std::vector<size_t>> Bad(Units.size());
    for (const Ask &A : Asks) {
      if (A.Kind == AskKind::Unit || A.Kind == AskKind::SliceBase)
        continue;
      UnitState &St = R.States[A.Unit];
      const double Bytes = BytesOf(A);
      const double Against =
          A.Kind == AskKind::Move ? St.Predicted : St.Slices[A.Comp].Base;
      // The unit's predicted .text after the move: known for a move
      // predicted on the module only.
      St.Screened[St.Moves[A.Move].getKey()] =
          A.Kind == AskKind::Move ? Bytes
                                  : std::numeric_limits<double>::quiet_NaN();
      R.Predicted.push_back({R.Compiles, Units[A.Unit].Key,
                             St.Moves[A.Move].getKey(), A.Kind != AskKind::Move,
                             Against, Bytes});
      // A failed prediction says nothing: the compile decides.
      if (!std::isnan(Bytes) && !std::isnan(Against) && !(Bytes < Against))
        Bad[A.Unit].push_back(A.Move);
    }
    for (size_t U = 0; U < Units.size(); ++U) {
      if (Bad[U].empty())
        continue;
      UnitState &St = R.States[U];
      R.PredictedBad += Bad[U].size();
      std::vector<TuneMove> Deferred;
      for (size_t K : llvm::reverse(Bad[U])) {
        Deferred.push_back(std::move(St.Moves[K]));
        St.Moves.erase(St.Moves.begin() + K);
      }
      if (O.Predict == TunePredict::Rank)
        St.Moves.insert(St.Moves.end(),
                        std::make_move_iterator(Deferred.rbegin()),
                        std::make_move_iterator(Deferred.rend()));
    }
  }
  R.PredictSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
          .count();
  return Error::success();
}

Expected<SearchResult> Tuner::search(TuneOrder Order) {
  using Clock = std::chrono::steady_clock;
  auto Begin = Clock::now();
  SearchResult R;
  std::vector<LinkedProgram> Linked;
  for (const Program &P : Programs)
    Linked.push_back(P.Linked);
  uint64_t ModelTotal = 0, Total = 0;
  for (const Program &P : Programs)
    ModelTotal += P.Model;
  Total = ModelTotal;
  R.States.resize(Units.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    UnitState &St = R.States[U];
    St.Fixed.Module = Units[U].Key;
    St.Trajectory = Start[Units[U].Mods.front()].Sites;
    for (size_t M : Units[U].Mods)
      St.Current.push_back(Start[M].Entry);
    // LLVM's heuristic is offered to single-module units only: a complete
    // list of one module's decisions reproduces only that module.
    St.Moves = plan(St, Order, /*OfferHeuristic=*/Units[U].Mods.size() == 1, R);
  }
  R.Curve.push_back({0, Total, 0});
  if (O.Components && !O.Interleave) {
    Expected<ComponentPlan> P =
        planComponents(R, nullptr, std::numeric_limits<uint64_t>::max());
    if (!P)
      return P.takeError();
    if (Error E =
            searchComponents(Order, R, Linked, Total, std::move(*P), nullptr))
      return E;
  }
  // With --interleave (docs/tune.md, "Interleaved components"): a round
  // searches at most RoundCompiles compiles' worth of components, and is
  // considered each time the move search has made RoundCompiles compiles
  // more (half that after a round was declined), or has no move left; it
  // runs when the components' expected bytes per compile, calibrated by
  // what earlier rounds saved (RoundState::calibration), beat what the
  // moves saved per compile over their last RoundCompiles compiles.
  RoundState Rounds;
  const uint64_t RoundCompiles = std::clamp<uint64_t>(
      uint64_t(1) << std::min(O.ExhaustiveSites, 10u), 32, 1024);
  uint64_t MoveCompiles = 0, NextRound = RoundCompiles;
  int64_t MoveGain = 0;
  /// (move compiles, bytes the moves saved) after each move step.
  std::vector<std::pair<uint64_t, int64_t>> MoveHistory = {{0, 0}};
  // With --program-moves: per unit, the functions its module defines
  // linkonce_odr (a unit of several modules takes no program move: its
  // entries are not its complete trajectory); per program, its planned
  // program moves, replanned whenever one of its units changes.
  struct ProgramMoves {
    StringSet<> Tried;
    std::vector<ProgramMove> Moves;
    /// Per move's copy index: the unit.
    std::vector<size_t> CopyUnits;
    size_t Next = 0;
    bool Stale = true;
  };
  std::vector<ProgramMoves> PMoves(O.ProgramMoves ? Programs.size() : 0);
  std::vector<StringSet<>> LinkOnce(O.ProgramMoves ? Units.size() : 0);
  for (size_t U = 0; U < LinkOnce.size(); ++U) {
    if (Units[U].Mods.size() != 1)
      continue;
    Expected<StringSet<>> F =
        getLinkOnceODRFunctions(modules()[Units[U].Mods.front()].BitcodePath);
    if (!F)
      return F.takeError();
    LinkOnce[U] = std::move(*F);
  }
  auto PlanProgram = [&](size_t P) {
    ProgramMoves &PM = PMoves[P];
    std::vector<std::vector<DecidedSite>> Copies;
    PM.CopyUnits.clear();
    for (size_t U : Programs[P].Units) {
      if (LinkOnce[U].empty())
        continue;
      std::vector<DecidedSite> Sites;
      for (const DecidedSite &D : R.States[U].Trajectory)
        if (LinkOnce[U].contains(D.Site.Caller))
          Sites.push_back(D);
      if (Sites.empty())
        continue;
      Copies.push_back(std::move(Sites));
      PM.CopyUnits.push_back(U);
    }
    // Scored against the unit of the move's first copy.
    auto Score = [&](const TuneMove &M) {
      for (size_t C = 0; C < Copies.size(); ++C)
        for (const DecidedSite &D : Copies[C])
          if (D.Site.Caller == M.Entry.Caller &&
              D.Site.Callee == M.Entry.Callee &&
              D.Site.Ordinal == M.Entry.Ordinal) {
            uint64_t Text = 0;
            for (const CompileCache::Entry &E :
                 R.States[PM.CopyUnits[C]].Current)
              Text += E.TextSize;
            return Ranker->score(M, Text);
          }
      return 0.0;
    };
    PM.Moves = planProgramMoves(Copies, Order, O.Seed, PM.Tried,
                                Ranker ? MoveScore(Score) : MoveScore());
    PM.Next = 0;
    PM.Stale = false;
  };
  // The search shows one progress line of its own.
  S.setProgress("mlgo tune", false);
  Progress Shown(("mlgo tune: search (" + getName(Order) + ")").str(),
                 "compiles");
  auto Remaining = [&] {
    uint64_t N = 0;
    for (size_t U = 0; U < Units.size(); ++U)
      N += (R.States[U].Moves.size() - R.States[U].Next) * Units[U].Mods.size();
    return N;
  };
  auto Show = [&] {
    if (!O.Verbose)
      return;
    double Elapsed =
        std::chrono::duration<double>(Clock::now() - Begin).count();
    Shown.setDetail(formatv("; {0:F0} s elapsed; linked .text {1:F2}% vs the "
                            "model ({2} bytes)",
                            Elapsed, percentChange(ModelTotal, Total),
                            int64_t(Total) - int64_t(ModelTotal))
                        .str());
    // The compiles the search will make: its budget; or, with a time
    // budget, as many as it makes at this rate until the time is up; at
    // most, what is left to try.
    uint64_t Goal = R.Compiles + Remaining();
    if (O.MaxCompiles)
      Goal = O.MaxCompiles;
    else if (O.BudgetMinutes > 0 && Elapsed > 0)
      Goal = std::min<uint64_t>(
          Goal, uint64_t(double(R.Compiles) * O.BudgetMinutes * 60 / Elapsed));
    Shown.update(R.Compiles, std::max<uint64_t>(Goal, R.Compiles));
  };
  for (unsigned Step = 0;; ++Step) {
    if (O.BudgetMinutes > 0 &&
        std::chrono::duration<double>(Clock::now() - Begin).count() >=
            O.BudgetMinutes * 60) {
      R.StoppedByBudget = true;
      break;
    }
    if (O.Interleave) {
      bool Exhausted = Remaining() == 0;
      uint64_t Left = O.MaxCompiles
                          ? O.MaxCompiles - std::min(O.MaxCompiles,
                                                     R.spent(O.PredictionCost))
                          : RoundCompiles + 2;
      if ((Exhausted || MoveCompiles >= NextRound) && Left > 2) {
        int64_t Earlier = 0;
        for (auto [C, G] : MoveHistory)
          if (C + RoundCompiles <= MoveCompiles)
            Earlier = G;
        const int64_t Recent = MoveGain - Earlier;
        Expected<ComponentPlan> P = planComponents(
            R, &Rounds, std::min(RoundCompiles, Left - 2), Exhausted);
        if (!P)
          return P.takeError();
        if (!P->Comps.empty() &&
            (Exhausted ||
             Rounds.calibration() * P->Expected * double(RoundCompiles) >
                 double(Recent) * double(P->Cost))) {
          log(formatv("components round {0}: {1} components, expected {2:F0} "
                      "bytes in {3} compiles; the moves saved {4} bytes in "
                      "their last {5} compiles",
                      Rounds.Rounds + 1, P->Comps.size(), P->Expected, P->Cost,
                      Recent, RoundCompiles));
          for (const Comp &C : P->Comps)
            Rounds.Searched.insert(C.Key);
          const uint64_t RoundTotal = Total;
          Rounds.Expected += P->Expected;
          if (Error E = searchComponents(Order, R, Linked, Total, std::move(*P),
                                         &Rounds))
            return E;
          Rounds.Saved += int64_t(RoundTotal) - int64_t(Total);
          ++Rounds.Rounds;
          // The round may have changed units' trajectories.
          for (ProgramMoves &PM : PMoves)
            PM.Stale = true;
          NextRound = MoveCompiles + RoundCompiles;
          Show();
          continue;
        }
        NextRound = MoveCompiles + RoundCompiles / 2;
      }
    }
    const uint64_t StepCompiles = R.Compiles, StepTotal = Total;
    // Each unit with moves left tries its next ones, as many as the budget
    // allows: one each when many units are left, more when few are (so
    // that the workers stay busy), judged in order - once one is kept,
    // the unit's later tries were made against a state that is gone and
    // are set aside, to be planned again. The count per unit depends on
    // the number of units left only, never on the machine.
    auto TriesPerUnit = [](size_t Active) {
      return Active ? std::max<size_t>(1, (TriesPerStep + Active - 1) / Active)
                    : size_t(1);
    };
    if (O.Predict != TunePredict::Off)
      if (Error E = screen(R, TriesPerUnit))
        return E;
    size_t Active = 0;
    for (size_t U = 0; U < Units.size(); ++U)
      Active += R.States[U].Next < R.States[U].Moves.size();
    const size_t PerUnit = TriesPerUnit(Active);
    std::vector<CompileRequest> Req;
    struct Try {
      size_t Unit, First, Move;
      /// A program move: its program, and the units it changes.
      std::optional<size_t> Program;
      std::vector<size_t> ProgramUnits;
    };
    std::vector<Try> Tries;
    // Per request: whether its result is the module's -Oz compile (a try
    // of LLVM's heuristic: the plugin's advisor letting the heuristic
    // decide builds what stock clang does, test/Inline/
    // default-policy-matches-stock.ll), judged without a compile and not
    // charged to the budget; Charged counts the others.
    std::vector<bool> FromStock;
    size_t Charged = 0;
    bool Full = false;
    // The budget holds the compiles that keep LLVM's heuristic too: two
    // per unit that tries it (its sites, its trajectory). Other kept moves
    // need none: their tries record their trajectories.
    size_t Reserve = 0;
    // Each program's next program move first, judged before the units'
    // own tries (a unit it changes sets their tries aside). A program
    // move compiles every copy it changes, so program moves wait until
    // they promise more than the moves: until the moves saved fewer bytes
    // over their last RoundCompiles compiles than the program moves' rate
    // so far ((saved + 1) / (compiles + 1), one byte per compile before
    // any) would, or have no move left; a count of compiles and bytes, so
    // deterministic.
    bool ProgramTurn = false;
    if (!PMoves.empty()) {
      int64_t Earlier = 0;
      for (auto [C, G] : MoveHistory)
        if (C + RoundCompiles <= MoveCompiles)
          Earlier = G;
      double Rate =
          (double(R.ProgramSaved) + 1) / (double(R.ProgramCompiles) + 1);
      ProgramTurn = Remaining() == 0 ||
                    (MoveCompiles >= RoundCompiles &&
                     Rate * double(RoundCompiles) > double(MoveGain - Earlier));
    }
    uint64_t ProgramCompiles = 0;
    int64_t ProgramSaved = 0;
    for (size_t P = 0; ProgramTurn && P < PMoves.size() && !Full; ++P) {
      ProgramMoves &PM = PMoves[P];
      if (PM.Stale)
        PlanProgram(P);
      if (PM.Next >= PM.Moves.size())
        continue;
      const ProgramMove &Move = PM.Moves[PM.Next];
      std::vector<size_t> Us;
      for (size_t C : Move.Copies)
        Us.push_back(PM.CopyUnits[C]);
      if (O.MaxCompiles &&
          R.spent(O.PredictionCost) + Charged + Us.size() + Reserve >
              O.MaxCompiles) {
        Full = true;
        break;
      }
      ProgramCompiles += Us.size();
      Tries.push_back({Us.front(), Req.size(), PM.Next, P, Us});
      for (size_t U : Us) {
        Req.push_back({Units[U].Mods.front(),
                       policyFor(applyMove(R.States[U].Fixed, Move.Move))});
        FromStock.push_back(false);
      }
      Charged += Us.size();
    }
    // LLVM's heuristic's tries first, every unit's (no compile, but the
    // two that keep it reserved: never crowded out by other units' tries),
    // then the units' other tries; once one does not fit, no other is
    // added.
    std::vector<size_t> UnitReserve(Units.size()), Begun(Units.size());
    for (bool HeuristicPass : {true, false}) {
      for (size_t U = 0; U < Units.size() && !(Full && !HeuristicPass); ++U) {
        UnitState &St = R.States[U];
        size_t N = Units[U].Mods.size();
        for (size_t K = St.Next + (HeuristicPass ? 0 : Begun[U]);
             K < St.Moves.size() && K < St.Next + PerUnit; ++K) {
          const bool Heuristic = St.Moves[K].Heuristic;
          if (Heuristic != HeuristicPass)
            break;
          // A kept move's trajectory is its try's (no compile); a kept
          // heuristic compiles its sites, then its trajectory.
          size_t NewReserve = Heuristic ? 2 : 0;
          NewReserve = std::max(UnitReserve[U], NewReserve);
          const size_t TryCompiles = Heuristic ? 0 : N;
          if (O.MaxCompiles && R.spent(O.PredictionCost) + Charged +
                                       TryCompiles + Reserve - UnitReserve[U] +
                                       NewReserve >
                                   O.MaxCompiles) {
            Full = true;
            break;
          }
          Reserve += NewReserve - UnitReserve[U];
          UnitReserve[U] = NewReserve;
          ++Begun[U];
          CompilePolicy P = policyFor(St, St.Moves[K]);
          Tries.push_back({U, Req.size(), K, std::nullopt, {}});
          for (size_t Mod : Units[U].Mods) {
            Req.push_back({Mod, P});
            FromStock.push_back(Heuristic);
          }
          Charged += TryCompiles;
        }
      }
    }
    if (Tries.empty()) {
      R.StoppedByBudget = Full;
      break;
    }
    std::vector<CompileRequest> ToCompile;
    for (size_t I = 0; I < Req.size(); ++I)
      if (!FromStock[I])
        ToCompile.push_back(Req[I]);
    assert(ToCompile.size() == Charged && "a step's compiles miscounted");
    // The tries are compiled with their sites: a kept move's try is the
    // compile that learns its new trajectory (the same module and policy).
    std::vector<CompileCache::Entry> Res(Req.size());
    std::vector<std::vector<DecidedSite>> ResSites(Req.size());
    if (!ToCompile.empty()) {
      Expected<std::vector<CompileService::SitesResult>> Compiled =
          S.compileWithSites(ToCompile, ("step " + Twine(Step)).str());
      if (!Compiled)
        return Compiled.takeError();
      for (size_t I = 0, J = 0; I < Req.size(); ++I)
        if (!FromStock[I]) {
          Res[I] = std::move((*Compiled)[J].Entry);
          ResSites[I] = std::move((*Compiled)[J++].Sites);
        }
    }
    for (size_t I = 0; I < Req.size(); ++I)
      if (FromStock[I])
        Res[I] = Stock[Req[I].first];
    R.Compiles += ToCompile.size();
    // Judge the tries in order, each against the programs as the tries
    // before it left them.
    // Kept units, and per kept unit the request whose sites are its new
    // trajectory (none for a kept heuristic: compiled below).
    std::vector<size_t> Kept, KeptHeuristic;
    std::vector<std::optional<size_t>> KeptFrom;
    std::vector<bool> Moved(Units.size());
    for (const Try &Tr : Tries) {
      size_t U = Tr.Unit, First = Tr.First;
      if (Tr.Program) {
        // A program move: every unit it changes, against the program as
        // the tries before it left it; set aside if one of them moved.
        if (llvm::any_of(Tr.ProgramUnits, [&](size_t V) { return Moved[V]; }))
          continue;
        ProgramMoves &PM = PMoves[*Tr.Program];
        const ProgramMove Move = PM.Moves[Tr.Move];
        PM.Tried.insert(Move.getKey());
        PM.Next = Tr.Move + 1;
        std::vector<LinkedProgram::Change> Changes;
        bool Ok = true;
        uint64_t UnitText = 0;
        for (size_t K = 0; K < Tr.ProgramUnits.size(); ++K) {
          Ok &= Res[First + K].Ok;
          Changes.push_back({Units[Tr.ProgramUnits[K]].Slots.front(),
                             getCode(Res[First + K])});
        }
        for (const CompileCache::Entry &E : R.States[U].Current)
          UnitText += E.TextSize;
        LinkedProgram &L = Linked[*Tr.Program];
        int64_t D = Ok ? L.delta(Changes) : 0;
        R.Tries.push_back({Step, StepCompiles, U, Move.Move, UnitText, D, Ok,
                           Ok && D < 0, true});
        ++R.ProgramTries;
        if (!Ok || D >= 0)
          continue;
        L.apply(Changes);
        Total += D;
        ++R.ProgramKept;
        ProgramSaved -= D;
        for (size_t K = 0; K < Tr.ProgramUnits.size(); ++K) {
          size_t V = Tr.ProgramUnits[K];
          UnitState &VS = R.States[V];
          Moved[V] = true;
          VS.Current.front() = Res[First + K];
          VS.Kept.push_back(
              formatv("program move, in {0} modules: {1} ({2} bytes)",
                      Tr.ProgramUnits.size(), Move.Move.describe(), D)
                  .str());
          VS.Predicted = std::numeric_limits<double>::quiet_NaN();
          VS.Fixed = applyMove(VS.Fixed, Move.Move);
          Kept.push_back(V);
          KeptFrom.push_back(First + K);
        }
        continue;
      }
      UnitState &St = R.States[U];
      if (Moved[U])
        continue;
      const TuneMove Move = St.Moves[Tr.Move];
      St.Tried.insert(Move.getKey());
      std::vector<LinkedProgram::Change> Changes;
      bool Ok = true;
      for (size_t K = 0; K < Units[U].Mods.size(); ++K) {
        Ok &= Res[First + K].Ok;
        Changes.push_back({Units[U].Slots[K], getCode(Res[First + K])});
      }
      LinkedProgram &L = Linked[Units[U].Program];
      int64_t D = Ok ? L.delta(Changes) : 0;
      uint64_t UnitText = 0;
      for (const CompileCache::Entry &E : St.Current)
        UnitText += E.TextSize;
      R.Tries.push_back(
          {Step, StepCompiles, U, Move, UnitText, D, Ok, Ok && D < 0});
      if (!Ok || D >= 0) {
        St.Next = Tr.Move + 1;
        continue;
      }
      Moved[U] = true;
      L.apply(Changes);
      Total += D;
      for (size_t K = 0; K < Units[U].Mods.size(); ++K)
        St.Current[K] = Res[First + K];
      St.Kept.push_back(Move.describe() + formatv(" ({0} bytes)", D).str());
      St.Undo.clear();
      if (!Move.Heuristic) {
        TuneMove Back = Move;
        Back.Entry.Inline = !Move.Entry.Inline;
        St.Undo = Back.getKey();
      }
      // The new state is the move's policy (a kept heuristic becomes its
      // list of decisions, a policy of its own: predicted again).
      auto Known = St.Screened.find(Move.getKey());
      St.Predicted = !Move.Heuristic && Known != St.Screened.end()
                         ? Known->second
                         : std::numeric_limits<double>::quiet_NaN();
      if (Move.Heuristic)
        KeptHeuristic.push_back(U);
      else
        St.Fixed = applyMove(St.Fixed, Move);
      Kept.push_back(U);
      KeptFrom.push_back(Move.Heuristic ? std::nullopt
                                        : std::optional<size_t>(First));
    }
    // A kept heuristic becomes its complete list of decisions.
    if (!KeptHeuristic.empty()) {
      std::vector<CompileRequest> HR;
      for (size_t U : KeptHeuristic)
        HR.push_back({Units[U].Mods.front(), CompilePolicy::heuristic()});
      Expected<std::vector<CompileService::SitesResult>> HCompiled =
          S.compileWithSites(HR, "heuristic sites");
      if (!HCompiled)
        return HCompiled.takeError();
      std::vector<CompileService::SitesResult> &H = *HCompiled;
      R.Compiles += HR.size();
      for (size_t K = 0; K < KeptHeuristic.size(); ++K) {
        if (!H[K].Entry.Ok)
          return makeError("a compile that succeeded failed when repeated: " +
                           H[K].Entry.Error);
        // The try was judged from the -Oz compile: the heuristic's own
        // compile must be it, or the kept move's bytes are not its own.
        const CompileCache::Entry &Oz = R.States[KeptHeuristic[K]].Current[0];
        if (H[K].Entry.TextSize != Oz.TextSize ||
            !llvm::equal(H[K].Entry.Grouped, Oz.Grouped))
          return makeError(
              formatv("{0}: LLVM's heuristic through mlgo's advisor built "
                      "{1} bytes of .text, stock clang -Oz {2}: the "
                      "heuristic's try cannot be judged from the -Oz compile",
                      modules()[HR[K].first].BitcodePath, H[K].Entry.TextSize,
                      Oz.TextSize)
                  .str());
        R.States[KeptHeuristic[K]].Fixed =
            fixAll(Units[KeptHeuristic[K]].Key, H[K].Sites);
      }
    }
    // Kept moves change the trajectory: learn it (a kept move's from its
    // try, a kept heuristic's by a compile), plan again.
    if (!Kept.empty()) {
      std::vector<CompileRequest> TR;
      for (size_t K = 0; K < Kept.size(); ++K)
        if (!KeptFrom[K])
          TR.push_back({Units[Kept[K]].Mods.front(),
                        policyFor(R.States[Kept[K]].Fixed)});
      std::vector<CompileService::SitesResult> T;
      if (!TR.empty()) {
        Expected<std::vector<CompileService::SitesResult>> TCompiled =
            S.compileWithSites(TR, "new trajectories");
        if (!TCompiled)
          return TCompiled.takeError();
        T = std::move(*TCompiled);
        R.Compiles += TR.size();
      }
      for (size_t K = 0, J = 0; K < Kept.size(); ++K) {
        UnitState &St = R.States[Kept[K]];
        if (KeptFrom[K]) {
          St.Trajectory = std::move(ResSites[*KeptFrom[K]]);
        } else {
          if (!T[J].Entry.Ok)
            return makeError("a compile that succeeded failed when repeated: " +
                             T[J].Entry.Error);
          St.Trajectory = std::move(T[J++].Sites);
        }
        // LLVM's heuristic stays on offer to a unit that a program move
        // changed before it was tried (program moves are judged first).
        St.Moves = plan(St, Order,
                        /*OfferHeuristic=*/O.ProgramMoves &&
                            Units[Kept[K]].Mods.size() == 1 &&
                            !St.Tried.contains("heuristic"),
                        R);
        St.Next = 0;
        St.Screened.clear();
        St.clearSlices();
        if (!PMoves.empty())
          PMoves[Units[Kept[K]].Program].Stale = true;
      }
    }
    // What the program moves compiled and saved is theirs, not the moves'.
    R.ProgramCompiles += ProgramCompiles;
    R.ProgramSaved += ProgramSaved;
    MoveCompiles += R.Compiles - StepCompiles - ProgramCompiles;
    MoveGain += int64_t(StepTotal) - int64_t(Total) - ProgramSaved;
    MoveHistory.push_back({MoveCompiles, MoveGain});
    R.addPoint(O.PredictionCost, Total);
    Show();
  }
  Shown.end();
  S.setProgress("mlgo tune", O.Verbose);
  R.Seconds = std::chrono::duration<double>(Clock::now() - Begin).count();
  log(formatv("search ({0}): {1} compiles in {2:F1} s{3}; linked .text "
              "{4:F2}% vs the model",
              getName(Order), R.Compiles, R.Seconds,
              R.StoppedByBudget ? ", stopped by the budget" : "",
              percentChange(ModelTotal, Total)));
  if (O.Predict != TunePredict::Off)
    log(formatv("predictions ({0}): {1} ({6} on slices) in {2:F1} s, "
                "counted as {5} compiles; {3} moves predicted not to help, {4}",
                getName(Order), R.Predictions, R.PredictSeconds, R.PredictedBad,
                O.Predict == TunePredict::Skip ? "skipped" : "tried last",
                R.charged(O.PredictionCost), R.SlicePredictions));
  if (O.LoggedFilter != TunePredict::Off)
    log(formatv("logged filter ({0}): {1} planned moves {3}, {2}",
                getName(Order), R.LoggedBad.size(),
                O.LoggedFilter == TunePredict::Skip ? "skipped" : "tried last",
                O.LoggedOnly ? "without a positive logged gain"
                             : "predicted to grow their module"));
  return R;
}

ModuleDecisions Tuner::finalEntries(size_t U, const SearchResult &R) const {
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

Error Tuner::verifyAndWrite(const SearchResult &R) {
  // The decisions as the file gives them, compiled once more: the sizes
  // the report and the file state are the ones a build gets.
  std::vector<CompileRequest> Req;
  std::vector<std::pair<size_t, size_t>> Tuned; // (unit, first request)
  std::vector<ModuleDecisions> Entries(Units.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    Entries[U] = finalEntries(U, R);
    if (Entries[U].Module.empty())
      Entries[U].Module = Units[U].Key;
  }
  // Whole-program decisions: each linkonce_odr function's sites decided
  // once per program, in its 'program' section (ProgramDecisions.h); a
  // module is then compiled with what the plugin applies in it.
  std::vector<ModuleDecisions> ProgramEntries(Programs.size());
  std::vector<HoistStats> Hoisted(Programs.size());
  std::vector<StringSet<>> LinkOnce(Units.size());
  for (size_t P = 0; O.WholeProgram && P < Programs.size(); ++P) {
    std::vector<ProgramModule> Mods;
    for (size_t U : Programs[P].Units) {
      ProgramModule &PM = Mods.emplace_back();
      PM.Entries = Entries[U];
      PM.Trajectory = R.States[U].Trajectory;
      PM.Exact = Units[U].Mods.size() == 1;
      for (size_t M : Units[U].Mods) {
        Expected<StringSet<>> F =
            getLinkOnceODRFunctions(modules()[M].BitcodePath);
        if (!F)
          return F.takeError();
        for (const auto &Name : *F)
          LinkOnce[U].insert(Name.getKey());
      }
      PM.LinkOnceODR = LinkOnce[U];
    }
    ProgramEntries[P] = hoistLinkOnceDecisions(Mods, &Hoisted[P]);
    for (size_t I = 0; I < Mods.size(); ++I)
      Entries[Programs[P].Units[I]] = std::move(Mods[I].Entries);
  }
  for (size_t U = 0; U < Units.size(); ++U) {
    ModuleDecisions Applied = expandForModule(
        Entries[U], ProgramEntries[Units[U].Program], LinkOnce[U]);
    if (Applied.Sites.empty())
      continue;
    Tuned.push_back({U, Req.size()});
    for (size_t M : Units[U].Mods)
      Req.push_back({M, policyFor(Applied)});
  }
  Expected<std::vector<CompileCache::Entry>> Compiled = S.compile(Req, "check");
  if (!Compiled)
    return Compiled.takeError();
  const std::vector<CompileCache::Entry> &Res = *Compiled;
  size_t Differ = 0;
  std::vector<LinkedProgram> Linked;
  for (const Program &P : Programs)
    Linked.push_back(P.Linked);
  for (auto [U, First] : Tuned) {
    std::vector<LinkedProgram::Change> Changes;
    for (size_t K = 0; K < Units[U].Mods.size(); ++K) {
      if (!Res[First + K].Ok)
        return makeError("the tuned decisions do not compile: " +
                         Res[First + K].Error);
      Differ += Res[First + K].TextSize != R.States[U].Current[K].TextSize;
      Changes.push_back({Units[U].Slots[K], getCode(Res[First + K])});
    }
    Linked[Units[U].Program].apply(Changes);
  }
  // Per program: its linked .text with the decisions files.
  std::vector<uint64_t> TunedSize;
  for (const LinkedProgram &L : Linked)
    TunedSize.push_back(L.size());
  if (Differ)
    log(formatv("{0} tuned modules compile to another size from their "
                "decisions file entries than in the search",
                Differ));

  // The decisions files.
  std::string Fingerprint = getCorpusFingerprint(modules());
  std::string Budget =
      O.MaxCompiles         ? formatv("{0} compiles", O.MaxCompiles).str()
      : O.BudgetMinutes > 0 ? formatv("{0} minutes", O.BudgetMinutes).str()
                            : std::string("none");
  if (O.PerPackage)
    if (std::error_code EC = sys::fs::create_directories(O.Output))
      return makeError(O.Output + ": " + EC.message());
  for (size_t P = 0; P < Programs.size(); ++P) {
    const Program &Prog = Programs[P];
    uint64_t Tuned = TunedSize[P];
    DecisionsFile F;
    F.setMeta("llvm", LLVM_VERSION_STRING);
    F.setMeta("corpus", Fingerprint);
    if (O.PerPackage)
      F.setMeta("package", Prog.Name);
    F.setMeta("model", ModelDescription);
    F.setMeta("order", describeOrder());
    F.setMeta("seed", std::to_string(O.Seed));
    F.setMeta("budget", Budget);
    F.setMeta("compiles", std::to_string(R.Compiles));
    if (O.Predict != TunePredict::Off)
      F.setMeta("predictions",
                std::to_string(R.Predictions) +
                    (O.PredictOn != TunePredictOn::Module
                         ? formatv(" ({0} on slices)", R.SlicePredictions).str()
                         : std::string()));
    F.setMeta("measured",
              formatv("linked .text: -Oz {0}, model {1}, tuned {2} bytes "
                      "({3:F2}% vs -Oz, {4:F2}% vs the model)",
                      Prog.Stock, Prog.Model, Tuned,
                      percentChange(Prog.Stock, Tuned),
                      percentChange(Prog.Model, Tuned))
                  .str());
    if (!ProgramEntries[P].Sites.empty())
      F.Program = std::make_shared<ModuleDecisions>(ProgramEntries[P]);
    for (size_t U : Prog.Units)
      if (!Entries[U].Sites.empty())
        F.addModule(Entries[U]);
    SmallString<256> Path(O.Output);
    if (O.PerPackage)
      sys::path::append(Path, (Prog.Name.empty() ? "_" : Prog.Name) +
                                  std::string(".decisions"));
    // Written whole or not at all.
    StringRef Parent = sys::path::parent_path(Path);
    if (!Parent.empty())
      if (std::error_code EC = sys::fs::create_directories(Parent))
        return makeError(Parent + ": " + EC.message());
    if (Error E = writeFileAtomically(Path, F.print()))
      return E;
  }

  // The report.
  std::string Md = "# mlgo tune report\n\n";
  Md += formatv("- Corpus: {0} ({1} modules, fingerprint {2}); {3} failed "
                "to compile and {4} left out{5}.\n",
                O.CorpusDir, modules().size(), Fingerprint, Failures.size(),
                Failures.size() == 1 ? "is" : "are",
                Failures.empty() ? "" : " (see Failed compiles)");
  Md += formatv("- Model: {0}; order {1}; seed {2}; budget {3}.\n",
                ModelDescription, describeOrder(), O.Seed, Budget);
  Md += formatv("- Search: {0} compiles{1}.\n", R.Compiles,
                R.StoppedByBudget ? ", stopped by the budget" : "");
  if (O.ProgramMoves)
    Md += formatv("- Program moves: {0} tried, {1} kept, saving {2} bytes in "
                  "{3} compiles.\n",
                  R.ProgramTries, R.ProgramKept, R.ProgramSaved,
                  R.ProgramCompiles);
  if (const std::optional<ComponentStats> &C = R.Components)
    Md += formatv("- Components: {0} ({1} searched exhaustively, {2} sites), "
                  "{3} saving bytes alone, {4} interaction{5} detected; {6} "
                  "compiles{7}{9}{8}.\n",
                  C->Components, C->Exhaustive, C->Sites, C->Improving,
                  C->Interactions.size(),
                  C->Interactions.size() == 1 ? "" : "s", C->Compiles,
                  O.FunctionLevel
                      ? formatv(" ({0} function-level)", C->SliceCompiles).str()
                      : "",
                  C->StoppedByBudget ? ", stopped by the budget" : "",
                  O.Interleave ? formatv(" in {0} round{1}", C->Rounds,
                                         C->Rounds == 1 ? "" : "s")
                                     .str()
                               : "");
  HoistStats H;
  for (const HoistStats &P : Hoisted) {
    H.Functions += P.Functions;
    H.ProgramEntries += P.ProgramEntries;
    H.Removed += P.Removed;
    H.Added += P.Added;
  }
  if (H.Functions)
    Md += formatv("- Whole-program decisions: {0} linkonce_odr function{1} "
                  "decided once for {2} ({3} program entries; {4} module "
                  "entries left out, {5} added).\n",
                  H.Functions, H.Functions == 1 ? "" : "s",
                  Programs.size() == 1 ? "the program" : "their program",
                  H.ProgramEntries, H.Removed, H.Added);
  if (O.Predict != TunePredict::Off)
    Md += formatv("- Predictions (IR pipeline only): {0}, counted as {3} "
                  "compiles in the budget ({4} each); {1} moves predicted "
                  "not to help were {2}.\n",
                  R.Predictions, R.PredictedBad,
                  O.Predict == TunePredict::Skip ? "skipped" : "tried last",
                  R.charged(O.PredictionCost), O.PredictionCost);
  if (O.LoggedFilter != TunePredict::Off)
    Md +=
        formatv("- Logged filter (each trajectory's logged size scores, "
                "no compile): {0} planned moves {2} were {1}.\n",
                R.LoggedBad.size(),
                O.LoggedFilter == TunePredict::Skip ? "skipped" : "tried last",
                O.LoggedOnly ? "without a positive logged gain"
                             : "predicted to grow their module");
  if (O.PredictOn != TunePredictOn::Module)
    Md += formatv("- Of those on slices ({2}; each charged by its "
                  "instructions, docs/tune.md): {0}, {1:F2} compiles' "
                  "worth.\n",
                  R.SlicePredictions, R.SliceCharge, getName(O.PredictOn));
  Md += "\n| program | -Oz | model | tuned | tuned vs -Oz | tuned vs model "
        "| modules tuned |\n|---|---:|---:|---:|---:|---:|---:|\n";
  uint64_t TS = 0, TM = 0, TT = 0;
  for (size_t I = 0; I < Programs.size(); ++I) {
    const Program &P = Programs[I];
    uint64_t Tuned = TunedSize[I];
    size_t N = 0;
    for (size_t U : P.Units)
      N += !R.States[U].Fixed.Sites.empty();
    Md += formatv("| {0} | {1} | {2} | {3} | {4:F2}% | {5:F2}% | {6} of {7} "
                  "|\n",
                  showProgram(P.Name), P.Stock, P.Model, Tuned,
                  percentChange(P.Stock, Tuned), percentChange(P.Model, Tuned),
                  N, P.Units.size());
    TS += P.Stock;
    TM += P.Model;
    TT += Tuned;
  }
  if (Programs.size() > 1)
    Md += formatv("| total | {0} | {1} | {2} | {3:F2}% | {4:F2}% | |\n", TS, TM,
                  TT, percentChange(TS, TT), percentChange(TM, TT));
  // Per program: the moves kept, in the report and (with several
  // programs) in W/reports/<program>.md.
  for (size_t I = 0; I < Programs.size(); ++I) {
    const Program &P = Programs[I];
    uint64_t Tuned = TunedSize[I];
    std::string Section = "\n## " + showProgram(P.Name) + "\n\n";
    Section += formatv("Linked .text: -Oz {0}, model {1}, tuned {2} bytes "
                       "({3:F2}% vs -Oz, {4:F2}% vs the model).\n\n",
                       P.Stock, P.Model, Tuned, percentChange(P.Stock, Tuned),
                       percentChange(P.Model, Tuned))
                   .str();
    for (size_t U : P.Units)
      if (!R.States[U].Kept.empty())
        Section +=
            "- " + Units[U].Key + ": " + join(R.States[U].Kept, "; ") + "\n";
    Md += Section;
    if (Programs.size() < 2)
      continue;
    std::string Dir = workFile("reports");
    if (std::error_code EC = sys::fs::create_directories(Dir))
      return makeError(Dir + ": " + EC.message());
    std::string Path =
        Dir + "/" + (P.Name.empty() ? std::string("_") : P.Name) + ".md";
    if (Error E = writeFileAtomically(Path, "# mlgo tune report:" +
                                                Section.substr(3)))
      return E;
  }
  if (R.Components && !R.Components->Interactions.empty()) {
    Md += "\n## Interactions\n\nComponents whose combination did not save "
          "the sum of what they saved alone (docs/tune.md, \"Components\").\n"
          "\n";
    for (const std::string &I : R.Components->Interactions)
      Md += "- " + I + "\n";
  }
  if (!Failures.empty()) {
    if (!StringRef(Md).ends_with("\n\n"))
      Md += "\n";
    Md += "## Failed compiles\n\nThese modules are in no program above and "
          "the decisions file has no entries for them. A timeout or a killed "
          "worker is not cached: rerunning the same command compiles them "
          "again.\n\n";
    for (const std::string &F : Failures)
      Md += "- " + F + "\n";
  }
  if (Error E = writeFileAtomically(workFile("report.md"), Md))
    return E;
  if (O.Verbose)
    outs() << Md;
  return Error::success();
}

Error Tuner::writeTries(TuneOrder Order, const SearchResult &R) {
  std::string Tsv = "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\t"
                    "callee_sites\tposition\tunit_text\tdelta\tok\tkept\n";
  for (const TryRecord &T : R.Tries) {
    const MoveFeatures &F = T.Move.Features;
    Tsv += formatv("{0}\t{1}\t{2}\t{3}\t{4}\t{5}\t{6}\t{7}\t{8}\t{9}\t{10}\t{"
                   "11}\t{12}\n",
                   T.Step, T.Compiles,
                   showProgram(Programs[Units[T.Unit].Program].Name),
                   Units[T.Unit].Key,
                   (T.Program ? "program " : "") + T.Move.getKey(),
                   formatv("{0:F4}", F.Logit), F.Changed, F.CalleeSites,
                   F.Position, T.UnitText, T.Delta, unsigned(T.Ok),
                   unsigned(T.Kept))
               .str();
  }
  if (Error E = writeFileAtomically(
          workFile(("tries-" + getName(Order) + ".tsv").str()), Tsv))
    return E;
  if (O.Predict != TunePredict::Off) {
    auto Show = [](double B) {
      return std::isnan(B) ? std::string("nan") : formatv("{0:F1}", B).str();
    };
    std::string Pred = "compiles\tmodule\tmove\ton\tbefore\tafter\n";
    for (const SearchResult::PredictionRecord &P : R.Predicted)
      Pred += formatv("{0}\t{1}\t{2}\t{3}\t{4}\t{5}\n", P.Compiles, P.Unit,
                      P.Move, P.OnSlice ? getName(O.PredictOn) : "module",
                      Show(P.Before), Show(P.After))
                  .str();
    if (Error E = writeFileAtomically(
            workFile(("predictions-" + getName(Order) + ".tsv").str()), Pred))
      return E;
  }
  if (O.LoggedFilter == TunePredict::Off)
    return Error::success();
  std::string Logged = "compiles\tmodule\tmove\tlogged_gain\n";
  for (const SearchResult::LoggedRecord &L : R.LoggedBad)
    Logged +=
        formatv("{0}\t{1}\t{2}\t{3}\n", L.Compiles, L.Unit, L.Move.Key,
                std::isnan(L.Move.Gain) ? std::string("none")
                                        : formatv("{0:F2}", L.Move.Gain).str())
            .str();
  return writeFileAtomically(
      workFile(("logged-" + getName(Order) + ".tsv").str()), Logged);
}

Error Tuner::writeCurves(
    ArrayRef<std::pair<TuneOrder, const SearchResult *>> Rs) {
  uint64_t ModelTotal = 0;
  for (const Program &P : Programs)
    ModelTotal += P.Model;
  for (auto [Order, R] : Rs) {
    std::string Csv = "compiles,linked bytes,% vs the model,seconds\n";
    for (const SearchResult::Point &P : R->Curve)
      Csv += formatv("{0},{1},{2:F3},{3:F1}\n", P.Spent, P.Total,
                     percentChange(ModelTotal, P.Total), P.Seconds)
                 .str();
    if (Error E = writeFileAtomically(
            workFile(("curve-" + getName(Order) + ".csv").str()), Csv))
      return E;
  }
  if (Rs.size() < 2)
    return Error::success();
  // Gain (bytes saved against the model) over compiles, one line each.
  double MaxX = 1, MaxY = 1;
  for (auto [Order, R] : Rs)
    for (const SearchResult::Point &P : R->Curve) {
      MaxX = std::max(MaxX, double(P.Spent));
      MaxY = std::max(MaxY, double(int64_t(ModelTotal) - int64_t(P.Total)));
    }
  const double W = 640, H = 360, L = 70, B = 40, T = 30, Rt = 20;
  std::string Svg = formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                            "width=\"{0}\" height=\"{1}\" font-family=\"sans-"
                            "serif\" font-size=\"12\">\n",
                            W, H)
                        .str();
  Svg += formatv("<text x=\"{0}\" y=\"18\">mlgo tune: bytes saved against "
                 "the model, by compiles</text>\n",
                 L)
             .str();
  Svg += formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                 "stroke=\"black\"/>\n<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" "
                 "y2=\"{1}\" stroke=\"black\"/>\n",
                 L, H - B, W - Rt, T)
             .str();
  Svg += formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>\n"
                 "<text x=\"{0}\" y=\"{3}\" text-anchor=\"end\">0</text>\n"
                 "<text x=\"{4}\" y=\"{5}\" text-anchor=\"end\">{6} "
                 "compiles</text>\n",
                 L - 4, T + 4, uint64_t(MaxY), H - B + 4, W - Rt, H - B + 18,
                 uint64_t(MaxX))
             .str();
  const char *Colors[] = {"#1f77b4", "#d62728"};
  for (size_t K = 0; K < Rs.size(); ++K) {
    std::string Points;
    for (const SearchResult::Point &P : Rs[K].second->Curve) {
      double X = L + (W - L - Rt) * double(P.Spent) / MaxX;
      double Y = (H - B) - (H - B - T) *
                               double(int64_t(ModelTotal) - int64_t(P.Total)) /
                               MaxY;
      Points += formatv("{0:F1},{1:F1} ", X, Y).str();
    }
    Svg += formatv("<polyline fill=\"none\" stroke=\"{0}\" stroke-width=\"2\" "
                   "points=\"{1}\"/>\n<text x=\"{2}\" y=\"{3}\" "
                   "fill=\"{0}\">{4}</text>\n",
                   Colors[K % 2], StringRef(Points).rtrim(), L + 10,
                   T + 16 + 14 * K, getName(Rs[K].first))
               .str();
  }
  Svg += "</svg>\n";
  return writeFileAtomically(workFile("guided-vs-unguided.svg"), Svg);
}

Error Tuner::run() {
  Expected<SearchResult> R = search(O.Order);
  if (!R)
    return R.takeError();
  std::vector<std::pair<TuneOrder, const SearchResult *>> Curves = {
      {O.Order, &*R}};
  std::optional<SearchResult> Other;
  if (O.Compare) {
    TuneOrder OtherOrder =
        O.Order == TuneOrder::Guided ? TuneOrder::Unguided : TuneOrder::Guided;
    Expected<SearchResult> R2 = search(OtherOrder);
    if (!R2)
      return R2.takeError();
    Other = std::move(*R2);
    Curves.push_back({OtherOrder, &*Other});
  }
  if (Error E = writeCurves(Curves))
    return E;
  for (auto [Order, Result] : Curves)
    if (Error E = writeTries(Order, *Result))
      return E;
  return verifyAndWrite(*R);
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
  Tuner T(Options, S, std::move(*Models), std::move(B->Stock),
          std::move(B->Start), std::move(*Layout));
  return T.run();
}

} // namespace mlgo
