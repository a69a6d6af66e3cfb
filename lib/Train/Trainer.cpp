//===- lib/Train/Trainer.cpp - Training an inlining-for-size policy -------===//
//
// runTraining, whose body runs the phases in order and hands each the
// values the earlier ones returned, and the phases every mode shares: the
// baseline, totals on a set of modules, and the rounds of scorers. The
// other phases are in the files TrainerImpl.h lists; what they do is
// described in mlgo/Train/Trainer.h.
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
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace llvm;

namespace mlgo {
namespace trainer {

Expected<Baseline> baseline(Context &C, std::vector<size_t> Train,
                            std::vector<size_t> Validation) {
  const std::vector<CorpusModule> &Modules = C.Modules;
  std::vector<ModuleRequest> Req;
  for (size_t I = 0; I < Modules.size(); ++I)
    Req.push_back({I, CompilePolicy::stock()});
  for (size_t I = 0; I < Modules.size(); ++I)
    Req.push_back({I, CompilePolicy::heuristic()});
  Expected<std::vector<CompileCache::Entry>> R = C.compile(Req, "baseline");
  if (!R)
    return R.takeError();
  size_t N = Modules.size();
  std::vector<std::string> Packages;
  for (const CorpusModule &M : Modules)
    Packages.push_back(M.Package);
  BaselineResult Measured =
      measureBaseline(std::move(Packages), ArrayRef(*R).take_front(N),
                      ArrayRef(*R).drop_front(N), C.Recipe.SizeMeasure,
                      C.Recipe.getSelectionMeasure());
  // Which modules the later phases work on, before Measured is taken
  // apart.
  KeptModules Kept =
      keepMeasured(Measured, std::move(Train), std::move(Validation));
  Baseline B;
  B.Measure = std::move(Measured.Measure);
  B.Sizes = std::move(Measured.Baseline);
  B.HeuristicSize = std::move(Measured.HeuristicSize);
  B.HeuristicDecisions = std::move(Measured.HeuristicDecisions);
  B.LeftOut = std::move(Measured.LeftOut);
  for (const std::string &E : B.LeftOut)
    C.log("baseline: left out: " + E);
  B.Train = std::move(Kept.Train);
  B.Validation = std::move(Kept.Validation);
  B.MeanTrainingText = Kept.MeanTrainingText;
  if (B.Train.empty())
    return makeError("no training module compiles: " + B.LeftOut.front());
  C.log("baseline: " + Twine(Measured.Mismatch) +
        " modules where mlgo's advisor with LLVM's heuristic differs from "
        "stock -Oz");
  C.Record.Report +=
      formatv("- Heuristic through mlgo's advisor vs stock -Oz: {0} of "
              "{1} modules differ in .text.\n",
              Measured.Mismatch, N - B.LeftOut.size())
          .str();
  if (!B.LeftOut.empty())
    C.Record.Report +=
        formatv("- Left out: {0} module{1} whose -Oz or heuristic "
                "compile failed (see Failed compiles).\n",
                B.LeftOut.size(), B.LeftOut.size() == 1 ? "" : "s")
            .str();
  return B;
}

Error Context::writeWorkFile(StringRef Name, StringRef Text) const {
  return writeFileAtomically(workFile(Name), Text);
}

/// The MD5 of \p D's serialized rows: a checkpoint records the rows it was
/// trained on, and is resumed only on the same rows.
static std::string hashDataset(const learn::Dataset &D) {
  std::vector<uint8_t> Bytes = D.serialize();
  MD5::MD5Result R = MD5::hash(Bytes);
  return std::string(R.digest());
}

Expected<Model> imitate(Context &C, const learn::Dataset &D,
                        unsigned EpochOffset, StringRef CheckpointName) {
  learn::ClassifierOptions CO;
  CO.Hidden = C.Recipe.Hidden;
  CO.Epochs = C.Recipe.Epochs;
  CO.BatchSize = C.Recipe.BatchSize;
  CO.Optimizer.LearningRate = C.Recipe.LearningRate;
  CO.L2 = C.Recipe.L2;
  CO.Seed = C.Recipe.Seed;
  CO.ResidualFeature = InlineDefaultFeatureName.str();
  CO.Metadata.Name = C.Recipe.Name;
  CO.Metadata.Description = C.Recipe.Description;
  CO.Metadata.LLVMVersion = "19";
  CO.Metadata.FeatureSet = "llvm19-inline+mlgo-extra";
  CO.Metadata.Recipe =
      ("mlgo train --recipe (" + getName(C.Recipe.Mode) + ")").str();
  // Off leaves the metadata as a recipe without the key has it.
  if (C.predictsInversions())
    CO.Metadata.Recipe +=
        (", predicted_inversions " + getName(C.Recipe.Predicted)).str();
  auto T = learn::ClassifierTrainer::create(D, CO);
  if (!T)
    return T.takeError();
  // The rows that matter: in search-imitate mode the departures from the
  // heuristic, in counterfactual mode the inversions that shrank .text.
  // How many of them the classifier gets right is logged as their recall.
  bool Counterfactual = C.isCounterfactual();
  int64_t DefaultF = D.getFeatureIndex(InlineDefaultFeatureName);
  std::string Ckpt = C.workFile(CheckpointName);
  if (sys::fs::exists(Ckpt)) {
    Expected<learn::Checkpoint> Saved = learn::Checkpoint::load(Ckpt);
    if (!Saved)
      return Saved.takeError();
    Expected<std::string> Key = Saved->getBytes("dataset_hash");
    if (Key && *Key == hashDataset(D)) {
      if (Error E = (*T)->loadState(*Saved))
        return E;
      if (Error E = C.Record.EpochCurve.loadState(*Saved))
        return E;
      C.log("imitate: resumed at epoch " + Twine((*T)->getEpoch()));
    } else if (!Key) {
      consumeError(Key.takeError());
    }
  }
  // One progress line for the epochs; each epoch's numbers are in the
  // imitation curve (imitation-curve.csv).
  Progress Shown("mlgo train: imitate", "epochs");
  std::string Last;
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
    C.Record.EpochCurve.addPoint(EpochOffset + S.Epoch,
                                 {S.Loss, 100 * S.Accuracy, Recall});
    Last =
        formatv(" (loss {0:F4}, accuracy {1:F2}%, {2} recalled {3:F1}%)",
                S.Loss, 100 * S.Accuracy,
                Counterfactual ? "shrinking inversions" : "departures", Recall)
            .str();
    if (C.Options.Verbose)
      Shown.update(S.Epoch, C.Recipe.Epochs);
    learn::Checkpoint Save;
    (*T)->saveState(Save);
    C.Record.EpochCurve.saveState(Save);
    Save.setBytes("dataset_hash", hashDataset(D));
    if (Error E = Save.save(Ckpt))
      return E;
  }
  Shown.end(Last);
  return (*T)->exportModel();
}

Expected<Totals> evaluate(Context &C, const Baseline &B, ArrayRef<size_t> Set,
                          const CompilePolicy &P, StringRef What,
                          PackageSizes *PerPackage) {
  return evaluate(C, B, Set, P, What, PerPackage,
                  C.Recipe.getSelectionMeasure());
}

Expected<Totals> evaluate(Context &C, const Baseline &B, ArrayRef<size_t> Set,
                          const CompilePolicy &P, StringRef What,
                          PackageSizes *PerPackage, TotalsKind Kind) {
  std::vector<ModuleRequest> Req;
  for (size_t M : Set)
    Req.push_back({M, P});
  Expected<std::vector<CompileCache::Entry>> R = C.compile(Req, What);
  if (!R)
    return R.takeError();
  for (const CompileCache::Entry &E : *R)
    if (!E.Ok)
      C.log("evaluation compile failed: " + E.Error);
  return totalSizes(Set, *R, B.Measure, B.Sizes, C.Recipe.Delta, Kind,
                    PerPackage);
}

Expected<Rows> gatherRows(Context &C, const Baseline &B) {
  if (C.isCounterfactual())
    return counterfactual(C, B);
  Expected<std::vector<std::vector<uint32_t>>> BestFlips = search(C, B);
  if (!BestFlips)
    return BestFlips.takeError();
  Expected<learn::Dataset> D = collect(C, B, *BestFlips);
  if (!D)
    return D.takeError();
  // Departures by direction: inlines the heuristic refused, and the
  // heuristic's inlines refused.
  size_t Added = 0, Refused = 0;
  int64_t DefaultF = D->getFeatureIndex(InlineDefaultFeatureName);
  for (size_t I = 0; I < D->size(); ++I) {
    bool Default = D->feature(I, DefaultF) != 0, Applied = D->label(I) != 0;
    Added += Applied && !Default;
    Refused += Default && !Applied;
  }
  C.log("imitate: " + Twine(D->size()) + " decisions, " +
        Twine(Added + Refused) + " departures from the heuristic");
  C.Record.Report +=
      formatv("- Imitation data: {0} decisions from {1} modules, {2} "
              "departures from the heuristic ({3} inlines it "
              "refused, {4} of its inlines refused).\n",
              D->size(), B.Train.size(), Added + Refused, Added, Refused)
          .str();
  return Rows{std::move(*D), {}};
}

Expected<Rounds> trainRounds(Context &C, const Baseline &B, Rows &R) {
  learn::Dataset &D = R.D;
  Rounds Out;
  // Added to the epoch on the imitation curve: the epochs of earlier
  // counterfactual rounds.
  unsigned EpochOffset = 0;
  Expected<Model> Trained = imitate(C, D, EpochOffset, "classifier.ckpt");
  if (!Trained)
    return Trained.takeError();
  // The heuristic itself, as a model (any scorer that reads
  // inlining_default raw will do): the fallback when every learned
  // candidate breaks the per-package limit.
  if (Expected<Model> H = learn::buildFlipPolicy(*Trained, learn::NeverFlip)) {
    H->Metadata.Recipe += ", never inverting the heuristic";
    Out.Candidates.push_back(
        {"heuristic (nothing inverted)", 0, std::move(*H), std::nullopt, 0});
  } else {
    C.log("select: no heuristic fallback: " + toString(H.takeError()));
  }
  // Adds the candidates of the latest scorer, round Scorers.size().
  auto AddCandidates = [&]() -> Error {
    Expected<std::vector<Candidate>> New = addCandidates(
        C, R.Trajectories, Out.Scorers.back(), Out.Scorers.size());
    if (!New)
      return New.takeError();
    for (Candidate &Cand : *New)
      Out.Candidates.push_back(std::move(Cand));
    return Error::success();
  };
  Out.Scorers.push_back(std::move(*Trained));
  if (Error E = AddCandidates())
    return E;
  for (unsigned Round = 2;
       C.isCounterfactual() && Round <= C.Recipe.CounterfactualRounds;
       ++Round) {
    const Candidate *Around = nullptr;
    for (const Candidate &Cand : Out.Candidates)
      if (Cand.Param && !Cand.RefuseFraction && Cand.Scorer == Round - 2 &&
          (C.Recipe.DaggerFraction ? Cand.X == 10000 * C.Recipe.DaggerFraction
                                   : !Around || Cand.X > Around->X))
        Around = &Cand;
    // A small corpus can leave a round without a candidate (no flip
    // fraction inverts one of its few decisions; the warnings above say
    // which): there is nothing to search around, so the rounds end there
    // and selection chooses among what there is.
    if (!Around) {
      std::string Why = ("counterfactual round " + Twine(Round) +
                         " and later skipped: round " + Twine(Round - 1) +
                         " has no candidate policy to search around")
                            .str();
      WithColor::warning(errs(), "mlgo train") << Why << "\n";
      C.Record.Report += "- Warning: " + Why + ".\n";
      break;
    }
    C.log("round " + Twine(Round) + ": counterfactuals around '" +
          Around->Label + "'");
    if (Error E =
            counterfactualAround(C, B, Around->M, Around->Label, Round, D))
      return E;
    EpochOffset += C.Recipe.Epochs;
    Expected<Model> G = imitate(
        C, D, EpochOffset, ("classifier-round" + Twine(Round) + ".ckpt").str());
    if (!G)
      return G.takeError();
    Out.Scorers.push_back(std::move(*G));
    if (Error E = AddCandidates())
      return E;
  }
  return Out;
}

} // namespace trainer

Error runTraining(const TrainRecipe &Recipe, const TrainOptions &Options) {
  auto Start = std::chrono::steady_clock::now();
  // The corpus first: a run that cannot start leaves no work directory.
  Expected<std::vector<CorpusModule>> Corpus =
      loadTrainingCorpus(Options.CorpusDir);
  if (!Corpus)
    return Corpus.takeError();
  Expected<CorpusSplit> Split =
      splitCorpus(std::move(*Corpus), Recipe, Options.CorpusDir);
  if (!Split)
    return Split.takeError();
  // The recipe as run, every key explicit (defaults and --jobs filled in),
  // so that the run can be repeated from the work directory alone.
  SmallString<256> RecipeFile(Options.WorkDir);
  sys::path::append(RecipeFile, "recipe.json");
  json::Value RecipeJSON = Recipe.toJSON();
  // A work directory holds one recipe's run: another recipe would replace
  // its report, model and candidates. The keys that do not change the
  // result (workers, timeout, and the notes, which the model does not
  // carry) may differ.
  if (sys::fs::exists(RecipeFile)) {
    Expected<json::Value> Old = readJSONFile(RecipeFile);
    if (!Old)
      return Old.takeError();
    std::vector<std::string> Differ;
    const json::Object *A = Old->getAsObject(), *B = RecipeJSON.getAsObject();
    if (!A)
      return makeError(RecipeFile + ": not a JSON object");
    StringSet<> Keys;
    for (const auto &KV : *A)
      Keys.insert(KV.first.str());
    for (const auto &KV : *B)
      Keys.insert(KV.first.str());
    for (const auto &K : Keys) {
      StringRef Key = K.getKey();
      if (Key == "workers" || Key == "timeout_seconds" || Key == "notes")
        continue;
      const json::Value *VA = A->get(Key), *VB = B->get(Key);
      if (!VA || !VB || *VA != *VB)
        Differ.push_back(Key.str());
    }
    llvm::sort(Differ);
    if (!Differ.empty())
      return makeError(Options.WorkDir +
                       " holds a run of another recipe (its recipe.json "
                       "differs in " +
                       join(Differ, ", ") +
                       "); give another --work-dir, or remove this one to "
                       "start over");
  }
  if (std::error_code EC = sys::fs::create_directories(Options.WorkDir))
    return makeError(Options.WorkDir + ": " + EC.message());
  WorkerPoolOptions PO;
  PO.Workers = Recipe.Workers;
  PO.TimeoutSeconds = Recipe.TimeoutSeconds;
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create(PO);
  if (!Pool)
    return Pool.takeError();
  // A resumed run leaves the file as it is when nothing changed.
  std::string RecipeText = formatv("{0:2}\n", RecipeJSON).str();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Existing =
      MemoryBuffer::getFile(RecipeFile);
  if (!Existing || (*Existing)->getBuffer() != RecipeText)
    if (Error E = writeFileAtomically(RecipeFile, RecipeText))
      return E;
  // The phases, in order, each taking what the earlier ones found.
  trainer::Context C(Recipe, Options, **Pool, std::move(Split->Modules),
                     std::move(Split->Fingerprint));
  if (Error E = C.Service.openCache(C.workFile("compiles.tsv")))
    return E;
  C.log(Twine(C.Modules.size()) + " modules: " + Twine(Split->Train.size()) +
        " training, " + Twine(Split->Validation.size()) + " validation");
  if (Split->Validation.empty())
    WithColor::warning(errs(), "mlgo train")
        << "the recipe holds out no validation packages, so candidates "
           "are chosen on the training modules themselves; name some in "
           "'validation_packages' (the corpus has: "
        << join(Split->Packages, ", ") << ")\n";
  Expected<trainer::Baseline> B = trainer::baseline(
      C, std::move(Split->Train), std::move(Split->Validation));
  if (!B)
    return B.takeError();
  Expected<trainer::Rows> Rows = trainer::gatherRows(C, *B);
  if (!Rows)
    return Rows.takeError();
  Expected<trainer::Rounds> Rounds = trainer::trainRounds(C, *B, *Rows);
  if (!Rounds)
    return Rounds.takeError();
  Expected<size_t> Best = trainer::select(C, *B, *Rounds);
  if (!Best)
    return Best.takeError();
  trainer::Candidate &Chosen = Rounds->Candidates[*Best];
  Expected<ChosenOutcome> O = trainer::saveChosen(C, *B, Chosen.M);
  if (!O)
    return O.takeError();
  double Minutes =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count() /
      60;
  return trainer::writeReport(C, *B, Chosen.Label, *O, Minutes);
}

} // namespace mlgo
