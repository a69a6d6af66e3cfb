//===- EvictTrainer.cpp - Evolution strategies on the regalloc score ------===//
//
// See mlgo/RegAllocTrain/EvictTrainer.h for the loop and its guarantees. The
// search is the shared learner's (Learn/EvolutionStrategies.h, with
// per-weight scales); the modules, compiles and scores are the scorer's
// (EvictionScorer.h), which `mlgo eval regalloc` uses too.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAllocTrain/EvictTrainer.h"

#include "mlgo/RegAllocModel/EvictionMLP.h"

#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Fingerprint.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Learn/EvolutionStrategies.h"
#include "mlgo/Model/SplitMix64.h"
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/RegAllocModel/TieBreak.h"
#include "mlgo/RegAllocTrain/EvictionScorer.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Progress.h"
#include "mlgo/Support/Tasks.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace mlgo::regalloc {
namespace {

/// The aggregate as the report names it: "mean", "max", or "softmax,
/// temperature T".
std::string describeAggregate(const RatioAggregate &A) {
  std::string Name = getRatioAggregateName(A.TheKind).str();
  if (A.TheKind != RatioAggregate::Kind::Softmax)
    return Name;
  return Name + ", temperature " +
         formatv("{0}", format("%g", A.Temperature)).str();
}

/// The aggregate's options in a recipe: none for the mean (recipes written
/// before the option stay as they were).
std::string aggregateRecipe(const RatioAggregate &A) {
  if (A.TheKind == RatioAggregate::Kind::Mean)
    return "";
  std::string R = " --aggregate " + getRatioAggregateName(A.TheKind).str();
  if (A.TheKind == RatioAggregate::Kind::Softmax)
    R += formatv(" --temperature {0}", format("%g", A.Temperature)).str();
  return R;
}
/// Task "regalloc-log": Args are an optimized module, the plugin and a
/// model file. Answers the training log of llc-19 compiling the module
/// with the model, or nothing for a module whose functions never reach
/// the eviction advisor (it has nothing to fit either).
Expected<std::string> runRegallocLog(ArrayRef<std::string> Args) {
  if (Args.size() != 3)
    return makeError("regalloc-log: malformed arguments");
  SmallString<128> Log;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-regalloc", "log", Log))
    return makeError("cannot create a temporary file: " + EC.message());
  // llc creates the log only when there is one to write.
  sys::fs::remove(Log);
  FileRemover RemoveLog(Log);
  LLCOptions LO;
  LO.ExtraArgs = {"-load=" + Args[1], "-mlgo-evict-model=" + Args[2],
                  ("-mlgo-evict-training-log=" + Log).str()};
  Expected<std::string> MIR = compileToMIR(Args[0], LO);
  if (!MIR)
    return MIR.takeError();
  if (!sys::fs::exists(Log))
    return std::string();
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(Log);
  if (!Bytes)
    return Bytes.takeError();
  return (*Bytes)->getBuffer().str();
}

RegisterTask RegallocLog("regalloc-log", runRegallocLog);

class Trainer {
public:
  Trainer(const EvictTrainOptions &O, raw_ostream &Log) : O(O), Log(Log) {}
  Expected<EvictTrainResult> run();

private:
  Model withWeights(ArrayRef<float> W) const;
  /// Start with the tie-breaker fitted on the start model's decisions on
  /// \p Set (TieBreak.h).
  Expected<TieBreakFit> fitTies(ArrayRef<ScoredModule> Set);

  const EvictTrainOptions &O;
  raw_ostream &Log;
  std::unique_ptr<EvictionScorer> Scorer;
  Model Start;
};

Model Trainer::withWeights(ArrayRef<float> W) const {
  return withSearchedParameters(Start, W);
}

Expected<TieBreakFit> Trainer::fitTies(ArrayRef<ScoredModule> Set) {
  Expected<std::string> Id = Scorer->writeCandidate(Start);
  if (!Id)
    return Id.takeError();
  std::string ModelPath = Scorer->getCandidatePath(*Id);
  std::string Dir = O.WorkDir + "/logs/" + *Id;
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError("cannot create '" + Dir + "': " + EC.message());
  // One log per module, named by module and start model, each logged by a
  // task (here, or on the worker ranks) and written atomically, so a
  // killed run leaves none half-written.
  std::vector<std::string> Logs(Set.size()), Errors(Set.size());
  std::vector<Task> Tasks;
  std::vector<size_t> Of;
  for (size_t I = 0; I < Set.size(); ++I) {
    std::string Flat = Set[I].Name;
    std::replace(Flat.begin(), Flat.end(), '/', '@');
    Logs[I] = Dir + "/" + Flat + ".log";
    if (sys::fs::exists(Logs[I]))
      continue;
    Task T;
    T.Kind = "regalloc-log";
    T.Module = Set[I].Name;
    T.Inputs = {Set[I].IRPath, ModelPath};
    T.Args = {Set[I].IRPath, O.PluginPath, ModelPath};
    Tasks.push_back(std::move(T));
    Of.push_back(I);
  }
  runTasks(Tasks, O.Jobs, nullptr, [&](size_t K, const TaskOutcome &Out) {
    size_t I = Of[K];
    if (!Out.ok()) {
      Errors[I] = Out.Error;
      return;
    }
    if (Error E = writeFileAtomically(Logs[I], *Out.Result))
      Errors[I] = toString(std::move(E));
  });
  for (const std::string &E : Errors)
    if (!E.empty())
      return makeError(E);
  TieBreakFitter Fitter;
  for (const std::string &L : Logs) {
    uint64_t Size = 0;
    if (!sys::fs::file_size(L, Size) && Size == 0)
      continue;
    if (Error E = Fitter.addLog(L))
      return E;
  }
  Expected<TieBreakFit> Fit = Fitter.fit();
  if (!Fit)
    return Fit.takeError();
  Expected<Model> With = addTieBreak(Start, *Fit);
  if (!With)
    return With.takeError();
  Start = std::move(*With);
  return Fit;
}

Expected<EvictTrainResult> Trainer::run() {
  Expected<Model> M = Model::load(O.InitModelPath);
  if (!M)
    return M.takeError();
  Start = std::move(*M);
  if (!Start.Decision.isPerColumn() || Start.Layers.back().Out != 1)
    return makeError("'" + O.InitModelPath +
                     "': the trainer improves per-column eviction models "
                     "(masked_argmax, one logit per column)");
  bool Linear =
      Start.Layers.size() == 1 && Start.Layers[0].Act == Activation::Linear;
  if ((O.FitTies || O.Hidden) && !Linear)
    return makeError("'" + O.InitModelPath +
                     "': " + (O.FitTies ? "--fit-ties" : "--hidden") +
                     " needs a start with one linear layer (it has " +
                     Twine(Start.Layers.size()) + " layers)");
  if (O.Hidden == 1)
    return makeError("--hidden must be 0 (the linear model) or at least 2 "
                     "(the two units that carry its score, then new ones)");
  if (O.Generations && !(O.Sigma > 0))
    return makeError("the perturbation scale (--sigma) must be greater than 0");
  if (O.Generations && (O.Pairs == 0 || !(O.SigmaFloor > 0)))
    return makeError("evolution strategies need at least one pair and a "
                     "scale floor (--sigma-floor) greater than 0");
  Expected<std::unique_ptr<EvictionScorer>> Opened =
      EvictionScorer::open({O.CorpusDir, O.WorkDir, O.PluginPath, O.Jobs,
                            O.Quiet, O.Reward, O.UseBlockCounts},
                           Log);
  if (!Opened)
    return Opened.takeError();
  Scorer = std::move(*Opened);

  Expected<CorpusDescription> D = CorpusDescription::read(O.CorpusDir);
  if (!D)
    return D.takeError();
  Expected<std::string> Fingerprint = computeCorpusFingerprint(O.CorpusDir, *D);
  if (!Fingerprint)
    return Fingerprint.takeError();
  StringSet<> Held(O.ValidationPackages);
  std::vector<std::string> TrainNames, ValNames;
  for (const std::string &Name : D->Modules)
    (Held.contains(getModulePackage(Name)) ? ValNames : TrainNames)
        .push_back(Name);
  auto Shuffle = [&](std::vector<std::string> &V, uint64_t Salt) {
    std::sort(V.begin(), V.end());
    uint64_t S = O.Seed ^ Salt;
    for (size_t I = V.size(); I > 1; --I)
      std::swap(V[I - 1], V[splitMix64(S) % I]);
  };
  Shuffle(TrainNames, 0x7261696e);
  Shuffle(ValNames, 0x76616c);

  std::vector<ScoredModule> Train, Val;
  bool Speed = usesProfile(O.Reward);
  StringRef What = describeEvictionReward(O.Reward);
  if (!O.Quiet)
    Log << (Speed ? "mlgo regalloc train: preparing modules (clang-19 -O2 "
                    "-fprofile-use, stock llc-19 " +
                        What + ")\n"
                  : Twine("mlgo regalloc train: preparing modules (opt-19 "
                          "-O2, stock llc-19 scores)\n"));
  if (Error E = Scorer->prepare(TrainNames, O.TrainModules, Train, "training"))
    return E;
  if (!ValNames.empty() && O.ValidationModules)
    if (Error E =
            Scorer->prepare(ValNames, O.ValidationModules, Val, "validation"))
      return E;

  EvictTrainResult Result;
  Result.WithoutProfile = Scorer->getSkippedWithoutProfile();
  Result.NeverRun = Scorer->getSkippedNeverRun();
  Result.Mismatched = Scorer->getProfileMismatches();
  if (O.FitTies) {
    if (!O.Quiet)
      Log << "fitting the tie-breaker on the start model's decisions\n";
    Expected<TieBreakFit> Fit = fitTies(Train);
    if (!Fit)
      return Fit.takeError();
    Result.TieBreak = std::move(*Fit);
  }
  if (O.Hidden) {
    // The same decisions as the linear start, from a model with a hidden
    // layer the search can use (EvictionMLP.h).
    Expected<Model> Wide = widenToMLP(Start, O.Hidden - 2, O.Seed);
    if (!Wide)
      return Wide.takeError();
    Start = std::move(*Wide);
    if (!O.Quiet)
      Log << formatv("widened the start into an MLP: {0} ReLU units, {1} "
                     "searched parameters\n",
                     O.Hidden, getSearchedParameters(Start).size());
  }
  const std::vector<float> StartW = getSearchedParameters(Start);
  Expected<std::vector<double>> StartScores = Scorer->score(Start, Train);
  if (!StartScores)
    return StartScores.takeError();
  Result.StartObjective =
      evictionObjective(*StartScores, Train, O.Reward, O.Aggregate);
  double Best = Result.StartObjective;
  std::vector<float> BestW = StartW;
  // With SelectOnValidation, the kept model: the center (or the start) with
  // the lowest validation objective.
  double BestValidation = 0;
  std::vector<float> SelectedW = StartW;
  if (O.SelectOnValidation) {
    if (Val.empty())
      return makeError("--select validation needs validation modules "
                       "(--validation-packages, --validation-modules)");
    Expected<std::vector<double>> S = Scorer->score(Start, Val);
    if (!S)
      return S.takeError();
    BestValidation = evictionObjective(*S, Val, O.Reward, O.Aggregate);
  }
  if (!O.Quiet)
    Log << formatv("modules: {0} training, {1} validation; start objective "
                   "{2:f5} ({3})\n",
                   Train.size(), Val.size(), Result.StartObjective,
                   Speed ? (What + " / LLVM default, per package").str()
                         : std::string("score / LLVM default"));

  // The shared learner: antithetic pairs, rewards normalized by their
  // spread (z-scores), plain gradient steps. Each weight moves on its own
  // scale, fixed by the start: its magnitude, or SigmaFloor for the smaller
  // ones, so a model whose terms differ by orders of magnitude (a main rule
  // and tie-breakers far below it) keeps its structure while every term is
  // searched. With the learning rate Step * Sigma, the center moves by
  // Step * scale * sum (F- - F+) eps / (2 Pairs spread) (EvictTrainer.h).
  std::vector<double> Theta(StartW.begin(), StartW.end());
  std::optional<learn::EvolutionStrategies> ES;
  if (O.Generations) {
    learn::ESOptions EO;
    EO.Sigma = O.Sigma;
    EO.NumDirections = O.Pairs;
    EO.RewardNormalization = learn::ESOptions::Normalization::ZScore;
    EO.Optimizer.TheKind = learn::OptimizerOptions::Kind::SGD;
    EO.Optimizer.LearningRate = O.Step * O.Sigma;
    EO.Seed = O.Seed;
    EO.Scales = learn::EvolutionStrategies::relativeScales(Theta, O.SigmaFloor);
    ES.emplace(Theta, EO);
  }
  auto ToFloats = [](ArrayRef<double> V) {
    return std::vector<float>(V.begin(), V.end());
  };
  // The training objective of weights \p W (lower is better), tracking
  // the best.
  auto Evaluate = [&](const std::vector<float> &W) -> Expected<double> {
    Expected<std::vector<double>> Sc = Scorer->score(withWeights(W), Train);
    if (!Sc)
      return Sc.takeError();
    double F = evictionObjective(*Sc, Train, O.Reward, O.Aggregate);
    if (F < Best) {
      Best = F;
      BestW = W;
    }
    return F;
  };

  Progress Bar("training", "generations");
  for (unsigned G = 0; G < O.Generations; ++G) {
    learn::ESCandidates C = ES->proposePerturbations();
    // The learner ascends a reward: the negated objective.
    std::vector<double> Plus(O.Pairs), Minus(O.Pairs);
    for (unsigned P = 0; P < O.Pairs; ++P)
      for (bool Positive : {true, false}) {
        Expected<double> F =
            Evaluate(ToFloats(Positive ? C.Plus[P] : C.Minus[P]));
        if (!F)
          return F.takeError();
        (Positive ? Plus : Minus)[P] = -*F;
      }
    if (Error E = ES->update(Plus, Minus))
      return E;
    Expected<double> F = Evaluate(ToFloats(ES->getTheta()));
    if (!F)
      return F.takeError();
    Result.Curve.push_back({*F, Best});
    if (O.SelectOnValidation) {
      std::vector<float> Center = ToFloats(ES->getTheta());
      Expected<std::vector<double>> S = Scorer->score(withWeights(Center), Val);
      if (!S)
        return S.takeError();
      double FV = evictionObjective(*S, Val, O.Reward, O.Aggregate);
      Result.ValidationCurve.push_back(FV);
      if (FV < BestValidation) {
        BestValidation = FV;
        SelectedW = std::move(Center);
        Result.SelectedGeneration = G + 1;
      }
    }
    if (!O.Quiet) {
      Bar.setDetail(formatv("; objective {0:f5}, best {1:f5}", *F, Best).str());
      Bar.update(G + 1, O.Generations);
    }
  }
  if (!O.Quiet)
    Bar.end();
  Result.BestObjective = Best;
  Result.Trained = withWeights(O.SelectOnValidation ? SelectedW : BestW);
  Result.Trained.Metadata.Recipe =
      formatv("mlgo regalloc train --seed {0} --generations {1} --pairs {2} "
              "--sigma {3} --sigma-floor {4} --step {5} --train-modules {6}{7}",
              O.Seed, O.Generations, O.Pairs, format("%g", O.Sigma),
              format("%g", O.SigmaFloor), format("%g", O.Step), O.TrainModules,
              O.FitTies ? " --fit-ties" : "")
          .str() +
      (O.Hidden ? " --hidden " + std::to_string(O.Hidden) : std::string()) +
      (O.SelectOnValidation ? " --select validation" : "") +
      (Speed ? " --reward " + std::string(O.Reward == EvictionReward::Speed
                                              ? "speed"
                                              : "instructions")
             : std::string()) +
      (Speed && !O.UseBlockCounts ? " --block-counts=false" : "") +
      aggregateRecipe(O.Aggregate) + " --init " +
      sys::path::filename(O.InitModelPath).str() +
      // The held-out packages decide which modules train.
      (O.ValidationPackages.empty()
           ? std::string()
           : " --validation-packages " + join(O.ValidationPackages, ","));
  Result.Trained.Metadata.Seed = O.Seed;
  Result.Trained.Metadata.CorpusHash = *Fingerprint;
  if (O.FitTies) {
    static constexpr const char *TieNote =
        " Tie-breaker fitted by `mlgo regalloc train --fit-ties`: where "
        "LLVM's normalization erases the densities (an unspillable "
        "candidate), logarithms of the features that survive it estimate "
        "which live ranges are lighter (docs/regalloc.md).";
    std::string &Desc = Result.Trained.Metadata.Description;
    if (Desc.find(TieNote) == std::string::npos)
      Desc += TieNote;
  }

  // Validation: LLVM's default, the start and the trained model.
  EvictSetResult &V = Result.Validation;
  V.Modules = Val.size();
  if (!Val.empty()) {
    Expected<std::vector<double>> A = Scorer->score(Start, Val);
    if (!A)
      return A.takeError();
    Expected<std::vector<double>> B = Scorer->score(Result.Trained, Val);
    if (!B)
      return B.takeError();
    V.StartRatio = evictionObjective(*A, Val, O.Reward, O.Aggregate);
    V.TrainedRatio = evictionObjective(*B, Val, O.Reward, O.Aggregate);
    std::map<std::string, EvictSetResult::Package> ByPkg;
    for (size_t I = 0; I < Val.size(); ++I) {
      auto &P = ByPkg[getModulePackage(Val[I].Name).str()];
      P.Default += Val[I].Default;
      P.Start += (*A)[I];
      P.Trained += (*B)[I];
    }
    for (auto &[Name, P] : ByPkg) {
      P.Name = Name;
      V.Packages.push_back(P);
    }
  }

  // The model, the curve and the report.
  if (Error E =
          writeFileAtomically(O.OutputPath, Result.Trained.toJSONString()))
    return E;
  bool Sel = O.SelectOnValidation;
  std::string Curve = "generation,center_objective,best_objective";
  Curve += Sel ? ",validation_objective\n" : "\n";
  for (size_t G = 0; G < Result.Curve.size(); ++G)
    Curve += formatv("{0},{1:f6},{2:f6}", G + 1, Result.Curve[G].first,
                     Result.Curve[G].second)
                 .str() +
             (Sel ? formatv(",{0:f6}\n", Result.ValidationCurve[G]).str()
                  : std::string("\n"));
  if (Error E = writeFileAtomically(O.WorkDir + "/curve.csv", Curve))
    return E;
  std::string R;
  raw_string_ostream RS(R);
  RS << "# Eviction training\n\n";
  if (Speed)
    RS << formatv("- reward: {1}; {0} module(s) skipped "
                  "(their package has no profile){2}\n",
                  Result.WithoutProfile, What,
                  Result.NeverRun ? formatv(", {0} never run by their "
                                            "package's workload",
                                            Result.NeverRun)
                                        .str()
                                  : std::string());
  if (!Result.Mismatched.empty())
    RS << formatv("- profile counts dropped (control flow the profile does "
                  "not match): {0}\n",
                  join(Result.Mismatched, ", "));
  // The kept model's training objective: a generation center's when the
  // validation packages chose it (the best training candidate is another
  // model then), else the best candidate's.
  double KeptObjective = Best;
  if (Sel)
    KeptObjective = Result.SelectedGeneration
                        ? Result.Curve[Result.SelectedGeneration - 1].first
                        : Result.StartObjective;
  RS << formatv("- training modules: {0}; objective ({3}): start {1:f5}, "
                "trained {2:f5}\n",
                Train.size(), Result.StartObjective, KeptObjective,
                (Speed ? (What + " / LLVM default, per package, ").str()
                       : std::string("score / LLVM default, ")) +
                    describeAggregate(O.Aggregate));
  RS << formatv("- validation modules: {0}; start {1:f5}, trained {2:f5}\n",
                V.Modules, V.StartRatio, V.TrainedRatio);
  if (Sel)
    RS << formatv("- kept: the lowest validation objective, generation {0} "
                  "(0: the start); the validation packages chose it\n",
                  Result.SelectedGeneration);
  RS << "\n";
  if (const std::optional<TieBreakFit> &T = Result.TieBreak) {
    RS << formatv(
              "Tie-breaker (fitted before training): {0} decisions, {1} "
              "with the density erased; {2} pairs, {3:f4} fitted right.\n\n",
              T->Observations, T->Erased, T->Pairs, T->Accuracy)
       << "| feature | weight per log unit |\n|---|---:|\n";
    for (size_t K = 0; K < T->Weights.size(); ++K)
      RS << formatv("| {0} | {1:f4} |\n", getTieBreakFeatures()[K],
                    T->Weights[K]);
    RS << "\n";
  }
  if (!V.Packages.empty()) {
    RS << "| package | LLVM default | start | trained | trained / default |\n"
       << "|---|---:|---:|---:|---:|\n";
    for (const auto &P : V.Packages)
      RS << formatv("| {0} | {1:f1} | {2:f1} | {3:f1} | {4:f4} |\n", P.Name,
                    P.Default, P.Start, P.Trained, P.Trained / P.Default);
  }
  RS << (Sel ? "\n| generation | center | best | validation |\n"
               "|---:|---:|---:|---:|\n"
             : "\n| generation | center | best |\n|---:|---:|---:|\n");
  for (size_t G = 0; G < Result.Curve.size(); ++G)
    RS << formatv("| {0} | {1:f5} | {2:f5} |", G + 1, Result.Curve[G].first,
                  Result.Curve[G].second)
       << (Sel ? formatv(" {0:f5} |\n", Result.ValidationCurve[G]).str()
               : std::string("\n"));
  RS.flush();
  if (Error E = writeFileAtomically(O.WorkDir + "/report.md", R))
    return E;
  if (!O.Quiet)
    Log << R;
  return Result;
}

} // namespace

Expected<EvictTrainResult> trainEvictionModel(const EvictTrainOptions &O,
                                              raw_ostream &Log) {
  return Trainer(O, Log).run();
}

Expected<EvictEvalResult> evaluateEvictionModel(const EvictEvalOptions &E,
                                                raw_ostream &Log) {
  Expected<Model> M = Model::load(E.ModelPath);
  if (!M)
    return M.takeError();
  if (!M->Decision.isPerColumn())
    return makeError("'" + E.ModelPath +
                     "': not an eviction model (a per-column model with a "
                     "masked_argmax decision)");
  Expected<std::unique_ptr<EvictionScorer>> Scorer =
      EvictionScorer::open({E.CorpusDir, E.WorkDir, E.PluginPath, E.Jobs,
                            E.Quiet, E.Reward, E.UseBlockCounts},
                           Log);
  if (!Scorer)
    return Scorer.takeError();
  Expected<CorpusDescription> D = CorpusDescription::read(E.CorpusDir);
  if (!D)
    return D.takeError();
  StringSet<> Wanted(E.Packages);
  std::map<std::string, size_t> Taken;
  std::vector<std::string> Names;
  for (const std::string &Name : D->Modules) {
    std::string Pkg = getModulePackage(Name).str();
    if (!Wanted.empty() && !Wanted.contains(Pkg))
      continue;
    if (E.ModulesPerPackage && Taken[Pkg] >= E.ModulesPerPackage)
      continue;
    ++Taken[Pkg];
    Names.push_back(Name);
  }
  for (const std::string &P : E.Packages)
    if (!Taken.count(P))
      return makeError("'" + E.CorpusDir + "' has no package '" + P + "'");
  std::vector<ScoredModule> Set;
  if (!E.Quiet)
    Log << "mlgo eval regalloc: " << Names.size()
        << (usesProfile(E.Reward)
                ? (" modules (clang-19 -O2 -fprofile-use, stock llc-19 " +
                   describeEvictionReward(E.Reward) + ")\n")
                      .str()
                : std::string(" modules (opt-19 -O2, stock llc-19 scores)\n"));
  if (Error Err = (*Scorer)->prepare(Names, Names.size(), Set, "evaluation",
                                     /*KeepFree=*/true))
    return Err;
  Expected<std::vector<double>> Scores = (*Scorer)->score(*M, Set);
  if (!Scores)
    return Scores.takeError();
  EvictEvalResult R;
  R.Modules = Set.size();
  R.LeftOut = (*Scorer)->getLeftOut();
  R.WithoutProfile = (*Scorer)->getSkippedWithoutProfile();
  R.NeverRun = (*Scorer)->getSkippedNeverRun();
  R.Mismatched = (*Scorer)->getProfileMismatches();
  std::map<std::string, EvictEvalResult::Package> ByPkg;
  double RatioSum = 0;
  size_t RatioCount = 0;
  for (size_t I = 0; I < Set.size(); ++I) {
    auto &P = ByPkg[getModulePackage(Set[I].Name).str()];
    ++P.Modules;
    P.Default += Set[I].Default;
    P.Model += (*Scores)[I];
    R.Default += Set[I].Default;
    R.Model += (*Scores)[I];
    R.SameScore += (*Scores)[I] == Set[I].Default;
    if (Set[I].Default > 0) {
      RatioSum += (*Scores)[I] / Set[I].Default;
      ++RatioCount;
    }
  }
  for (auto &[Name, P] : ByPkg) {
    P.Name = Name;
    R.Packages.push_back(P);
  }
  if (usesProfile(E.Reward))
    R.MeanRatio = evictionObjective(*Scores, Set, E.Reward);
  else if (RatioCount)
    R.MeanRatio = RatioSum / static_cast<double>(RatioCount);
  return R;
}

} // namespace mlgo::regalloc
