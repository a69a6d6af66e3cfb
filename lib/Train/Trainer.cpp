//===- lib/Train/Trainer.cpp - Training an inlining-for-size policy -------===//
//
// The phases are described in mlgo/Train/Trainer.h. Everything that costs a
// compile goes through CompileCache, an append-only text file of results
// keyed by (module content, policy), so that a rerun after an interruption
// replays finished work from the file instead of compiling it again.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/Trainer.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Learn/Classifier.h"
#include "mlgo/Learn/Dataset.h"
#include "mlgo/Learn/EvolutionStrategies.h"
#include "mlgo/Learn/FlipPolicy.h"
#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Learn/Parameters.h"
#include "mlgo/Log/ByteSource.h"
#include "mlgo/Log/TrainingLog.h"
#include "mlgo/Model/Model.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/Train/CompileCache.h"
#include "mlgo/Train/DecisionLog.h"
#include "mlgo/Train/TrainingCorpus.h"
#include "mlgo/Train/TrajectoryCache.h"
#include "mlgo/Train/WorkerPool.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

using namespace llvm;

namespace mlgo {

static Error makeError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

namespace {

/// The first min(K, Items.size()) elements of a seeded partial Fisher-Yates
/// shuffle of \p Items (splitmix64 from \p State), in drawing order.
template <typename T>
std::vector<T> sampleSeeded(std::vector<T> Items, size_t K, uint64_t State) {
  K = std::min(K, Items.size());
  for (size_t I = 0; I < K; ++I)
    std::swap(Items[I], Items[I + splitMix64(State) % (Items.size() - I)]);
  Items.resize(K);
  return Items;
}

/// \p New as a percent change from \p Base (0 when Base is 0).
double pctChange(uint64_t Base, uint64_t New) {
  return Base ? 100.0 * (double(New) - double(Base)) / double(Base) : 0;
}

void addPackageSizes(PackageSizes &P, const std::string &Package,
                     uint64_t Baseline, uint64_t Size) {
  P[Package].first += Baseline;
  P[Package].second += Size;
}

/// A model compiled on the validation packages in the selection phase.
struct Candidate {
  std::string Label;
  /// Its point on the selection curve: the threshold, or the inverted
  /// decisions per 10,000.
  double X;
  Model M;
  /// The classifier's threshold, or the flip policy's tau; none for the
  /// heuristic fallback.
  std::optional<float> Param;
  /// Index of the scorer (classifier) it was built from: its counterfactual
  /// round, from 0.
  size_t Scorer = 0;
  /// The fraction of the heuristic's inlines it refuses (refuse_fractions;
  /// 0 when Param is its only tau).
  double RefuseFraction = 0;
};

/// ml-compiler-opt's reward for inlining for size; a module with no .text
/// at all (data only) scores 0 when the policy keeps it so.
double getReward(uint64_t PolicySize, uint64_t BaselineSize, double Delta) {
  double Den = double(BaselineSize) + Delta;
  if (Den == 0)
    return PolicySize == 0 ? 0.0 : -1.0;
  return 1.0 - (double(PolicySize) + Delta) / Den;
}

std::string cacheKey(const CorpusModule &M, const Policy &P) {
  MD5 Hash;
  Hash.update(M.ContentHash);
  Hash.update(P.getKey());
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

struct Trainer {
  const TrainRecipe &Recipe;
  const TrainOptions &Options;
  WorkerPool &Pool;
  CompileCache Cache;
  /// Answers compiles a recorded trajectory decides (TrajectoryCache.h).
  TrajectoryCache Replay;
  std::vector<CorpusModule> Modules;
  std::vector<size_t> Train, Validation;
  /// Per module: stock -Oz size (the baseline), heuristic size, decisions.
  /// Sizes are in the recipe's size_measure (sizeOf).
  std::vector<uint64_t> Baseline, HeuristicSize;
  /// needGrouped(): per package, how many modules' -Oz objects
  /// have each grouped section (by name hash); per module, its -Oz
  /// object's code and grouped sections.
  StringMap<DenseMap<uint64_t, uint32_t>> GroupCopies;
  std::vector<uint64_t> StockText;
  std::vector<std::vector<GroupedSection>> StockGrouped;
  std::vector<uint32_t> HeuristicDecisions;
  /// Modules left out because their -Oz or heuristic compile failed: the
  /// errors, each naming its module.
  std::vector<std::string> LeftOut;
  /// Per module: the best flips found by the search.
  std::vector<std::vector<uint32_t>> BestFlips;
  std::vector<uint64_t> BestSize;
  learn::LearningCurve SearchCurve{"Search: training modules' .text vs -Oz",
                                   "search step",
                                   {"searched modules % of -Oz",
                                    "compiles (thousands)"}};
  learn::LearningCurve EpochCurve{"Imitation: classifier training",
                                  "epoch",
                                  {"loss", "accuracy %",
                                   "target recall %"}};
  learn::LearningCurve SelectCurve{
      "Selection: candidates on the held-out packages",
      "threshold or inverted decisions per 10000",
      {"% of -Oz .text", "worst package %"}};
  learn::LearningCurve ESCurve{
      "Evolution strategies: mean reward on each iteration's batch",
      "iteration", {"current parameters %", "best perturbation %"}};
  std::string Report;
  std::string CorpusFingerprint;

  Trainer(const TrainRecipe &R, const TrainOptions &O, WorkerPool &P)
      : Recipe(R), Options(O), Pool(P) {}

  void log(const Twine &Message) {
    if (Options.Verbose)
      errs() << "mlgo train: " << Message << "\n";
  }

  /// Whether the recipe learns from counterfactual inversions (mode
  /// "counterfactual") rather than from the best trajectories.
  bool isCounterfactual() const { return Recipe.Mode == "counterfactual"; }
  /// Whether module sizes discount the grouped sections other modules of
  /// the package share (size_measure "package" or "amortized").
  bool sharedMeasure() const { return Recipe.SizeMeasure != "module"; }
  /// Whether selection and the report total a set of modules as packages
  /// linked together (selection_measure "package").
  bool linkedTotals() const {
    return Recipe.getSelectionMeasure() == "package";
  }
  /// Whether compiles must carry their grouped sections (either measure is
  /// not "module").
  bool needGrouped() const { return sharedMeasure() || linkedTotals(); }

  /// The size of module \p M's compile \p E in the recipe's measure:
  /// "module": its executable code; "package": that minus the grouped
  /// sections some other module of the package has at -Oz; "amortized":
  /// each grouped section counts its bytes divided by the number of the
  /// package's modules that hold a copy (this one and those that have it
  /// at -Oz), rounded to the nearest byte.
  uint64_t sizeOf(size_t M, const CompileCache::Entry &E) const {
    if (!sharedMeasure())
      return E.TextSize;
    auto Copies = GroupCopies.find(Modules[M].Package);
    if (Copies == GroupCopies.end())
      return E.TextSize;
    bool Amortized = Recipe.SizeMeasure == "amortized";
    uint64_t Size = E.TextSize;
    for (const auto &[Hash, Bytes] : E.Grouped) {
      auto It = Copies->second.find(Hash);
      if (It == Copies->second.end())
        continue;
      // StockGrouped is sorted by hash (CompileResult::Grouped).
      auto Own = llvm::lower_bound(
          StockGrouped[M], Hash,
          [](const GroupedSection &G, uint64_t H) { return G.first < H; });
      bool Mine = Own != StockGrouped[M].end() && Own->first == Hash;
      uint64_t Others = It->second - (Mine ? 1u : 0u);
      if (Others == 0)
        continue;
      Size -= Amortized ? Bytes - divideNearest(Bytes, Others + 1) : Bytes;
    }
    return Size;
  }

  /// needGrouped(): counts the copies of each grouped section in
  /// the -Oz objects \p Stock (one per module; failed ones have none).
  void countGroupCopies(ArrayRef<CompileCache::Entry> Stock) {
    StockText.assign(Modules.size(), 0);
    StockGrouped.assign(Modules.size(), {});
    for (size_t I = 0; I < Modules.size(); ++I) {
      if (!Stock[I].Ok)
        continue;
      StockText[I] = Stock[I].TextSize;
      StockGrouped[I] = Stock[I].Grouped;
      DenseMap<uint64_t, uint32_t> &Copies = GroupCopies[Modules[I].Package];
      for (const auto &[Hash, Bytes] : Stock[I].Grouped)
        ++Copies[Hash];
    }
  }

  std::string workFile(StringRef Name) const {
    SmallString<256> P(Options.WorkDir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  /// Compiles (or looks up) module \p Modules[I] under each policy.
  std::vector<CompileCache::Entry>
  compile(ArrayRef<std::pair<size_t, Policy>> Requests, StringRef What) {
    std::vector<CompileCache::Entry> Out(Requests.size());
    std::vector<CompileJob> Jobs;
    std::vector<std::string> JobModules;
    std::vector<size_t> Where;
    std::vector<std::string> Keys(Requests.size());
    StringMap<size_t> FirstOfKey;
    for (size_t I = 0; I < Requests.size(); ++I) {
      const auto &[M, P] = Requests[I];
      Keys[I] = cacheKey(Modules[M], P);
      const CompileCache::Entry *E = Cache.lookup(Keys[I]);
      if (E && (E->GroupedKnown || !needGrouped())) {
        Out[I] = *E;
        continue;
      }
      if (FirstOfKey.count(Keys[I]))
        continue;
      FirstOfKey[Keys[I]] = I;
      Jobs.push_back(Modules[M].makeJob(P));
      JobModules.push_back(Modules[M].ContentHash);
      Where.push_back(I);
    }
    if (!Jobs.empty()) {
      auto Start = std::chrono::steady_clock::now();
      // Each result is appended to the cache file as soon as it is known.
      auto Record = [&](size_t J, const JobOutcome &O) {
        CompileCache::Entry E;
        if (O.ok()) {
          E.Ok = true;
          E.TextSize = O.Result->TextSize;
          E.Grouped = O.Result->Grouped;
          E.Decisions = O.Result->NumDecisions;
          E.Seconds = O.Result->Seconds;
        } else {
          E.Error = O.Error;
          E.Transient = O.Transient;
        }
        Cache.insert(Keys[Where[J]], E);
        Out[Where[J]] = E;
      };
      uint64_t HitsBefore = Replay.getStats().Hits;
      Progress Shown(("mlgo train: " + What).str());
      Replay.run(
          Pool, Jobs, JobModules,
          [&](size_t Done, size_t Total) {
            if (Options.Verbose)
              Shown.update(Done, Total);
          },
          Record);
      Shown.end(formatv(" ({0} by replay) ({1:f1} s)",
                        Replay.getStats().Hits - HitsBefore,
                        std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - Start)
                            .count())
                    .str());
      for (size_t I = 0; I < Requests.size(); ++I)
        if (!Out[I].Ok && Out[I].Error.empty())
          Out[I] = *Cache.lookup(Keys[I]);
    }
    return Out;
  }

  Error loadCorpus() {
    Expected<std::vector<CorpusModule>> M = loadTrainingCorpus(Options.CorpusDir);
    if (!M)
      return M.takeError();
    // Of the whole corpus, excluded packages included: it names the corpus
    // as built, whatever a recipe takes from it.
    CorpusFingerprint = getCorpusFingerprint(*M);
    StringSet<> Val, Excl, Seen;
    for (const std::string &P : Recipe.ValidationPackages)
      Val.insert(P);
    for (const std::string &P : Recipe.ExcludedPackages)
      Excl.insert(P);
    for (CorpusModule &Mod : *M) {
      Seen.insert(Mod.Package);
      if (Excl.contains(Mod.Package))
        continue;
      (Val.contains(Mod.Package) ? Validation : Train)
          .push_back(Modules.size());
      Modules.push_back(std::move(Mod));
    }
    for (const std::string &P : Recipe.ValidationPackages)
      if (!Seen.contains(P))
        return makeError("validation package '" + P + "' is not in the corpus at '" +
                         Options.CorpusDir + "'");
    if (Train.empty())
      return makeError("no training modules: every package of '" +
                       Options.CorpusDir + "' is held out or excluded");
    log(Twine(Modules.size()) + " modules: " + Twine(Train.size()) +
        " training, " + Twine(Validation.size()) + " validation");
    if (Validation.empty()) {
      std::vector<std::string> Names;
      for (const auto &P : Seen)
        Names.push_back(describePackage(P.first()));
      llvm::sort(Names);
      WithColor::warning(errs(), "mlgo train")
          << "the recipe holds out no validation packages, so candidates "
             "are chosen on the training modules themselves; name some in "
             "'validation_packages' (the corpus has: "
          << join(Names, ", ") << ")\n";
    }
    return Error::success();
  }

  Error baseline() {
    std::vector<std::pair<size_t, Policy>> Req;
    for (size_t I = 0; I < Modules.size(); ++I)
      Req.push_back({I, Policy::stock()});
    for (size_t I = 0; I < Modules.size(); ++I)
      Req.push_back({I, Policy::heuristic()});
    std::vector<CompileCache::Entry> R = compile(Req, "baseline");
    size_t N = Modules.size();
    if (needGrouped())
      countGroupCopies(ArrayRef(R).take_front(N));
    Baseline.resize(N);
    HeuristicSize.resize(N);
    HeuristicDecisions.resize(N);
    size_t Mismatch = 0;
    std::vector<bool> Out(N);
    for (size_t I = 0; I < N; ++I) {
      // A module that fails either way has no baseline to measure against:
      // it is left out of training and evaluation, and named in the report.
      if (!R[I].Ok || !R[N + I].Ok) {
        Out[I] = true;
        LeftOut.push_back(!R[I].Ok ? "-Oz: " + R[I].Error
                                   : "heuristic: " + R[N + I].Error);
        log("baseline: left out: " + LeftOut.back());
        continue;
      }
      Baseline[I] = sizeOf(I, R[I]);
      HeuristicSize[I] = sizeOf(I, R[N + I]);
      HeuristicDecisions[I] = R[N + I].Decisions;
      Mismatch += R[I].TextSize != R[N + I].TextSize;
    }
    llvm::erase_if(Train, [&](size_t M) { return Out[M]; });
    llvm::erase_if(Validation, [&](size_t M) { return Out[M]; });
    if (Train.empty())
      return makeError("no training module compiles: " + LeftOut.front());
    for (size_t M : Train)
      MeanTrainingText += double(Baseline[M]) / Train.size();
    log("baseline: " + Twine(Mismatch) +
        " modules where mlgo's advisor with LLVM's heuristic differs from "
        "stock -Oz");
    Report += formatv("- Heuristic through mlgo's advisor vs stock -Oz: {0} of "
                      "{1} modules differ in .text.\n",
                      Mismatch, N - LeftOut.size())
                  .str();
    if (!LeftOut.empty())
      Report += formatv("- Left out: {0} module{1} whose -Oz or heuristic "
                        "compile failed (see Failed compiles).\n",
                        LeftOut.size(), LeftOut.size() == 1 ? "" : "s")
                    .str();
    return Error::success();
  }

  /// The policy a parameter vector of classifier \p Base stands for: the
  /// classifier at threshold \p Param, or (counterfactual) the flip policy
  /// with tau \p Param.
  Expected<Model> policyFor(const Model &Base, ArrayRef<double> Theta,
                            float Param) const {
    Model M = Base;
    if (Error E = learn::setModelParameters(M, Theta))
      return E;
    if (isCounterfactual())
      return learn::buildFlipPolicy(M, Param, "inlining_default", flipScope());
    M.Decision.Threshold = Param;
    return M;
  }

  /// Evolution strategies from \p Start's classifier parameters (the
  /// classifier \p Base with Start's threshold or tau). Every iteration
  /// compiles a seeded batch of ESBatchModules searchable training modules
  /// under the current parameters and the 2K perturbed ones; a candidate's
  /// reward is its mean per-module reward. The state is checkpointed after
  /// every iteration (es.ckpt) and the compiles are cached, so a rerun
  /// resumes where it stopped.
  Expected<Candidate> evolve(const Model &Base, const Candidate &Start) {
    float Param = *Start.Param;
    std::vector<size_t> Pool;
    for (size_t M : Train)
      if (isSearchable(M))
        Pool.push_back(M);
    if (Pool.empty())
      return makeError("evolution strategies: no training module within the "
                       "search budget");
    learn::ESOptions EO;
    EO.Sigma = Recipe.ESSigma;
    EO.NumDirections = Recipe.ESDirections;
    EO.Optimizer.LearningRate = Recipe.ESLearningRate;
    EO.Seed = Recipe.Seed;
    learn::EvolutionStrategies ES(learn::getModelParameters(Base), EO);
    // The checkpoint belongs to this start point and these settings.
    MD5 KeyHash;
    KeyHash.update(Base.toJSONString());
    KeyHash.update(formatv("{0} {1} {2} {3} {4} {5}", Param,
                           Recipe.ESDirections, Recipe.ESSigma,
                           Recipe.ESLearningRate, Recipe.ESBatchModules,
                           Recipe.Seed)
                       .str());
    MD5::MD5Result KR;
    KeyHash.final(KR);
    std::string Key(KR.digest());
    std::string Ckpt = workFile("es.ckpt");
    if (sys::fs::exists(Ckpt)) {
      Expected<learn::Checkpoint> C = learn::Checkpoint::load(Ckpt);
      if (!C)
        return C.takeError();
      Expected<std::string> K = C->getBytes("es_key");
      if (K && *K == Key) {
        if (Error E = ES.loadState(*C))
          return E;
        if (Error E = ESCurve.loadState(*C))
          return E;
        log("es: resumed at iteration " + Twine(ES.getIteration()));
      } else if (!K) {
        consumeError(K.takeError());
      }
    }
    while (ES.getIteration() < Recipe.ESIterations) {
      uint64_t It = ES.getIteration();
      // The batch: a seeded sample of the pool, fixed per iteration.
      std::vector<size_t> Batch =
          sampleSeeded(Pool, Recipe.ESBatchModules,
                       Recipe.Seed ^ (0x9e3779b97f4a7c15ULL * (It + 1)));
      learn::ESCandidates C = ES.proposePerturbations();
      std::vector<std::vector<double>> Thetas = {ES.getTheta()};
      llvm::append_range(Thetas, C.Plus);
      llvm::append_range(Thetas, C.Minus);
      std::vector<std::pair<size_t, Policy>> Req;
      for (const std::vector<double> &Th : Thetas) {
        Expected<Model> P = policyFor(Base, Th, Param);
        if (!P)
          return P.takeError();
        std::string JSON = P->toJSONString();
        for (size_t M : Batch)
          Req.push_back({M, Policy::model(JSON)});
      }
      std::vector<CompileCache::Entry> R =
          compile(Req, ("es iteration " + Twine(It)).str());
      std::vector<double> Rewards(Thetas.size(), 0.0);
      for (size_t K = 0; K < Req.size(); ++K) {
        size_t M = Req[K].first;
        // A failed compile scores as a module twice its -Oz size.
        uint64_t Size = R[K].Ok ? sizeOf(M, R[K]) : 2 * Baseline[M];
        Rewards[K / Batch.size()] +=
            getReward(Size, Baseline[M], Recipe.Delta) / Batch.size();
      }
      size_t Dirs = C.Plus.size();
      ArrayRef<double> All(Rewards);
      if (Error E = ES.update(All.slice(1, Dirs), All.slice(1 + Dirs, Dirs)))
        return E;
      double Best = *std::max_element(Rewards.begin(), Rewards.end());
      ESCurve.addPoint(It + 1, {100 * Rewards[0], 100 * Best});
      log(formatv("es: iteration {0}: batch mean reward {1:F4}% (best "
                  "perturbation {2:F4}%)",
                  It + 1, 100 * Rewards[0], 100 * Best)
              .str());
      learn::Checkpoint Save;
      ES.saveState(Save);
      ESCurve.saveState(Save);
      Save.setBytes("es_key", Key);
      if (Error E = Save.save(Ckpt))
        return E;
    }
    Expected<Model> P = policyFor(Base, ES.getTheta(), Param);
    if (!P)
      return P.takeError();
    P->Metadata.Recipe += formatv(", then {0} iterations of evolution "
                                  "strategies",
                                  Recipe.ESIterations)
                              .str();
    Report += formatv("- Evolution strategies: {0} iterations of {1} "
                      "antithetic pairs on batches of {2} modules, from "
                      "'{3}'.\n",
                      Recipe.ESIterations, Recipe.ESDirections,
                      Recipe.ESBatchModules, Start.Label)
                  .str();
    return Candidate{Start.Label + ", tuned by evolution strategies", Start.X,
                     std::move(*P), Param, Start.Scorer};
  }

  /// Whether training module \p M is within the search budget.
  bool isSearchable(size_t M) const {
    return HeuristicDecisions[M] != 0 &&
           HeuristicDecisions[M] <= Recipe.SearchMaxDecisions &&
           Modules[M].BitcodeSize <= Recipe.SearchMaxModuleBytes;
  }

  /// How many decisions of module \p M the search may try.
  uint32_t searchBudget(size_t M) const {
    uint64_t K = Recipe.SearchCandidates;
    if (Recipe.SearchBudgetBytes)
      K = std::min<uint64_t>(
          K, std::max<uint64_t>(1, Recipe.SearchBudgetBytes /
                                       std::max<uint64_t>(1, Modules[M].BitcodeSize)));
    return uint32_t(K);
  }

  /// Candidates for module \p M: indices of its heuristic trajectory, all
  /// or a seeded sample of searchBudget(M), ascending.
  std::vector<uint32_t> candidates(size_t M) const {
    uint32_t D = HeuristicDecisions[M];
    uint32_t K = searchBudget(M);
    std::vector<uint32_t> All(D);
    for (uint32_t I = 0; I < D; ++I)
      All[I] = I;
    if (D <= K)
      return All;
    MD5::MD5Result H = MD5::hash(arrayRefFromStringRef(Modules[M].ContentHash));
    All = sampleSeeded(std::move(All), K, Recipe.Seed ^ H.low());
    llvm::sort(All);
    return All;
  }

  void search() {
    size_t N = Modules.size();
    BestFlips.assign(N, {});
    BestSize = HeuristicSize;
    if (Recipe.Mode != "search-imitate")
      return;
    struct State {
      size_t M;
      std::vector<uint32_t> Cand;
      size_t Next = 0;
      uint32_t Decisions;
    };
    std::vector<State> Active;
    uint64_t SearchedBaseline = 0;
    for (size_t M : Train) {
      if (!isSearchable(M))
        continue;
      Active.push_back({M, candidates(M), 0, HeuristicDecisions[M]});
      SearchedBaseline += Baseline[M];
    }
    log("search: " + Twine(Active.size()) + " of " + Twine(Train.size()) +
        " training modules within the budget");
    std::vector<State *> Searched;
    std::vector<State> All = Active;
    size_t Compiles = 0;
    for (unsigned Step = 0;; ++Step) {
      std::vector<std::pair<size_t, Policy>> Req;
      std::vector<State *> Who;
      for (State &S : All) {
        while (S.Next < S.Cand.size() && S.Cand[S.Next] >= S.Decisions)
          ++S.Next;
        if (S.Next >= S.Cand.size())
          continue;
        Policy P = Policy::heuristic();
        P.Flips = BestFlips[S.M];
        P.Flips.push_back(S.Cand[S.Next]);
        Req.push_back({S.M, std::move(P)});
        Who.push_back(&S);
      }
      if (Req.empty())
        break;
      std::vector<CompileCache::Entry> R =
          compile(Req, ("search step " + Twine(Step)).str());
      Compiles += Req.size();
      for (size_t K = 0; K < Req.size(); ++K) {
        State &S = *Who[K];
        ++S.Next;
        if (!R[K].Ok || sizeOf(S.M, R[K]) >= BestSize[S.M])
          continue;
        BestFlips[S.M] = Req[K].second.Flips;
        BestSize[S.M] = sizeOf(S.M, R[K]);
        S.Decisions = R[K].Decisions;
      }
      uint64_t Best = 0;
      for (State &S : All)
        Best += BestSize[S.M];
      double Pct = SearchedBaseline ? 100.0 * Best / SearchedBaseline : 100;
      SearchCurve.addPoint(Step, {Pct, Compiles / 1000.0});
    }
    uint64_t Best = 0, Heur = 0;
    size_t Improved = 0;
    for (State &S : All) {
      Best += BestSize[S.M];
      Heur += Baseline[S.M];
      Improved += BestSize[S.M] < HeuristicSize[S.M];
    }
    double Pct = pctChange(Heur, Best);
    log(formatv("search: {0} compiles; {1} of {2} modules improved; searched "
                "modules' .text {3:F2}% vs -Oz",
                Compiles, Improved, All.size(), Pct)
            .str());
    Report += formatv("- Search: {0} modules searched, {1} improved, {2} "
                      "compiles; their .text went from {3} to {4} bytes "
                      "({5:F2}% vs -Oz).\n",
                      All.size(), Improved, Compiles, Heur, Best, Pct)
                  .str();
    // Where the search found room: -Oz and best .text of the searched
    // modules, by package.
    PackageSizes PerPackage;
    for (State &S : All)
      addPackageSizes(PerPackage, Modules[S.M].Package, Baseline[S.M],
                      BestSize[S.M]);
    for (auto &[Pkg, V] : PerPackage)
      Report += formatv("  - {0}: {1} -> {2} bytes ({3:F2}%)\n", Pkg, V.first,
                        V.second, pctChange(V.first, V.second))
                    .str();
  }

  /// Feature names of the logs (inlining_decision left out) and the column
  /// of inlining_default among them, set by the first logTrajectories().
  std::vector<std::string> FeatureNames;
  size_t DefaultColumn = 0;

  /// Compiles each module \p Mods[K] under \p Policies[K] with logging and
  /// calls \p OnRow(K, features, applied decision, heuristic's decision) for
  /// every decision, in order.
  Error logTrajectories(
      ArrayRef<size_t> Mods, ArrayRef<Policy> Policies,
      function_ref<void(size_t, ArrayRef<float>, bool, bool)> OnRow) {
    std::vector<CompileJob> Jobs;
    std::vector<std::string> JobModules;
    for (size_t K = 0; K < Mods.size(); ++K) {
      Jobs.push_back(Modules[Mods[K]].makeJob(Policies[K], /*WantLog=*/true));
      JobModules.push_back(Modules[Mods[K]].ContentHash);
    }
    Progress Shown("mlgo train: logging");
    std::vector<JobOutcome> R =
        Replay.run(Pool, Jobs, JobModules, [&](size_t Done, size_t Total) {
          if (Options.Verbose)
            Shown.update(Done, Total);
        });
    Shown.end();
    std::vector<float> Row;
    for (size_t K = 0; K < Jobs.size(); ++K) {
      const CorpusModule &Mod = Modules[Mods[K]];
      if (!R[K].ok())
        return makeError("logging compile of " + Mod.Name +
                         " failed: " + R[K].Error);
      Expected<DecisionLog> L =
          parseDecisionLog(R[K].Result->Log, Mod.Name + " (log)");
      if (!L)
        return L.takeError();
      std::vector<std::string> Names;
      for (const TensorSpec &S : L->Specs)
        Names.push_back(S.name());
      if (FeatureNames.empty()) {
        FeatureNames = Names;
        DefaultColumn = L->DefaultColumn;
      } else if (Names != FeatureNames) {
        return makeError(Mod.Name + " (log): features differ from the first "
                                    "log's");
      }
      for (size_t D = 0; D < L->size(); ++D) {
        Row.assign(L->row(D).begin(), L->row(D).end());
        OnRow(K, Row, L->Decisions[D], L->Defaults[D]);
      }
    }
    return Error::success();
  }

  /// Replays the best trajectory of every training module with logging and
  /// turns its decisions into rows.
  Expected<learn::Dataset> collect() {
    std::vector<size_t> Mods;
    std::vector<Policy> Policies;
    for (size_t M : Train) {
      if (HeuristicDecisions[M] == 0)
        continue;
      Policy P = Policy::heuristic();
      P.Flips = BestFlips[M];
      Mods.push_back(M);
      Policies.push_back(std::move(P));
    }
    log("imitate: logging " + Twine(Mods.size()) + " best trajectories");
    std::optional<learn::Dataset> D;
    if (Error E = logTrajectories(
            Mods, Policies,
            [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
              if (!D)
                D.emplace(FeatureNames);
              float W = Decision != Default ? Recipe.DepartureWeight : 1.0f;
              D->addRow(Row, Decision, W, int64_t(Mods[K]));
            }))
      return E;
    if (!D)
      return makeError("no training module makes an inlining decision");
    return std::move(*D);
  }

  /// Counterfactual mode. Every searchable training module's heuristic
  /// trajectory, one row per decision (kept for choosing tau), with the row
  /// width FeatureNames.size().
  std::map<size_t, std::vector<float>> Trajectories;

  /// Inverts single decisions of the heuristic's trajectory (a seeded sample
  /// per module, as the search does) and records what each inversion did to
  /// .text: a row (the features at that decision) labeled 1 if .text shrank,
  /// weighted by the change in bytes (capped).
  Expected<learn::Dataset> counterfactual() {
    std::vector<size_t> Mods;
    uint64_t SearchedBaseline = 0;
    for (size_t M : Train)
      if (isSearchable(M)) {
        Mods.push_back(M);
        SearchedBaseline += Baseline[M];
      }
    if (Mods.empty())
      return makeError("no training module is within the search budget");
    log("counterfactual: " + Twine(Mods.size()) + " of " + Twine(Train.size()) +
        " training modules within the budget");
    std::vector<Policy> Heur(Mods.size(), Policy::heuristic());
    if (Error E = logTrajectories(
            Mods, Heur, [&](size_t K, ArrayRef<float> Row, bool, bool) {
              llvm::append_range(Trajectories[Mods[K]], Row);
            }))
      return E;
    size_t Width = FeatureNames.size();

    std::vector<std::pair<size_t, Policy>> Req;
    std::vector<uint32_t> At;
    for (size_t M : Mods)
      for (uint32_t I : candidates(M)) {
        Policy P = Policy::heuristic();
        P.Flips = {I};
        Req.push_back({M, std::move(P)});
        At.push_back(I);
      }
    std::vector<CompileCache::Entry> R = compile(Req, "counterfactual flips");

    learn::Dataset D(FeatureNames);
    // Every inversion, for whoever wants to study them: module, decision
    // index, .text change in bytes, then the features at that decision.
    std::string CSV = inversionsHeader("module,decision,text_delta");
    size_t Shrank = 0, Grew = 0, Same = 0, Failed = 0;
    std::map<size_t, int64_t> BestGain; // Per module: its best single flip.
    for (size_t K = 0; K < Req.size(); ++K) {
      size_t M = Req[K].first;
      const std::vector<float> &T = Trajectories[M];
      if (!R[K].Ok) {
        ++Failed;
        log("counterfactual: flip " + Twine(At[K]) + " of " + Modules[M].Name +
            " failed: " + R[K].Error);
        continue;
      }
      if (size_t(At[K]) * Width >= T.size())
        return makeError("counterfactual: " + Modules[M].Name +
                         " logged fewer decisions than it reported");
      int64_t Delta = int64_t(sizeOf(M, R[K])) - int64_t(HeuristicSize[M]);
      (Delta < 0 ? Shrank : Delta > 0 ? Grew : Same) += 1;
      if (Delta < 0)
        BestGain[M] = std::min(BestGain[M], Delta);
      float W = flipWeight(Delta, M);
      ArrayRef<float> Row(T.data() + At[K] * Width, Width);
      if (inScope(Row[DefaultColumn] != 0))
        D.addRow(Row, Delta < 0, W, int64_t(M));
      appendInversion(CSV,
                      Modules[M].Name + "," + std::to_string(At[K]) + "," +
                          std::to_string(Delta),
                      Row);
    }
    if (Error E = writeWorkFile("counterfactuals.csv", CSV))
      return E;
    int64_t Oracle = 0;
    for (auto &[M, G] : BestGain)
      Oracle += G;
    double OraclePct = SearchedBaseline ? 100.0 * Oracle / SearchedBaseline : 0;
    log(formatv("counterfactual: {0} single inversions: {1} shrank .text, {2} "
                "grew it, {3} left it, {4} failed; the best one per module "
                "would give {5:F2}% vs -Oz",
                Req.size(), Shrank, Grew, Same, Failed, OraclePct)
            .str());
    Report += formatv("- Counterfactuals: {0} modules, {1} single inversions "
                      "of the heuristic: {2} shrank .text, {3} grew it, {4} "
                      "left it, {5} failed. The best inversion per module "
                      "alone would give {6:F2}% vs -Oz on these modules.\n",
                      Mods.size(), Req.size(), Shrank, Grew, Same, Failed,
                      OraclePct)
                  .str();
    return D;
  }

  /// Counterfactual round \p Round > 1 (DAgger): inverts single decisions
  /// of policy \p P's own trajectories on the searchable training modules and
  /// appends a row per inversion to \p D, labeled as the first round's rows
  /// are: 1 if, with P deciding everything else, taking the decision other
  /// than the heuristic's gives the smaller .text. Where P already departs
  /// from the heuristic the inversion goes back to it, so a departure that
  /// costs bytes in P's context becomes a row that says so. Per module at
  /// most searchBudget() decisions in scope are tried: P's departures first
  /// (a seeded sample if they alone exceed half the budget), the rest a
  /// seeded sample of its other decisions.
  Error counterfactualAround(const Model &P, StringRef PLabel, unsigned Round,
                             learn::Dataset &D) {
    std::vector<size_t> Mods;
    for (size_t M : Train)
      if (isSearchable(M))
        Mods.push_back(M);
    Policy Pol = Policy::model(P.toJSONString());
    struct Trajectory {
      std::vector<float> Rows;
      std::vector<bool> Decisions, Defaults;
    };
    std::vector<Trajectory> Traj(Mods.size());
    std::vector<Policy> Pols(Mods.size(), Pol);
    if (Error E = logTrajectories(
            Mods, Pols,
            [&](size_t K, ArrayRef<float> Row, bool Decision, bool Default) {
              llvm::append_range(Traj[K].Rows, Row);
              Traj[K].Decisions.push_back(Decision);
              Traj[K].Defaults.push_back(Default);
            }))
      return E;
    std::vector<std::pair<size_t, Policy>> Req;
    for (size_t M : Mods)
      Req.push_back({M, Pol});
    std::vector<CompileCache::Entry> Own =
        compile(Req, ("round " + Twine(Round) + ": policy").str());

    Req.clear();
    std::vector<size_t> Who; // Index into Mods.
    std::vector<uint32_t> At;
    uint64_t RoundSeed = Recipe.Seed ^ (0xd1b54a32d192ed03ULL * Round);
    for (size_t K = 0; K < Mods.size(); ++K) {
      size_t M = Mods[K];
      if (!Own[K].Ok) {
        log("round " + Twine(Round) + ": " + Modules[M].Name +
            " failed under the policy: " + Own[K].Error);
        continue;
      }
      const Trajectory &T = Traj[K];
      std::vector<uint32_t> Departs, Agrees;
      for (uint32_t I = 0; I < T.Decisions.size(); ++I)
        if (inScope(T.Defaults[I]))
          (T.Decisions[I] != T.Defaults[I] ? Departs : Agrees).push_back(I);
      uint32_t Budget = searchBudget(M);
      MD5::MD5Result H =
          MD5::hash(arrayRefFromStringRef(Modules[M].ContentHash));
      std::vector<uint32_t> Pick = sampleSeeded(
          std::move(Departs), std::max<uint32_t>(1, Budget / 2),
          RoundSeed ^ H.low());
      std::vector<uint32_t> Rest = sampleSeeded(
          std::move(Agrees), Budget - std::min<size_t>(Budget, Pick.size()),
          RoundSeed ^ H.high());
      llvm::append_range(Pick, Rest);
      llvm::sort(Pick);
      for (uint32_t I : Pick) {
        Policy Q = Pol;
        Q.Flips = {I};
        Req.push_back({M, std::move(Q)});
        Who.push_back(K);
        At.push_back(I);
      }
    }
    std::vector<CompileCache::Entry> R =
        compile(Req, ("round " + Twine(Round) + ": inversions").str());

    size_t Width = FeatureNames.size();
    size_t Departures = 0, BadDepartures = 0, Shrank = 0, Failed = 0;
    std::string CSV =
        inversionsHeader("module,decision,policy_decision,text_delta");
    for (size_t J = 0; J < Req.size(); ++J) {
      size_t K = Who[J], M = Mods[K];
      const Trajectory &T = Traj[K];
      if (!R[J].Ok) {
        ++Failed;
        log("round " + Twine(Round) + ": flip " + Twine(At[J]) + " of " +
            Modules[M].Name + " failed: " + R[J].Error);
        continue;
      }
      int64_t Delta =
          int64_t(sizeOf(M, R[J])) - int64_t(sizeOf(M, Own[K]));
      bool Departs = T.Decisions[At[J]] != T.Defaults[At[J]];
      // The non-default decision is the smaller one: inverting a decision
      // that agrees with the heuristic shrank .text, or inverting a
      // departure (back to the heuristic) grew it.
      bool Label = Departs ? Delta > 0 : Delta < 0;
      Departures += Departs;
      BadDepartures += Departs && Delta < 0;
      Shrank += Delta < 0;
      float W = flipWeight(Delta, M);
      ArrayRef<float> Row(T.Rows.data() + size_t(At[J]) * Width, Width);
      D.addRow(Row, Label, W, int64_t(M));
      appendInversion(CSV,
                      Modules[M].Name + "," + std::to_string(At[J]) + "," +
                          (T.Decisions[At[J]] ? "1" : "0") + "," +
                          std::to_string(Delta),
                      Row);
    }
    if (Error E = writeWorkFile(
            ("counterfactuals-round" + Twine(Round) + ".csv").str(), CSV))
      return E;
    std::string Summary = formatv(
        "{0} single inversions of the trajectories of '{1}' on {2} "
        "modules: {3} shrank .text, {4} failed; {5} of them undid a departure "
        "from the heuristic, and {6} of those shrank .text (a departure that "
        "cost bytes)",
        Req.size(), PLabel, Mods.size(), Shrank, Failed, Departures,
        BadDepartures);
    log("round " + Twine(Round) + ": " + Summary);
    Report += "- Round " + std::to_string(Round) + ": " + Summary + ".\n";
    return Error::success();
  }

  learn::FlipScope flipScope() const {
    return Recipe.FlipScope == "inline-only"      ? learn::FlipScope::InlineOnly
           : Recipe.FlipScope == "no-inline-only" ? learn::FlipScope::NoInlineOnly
                                                  : learn::FlipScope::Both;
  }
  /// Whether a decision whose heuristic default is \p Default may be
  /// inverted.
  bool inScope(bool Default) const {
    return Recipe.FlipScope == "both" ||
           (Recipe.FlipScope == "inline-only") == Default;
  }

  /// The scorer's float logit (as the shipped model computes it) on every
  /// decision of Trajectories that may be inverted (or, with
  /// \p HeuristicInlines, on every inline of the heuristic), sorted from the
  /// highest.
  Expected<std::vector<float>>
  scoreTrajectories(const Model &G, bool HeuristicInlines = false) {
    size_t Width = FeatureNames.size();
    std::vector<size_t> Column;
    for (const ModelInput &In : G.Inputs) {
      auto It = llvm::find(FeatureNames, In.Spec.name());
      if (It == FeatureNames.end())
        return makeError("the scorer reads '" + In.Spec.name() +
                         "', which the logs do not have");
      Column.push_back(It - FeatureNames.begin());
    }
    ModelEvaluator E(G);
    std::vector<int64_t> Values(Column.size());
    std::vector<const void *> Ptrs;
    for (int64_t &V : Values)
      Ptrs.push_back(&V);
    std::vector<float> Scores;
    for (auto &[M, T] : Trajectories)
      for (size_t R = 0; R + Width <= T.size(); R += Width) {
        bool Default = T[R + DefaultColumn] != 0;
        if (HeuristicInlines ? !Default : !inScope(Default))
          continue;
        for (size_t K = 0; K < Column.size(); ++K)
          Values[K] = int64_t(T[R + Column[K]]);
        Scores.push_back(E.evaluate(Ptrs.data()));
      }
    if (Scores.empty())
      return makeError("no training decisions to rank");
    llvm::sort(Scores, std::greater<float>());
    return Scores;
  }

  /// Added to the epoch on the imitation curve (the epochs of earlier
  /// counterfactual rounds).
  unsigned EpochOffset = 0;

  /// Weight of a counterfactual row whose inversion left .text unchanged.
  static constexpr float ZeroFlipWeight = 0.5f;

  /// Row weight of an inversion that changed module \p M's .text by
  /// \p Delta bytes: the bytes, or (flip_weight "module-relative") the bytes
  /// scaled by the mean -Oz .text of the training modules over M's, so that
  /// every module's relative change counts alike whatever its size.
  float flipWeight(int64_t Delta, size_t M) const {
    if (Delta == 0)
      return ZeroFlipWeight;
    double W = double(std::abs(Delta));
    if (Recipe.FlipWeight == "module-relative")
      W *= MeanTrainingText / double(std::max<uint64_t>(Baseline[M], 1));
    return float(std::min(W, Recipe.FlipWeightCap));
  }
  /// The mean -Oz .text of the training modules (set by baseline()).
  double MeanTrainingText = 0;

  /// The inversion CSVs (counterfactuals*.csv), for whoever wants to study
  /// them: the given leading columns, then the features at the decision.
  std::string inversionsHeader(StringRef Columns) const {
    std::string CSV = Columns.str();
    for (const std::string &F : FeatureNames)
      CSV += "," + F;
    return CSV + "\n";
  }
  static void appendInversion(std::string &CSV, StringRef Leading,
                              ArrayRef<float> Row) {
    CSV += Leading;
    for (float V : Row)
      CSV += "," + std::to_string(int64_t(V));
    CSV += "\n";
  }

  Error writeWorkFile(StringRef Name, StringRef Text) const {
    return learn::writeFileAtomically(workFile(Name),
                                      arrayRefFromStringRef(Text));
  }

  /// Trains the classifier (or scorer) on \p D, checkpointing every epoch
  /// to <work>/\p CheckpointName.
  Expected<Model> imitate(const learn::Dataset &D,
                          StringRef CheckpointName = "classifier.ckpt") {
    learn::ClassifierOptions CO;
    CO.Hidden = Recipe.Hidden;
    CO.Epochs = Recipe.Epochs;
    CO.BatchSize = Recipe.BatchSize;
    CO.Optimizer.LearningRate = Recipe.LearningRate;
    CO.L2 = Recipe.L2;
    CO.Seed = Recipe.Seed;
    CO.ResidualFeature = "inlining_default";
    CO.Metadata.Name = Recipe.Name;
    CO.Metadata.Description = Recipe.Description;
    CO.Metadata.LLVMVersion = "19";
    CO.Metadata.FeatureSet = "llvm19-inline+mlgo-extra";
    CO.Metadata.Recipe = "mlgo train --recipe (" + Recipe.Mode + ")";
    auto T = learn::ClassifierTrainer::create(D, CO);
    if (!T)
      return T.takeError();
    // The rows that matter: in search-imitate mode the departures from the
    // heuristic, in counterfactual mode the inversions that shrank .text.
    // How many of them the classifier gets right is logged as their recall.
    bool Counterfactual = isCounterfactual();
    int64_t DefaultF = D.getFeatureIndex("inlining_default");
    std::string Ckpt = workFile(CheckpointName);
    if (sys::fs::exists(Ckpt)) {
      Expected<learn::Checkpoint> C = learn::Checkpoint::load(Ckpt);
      if (!C)
        return C.takeError();
      Expected<std::string> Key = C->getBytes("dataset_hash");
      if (Key && *Key == hashDataset(D)) {
        if (Error E = (*T)->loadState(*C))
          return E;
        if (Error E = EpochCurve.loadState(*C))
          return E;
        log("imitate: resumed at epoch " + Twine((*T)->getEpoch()));
      } else if (!Key) {
        consumeError(Key.takeError());
      }
    }
    while (!(*T)->isDone()) {
      learn::EpochStats S = (*T)->runEpoch();
      double Hit = 0, Total = 0;
      for (size_t I = 0; I < D.size(); ++I) {
        bool Target = Counterfactual
                          ? D.label(I) != 0
                          : (D.feature(I, DefaultF) != 0) != (D.label(I) != 0);
        if (!Target)
          continue;
        Total += 1;
        Hit += ((*T)->predictLogit(D.row(I)) > 0) == (D.label(I) != 0);
      }
      double Recall = Total ? 100.0 * Hit / Total : 0;
      EpochCurve.addPoint(EpochOffset + S.Epoch,
                          {S.Loss, 100 * S.Accuracy, Recall});
      log(formatv("imitate: epoch {0}: loss {1:F4}, accuracy {2:F2}%, {3} "
                  "recalled {4:F1}%",
                  S.Epoch, S.Loss, 100 * S.Accuracy,
                  Counterfactual ? "shrinking inversions" : "departures",
                  Recall)
              .str());
      learn::Checkpoint C;
      (*T)->saveState(C);
      EpochCurve.saveState(C);
      C.setBytes("dataset_hash", hashDataset(D));
      if (Error E = C.save(Ckpt))
        return E;
    }
    return (*T)->exportModel();
  }

  static std::string hashDataset(const learn::Dataset &D) {
    std::vector<uint8_t> Bytes = D.serialize();
    MD5::MD5Result R = MD5::hash(Bytes);
    return std::string(R.digest());
  }

  /// Total .text of \p Set under \p P (\p Linked: each package's objects
  /// linked together; otherwise summed), and the mean reward.
  struct Totals {
    uint64_t Policy = 0, Baseline = 0;
    double MeanReward = 0;
    /// The errors of the modules that failed to compile (each names its
    /// module); they are in neither total.
    std::vector<std::string> Failures;
    double pct() const {
      return pctChange(Baseline, Policy);
    }
    /// "; N modules failed ..." for a report line, or nothing.
    std::string failedClause() const {
      if (Failures.empty())
        return "";
      bool One = Failures.size() == 1;
      return formatv("; {0} module{1} failed to compile and {2} left out of "
                     "both totals",
                     Failures.size(), One ? "" : "s", One ? "is" : "are")
          .str();
    }
  };
  Totals evaluate(ArrayRef<size_t> Set, const Policy &P, StringRef What,
                  PackageSizes *PerPackage = nullptr) {
    return evaluate(Set, P, What, PerPackage, linkedTotals());
  }
  Totals evaluate(ArrayRef<size_t> Set, const Policy &P, StringRef What,
                  PackageSizes *PerPackage, bool Linked) {
    std::vector<std::pair<size_t, Policy>> Req;
    for (size_t M : Set)
      Req.push_back({M, P});
    std::vector<CompileCache::Entry> R = compile(Req, What);
    Totals T;
    for (size_t K = 0; K < Set.size(); ++K) {
      size_t M = Set[K];
      if (!R[K].Ok) {
        T.Failures.push_back(R[K].Error);
        log("evaluation compile failed: " + R[K].Error);
        continue;
      }
      uint64_t Size = sizeOf(M, R[K]);
      T.MeanReward += getReward(Size, Baseline[M], Recipe.Delta);
      if (Linked)
        continue;
      // Summed objects: each module's own code, whatever the size measure
      // (StockText is filled when either measure is "package"; otherwise
      // Baseline is the -Oz object's code).
      uint64_t Stock = StockText.empty() ? Baseline[M] : StockText[M];
      T.Policy += R[K].TextSize;
      T.Baseline += Stock;
      if (PerPackage)
        addPackageSizes(*PerPackage, Modules[M].Package, Stock, R[K].TextSize);
    }
    // Linked totals are exact, each package's objects linked together,
    // under -Oz and under the policy (modules that failed are in neither).
    if (Linked) {
      std::map<std::string, std::vector<size_t>> ByPackage;
      for (size_t K = 0; K < Set.size(); ++K)
        if (R[K].Ok)
          ByPackage[Modules[Set[K]].Package].push_back(K);
      for (const auto &[Package, Ks] : ByPackage) {
        std::vector<std::pair<uint64_t, const std::vector<GroupedSection> *>>
            Stock, Policy;
        for (size_t K : Ks) {
          Stock.push_back({StockText[Set[K]], &StockGrouped[Set[K]]});
          Policy.push_back({R[K].TextSize, &R[K].Grouped});
        }
        // As a linker keeps them (mlgo::getCodeOnce, by name hash).
        uint64_t Base = getCodeOnce<uint64_t>(Stock),
                 Size = getCodeOnce<uint64_t>(Policy);
        T.Baseline += Base;
        T.Policy += Size;
        if (PerPackage)
          addPackageSizes(*PerPackage, Package, Base, Size);
      }
    }
    if (!Set.empty())
      T.MeanReward /= Set.size();
    return T;
  }

  /// The rows round 1's scorer (or the classifier) learns from: the single
  /// inversions of the heuristic (counterfactual), or the decisions of the
  /// best trajectories the search found (search-imitate; bc: the
  /// heuristic's own).
  Expected<learn::Dataset> gatherRows() {
    if (isCounterfactual())
      return counterfactual();
    search();
    Expected<learn::Dataset> D = collect();
    if (!D)
      return D.takeError();
    // Departures by direction: inlines the heuristic refused, and the
    // heuristic's inlines refused.
    size_t Added = 0, Refused = 0;
    int64_t DefaultF = D->getFeatureIndex("inlining_default");
    for (size_t I = 0; I < D->size(); ++I) {
      bool Default = D->feature(I, DefaultF) != 0, Applied = D->label(I) != 0;
      Added += Applied && !Default;
      Refused += Default && !Applied;
    }
    log("imitate: " + Twine(D->size()) + " decisions, " +
        Twine(Added + Refused) + " departures from the heuristic");
    Report += formatv("- Imitation data: {0} decisions from {1} modules, {2} "
                      "departures from the heuristic ({3} inlines it "
                      "refused, {4} of its inlines refused).\n",
                      D->size(), Train.size(), Added + Refused, Added, Refused)
                  .str();
    return D;
  }

  /// The candidates of every round, the heuristic itself first.
  std::vector<Candidate> Candidates;
  /// The scorer (or classifier) of each round; a candidate names its round.
  std::vector<Model> Scorers;

  /// Trains round 1's scorer on \p D and adds its candidates, after the
  /// heuristic itself; then each further counterfactual round (DAgger)
  /// adds its rows to \p D, around the previous round's policy at
  /// dagger_fraction (default: its largest flip fraction), retrains the
  /// scorer from scratch and adds that round's candidates.
  Error trainRounds(learn::Dataset &D) {
    Expected<Model> Trained = imitate(D);
    if (!Trained)
      return Trained.takeError();
    // The heuristic itself, as a model (any scorer that reads
    // inlining_default raw will do): the fallback when every learned
    // candidate breaks the per-package limit.
    if (Expected<Model> H =
            learn::buildFlipPolicy(*Trained, learn::NeverFlip)) {
      H->Metadata.Recipe += ", never inverting the heuristic";
      Candidates.push_back(
          {"heuristic (nothing inverted)", 0, std::move(*H), std::nullopt, 0});
    } else {
      log("select: no heuristic fallback: " + toString(H.takeError()));
    }
    Scorers.push_back(std::move(*Trained));
    if (Error E = addCandidates())
      return E;
    for (unsigned Round = 2;
         isCounterfactual() && Round <= Recipe.CounterfactualRounds; ++Round) {
      const Candidate *Around = nullptr;
      for (const Candidate &C : Candidates)
        if (C.Param && !C.RefuseFraction && C.Scorer == Round - 2 &&
            (Recipe.DaggerFraction ? C.X == 10000 * Recipe.DaggerFraction
                                   : !Around || C.X > Around->X))
          Around = &C;
      if (!Around)
        return makeError("counterfactual round " + Twine(Round) +
                         ": the previous round has no candidate policy");
      log("round " + Twine(Round) + ": counterfactuals around '" +
          Around->Label + "'");
      if (Error E = counterfactualAround(Around->M, Around->Label, Round, D))
        return E;
      EpochOffset += Recipe.Epochs;
      Expected<Model> G =
          imitate(D, ("classifier-round" + Twine(Round) + ".ckpt").str());
      if (!G)
        return G.takeError();
      Scorers.push_back(std::move(*G));
      if (Error E = addCandidates())
        return E;
    }
    return Error::success();
  }

  /// Adds the candidates of the latest scorer, round Scorers.size(): the
  /// classifier at each threshold, or (counterfactual) the heuristic
  /// inverted where the scorer ranks a decision among the top fraction of
  /// the training decisions. The last one added has the largest flip
  /// fraction.
  Error addCandidates() {
    unsigned Round = Scorers.size();
    const Model &G = Scorers.back();
    std::string Prefix = Recipe.CounterfactualRounds > 1
                             ? formatv("round {0}: ", Round).str()
                             : "";
    if (!isCounterfactual()) {
      for (float Th : Recipe.Thresholds) {
        Model M = G;
        M.Decision.Threshold = Th;
        Candidates.push_back({formatv("threshold {0}", Th).str(), Th,
                              std::move(M), Th, Round - 1});
      }
      return Error::success();
    }
    Expected<std::vector<float>> Scores = scoreTrajectories(G);
    if (!Scores)
      return Scores.takeError();
    Expected<std::vector<float>> InlineScores = std::vector<float>();
    if (!Recipe.RefuseFractions.empty())
      InlineScores = scoreTrajectories(G, /*HeuristicInlines=*/true);
    if (!InlineScores)
      return InlineScores.takeError();
    // The tau that lets the top fraction F of the sorted scores S through.
    auto TauAt = [](const std::vector<float> &S, double F) {
      return S[std::min(size_t(F * S.size()), S.size() - 1)];
    };
    // Adds the candidate inverting the top F of the decisions in scope and,
    // if RF > 0, refusing the top RF of the heuristic's inlines.
    auto AddFlip = [&](double F, double RF) -> Error {
      // A flip fraction that is no decision at all inverts none.
      float Tau = size_t(F * Scores->size()) == 0 ? learn::NeverFlip
                                                  : TauAt(*Scores, F);
      float TauInline = RF ? TauAt(*InlineScores, RF) : learn::NeverFlip;
      Expected<Model> P =
          RF ? learn::buildFlipPolicyPerBranch(G, Tau, TauInline)
             : learn::buildFlipPolicy(G, Tau, "inlining_default", flipScope());
      if (!P)
        return P.takeError();
      P->Metadata.Recipe +=
          RF ? formatv(", inlining where the heuristic refuses and the scorer "
                       "exceeds {0} (top {1}% of its training refusals), and "
                       "refusing where it inlines and the scorer exceeds {2} "
                       "(top {3}% of its training inlines)",
                       Tau, 100 * F, TauInline, 100 * RF)
                   .str()
             : formatv(", inverting the heuristic where the scorer exceeds "
                       "{0} (top {1}% of training decisions)",
                       Tau, 100 * F)
                   .str();
      if (Round > 1)
        P->Metadata.Recipe +=
            formatv(", scorer of counterfactual round {0}", Round).str();
      std::string Label =
          !RF ? formatv("{0}top {1}% inverted", Prefix, 100 * F).str()
          : F ? formatv("{0}top {1}% inverted, top {2}% of inlines refused",
                        Prefix, 100 * F, 100 * RF)
                    .str()
              : formatv("{0}top {1}% of inlines refused", Prefix, 100 * RF)
                    .str();
      Candidates.push_back(
          {Label, 10000 * F, std::move(*P), Tau, Round - 1, RF});
      return Error::success();
    };
    for (double F : Recipe.FlipFractions)
      if (size_t(F * Scores->size()) != 0) // 0: the heuristic, already one.
        if (Error E = AddFlip(F, 0))
          return E;
    // The grid: each flip fraction (and none) with each fraction of the
    // heuristic's inlines refused, ranked by the same scorer.
    std::vector<double> Fractions = {0};
    llvm::append_range(Fractions, Recipe.FlipFractions);
    for (double F : Fractions)
      for (double RF : Recipe.RefuseFractions)
        if (Error E = AddFlip(F, RF))
          return E;
    return Error::success();
  }

  /// Where candidates are chosen: validation or, with no validation
  /// packages, training.
  ArrayRef<size_t> selectionSet() const {
    return Validation.empty() ? Train : Validation;
  }
  StringRef selectionName() const {
    return Validation.empty() ? "training" : "validation";
  }

  /// Compiles \p Cand on the selection set, keeps it in <work>/candidates/
  /// (named after its label, so that any candidate can be evaluated or
  /// shipped by hand), logs and reports it, and says whether the
  /// per-package limit allows it. Sets \p Tot to its totals.
  bool judge(const Candidate &Cand, Totals &Tot) {
    std::string File;
    for (char C : Cand.Label)
      File += isAlnum(C) || C == '.' ? C : '-';
    if (Error E = Cand.M.save(workFile("candidates/" + File + ".json")))
      log("cannot keep candidate '" + Cand.Label +
          "': " + toString(std::move(E)));
    PackageSizes PerPkg;
    StringRef SelectName = selectionName();
    Tot = evaluate(selectionSet(), Policy::model(Cand.M.toJSONString()),
                   (SelectName + " " + Cand.Label).str(), &PerPkg);
    double Worst = -100;
    std::string WorstPkg;
    for (auto &[Pkg, V] : PerPkg) {
      double Pct = pctChange(V.first, V.second);
      if (Pct > Worst) {
        Worst = Pct;
        WorstPkg = Pkg;
      }
    }
    if (PerPkg.empty()) {
      // Every module failed: there is no package to name.
      Worst = 0;
      WorstPkg = "none";
    }
    bool Allowed = Tot.Failures.empty() && Worst <= Recipe.MaxPackageRegression;
    log(formatv("select: {0}: {1} .text {2:F3}% vs -Oz (mean reward {3:F5}, "
                "worst package {4} {5:F2}%, {6} failed){7}",
                Cand.Label, SelectName, Tot.pct(), Tot.MeanReward, WorstPkg,
                Worst, Tot.Failures.size(), Allowed ? "" : " - not allowed")
            .str());
    Report +=
        formatv("- {0}: {1} .text {2} bytes vs -Oz {3} ({4:F3}%), "
                "mean reward {5:F5}, worst package {6} ({7:F2}%){8}{9}.\n",
                Cand.Label, SelectName, Tot.Policy, Tot.Baseline, Tot.pct(),
                Tot.MeanReward, WorstPkg, Worst, Tot.failedClause(),
                Allowed ? "" : "; not allowed")
            .str();
    SelectCurve.addPoint(uint64_t(std::lround(Cand.X < 0 ? 0 : Cand.X)),
                         {Tot.pct(), Worst});
    return Allowed;
  }

  /// Model selection: of the candidates that make no package of the
  /// selection set worse than -Oz by more than max_package_regression
  /// percent, the one with the smallest total .text. With es_iterations,
  /// evolution strategies first tune the learned candidate with the
  /// smallest .text (allowed or not), and the result competes too. Returns
  /// the index of the chosen candidate.
  Expected<size_t> select() {
    if (std::error_code EC =
            sys::fs::create_directories(workFile("candidates")))
      return makeError(workFile("candidates") + ": " + EC.message());
    std::optional<size_t> Best, Smallest;
    uint64_t BestSize = 0, SmallestSize = 0;
    auto Consider = [&](size_t C) {
      Totals Tot;
      bool Allowed = judge(Candidates[C], Tot);
      if (Allowed && (!Best || Tot.Policy < BestSize)) {
        Best = C;
        BestSize = Tot.Policy;
      }
      return Tot.Policy;
    };
    for (size_t C = 0; C < Candidates.size(); ++C) {
      uint64_t Size = Consider(C);
      if (Candidates[C].Param && !Candidates[C].RefuseFraction &&
          (!Smallest || Size < SmallestSize)) {
        Smallest = C;
        SmallestSize = Size;
      }
    }
    if (Recipe.ESIterations && Smallest) {
      Expected<Candidate> Tuned =
          evolve(Scorers[Candidates[*Smallest].Scorer], Candidates[*Smallest]);
      if (!Tuned)
        return Tuned.takeError();
      Candidates.push_back(std::move(*Tuned));
      Consider(Candidates.size() - 1);
    }
    if (!Best)
      return makeError("no candidate model compiles every " + selectionName() +
                       " module within the per-package limit");
    return *Best;
  }

  /// The chosen model on the validation and the training packages.
  struct Outcome {
    Totals Val, Train;
    PackageSizes ValPkg, TrainPkg;
    /// Validation in the other way of counting (objects summed, or linked),
    /// when the compiles carry what it needs.
    std::optional<Totals> ValOther;
    /// Training packages over the per-package limit, as the report names
    /// them.
    std::string TrainOver;
  };

  /// Evaluates the chosen model \p M on validation and training and writes
  /// it to the output file, recording the corpus fingerprint in it.
  Expected<Outcome> saveChosen(Model &M) {
    Outcome O;
    Policy Chosen = Policy::model(M.toJSONString());
    O.Val = evaluate(Validation, Chosen, "validation", &O.ValPkg);
    O.Train = evaluate(Train, Chosen, "training", &O.TrainPkg);
    // Linked totals need the grouped sections: either measure "package".
    if (needGrouped() && !Validation.empty())
      O.ValOther =
          evaluate(Validation, Chosen, "validation", nullptr, !linkedTotals());
    // Recorded after the evaluations above, whose compile-cache keys
    // include the model text: the chosen model's compiles are already
    // cached.
    M.Metadata.CorpusHash = CorpusFingerprint;
    if (Error E = M.save(Options.OutputModel))
      return E;
    O.TrainOver = packagesOverLimit(O.TrainPkg, Recipe.MaxPackageRegression);
    if (!O.TrainOver.empty())
      log("warning: the chosen model makes training packages larger than "
          "-Oz by more than the per-package limit: " +
          O.TrainOver);
    return O;
  }

  /// Writes report.md (and, verbose, prints it) and the learning curves.
  Error writeReport(StringRef ChosenLabel, const Outcome &O, double Minutes) {
    std::string R;
    raw_string_ostream OS(R);
    OS << "# mlgo train report: " << Recipe.Name << "\n\n"
       << "- Mode: " << Recipe.Mode << ", seed " << Recipe.Seed << "; corpus "
       << Options.CorpusDir << "; " << Train.size() << " training and "
       << Validation.size() << " validation modules; corpus fingerprint "
       << CorpusFingerprint << ".\n"
       << (Validation.empty() ? "- Warning: the recipe holds out no "
                                "validation packages; the model was chosen "
                                "on the modules it was trained on.\n"
                              : "")
       << (Recipe.SizeMeasure == "package"
               ? "- Size measure: package. A module's reward and an "
                 "inversion's label count only the code the module adds to "
                 "its package: not the C++ inline or template functions "
                 "(COMDAT groups) another module of the package has at "
                 "-Oz.\n"
               : "")
       << (Recipe.SizeMeasure == "amortized"
               ? "- Size measure: amortized. A module's reward and an "
                 "inversion's label count each C++ inline or template "
                 "function (COMDAT group) divided by the number of the "
                 "package's modules holding a copy.\n"
               : "")
       << (linkedTotals()
               ? "- Selection measure: package. Totals are of each package's "
                 "objects linked together, every C++ inline or template "
                 "function (COMDAT group) once, as a linker keeps it.\n"
               : "")
       << Report
       << formatv("- Chosen: {0} (on {1}).\n", ChosenLabel, selectionName())
       << formatv("- Validation: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                  O.Val.Policy, O.Val.Baseline, O.Val.pct(),
                  O.Val.failedClause())
       << (O.ValOther ? formatv("- Validation, {0}: .text {1} bytes vs -Oz {2} "
                                "({3:F3}%).\n",
                                linkedTotals() ? "objects summed"
                                               : "each package linked together",
                                O.ValOther->Policy, O.ValOther->Baseline,
                                O.ValOther->pct())
                            .str()
                      : "")
       << formatv("- Training: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                  O.Train.Policy, O.Train.Baseline, O.Train.pct(),
                  O.Train.failedClause())
       << (O.TrainOver.empty()
               ? ""
               : formatv("- Warning: the chosen model makes training packages "
                         "larger than -Oz by more than {0}%, which selection "
                         "(on validation) cannot see: {1}.\n",
                         Recipe.MaxPackageRegression, O.TrainOver)
                     .str())
       << formatv("- Wall-clock time of this invocation: {0:F1} min (cached "
                  "compiles are replayed, not redone).\n\n",
                  Minutes);
    auto Table = [&](StringRef Title, const PackageSizes &Map) {
      OS << "## " << Title
         << "\n\n| package | -Oz .text | model .text | change |\n"
         << "|---|---:|---:|---:|\n";
      for (auto &[Pkg, V] : Map)
        OS << "| " << Pkg << " | " << V.first << " | " << V.second << " | "
           << formatv("{0:F2}%", pctChange(V.first, V.second)) << " |\n";
      OS << "\n";
    };
    Table("Validation packages", O.ValPkg);
    Table("Training packages", O.TrainPkg);
    if (!LeftOut.empty() || !O.Val.Failures.empty() ||
        !O.Train.Failures.empty()) {
      OS << "## Failed compiles\n\n"
         << "These modules are in neither column of the tables above. A "
            "timeout or a killed worker is not cached: rerunning the same "
            "command compiles them again.\n\n";
      auto List = [&](StringRef Prefix, ArrayRef<std::string> Errors) {
        for (const std::string &E : Errors)
          OS << "- " << Prefix << E << "\n";
      };
      List("left out, ", LeftOut);
      List("validation, chosen model: ", O.Val.Failures);
      List("training, chosen model: ", O.Train.Failures);
      OS << "\n";
    }
    if (Error E = writeWorkFile("report.md", R))
      return E;
    std::vector<std::pair<const learn::LearningCurve *, StringRef>> Curves = {
        {&SearchCurve, "search-curve"}, {&EpochCurve, "imitation-curve"}};
    if (Recipe.ESIterations)
      Curves.push_back({&ESCurve, "es-curve"});
    Curves.push_back({&SelectCurve, "selection-curve"});
    for (auto [Curve, Stem] : Curves)
      if (Error E = Curve->save(workFile(Stem)))
        return E;
    if (Options.Verbose)
      errs() << R;
    return Error::success();
  }
};

} // namespace

Error runTraining(const TrainRecipe &Recipe, const TrainOptions &Options) {
  auto Start = std::chrono::steady_clock::now();
  if (std::error_code EC = sys::fs::create_directories(Options.WorkDir))
    return makeError(Options.WorkDir + ": " + EC.message());
  WorkerPoolOptions PO;
  PO.Workers = Recipe.Workers;
  PO.TimeoutSeconds = Recipe.TimeoutSeconds;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  Trainer T(Recipe, Options, **Pool);
  // The recipe as run, every key explicit (defaults and --jobs filled in),
  // so that the run can be repeated from the work directory alone.
  if (Error E = T.writeWorkFile("recipe.json",
                                formatv("{0:2}\n", Recipe.toJSON()).str()))
    return E;
  if (Error E = T.Cache.open(T.workFile("compiles.tsv")))
    return E;
  if (Error E = T.loadCorpus())
    return E;
  if (Error E = T.baseline())
    return E;
  Expected<learn::Dataset> D = T.gatherRows();
  if (!D)
    return D.takeError();
  if (Error E = T.trainRounds(*D))
    return E;
  Expected<size_t> Best = T.select();
  if (!Best)
    return Best.takeError();
  Candidate &Chosen = T.Candidates[*Best];
  Expected<Trainer::Outcome> O = T.saveChosen(Chosen.M);
  if (!O)
    return O.takeError();
  double Minutes =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count() /
      60;
  return T.writeReport(Chosen.Label, *O, Minutes);
}

std::string packagesOverLimit(const PackageSizes &Sizes, double LimitPct) {
  std::string Out;
  for (auto &[Pkg, V] : Sizes) {
    double Pct = pctChange(V.first, V.second);
    if (Pct <= LimitPct)
      continue;
    Out += (Out.empty() ? "" : ", ") + Pkg + formatv(" (+{0:F2}%)", Pct).str();
  }
  return Out;
}

} // namespace mlgo
