//===- lib/Train/Trainer.cpp - Training an inlining-for-size policy -------===//
//
// runTraining and the phases every mode shares: the corpus split, compiles
// through the cache, the baseline, totals on a set of modules, and the
// rounds of scorers. The other phases are in the files TrainerImpl.h lists;
// what they do is described in mlgo/Train/Trainer.h.
//
// Everything that costs a compile goes through CompileCache, an append-only
// text file of results keyed by (module content, policy), so that a rerun
// after an interruption replays finished work from the file instead of
// compiling it again.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Learn/Classifier.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace llvm;

namespace mlgo {

double getReward(uint64_t PolicySize, uint64_t BaselineSize, double Delta) {
  double Den = double(BaselineSize) + Delta;
  if (Den == 0)
    return PolicySize == 0 ? 0.0 : -1.0;
  return 1.0 - (double(PolicySize) + Delta) / Den;
}

static std::string cacheKey(const CorpusModule &M, const CompilePolicy &P) {
  MD5 Hash;
  Hash.update(M.ContentHash);
  Hash.update(P.getKey());
  MD5::MD5Result R;
  Hash.final(R);
  return std::string(R.digest());
}

uint64_t Trainer::sizeOf(size_t M, const CompileCache::Entry &E) const {
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

void Trainer::countGroupCopies(ArrayRef<CompileCache::Entry> Stock) {
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

std::vector<CompileCache::Entry>
Trainer::compile(ArrayRef<std::pair<size_t, CompilePolicy>> Requests,
                 StringRef What) {
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

Error Trainer::loadCorpus() {
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
    (Val.contains(Mod.Package) ? Validation : Train).push_back(Modules.size());
    Modules.push_back(std::move(Mod));
  }
  for (const std::string &P : Recipe.ValidationPackages)
    if (!Seen.contains(P))
      return makeError("validation package '" + P +
                       "' is not in the corpus at '" + Options.CorpusDir + "'");
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

Error Trainer::baseline() {
  std::vector<std::pair<size_t, CompilePolicy>> Req;
  for (size_t I = 0; I < Modules.size(); ++I)
    Req.push_back({I, CompilePolicy::stock()});
  for (size_t I = 0; I < Modules.size(); ++I)
    Req.push_back({I, CompilePolicy::heuristic()});
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

Error Trainer::writeWorkFile(StringRef Name, StringRef Text) const {
  return learn::writeFileAtomically(workFile(Name),
                                    arrayRefFromStringRef(Text));
}

/// The MD5 of \p D's serialized rows: a checkpoint records the rows it was
/// trained on, and is resumed only on the same rows.
static std::string hashDataset(const learn::Dataset &D) {
  std::vector<uint8_t> Bytes = D.serialize();
  MD5::MD5Result R = MD5::hash(Bytes);
  return std::string(R.digest());
}

Expected<Model> Trainer::imitate(const learn::Dataset &D,
                                 StringRef CheckpointName) {
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
                Counterfactual ? "shrinking inversions" : "departures", Recall)
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

Trainer::Totals Trainer::evaluate(ArrayRef<size_t> Set, const CompilePolicy &P,
                                  StringRef What, PackageSizes *PerPackage) {
  return evaluate(Set, P, What, PerPackage, linkedTotals());
}

Trainer::Totals Trainer::evaluate(ArrayRef<size_t> Set, const CompilePolicy &P,
                                  StringRef What, PackageSizes *PerPackage,
                                  bool Linked) {
  std::vector<std::pair<size_t, CompilePolicy>> Req;
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

Expected<learn::Dataset> Trainer::gatherRows() {
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
  log("imitate: " + Twine(D->size()) + " decisions, " + Twine(Added + Refused) +
      " departures from the heuristic");
  Report += formatv("- Imitation data: {0} decisions from {1} modules, {2} "
                    "departures from the heuristic ({3} inlines it "
                    "refused, {4} of its inlines refused).\n",
                    D->size(), Train.size(), Added + Refused, Added, Refused)
                .str();
  return D;
}

Error Trainer::trainRounds(learn::Dataset &D) {
  Expected<Model> Trained = imitate(D);
  if (!Trained)
    return Trained.takeError();
  // The heuristic itself, as a model (any scorer that reads
  // inlining_default raw will do): the fallback when every learned
  // candidate breaks the per-package limit.
  if (Expected<Model> H = learn::buildFlipPolicy(*Trained, learn::NeverFlip)) {
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
    log("round " + Twine(Round) + ": counterfactuals around '" + Around->Label +
        "'");
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
    double Pct = percentChange(V.first, V.second);
    if (Pct <= LimitPct)
      continue;
    Out += (Out.empty() ? "" : ", ") + Pkg + formatv(" (+{0:F2}%)", Pct).str();
  }
  return Out;
}

} // namespace mlgo
