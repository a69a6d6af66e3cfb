//===- lib/Tune/SpeedTune.cpp - mlgo tune --objective speed ---------------===//
//
// See mlgo/Tune/SpeedTune.h: the greedy search per module (inlining moves,
// then eviction inversions) over its compiles (mlgo/Speed/SpeedCompiler.h,
// asked by the modules' threads in batches), and the decisions file,
// report and curve it writes.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/SpeedTune.h"

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Inline/CompilePolicy.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Speed/ProfiledModules.h"
#include "mlgo/Speed/SpeedCompile.h"
#include "mlgo/Speed/SpeedCompiler.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/InstallDirs.h"
#include "mlgo/Support/Process.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/Support/WorkDirLock.h"
#include "mlgo/Tune/SearchState.h"
#include "mlgo/Tune/SpeedObjective.h"
#include "mlgo/Tune/TuneReport.h"
#include "mlgo/Tune/TuneSearch.h"
#include "mlgo/Tune/Tuner.h"
#include "mlgo/Tune/WorkloadCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {
namespace {

/// How the tuned side of a module is compiled: its inlining entries always
/// (through mlgo's advisor with LLVM's heuristic), and either LLVM's
/// eviction (a module whose file has no eviction entries) or the eviction
/// model with the entries.
enum class Eviction : uint8_t { LLVM, Model };

/// The trial of corpus module \p Module: stock clang-19 (\p Entries null),
/// or mlgo's advisor with LLVM's heuristic and \p Entries' inlining
/// entries, with \p E's eviction (the model \p EvictModel, empty: the
/// embedded one, with the eviction entries; or LLVM's, when there are
/// none).
Trial getSpeedTrial(size_t Module, const ModuleDecisions *Entries, Eviction E,
                    StringRef EvictModel) {
  assert((!Entries || E == Eviction::Model || Entries->Evictions.empty()) &&
         "eviction entries apply with the eviction model");
  Trial T;
  T.Module = Module;
  if (!Entries)
    return T;
  T.Policy = CompilePolicy::heuristic();
  if (!Entries->Evictions.empty() || !Entries->Sites.empty())
    T.Policy.Fixed = std::make_shared<const ModuleDecisions>(*Entries);
  if (E == Eviction::Model)
    T.Policy.EvictModel = EvictModel.str();
  return T;
}

/// Measures \p T through \p Obj; a failed compile is the error.
Expected<Measurement> measureOne(SpeedObjective &Obj, const Trial &T) {
  Expected<std::vector<Measurement>> M = Obj.measure({T}, "speed");
  if (!M)
    return M.takeError();
  if (!M->front().Outcome.Ok)
    return makeError(M->front().Outcome.Error);
  return std::move(M->front());
}

/// Trial \p T compiled by its module's compiler \p C: the speed
/// objective's engine.
Expected<SpeedOutcome> compileTrial(speed::ModuleSpeedCompiler &C,
                                    const Trial &T) {
  Expected<speed::CompiledModule> M = C.compile(T.Policy);
  if (!M)
    return M.takeError();
  return SpeedOutcome(std::move(*M));
}

/// A module's search and its result.
struct ModuleResult {
  std::string Key;
  /// Stock clang-19, and the eviction model with the kept inlining
  /// entries (no eviction entry).
  SpeedOutcome Base, Model;
  /// The module's best so far: its cost, cycles, object and entries (none:
  /// the stock compile is the best).
  double Best = 0, BestCycles = 0;
  std::string BestObject;
  ModuleDecisions Entries;
  /// The cost of the best with LLVM's eviction and inlining entries only
  /// (the inlining phase's result).
  double InlineBest = 0;
  /// (search compiles of this module, the module's best cost) after each
  /// move that lowered it.
  std::vector<std::pair<unsigned, double>> Kept;
  unsigned Tries = 0;
  unsigned InlineTries = 0, InlineKept = 0, EvictTries = 0, EvictKept = 0;
  /// Passes over the moves (a pass after one that kept a move tries again
  /// the moves it did not keep), and the tries and kept moves of the
  /// passes after the first.
  unsigned InlinePasses = 0, EvictPasses = 0;
  unsigned LaterTries = 0, LaterKept = 0;
  /// Pairs of eviction inversions tried and kept (after the single ones).
  unsigned PairTries = 0, PairKept = 0;
  /// Every try, in order, for W/moves.tsv: its kind, function, decision,
  /// the change of the module's cost and whether it was kept.
  std::vector<std::string> Moves;
  /// The module's budget (its share of --max-compiles and what modules
  /// out of moves handed on to it), and whether its search ended for want
  /// of moves rather than of budget.
  uint64_t Share = 0, Budget = 0;
  bool OutOfMoves = false;
  /// Whether the module was searched (it has hot functions).
  bool Searched = false;
  /// The workload check: the program's cost with this module alone tuned
  /// (none: not measured), and whether it was reverted (its entries
  /// dropped; Predicted keeps the search's estimate).
  std::optional<speed::WorkloadMeasure> MeasuredAlone;
  bool Reverted = false;
  double Predicted = 0;
  bool UseEntries() const {
    return !Entries.Sites.empty() || !Entries.Evictions.empty();
  }
  double Final() const { return UseEntries() ? Best : Base.Instructions; }
  double FinalCycles() const { return UseEntries() ? BestCycles : Base.Cycles; }
  /// What the inlining entries and the eviction side each saved of the
  /// stock compile's cost (their sum is Base - Final).
  double inliningGain() const {
    return Entries.Sites.empty() ? 0 : Base.Instructions - InlineBest;
  }
  double evictionGain() const {
    return Base.Instructions - Final() - inliningGain();
  }
  std::string Error;
};

/// Notes a try in \p R's log of moves (W/moves.tsv).
void logMove(ModuleResult &R, StringRef Kind, StringRef What, double Delta,
             bool Kept) {
  R.Moves.push_back(formatv("{0}\t{1}\t{2}\t{3:f0}\t{4}", R.Key, Kind, What,
                            Delta, Kept ? "kept" : "-")
                        .str());
}

/// \p Entries without the inlining entries that fix no decision of
/// trajectory \p Sites (a kept move can take the sites of an earlier
/// entry away); such entries change nothing, and a user's build would
/// report them as stale.
ModuleDecisions pruneStale(ModuleDecisions Entries,
                           ArrayRef<DecidedSite> Sites) {
  std::set<std::tuple<std::string, std::string, uint32_t>> Live;
  StringSet<> Callees;
  for (const DecidedSite &S : Sites) {
    Live.insert({S.Site.Caller, S.Site.Callee, S.Site.Ordinal});
    Callees.insert(S.Site.Callee);
  }
  llvm::erase_if(Entries.Sites, [&](const SiteDecision &D) {
    return D.isGroup() ? !Callees.contains(D.Callee)
                       : !Live.count({D.Caller, D.Callee, D.Ordinal});
  });
  return Entries;
}

/// How many near misses of a function (its inversions that raised the
/// cost the least) the pair moves combine: at most 45 pairs per function
/// and state of its entries.
constexpr size_t SpeedNearMisses = 10;

class SpeedTuner {
public:
  explicit SpeedTuner(SpeedTuneOptions Opts) : O(std::move(Opts)) {}
  Error run();

private:
  class ModuleSearch;
  /// The run's setup: absolute paths, the lock, the versions and the
  /// compiles' key salt, the corpus and its modules' keys.
  Error prepare();
  /// Every module's stock compile (Bases), which creates the batcher.
  Error measureBaselines();
  /// BaseTotal and the hot functions (Hot); their summed cost.
  Expected<double> pickHotFunctions();
  /// The search of every module with hot functions (\p HotSum their
  /// cost), in rounds that hand on unused budget.
  Expected<std::vector<ModuleResult>> searchModules(double HotSum);
  ModuleResult search(size_t I, uint64_t Share, uint64_t Budget,
                      uint64_t Counted);
  Trial getTrial(size_t I, const ModuleDecisions *Entries, Eviction E) const {
    return getSpeedTrial(I, Entries, E, O.EvictModel);
  }
  void noteCompile(const ModuleResult &R, uint64_t Counted = 0);
  void noteGain(size_t Module, double Saved);
  Error checkOnWorkload(std::vector<ModuleResult> &Results);
  /// The program's name for messages: --package's, or the corpus
  /// directory's.
  std::string getProgramName() const {
    if (!O.ProgramName.empty())
      return O.ProgramName;
    return sys::path::filename(sys::path::parent_path(O.CorpusDir + "/")).str();
  }
  /// The report's values (mlgo/Tune/TuneReport.h) of \p Results.
  SpeedRunReport makeReport(ArrayRef<ModuleResult> Results) const;
  Error writeObjects(ArrayRef<ModuleResult> Results) const;
  Error writeOutputs(ArrayRef<ModuleResult> Results);

  SpeedTuneOptions O;
  /// The work directory's, held until the run ends.
  std::optional<WorkDirLock> Lock;
  /// The compiles: tasks (mlgo/Speed/SpeedCompile.h), from the modules'
  /// threads in batches.
  speed::SpeedCompileSetup Setup;
  std::unique_ptr<TaskBatcher> Batcher;
  /// Where the compiles are kept, and what their keys hold.
  speed::SpeedCache Cache;
  /// The objective, whose engine is each module's compiler.
  std::vector<std::unique_ptr<speed::ModuleSpeedCompiler>> Compilers;
  std::unique_ptr<SpeedObjective> Obj;
  std::vector<CorpusModule> Mods;
  /// The corpus's modules of other programs than the profile's.
  std::vector<std::string> LeftOut;
  std::vector<std::string> Keys, LookupKeys;
  /// The hot functions of the program: (module index, function name) and
  /// their baseline cost, hottest first.
  std::vector<std::tuple<size_t, std::string, double>> Hot;
  std::vector<SpeedOutcome> Bases;
  double BaseTotal = 0;

  std::mutex ProgressMutex;
  std::unique_ptr<Progress> Bar;
  uint64_t Done = 0, Planned = 0;
  /// Per module: the estimated instructions saved so far (for progress).
  std::vector<double> SavedOf;
  std::string CorpusFingerprint;
  /// `clang --version`, and with --workload `valgrind --version`.
  std::string ClangVersion, ValgrindVersion;
  uint64_t SearchCompiles = 0;
  /// The budget modules out of moves handed on, and the rounds of the
  /// search (a round after the first reruns the modules given more).
  uint64_t HandedOn = 0;
  unsigned Rounds = 0;
  double Seconds = 0;
  /// The workload check's verdict, if --workload was given.
  std::optional<WorkloadVerdict> Verdict;
};

/// What each eviction inversion's last try gave, to pair the near misses
/// once the single inversions are exhausted: its change of the module's
/// cost, the function's entries it was tried on (its other functions'
/// entries do not change its allocation) and the function's decisions
/// after it.
struct SingleTry {
  double Delta = 0;
  std::string On;
  std::vector<EvictionStep> After;
};

/// The eviction entries of \p D for function \p F, one per line.
std::string entriesOf(const ModuleDecisions &D, StringRef F) {
  std::string S;
  for (const EvictDecision &E : D.Evictions)
    if (E.Function == F)
      S += formatv("{0} {1} {2}\n", E.Ordinal, E.Hash, E.Column).str();
  return S;
}

/// One module's search (SpeedTuner::search): its state and its phases,
/// inlining, then single eviction inversions in passes, then pairs.
class SpeedTuner::ModuleSearch {
public:
  ModuleSearch(SpeedTuner &T, size_t I, uint64_t Share, uint64_t Budget,
               uint64_t Counted)
      : T(T), O(T.O), I(I), Budget(Budget), Counted(Counted),
        C(*T.Compilers[I]), Limited(T.O.MaxCompiles != 0) {
    R.Key = T.Keys[I];
    R.Base = T.Bases[I];
    R.Best = R.InlineBest = R.Base.Instructions;
    R.BestCycles = R.Base.Cycles;
    R.BestObject = R.Base.Object;
    R.Searched = true;
    R.Share = Share;
    R.Budget = Budget;
    R.Entries.Module = R.Key;
    // The module's hot functions, hottest first, and their cost.
    for (auto &[Mod, Name, Cost] : T.Hot)
      if (Mod == I) {
        Functions.push_back(Name);
        Heat[Name] = Cost;
      }
  }

  ModuleResult run() {
    if (Error E = searchInlining())
      R.Error = toString(std::move(E));
    else if (Error E = searchEviction())
      R.Error = toString(std::move(E));
    return std::move(R);
  }

private:
  /// A compile's outcome becomes the module's best if it is cheaper.
  bool consider(const SpeedOutcome &Out, const ModuleDecisions &Entries);
  Error searchInlining();
  Error searchEviction();
  /// One pass of single inversions (\p AllFunctions, or those in Again);
  /// the functions that kept one go to \p KeptIn.
  Error invertSingles(unsigned Pass, bool AllFunctions, StringSet<> &KeptIn);
  /// Pairs of near misses, function by function, until one is kept
  /// (true; its function is then Again's only one).
  Expected<bool> invertPairs();
  /// A move of function \p F: the current entries with each of \p At
  /// (decisions of F's current trajectory, or of the one an earlier
  /// inversion of the move leaves) inverted, and counted as a try; none
  /// if an inversion changes nothing or these entries were compiled
  /// before.
  std::optional<ModuleDecisions> invert(StringRef F,
                                        ArrayRef<const EvictionStep *> At);
  /// Measures an eviction try; \p AllowStale: entries may fix no
  /// decision.
  Expected<Measurement> compileEviction(const ModuleDecisions &Try,
                                        bool AllowStale);
  /// Whether measurement \p M lowers the module's cost (the objective's
  /// delta of its slot).
  bool lowers(const Measurement &M) const {
    return T.Obj->delta(0, {{I, &M.Outcome}}) < 0;
  }
  /// Keeps eviction try \p Try, measured by \p M, which lowers the
  /// module's cost: the trajectory is then its compile's, and entries it
  /// made stale are dropped.
  void keep(ModuleDecisions Try, const Measurement &M);

  SpeedTuner &T;
  const SpeedTuneOptions &O;
  const size_t I;
  const uint64_t Budget, Counted;
  speed::ModuleSpeedCompiler &C;
  ModuleResult R;
  std::vector<std::string> Functions;
  StringMap<double> Heat;
  // With --max-compiles a module's budget may be 0 (its share rounded
  // down): it is then not searched.
  const bool Limited;
  bool Stopped = false;
  /// The module's entries now.
  ModuleDecisions Cur;
  /// The eviction side: the module's cost (the objective's slot, here in
  /// instructions for the moves' log and heat) and the model's trajectory
  /// now,
  /// and the eviction entries every compile had (a move that leads to a
  /// set compiled before is not tried again).
  double ModelCost = 0;
  std::vector<EvictionStep> Traj;
  std::set<std::string> CompiledEvictions;
  // The heat of a decision, as the search measured it: how far inverting
  // it last moved the module's cost (the profile-weighted instructions of
  // the code its live ranges touch). LLVM 19's eviction features give
  // block frequencies only relative to the decision's other candidates, so
  // the first pass goes by ordinal and the later ones hottest first (ties
  // by ordinal), where an inversion in cold code moved nothing.
  std::map<std::pair<std::string, uint32_t>, double> Moved;
  std::map<std::pair<std::string, uint32_t>, SingleTry> Singles;
  /// The functions whose pairs were tried, with their entries then, and
  /// the functions the next pass of single inversions goes over.
  StringMap<std::string> PairedOn;
  StringSet<> Again;
};

bool SpeedTuner::ModuleSearch::consider(const SpeedOutcome &Out,
                                        const ModuleDecisions &Entries) {
  if (Out.Instructions >= R.Best)
    return false;
  R.Best = Out.Instructions;
  R.BestCycles = Out.Cycles;
  R.BestObject = Out.Object;
  R.Entries = Entries;
  R.Entries.Module = R.Key;
  R.Kept.push_back({R.Tries, R.Best});
  T.noteGain(I, R.Base.Instructions - R.Best);
  return true;
}

Error SpeedTuner::ModuleSearch::searchInlining() {
  // Inlining, with LLVM's eviction: moves of the sites whose caller is
  // hot (site moves, and each callee's group moves), the hottest caller's
  // first (planHotMoves); after a kept move the module's sites are
  // planned again. A pass that kept a move is followed by another over
  // the moves it did not keep (they were judged before the kept ones
  // changed the module).
  Cur.Module = R.Key;
  Expected<Measurement> Start =
      measureOne(*T.Obj, T.getTrial(I, &Cur, Eviction::LLVM));
  if (!Start)
    return Start.takeError();
  // The module's slot: its inlining side now.
  T.Obj->apply(0, {{I, &Start->Outcome}});
  double InlineCost = SpeedObjective::getOutcome(*Start).Instructions;
  // The module as a unit of the size search (mlgo/Tune/SearchState.h):
  // its entries, trajectory, compile, and moves tried and planned.
  UnitState St;
  St.Fixed = Cur;
  St.Trajectory = std::move(Start->Trajectory);
  St.Current = {Start->Outcome};
  St.Moves = planHotMoves(St.Trajectory, Heat, O.Seed, St.Tried);
  // Inlining gets half the module's own share, whatever was handed on to
  // it, so that a search with more budget repeats the one with less and
  // goes on from where it stopped.
  const uint64_t InlineBudget = (R.Share + 1) / 2;
  StringSet<> KeptMoves;
  // The entries every inlining compile had: a move that leads to a set
  // compiled before is not tried again.
  std::set<std::string> Compiled = {Cur.printSites()};
  bool KeptInPass = false;
  R.InlinePasses = 1;
  for (;;) {
    if (Limited && R.InlineTries >= InlineBudget)
      break;
    if (!St.hasMovesLeft()) {
      if (!KeptInPass)
        break;
      // The next pass: every move again but the kept ones.
      St.Tried.clear();
      for (const auto &K : KeptMoves)
        St.Tried.insert(K.getKey());
      KeptInPass = false;
      ++R.InlinePasses;
      St.Moves = planHotMoves(St.Trajectory, Heat, O.Seed, St.Tried);
      St.Next = 0;
      continue;
    }
    const TuneMove Move = St.Moves[St.Next++];
    St.Tried.insert(Move.getKey());
    ModuleDecisions Try = applyMove(St.Fixed, Move);
    if (!Compiled.insert(Try.printSites()).second)
      continue;
    ++R.Tries;
    ++R.InlineTries;
    if (R.InlinePasses > 1)
      ++R.LaterTries;
    Expected<Measurement> M =
        measureOne(*T.Obj, T.getTrial(I, &Try, Eviction::LLVM));
    T.noteCompile(R, Counted);
    if (!M)
      return M.takeError();
    const SpeedOutcome &Out = SpeedObjective::getOutcome(*M);
    int64_t Delta = T.Obj->delta(0, {{I, &M->Outcome}});
    logMove(R, "inline", "-\t" + Move.describe(), Out.Instructions - InlineCost,
            Delta < 0);
    if (Delta >= 0)
      continue;
    T.Obj->apply(0, {{I, &M->Outcome}});
    InlineCost = Out.Instructions;
    ++R.InlineKept;
    if (R.InlinePasses > 1)
      ++R.LaterKept;
    KeptMoves.insert(Move.getKey());
    KeptInPass = true;
    // The size search's keep (the move joins the entries), then the
    // entries that fix no site of the new trajectory dropped.
    keepMove(St, Move, Delta, {M->Outcome});
    St.Fixed = pruneStale(std::move(St.Fixed), M->Trajectory);
    St.Trajectory = std::move(M->Trajectory);
    consider(Out, St.Fixed);
    St.Moves = planHotMoves(St.Trajectory, Heat, O.Seed, St.Tried);
    St.Next = 0;
  }
  Cur = std::move(St.Fixed);
  R.InlineBest = std::min(InlineCost, R.Base.Instructions);
  return Error::success();
}

void SpeedTuner::ModuleSearch::keep(ModuleDecisions Try, const Measurement &M) {
  const SpeedOutcome &Out = SpeedObjective::getOutcome(M);
  T.Obj->apply(0, {{I, &M.Outcome}});
  ModelCost = Out.Instructions;
  ++R.EvictKept;
  llvm::erase_if(Try.Evictions, [&](const EvictDecision &E) {
    return !isApplied(E, Out.Trajectory);
  });
  Cur = std::move(Try);
  CompiledEvictions.insert(Cur.printEvictions());
  Traj = Out.Trajectory;
  consider(Out, Cur);
}

std::optional<ModuleDecisions>
SpeedTuner::ModuleSearch::invert(StringRef F,
                                 ArrayRef<const EvictionStep *> At) {
  ModuleDecisions Try = Cur;
  for (const EvictionStep *D : At) {
    int64_t Other = invertEviction(D->Mask, D->Choice);
    if (Other == D->Choice)
      return std::nullopt;
    Try.setEviction({F.str(), D->Ordinal, D->Hash, uint32_t(Other)});
  }
  Try.sort();
  if (!CompiledEvictions.insert(Try.printEvictions()).second)
    return std::nullopt;
  ++R.Tries;
  ++R.EvictTries;
  return Try;
}

Expected<Measurement>
SpeedTuner::ModuleSearch::compileEviction(const ModuleDecisions &Try,
                                          bool AllowStale) {
  C.AllowStale = AllowStale;
  Expected<Measurement> M =
      measureOne(*T.Obj, T.getTrial(I, &Try, Eviction::Model));
  C.AllowStale = false;
  T.noteCompile(R, Counted);
  return M;
}

Error SpeedTuner::ModuleSearch::searchEviction() {
  // Eviction, with the kept inlining entries: the model, then in the hot
  // functions each decision of the current trajectory in turn, ordinal by
  // ordinal, inverted as -mlgo-evict-flips does. A function whose pass
  // kept an inversion gets another pass: each kept inversion changed the
  // decisions after it, so those tried before it were judged against
  // another allocation. (Inlining never gets more than its share's half:
  // stopping it says nothing of whether the module has moves left.)
  Expected<Measurement> Model =
      measureOne(*T.Obj, T.getTrial(I, &Cur, Eviction::Model));
  if (!Model)
    return Model.takeError();
  T.Obj->apply(0, {{I, &Model->Outcome}});
  R.Model = SpeedObjective::getOutcome(*Model);
  ModelCost = R.Model.Instructions;
  Traj = R.Model.Trajectory;
  // The model side needs one eviction entry to be used: the model's own
  // answer to the first decision of its hottest function that has one.
  for (const std::string &F : Functions) {
    auto It = llvm::find_if(
        Traj, [&](const EvictionStep &D) { return D.Function == F; });
    if (It == Traj.end())
      continue;
    Cur.Evictions.push_back(
        {It->Function, It->Ordinal, It->Hash, uint32_t(It->Choice)});
    break;
  }
  if (!Cur.Evictions.empty())
    consider(R.Model, Cur);
  CompiledEvictions = {Cur.printEvictions()};
  bool AllFunctions = true;
  for (unsigned Pass = 1;; ++Pass) {
    R.EvictPasses = Pass;
    StringSet<> KeptIn;
    if (Error E = invertSingles(Pass, AllFunctions, KeptIn))
      return E;
    if (Stopped)
      break;
    if (!KeptIn.empty()) {
      Again = std::move(KeptIn);
      AllFunctions = false;
      continue;
    }
    Expected<bool> PairKept = invertPairs();
    if (!PairKept)
      return PairKept.takeError();
    if (Stopped || !*PairKept)
      break;
    AllFunctions = false;
  }
  R.OutOfMoves = !Stopped;
  return Error::success();
}

Error SpeedTuner::ModuleSearch::invertSingles(unsigned Pass, bool AllFunctions,
                                              StringSet<> &KeptIn) {
  for (const std::string &F : Functions) {
    if (!AllFunctions && !Again.contains(F))
      continue;
    std::vector<uint32_t> Order;
    if (Pass > 1) {
      for (const EvictionStep &D : Traj)
        if (D.Function == F)
          Order.push_back(D.Ordinal);
      llvm::stable_sort(Order, [&](uint32_t A, uint32_t B) {
        return Moved[{F, A}] > Moved[{F, B}];
      });
    }
    for (uint32_t N = 0;; ++N) {
      if (Limited && R.Tries >= Budget) {
        Stopped = true;
        break;
      }
      if (Pass > 1 && N == Order.size())
        break;
      uint32_t K = Pass > 1 ? Order[N] : N;
      auto It = llvm::find_if(Traj, [&](const EvictionStep &D) {
        return D.Function == F && D.Ordinal == K;
      });
      // The first pass ends with the function's trajectory; a later one
      // skips an ordinal a kept inversion took away.
      if (It == Traj.end()) {
        if (Pass > 1)
          continue;
        break;
      }
      // A later pass leaves the entries it has alone (the kept
      // inversions and the model's pinned first answer).
      if (Pass > 1 && llvm::any_of(Cur.Evictions, [&](const auto &E) {
            return E.Function == F && E.Ordinal == K;
          }))
        continue;
      std::optional<ModuleDecisions> Try = invert(F, {&*It});
      if (!Try)
        continue;
      if (Pass > 1)
        ++R.LaterTries;
      // An inversion before a kept one changes the decisions after it:
      // the kept entries may then fix no decision. The compile applies
      // those that still match, the rest are dropped by keep().
      Expected<Measurement> M = compileEviction(*Try, Pass > 1);
      if (!M)
        return M.takeError();
      const SpeedOutcome &Out = SpeedObjective::getOutcome(*M);
      bool Lower = lowers(*M);
      Moved[{F, K}] = std::fabs(Out.Instructions - ModelCost);
      logMove(R, "evict", F + "\t" + std::to_string(K),
              Out.Instructions - ModelCost, Lower);
      SingleTry &S = Singles[{F, K}];
      S.Delta = Out.Instructions - ModelCost;
      S.On = entriesOf(Cur, F);
      S.After.clear();
      for (const EvictionStep &D : Out.Trajectory)
        if (D.Function == F)
          S.After.push_back(D);
      if (!Lower)
        continue;
      if (Pass > 1)
        ++R.LaterKept;
      keep(std::move(*Try), *M);
      KeptIn.insert(F);
    }
  }
  return Error::success();
}

Expected<bool> SpeedTuner::ModuleSearch::invertPairs() {
  // The single inversions are exhausted: pairs of each hot function's
  // near misses (the inversions that moved its cost up by the least),
  // the first inverted in the current trajectory and the second in the
  // trajectory the first left (one inversion's effect depends on the
  // decisions after it). A kept pair sends its function into another
  // pass of single inversions, and then into pairs again.
  for (const std::string &F : Functions) {
    std::string On = entriesOf(Cur, F);
    auto Done = PairedOn.find(F);
    if (Done != PairedOn.end() && Done->second == On)
      continue;
    std::vector<std::pair<double, uint32_t>> Near;
    for (const EvictionStep &D : Traj)
      if (D.Function == F) {
        auto S = Singles.find({F, D.Ordinal});
        if (S != Singles.end() && S->second.On == On && S->second.Delta > 0)
          Near.push_back({S->second.Delta, D.Ordinal});
      }
    llvm::sort(Near);
    if (Near.size() > SpeedNearMisses)
      Near.resize(SpeedNearMisses);
    std::vector<std::tuple<double, uint32_t, uint32_t>> Pairs;
    for (auto &[DA, A] : Near)
      for (auto &[DB, B] : Near)
        if (A < B)
          Pairs.push_back({DA + DB, A, B});
    llvm::sort(Pairs);
    bool Kept = false;
    for (auto &[Sum, A, B] : Pairs) {
      if (Limited && R.Tries >= Budget) {
        Stopped = true;
        break;
      }
      auto First = llvm::find_if(Traj, [&, A = A](const EvictionStep &D) {
        return D.Function == F && D.Ordinal == A;
      });
      const std::vector<EvictionStep> &After = Singles[{F, A}].After;
      auto Second = llvm::find_if(
          After, [B = B](const EvictionStep &D) { return D.Ordinal == B; });
      if (First == Traj.end() || Second == After.end())
        continue;
      std::optional<ModuleDecisions> Try = invert(F, {&*First, &*Second});
      if (!Try)
        continue;
      ++R.PairTries;
      // The first inversion may take away the decisions of entries after
      // it, as in a later pass.
      Expected<Measurement> M = compileEviction(*Try, /*AllowStale=*/true);
      if (!M)
        return M.takeError();
      bool Lower = lowers(*M);
      logMove(R, "pair", formatv("{0}\t{1},{2}", F, A, B).str(),
              SpeedObjective::getOutcome(*M).Instructions - ModelCost, Lower);
      if (!Lower)
        continue;
      ++R.PairKept;
      keep(std::move(*Try), *M);
      Kept = true;
      break;
    }
    if (Stopped)
      return false;
    if (!Kept) {
      PairedOn[F] = On;
      continue;
    }
    Again.clear();
    Again.insert(F);
    return true;
  }
  return false;
}

ModuleResult SpeedTuner::search(size_t I, uint64_t Share, uint64_t Budget,
                                uint64_t Counted) {
  return ModuleSearch(*this, I, Share, Budget, Counted).run();
}

void SpeedTuner::noteGain(size_t Module, double Saved) {
  std::lock_guard<std::mutex> Lock(ProgressMutex);
  SavedOf[Module] = Saved;
  double Sum = 0;
  for (double S : SavedOf)
    Sum += S;
  if (Bar)
    Bar->setDetail(
        formatv("; estimated gain {0:f2}%", 100.0 * Sum / BaseTotal).str());
}

void SpeedTuner::noteCompile(const ModuleResult &R, uint64_t Counted) {
  std::lock_guard<std::mutex> Lock(ProgressMutex);
  // A module searched again with more budget repeats its first tries
  // (read back from the cache), which the progress counted already.
  if (R.Tries && R.Tries <= Counted)
    return;
  ++Done;
  if (Bar)
    Bar->update(std::min(Done, Planned), Planned);
}

Error SpeedTuner::prepare() {
  if (O.PluginPath.empty())
    O.PluginPath = getInstallDirs().Plugin;
  SmallString<256> Work(O.WorkDir);
  sys::fs::make_absolute(Work);
  O.WorkDir = std::string(Work);
  SmallString<256> Prof(O.Profile);
  sys::fs::make_absolute(Prof);
  O.Profile = std::string(Prof);
  // The file names the model as given; the compiles, which run in the
  // modules' directories, get its absolute path.
  Expected<std::string> Meta = getEvictionModelMeta(O.EvictModel);
  if (!Meta)
    return Meta.takeError();
  Cache.ModelMeta = std::move(*Meta);
  Cache.ModelFile = !O.EvictModel.empty();
  Cache.Dir = O.WorkDir + "/speed";
  if (!O.EvictModel.empty()) {
    SmallString<256> Model(O.EvictModel);
    sys::fs::make_absolute(Model);
    O.EvictModel = std::string(Model);
  }
  // One run per work directory (the lock creates it).
  Expected<WorkDirLock> L = WorkDirLock::acquire(O.WorkDir);
  if (!L)
    return L.takeError();
  Lock.emplace(std::move(*L));
  Expected<std::string> CV = runForOutput({O.Clang, "--version"});
  if (!CV)
    return CV.takeError();
  ClangVersion = StringRef(*CV).trim().str();
  if (!O.Workload.empty()) {
    Expected<std::string> VV = runForOutput({"valgrind", "--version"});
    if (!VV)
      return VV.takeError();
    ValgrindVersion = StringRef(*VV).trim().str();
  }
  Expected<speed::ProfileInfo> PI = speed::readProfileInfo(O.Profile);
  if (!PI)
    return PI.takeError();
  Expected<std::string> Salt =
      speed::getSpeedKeySalt(O.Profile, O.BuildIdentity + "\n" + ClangVersion);
  if (!Salt)
    return Salt.takeError();
  Cache.KeySalt = std::move(*Salt);
  Expected<CorpusDescription> D = CorpusDescription::read(O.CorpusDir);
  if (!D)
    return D.takeError();
  Setup.CorpusDir = O.CorpusDir;
  Setup.Description = std::move(*D);
  Setup.Profile = O.Profile;
  Setup.Clang = O.Clang;
  Setup.PluginPath = O.PluginPath;
  Setup.TimeoutSeconds = O.TimeoutSeconds;
  Expected<std::vector<CorpusModule>> M = loadTrainingCorpus(O.CorpusDir);
  if (!M)
    return M.takeError();
  Mods = std::move(*M);
  std::vector<std::string> Bitcode;
  for (const CorpusModule &M : Mods)
    Bitcode.push_back(M.BitcodePath);
  Expected<std::vector<bool>> Kept = speed::findProfiledModules(
      Bitcode, PI->RecordNames, O.Profile, O.CorpusDir);
  if (!Kept)
    return Kept.takeError();
  // The modules of other programs than the profile's are left out.
  std::vector<CorpusModule> Taken;
  for (size_t I = 0; I < Mods.size(); ++I) {
    if ((*Kept)[I])
      Taken.push_back(std::move(Mods[I]));
    else
      LeftOut.push_back(Mods[I].Name);
  }
  Mods = std::move(Taken);
  if (!LeftOut.empty())
    errs() << "mlgo tune: " << formatLeftOut(LeftOut, O.Profile) << "\n";
  CorpusFingerprint = getCorpusFingerprint(Mods);
  std::vector<std::string> Sources;
  for (const CorpusModule &Mod : Mods) {
    Expected<std::string> S = getSourceFileName(Mod);
    if (!S)
      return S.takeError();
    Sources.push_back(std::move(*S));
    Expected<std::string> L = getSourceFileNameHere(Mod);
    if (!L)
      return L.takeError();
    LookupKeys.push_back(std::move(*L));
  }
  Keys = getSourceKeys(Sources);
  std::map<std::string, size_t> KeySeen;
  for (size_t I = 0; I < Keys.size(); ++I)
    if (!KeySeen.try_emplace(Keys[I], I).second)
      return makeError("modules '" + Mods[KeySeen[Keys[I]]].Name + "' and '" +
                       Mods[I].Name + "' have one source, '" + Keys[I] +
                       "': the speed search tunes each source once");
  return Error::success();
}

Error SpeedTuner::measureBaselines() {
  // 1. The baselines: LLVM's eviction.
  unsigned Threads = std::max(1u, O.Jobs);
  if (O.Verbose)
    Bar = std::make_unique<Progress>("mlgo tune: baselines");
  Planned = Mods.size();
  std::vector<std::string> Errors(Mods.size());
  Bases.resize(Mods.size());
  Batcher = std::make_unique<TaskBatcher>(Threads);
  for (size_t I = 0; I < Mods.size(); ++I)
    Compilers.push_back(std::make_unique<speed::ModuleSpeedCompiler>(
        Setup, Cache, *Batcher, Mods[I].Name, Mods[I].ContentHash,
        LookupKeys[I]));
  Obj = std::make_unique<SpeedObjective>(
      [&](const Trial &T) { return compileTrial(*Compilers[T.Module], T); },
      Mods.size());
  std::vector<CompileOutcome> Costs(Mods.size());
  Batcher->runUnits(Mods.size(), [&](size_t I) {
    Expected<Measurement> B =
        measureOne(*Obj, getTrial(I, nullptr, Eviction::LLVM));
    noteCompile(ModuleResult());
    if (!B) {
      Errors[I] = toString(B.takeError());
      return;
    }
    Costs[I] = B->Outcome;
    Bases[I] = SpeedObjective::getOutcome(*B);
  });
  if (Bar)
    Bar->end();
  for (const std::string &E : Errors)
    if (!E.empty())
      return makeError(E);
  // Each module's slot: its baseline, until its search starts.
  std::vector<SlotChange> Base;
  for (size_t I = 0; I < Mods.size(); ++I)
    Base.push_back({I, &Costs[I]});
  Obj->apply(0, Base);
  return Error::success();
}

Expected<double> SpeedTuner::pickHotFunctions() {
  // 2. The hot functions: 99% of the baseline's cost, hottest first (ties:
  // by a hash of the name and the seed).
  std::vector<std::tuple<size_t, std::string, double>> All;
  for (size_t I = 0; I < Mods.size(); ++I) {
    BaseTotal += Bases[I].Instructions;
    for (auto &[Name, Cost] : Bases[I].FunctionCost)
      All.push_back({I, Name, Cost});
  }
  if (BaseTotal <= 0)
    return makeError(O.Profile + ": no function of the corpus has a count "
                                 "of the profile");
  auto TieKey = [&](size_t I, StringRef Name) {
    return xxh3_64bits(Keys[I] + "\n" + Name.str() + "\n" +
                       std::to_string(O.Seed));
  };
  llvm::sort(All, [&](const auto &A, const auto &B) {
    if (std::get<2>(A) != std::get<2>(B))
      return std::get<2>(A) > std::get<2>(B);
    return TieKey(std::get<0>(A), std::get<1>(A)) <
           TieKey(std::get<0>(B), std::get<1>(B));
  });
  double Sum = 0;
  for (auto &F : All) {
    if (Sum >= O.HotShare * BaseTotal)
      break;
    Sum += std::get<2>(F);
    Hot.push_back(F);
  }
  return Sum;
}

Expected<std::vector<ModuleResult>> SpeedTuner::searchModules(double HotSum) {
  // 3. The search, each module with its share of the budget (by its hot
  // cost; the remainder to the hottest modules), in parallel.
  std::vector<double> HotCost(Mods.size());
  for (auto &[I, Name, Cost] : Hot)
    HotCost[I] += Cost;
  std::vector<uint64_t> Budget(Mods.size(), 0);
  std::vector<size_t> ByHeat;
  for (size_t I = 0; I < Mods.size(); ++I)
    if (HotCost[I] > 0)
      ByHeat.push_back(I);
  llvm::stable_sort(
      ByHeat, [&](size_t A, size_t B) { return HotCost[A] > HotCost[B]; });
  if (O.MaxCompiles) {
    uint64_t Given = 0;
    for (size_t I : ByHeat) {
      Budget[I] =
          uint64_t(std::floor(double(O.MaxCompiles) * HotCost[I] / HotSum));
      Given += Budget[I];
    }
    for (size_t K = 0; Given < O.MaxCompiles && !ByHeat.empty(); ++K) {
      ++Budget[ByHeat[K % ByHeat.size()]];
      ++Given;
    }
  }
  SavedOf.assign(Mods.size(), 0);
  Done = 0;
  Planned = O.MaxCompiles ? O.MaxCompiles + ByHeat.size() : 0;
  if (!O.MaxCompiles)
    for (size_t I : ByHeat)
      Planned += 1 + Bases[I].FunctionCost.size();
  if (O.Verbose)
    Bar = std::make_unique<Progress>("mlgo tune: search");
  // In rounds: each module with its budget; then the budget the modules
  // out of moves left unused is handed on to those stopped by theirs (by
  // their hot cost, the remainder to the hottest), which are searched
  // again: their first tries repeat, read back from the cache, and the
  // search goes on. Until no budget is left over or no module wants more.
  const std::vector<uint64_t> Share = Budget;
  std::vector<uint64_t> Counted(Mods.size(), 0);
  std::vector<ModuleResult> Results(Mods.size());
  std::vector<size_t> Round = ByHeat;
  while (!Round.empty()) {
    ++Rounds;
    Batcher->runUnits(Round.size(), [&](size_t K) {
      size_t I = Round[K];
      Results[I] = search(I, Share[I], Budget[I], Counted[I]);
    });
    for (size_t I : Round)
      if (!Results[I].Error.empty()) {
        if (Bar)
          Bar->end();
        return makeError(Results[I].Error);
      }
    if (!O.MaxCompiles)
      break;
    uint64_t Left = 0;
    std::vector<size_t> Open;
    for (size_t I : ByHeat) {
      ModuleResult &R = Results[I];
      if (!R.OutOfMoves) {
        Open.push_back(I);
        continue;
      }
      Left += Budget[I] - R.Tries;
      Budget[I] = R.Budget = R.Tries;
    }
    if (!Left || Open.empty())
      break;
    HandedOn += Left;
    double OpenCost = 0;
    for (size_t I : Open)
      OpenCost += HotCost[I];
    uint64_t Given = 0;
    std::vector<uint64_t> More(Mods.size(), 0);
    for (size_t I : Open) {
      More[I] = uint64_t(std::floor(double(Left) * HotCost[I] / OpenCost));
      Given += More[I];
    }
    for (size_t K = 0; Given < Left; ++K, ++Given)
      ++More[Open[K % Open.size()]];
    Round.clear();
    for (size_t I : Open) {
      Counted[I] = Results[I].Tries;
      if (!More[I])
        continue;
      Budget[I] += More[I];
      Round.push_back(I);
    }
  }
  if (Bar)
    Bar->end();
  for (size_t I = 0; I < Mods.size(); ++I) {
    if (HotCost[I] == 0) {
      Results[I].Key = Keys[I];
      Results[I].Base = Bases[I];
      Results[I].Best = Bases[I].Instructions;
    }
    SearchCompiles += Results[I].Tries;
  }
  for (ModuleResult &R : Results)
    R.Predicted = R.Final();
  return Results;
}

Error SpeedTuner::run() {
  if (Error E = prepare())
    return E;
  auto Start = std::chrono::steady_clock::now();
  if (Error E = measureBaselines())
    return E;
  Expected<double> HotSum = pickHotFunctions();
  if (!HotSum)
    return HotSum.takeError();
  Expected<std::vector<ModuleResult>> Results = searchModules(*HotSum);
  if (!Results)
    return Results.takeError();
  if (!O.Workload.empty())
    if (Error E = checkOnWorkload(*Results))
      return E;
  Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return writeOutputs(*Results);
}

Error SpeedTuner::checkOnWorkload(std::vector<ModuleResult> &Results) {
  std::vector<size_t> Changed;
  std::vector<std::string> Names, Objects;
  for (size_t I = 0; I < Results.size(); ++I) {
    if (Results[I].UseEntries())
      Changed.push_back(I);
    Names.push_back(Mods[I].Name);
    Objects.push_back(Results[I].Base.Object);
  }
  speed::WorkloadOptions WO;
  WO.Link = O.Link;
  WO.Workload = O.Workload;
  WO.WorkDir = O.WorkDir + "/workload";
  WO.ProgramName = getProgramName();
  WO.TimeoutSeconds = O.WorkloadTimeout;
  WO.LinkTimeoutSeconds = O.TimeoutSeconds;
  WO.Identity = O.BuildIdentity + "\n" + ValgrindVersion;
  WO.Inputs = O.WorkloadInputs;
  WO.Cost = O.Cost;
  WO.Seed = O.Seed;
  speed::ProgramMeasurer PM(WO, Names, Keys);
  // Held under the lock: no other run writes here, and the keeper ended
  // what a killed run started.
  PM.removeLeftovers();
  if (O.Verbose)
    Bar = std::make_unique<Progress>("mlgo tune: workload");
  // Untuned, all tuned, each alone (with two or more), the final program.
  Planned = 2 + (Changed.size() > 1 ? Changed.size() + 1 : 0);
  Done = 0;
  auto Measure =
      [&](const std::vector<bool> &T) -> Expected<speed::WorkloadMeasure> {
    std::vector<std::string> Objs = Objects;
    std::vector<bool> Tuned(Results.size(), false);
    for (size_t K = 0; K < T.size(); ++K)
      if (T[K]) {
        Objs[Changed[K]] = Results[Changed[K]].BestObject;
        Tuned[Changed[K]] = true;
      }
    Expected<speed::WorkloadMeasure> N = PM.measure(Objs, Tuned);
    noteCompile(ModuleResult());
    return N;
  };
  Expected<WorkloadVerdict> V = verifyByModule(Changed.size(), Measure);
  if (Bar)
    Bar->end();
  if (!V)
    return V.takeError();
  for (size_t K = 0; K < Changed.size(); ++K) {
    ModuleResult &R = Results[Changed[K]];
    R.MeasuredAlone = V->Alone[K];
    if (!V->Reverted[K])
      continue;
    R.Reverted = true;
    R.Entries = ModuleDecisions();
    R.Entries.Module = R.Key;
  }
  Verdict = std::move(*V);
  return Error::success();
}

SpeedRunReport SpeedTuner::makeReport(ArrayRef<ModuleResult> Results) const {
  SpeedRunReport Rep;
  Rep.ProgramName = O.ProgramName;
  Rep.CorpusDir = O.CorpusDir;
  Rep.Fingerprint = CorpusFingerprint;
  Rep.Profile = O.Profile;
  Rep.LeftOut = LeftOut;
  Rep.ModelMeta = Cache.ModelMeta;
  Rep.EvictModel = !O.EvictModel.empty();
  Rep.Seed = O.Seed;
  Rep.MaxCompiles = O.MaxCompiles;
  Rep.SearchCompiles = SearchCompiles;
  Rep.HandedOn = HandedOn;
  Rep.Rounds = Rounds;
  Rep.HotFunctions = Hot.size();
  Rep.NearMisses = SpeedNearMisses;
  Rep.HotShare = O.HotShare;
  Rep.BaseTotal = BaseTotal;
  Rep.Verdict = Verdict;
  Rep.Workload = O.Workload;
  Rep.BuildIdentity = O.BuildIdentity;
  Rep.ClangVersion = ClangVersion;
  Rep.ValgrindVersion = ValgrindVersion;
  Rep.WorkloadInputs = O.WorkloadInputs;
  Rep.Cost = O.Cost;
  for (const ModuleResult &R : Results) {
    SpeedModuleReport &M = Rep.Modules.emplace_back();
    M.Key = R.Key;
    M.Searched = R.Searched;
    M.Base = R.Base.Instructions;
    M.Model = R.Model.Instructions;
    M.Final = R.Final();
    M.InliningGain = R.inliningGain();
    M.EvictionGain = R.evictionGain();
    M.BaseCycles = R.Base.Cycles;
    M.FinalCycles = R.FinalCycles();
    M.SiteEntries = R.Entries.Sites.size();
    M.EvictionEntries = R.Entries.Evictions.size();
    M.Tries = R.Tries;
    M.InlineTries = R.InlineTries;
    M.InlineKept = R.InlineKept;
    M.EvictTries = R.EvictTries;
    M.EvictKept = R.EvictKept;
    M.InlinePasses = R.InlinePasses;
    M.EvictPasses = R.EvictPasses;
    M.LaterTries = R.LaterTries;
    M.LaterKept = R.LaterKept;
    M.PairTries = R.PairTries;
    M.PairKept = R.PairKept;
    M.Share = R.Share;
    M.Budget = R.Budget;
    M.OutOfMoves = R.OutOfMoves;
    M.MeasuredAlone = R.MeasuredAlone;
    M.Reverted = R.Reverted;
    M.Predicted = R.Predicted;
    M.Moves = R.Moves;
    M.Kept = R.Kept;
  }
  return Rep;
}

Error SpeedTuner::writeObjects(ArrayRef<ModuleResult> Results) const {
  // The tuned objects, as a build with the file makes them, and LLVM's
  // (for linking both and measuring them on a workload).
  for (size_t I = 0; I < Results.size(); ++I) {
    const ModuleResult &R = Results[I];
    for (bool Tuned : {true, false}) {
      std::string To = O.WorkDir + (Tuned ? "/objects/" : "/objects-llvm/") +
                       Mods[I].Name + ".o";
      if (std::error_code EC =
              sys::fs::create_directories(sys::path::parent_path(To)))
        return makeError("cannot create the directory of '" + To +
                         "': " + EC.message());
      std::string From = Tuned && R.UseEntries() ? R.BestObject : R.Base.Object;
      // Whole or not at all: a run killed here leaves no half object.
      if (Error E = copyFileAtomically(From, To))
        return E;
    }
  }
  return Error::success();
}

Error SpeedTuner::writeOutputs(ArrayRef<ModuleResult> Results) {
  double Tuned = 0;
  for (const ModuleResult &R : Results)
    Tuned += R.Final();
  DecisionsFile F;
  F.setMeta("llvm", LLVM_VERSION_STRING);
  F.setMeta("objective", "speed");
  F.setMeta("corpus", CorpusFingerprint);
  if (!O.ProgramName.empty())
    F.setMeta("package", O.ProgramName);
  F.setMeta("profile", sys::path::filename(O.Profile));
  F.setMeta("model", Cache.ModelMeta);
  F.setMeta("seed", std::to_string(O.Seed));
  F.setMeta("budget", O.MaxCompiles
                          ? std::to_string(O.MaxCompiles) + " compiles"
                          : std::string("none"));
  F.setMeta("compiles", std::to_string(SearchCompiles));
  F.setMeta("estimated",
            formatv("profile-weighted instructions: LLVM {0:f0}, tuned {1:f0} "
                    "({2})",
                    BaseTotal, Tuned, formatSpeedPercent(Tuned, BaseTotal))
                .str());
  if (Verdict)
    F.setMeta("measured", formatWorkloadMeasured(O.Cost, *Verdict));
  for (const ModuleResult &R : Results)
    if (R.UseEntries())
      F.addModule(R.Entries);
  if (Error E = writeFileAtomically(O.Output, F.print()))
    return E;
  if (Error E = writeObjects(Results))
    return E;
  // The report, every try (W/moves.tsv) and the curve: TuneReport's.
  SpeedRunReport Rep = makeReport(Results);
  if (Error E =
          writeFileAtomically(O.WorkDir + "/report.md", formatSpeedReport(Rep)))
    return E;
  if (Error E =
          writeFileAtomically(O.WorkDir + "/moves.tsv", formatSpeedMoves(Rep)))
    return E;
  if (O.Verbose)
    outs() << "mlgo tune: estimated " << formatSpeedPercent(Tuned, BaseTotal)
           << " profile-weighted instructions (LLVM's eviction "
           << formatv("{0:f0}", BaseTotal) << ", tuned "
           << formatv("{0:f0}", Tuned) << "); " << SearchCompiles
           << " search compiles in " << formatv("{0:f0}", Seconds)
           << " s; wrote " << O.Output << " and " << O.WorkDir
           << "/report.md\n";
  return writeSpeedCurve(O.WorkDir + "/curve-speed.svg", Rep);
}

} // namespace

Error compileSpeedDecisions(
    StringRef CorpusDir, const DecisionsFile &File, StringRef DecisionsPath,
    StringRef Profile, StringRef EvictModel,
    function_ref<Error(const TunedSpeedCompile &)> OnModule) {
  const DecisionsFile *F = &File;
  // Entries tuned on another eviction model would be reported stale one by
  // one; the build refuses them as a whole, and so does the check.
  if (Error E = checkDecisionsModel(*F, DecisionsPath, EvictModel,
                                    getEmbeddedEvictionModelMD5()))
    return E;
  Expected<std::string> ModelMeta = getEvictionModelMeta(EvictModel);
  if (!ModelMeta)
    return ModelMeta.takeError();
  Expected<speed::ProfileInfo> PI = speed::readProfileInfo(Profile);
  if (!PI)
    return PI.takeError();
  Expected<CorpusDescription> Desc = CorpusDescription::read(CorpusDir);
  if (!Desc)
    return Desc.takeError();
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(CorpusDir);
  if (!Mods)
    return Mods.takeError();
  SmallString<128> Tmp;
  if (std::error_code EC = sys::fs::createUniqueDirectory("mlgo-check", Tmp))
    return makeError("cannot create a temporary directory: " + EC.message());
  SmallString<256> Prof(Profile);
  sys::fs::make_absolute(Prof);
  std::string AbsModel;
  if (!EvictModel.empty()) {
    SmallString<256> Model(EvictModel);
    sys::fs::make_absolute(Model);
    AbsModel = std::string(Model);
  }
  speed::SpeedCompileSetup Setup;
  Setup.CorpusDir = CorpusDir.str();
  Setup.Description = std::move(*Desc);
  Setup.Profile = std::string(Prof);
  Setup.PluginPath = getInstallDirs().Plugin;
  // A temporary cache: nothing in it to tell apart, no salt.
  speed::SpeedCache Cache;
  Cache.Dir = (Tmp + "/speed").str();
  Cache.ModelMeta = std::move(*ModelMeta);
  Cache.ModelFile = !EvictModel.empty();
  TaskBatcher Batcher(1);
  Error Failed = Error::success();
  for (size_t I = 0; I < Mods->size(); ++I) {
    const CorpusModule &M = (*Mods)[I];
    Expected<std::string> Src = getSourceFileName(M);
    if (!Src) {
      Failed = Src.takeError();
      break;
    }
    std::shared_ptr<const ModuleDecisions> E = F->find(*Src);
    if (!E || (E->Evictions.empty() && E->Sites.empty()))
      continue;
    Expected<std::string> Lookup = getSourceFileNameHere(M);
    if (!Lookup) {
      Failed = Lookup.takeError();
      break;
    }
    speed::ModuleSpeedCompiler C(Setup, Cache, Batcher, M.Name, M.ContentHash,
                                 *Lookup);
    C.AllowStale = true;
    // Eviction entries apply with the eviction model; a module with
    // inlining entries only is built with LLVM's eviction, as the search
    // compiled it.
    Trial Want = getSpeedTrial(
        I, E.get(), E->Evictions.empty() ? Eviction::LLVM : Eviction::Model,
        AbsModel);
    std::optional<Expected<speed::CompiledModule>> Res;
    Batcher.runUnits(1, [&](size_t) { Res.emplace(C.compile(Want.Policy)); });
    if (!*Res) {
      Failed = Res->takeError();
      break;
    }
    if ((Failed = OnModule({I, E, &**Res})))
      break;
  }
  sys::fs::remove_directories(Tmp);
  return Failed;
}

Expected<size_t> checkSpeedDecisions(StringRef CorpusDir,
                                     StringRef DecisionsPath, StringRef Profile,
                                     StringRef EvictModel, raw_ostream &OS) {
  Expected<DecisionsFile> F = DecisionsFile::load(DecisionsPath);
  if (!F)
    return F.takeError();
  // Per module of the file: the eviction entries some compile applied, and
  // the inlining entries its advisor looked up (a site entry, else the
  // callee's group entry, as the plugin's DecisionTable does in a build).
  std::map<const ModuleDecisions *, std::set<std::pair<std::string, uint32_t>>>
      Live;
  std::map<const ModuleDecisions *, std::unique_ptr<DecisionTable>> Inlined;
  auto Record = [&](const TunedSpeedCompile &C) {
    const ModuleDecisions *E = C.Entries.get();
    auto &L = Live[E];
    for (const EvictDecision &D : E->Evictions)
      if (isApplied(D, C.Compiled->Trajectory))
        L.insert({D.Function, D.Ordinal});
    auto &T = Inlined[E];
    if (!T)
      T = std::make_unique<DecisionTable>(C.Entries);
    for (const DecidedSite &S : C.Compiled->Sites)
      T->lookup(S.Site.Caller, S.Site.Callee, S.Site.Ordinal);
    return Error::success();
  };
  if (Error E = compileSpeedDecisions(CorpusDir, *F, DecisionsPath, Profile,
                                      EvictModel, Record))
    return E;
  size_t Stale = 0, Entries = 0, StaleSites = 0, Sites = 0;
  for (const auto &M : F->Modules) {
    if (M->Evictions.empty() && M->Sites.empty())
      continue;
    Entries += M->Evictions.size();
    Sites += M->Sites.size();
    auto It = Live.find(M.get());
    if (It == Live.end()) {
      OS << DecisionsPath << ": module '" << M->Module
         << "' matches no module of the corpus (" << M->Evictions.size()
         << " eviction entries, " << M->Sites.size() << " inlining entries)\n";
      Stale += M->Evictions.size();
      StaleSites += M->Sites.size();
      continue;
    }
    ModuleDecisions Unused;
    for (const EvictDecision &D : M->Evictions)
      if (!It->second.count({D.Function, D.Ordinal}))
        Unused.Evictions.push_back(D);
    Unused.Sites = Inlined.at(M.get())->getUnused();
    Unused.sort();
    auto List = [&](StringRef Lines) {
      for (StringRef Line : split(Lines.rtrim(), '\n'))
        OS << "  " << Line << "\n";
    };
    if (!Unused.Evictions.empty()) {
      Stale += Unused.Evictions.size();
      OS << DecisionsPath << ": module '" << M->Module
         << "': " << Unused.Evictions.size() << " stale eviction entries:\n";
      List(Unused.printEvictions());
    }
    if (!Unused.Sites.empty()) {
      StaleSites += Unused.Sites.size();
      OS << DecisionsPath << ": module '" << M->Module
         << "': " << Unused.Sites.size() << " stale inlining entries:\n";
      List(Unused.printSites());
    }
  }
  OS << DecisionsPath << ": " << Stale << " of " << Entries
     << " eviction entries match no decision\n";
  OS << DecisionsPath << ": " << StaleSites << " of " << Sites
     << " inlining entries match no call site\n";
  return Stale + StaleSites;
}

Error runSpeedTuning(const SpeedTuneOptions &Options) {
  SpeedTuner T(Options);
  return T.run();
}

} // namespace mlgo
