//===- lib/Train/TrainerSelection.cpp - Candidates and selection ----------===//
//
// Phase 4 of mlgo/Train/Trainer.h: each round's candidates, evolution
// strategies on the best of them (es_iterations), the choice on the
// held-out packages under the per-package limit, and the chosen model
// evaluated and written.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

#include "mlgo/Learn/Checkpoint.h"
#include "mlgo/Learn/EvolutionStrategies.h"
#include "mlgo/Learn/Parameters.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {
namespace trainer {

/// The policy a parameter vector of classifier \p Base stands for: the
/// classifier at threshold \p Param, or (counterfactual) the flip policy
/// with tau \p Param.
static Expected<Model> policyFor(const Context &C, const Model &Base,
                                 ArrayRef<double> Theta, float Param) {
  Model M = Base;
  if (Error E = learn::setModelParameters(M, Theta))
    return E;
  if (C.isCounterfactual())
    return learn::buildFlipPolicy(M, Param, InlineDefaultFeatureName,
                                  C.Recipe.FlipScope);
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
static Expected<Candidate> evolve(Context &C, const Baseline &B,
                                  const Model &Base, const Candidate &Start) {
  float Param = *Start.Param;
  std::vector<size_t> Pool;
  for (size_t M : B.Train)
    if (isSearchable(C, B, M))
      Pool.push_back(M);
  if (Pool.empty())
    return makeError("evolution strategies: no training module within the "
                     "search budget");
  learn::ESOptions EO;
  EO.Sigma = C.Recipe.ESSigma;
  EO.NumDirections = C.Recipe.ESDirections;
  EO.Optimizer.LearningRate = C.Recipe.ESLearningRate;
  EO.Seed = C.Recipe.Seed;
  learn::EvolutionStrategies ES(learn::getModelParameters(Base), EO);
  // The checkpoint belongs to this start point and these settings.
  MD5 KeyHash;
  KeyHash.update(Base.toJSONString());
  KeyHash.update(formatv("{0} {1} {2} {3} {4} {5}", Param,
                         C.Recipe.ESDirections, C.Recipe.ESSigma,
                         C.Recipe.ESLearningRate, C.Recipe.ESBatchModules,
                         C.Recipe.Seed)
                     .str());
  MD5::MD5Result KR;
  KeyHash.final(KR);
  std::string Key(KR.digest());
  std::string Ckpt = C.workFile("es.ckpt");
  if (sys::fs::exists(Ckpt)) {
    Expected<learn::Checkpoint> Saved = learn::Checkpoint::load(Ckpt);
    if (!Saved)
      return Saved.takeError();
    Expected<std::string> K = Saved->getBytes("es_key");
    if (K && *K == Key) {
      if (Error E = ES.loadState(*Saved))
        return E;
      if (Error E = C.Record.ESCurve.loadState(*Saved))
        return E;
      C.log("es: resumed at iteration " + Twine(ES.getIteration()));
    } else if (!K) {
      consumeError(K.takeError());
    }
  }
  while (ES.getIteration() < C.Recipe.ESIterations) {
    uint64_t It = ES.getIteration();
    // The batch: a seeded sample of the pool, fixed per iteration.
    std::vector<size_t> Batch =
        sampleSeeded(Pool, C.Recipe.ESBatchModules,
                     C.Recipe.Seed ^ (0x9e3779b97f4a7c15ULL * (It + 1)));
    learn::ESCandidates Perturbed = ES.proposePerturbations();
    std::vector<std::vector<double>> Thetas = {ES.getTheta()};
    llvm::append_range(Thetas, Perturbed.Plus);
    llvm::append_range(Thetas, Perturbed.Minus);
    std::vector<ModuleRequest> Req;
    for (const std::vector<double> &Th : Thetas) {
      Expected<Model> P = policyFor(C, Base, Th, Param);
      if (!P)
        return P.takeError();
      std::string JSON = P->toJSONString();
      for (size_t M : Batch)
        Req.push_back({M, CompilePolicy::model(JSON)});
    }
    Expected<std::vector<CompileCache::Entry>> Compiled =
        C.compile(Req, ("es iteration " + Twine(It)).str());
    if (!Compiled)
      return Compiled.takeError();
    const std::vector<CompileCache::Entry> &R = *Compiled;
    std::vector<double> Rewards(Thetas.size(), 0.0);
    for (size_t K = 0; K < Req.size(); ++K) {
      size_t M = Req[K].first;
      // A failed compile scores as a module twice its -Oz size.
      uint64_t Size = R[K].Ok ? B.sizeOf(M, R[K]) : 2 * B.Sizes[M];
      Rewards[K / Batch.size()] +=
          getReward(Size, B.Sizes[M], C.Recipe.Delta) / Batch.size();
    }
    size_t Dirs = Perturbed.Plus.size();
    ArrayRef<double> All(Rewards);
    if (Error E = ES.update(All.slice(1, Dirs), All.slice(1 + Dirs, Dirs)))
      return E;
    double Best = *std::max_element(Rewards.begin(), Rewards.end());
    C.Record.ESCurve.addPoint(It + 1, {100 * Rewards[0], 100 * Best});
    C.log(formatv("es: iteration {0}: batch mean reward {1:F4}% (best "
                  "perturbation {2:F4}%)",
                  It + 1, 100 * Rewards[0], 100 * Best)
              .str());
    learn::Checkpoint Save;
    ES.saveState(Save);
    C.Record.ESCurve.saveState(Save);
    Save.setBytes("es_key", Key);
    if (Error E = Save.save(Ckpt))
      return E;
  }
  Expected<Model> P = policyFor(C, Base, ES.getTheta(), Param);
  if (!P)
    return P.takeError();
  P->Metadata.Recipe += formatv(", then {0} iterations of evolution "
                                "strategies",
                                C.Recipe.ESIterations)
                            .str();
  C.Record.Report += formatv("- Evolution strategies: {0} iterations of {1} "
                             "antithetic pairs on batches of {2} modules, from "
                             "'{3}'.\n",
                             C.Recipe.ESIterations, C.Recipe.ESDirections,
                             C.Recipe.ESBatchModules, Start.Label)
                         .str();
  return Candidate{Start.Label + ", tuned by evolution strategies", Start.X,
                   std::move(*P), Param, Start.Scorer};
}

Expected<std::vector<Candidate>>
addCandidates(Context &C,
              const std::map<size_t, std::vector<float>> &Trajectories,
              const Model &G, unsigned Round) {
  std::vector<Candidate> Candidates;
  if (!C.isCounterfactual()) {
    for (float Th : C.Recipe.Thresholds) {
      Model M = G;
      M.Decision.Threshold = Th;
      Candidates.push_back({formatv("threshold {0}", Th).str(), Th,
                            std::move(M), Th, Round - 1});
    }
    return Candidates;
  }
  Expected<std::vector<float>> Scores = scoreTrajectories(C, Trajectories, G);
  if (!Scores)
    return Scores.takeError();
  Expected<std::vector<float>> InlineScores = std::vector<float>();
  if (!C.Recipe.RefuseFractions.empty())
    InlineScores = scoreTrajectories(C, Trajectories, G,
                                     /*HeuristicInlines=*/true);
  if (!InlineScores)
    return InlineScores.takeError();
  for (const std::string &Why :
       describeEmptyFlipFractions(C.Recipe, Scores->size()))
    WithColor::warning(errs(), "mlgo train") << Why << "\n";
  for (const FlipCandidatePlan &Plan :
       planFlipCandidates(C.Recipe, Round, *Scores, *InlineScores)) {
    Expected<Model> P =
        Plan.RefuseFraction
            ? learn::buildFlipPolicyPerBranch(G, Plan.Tau, Plan.TauInline)
            : learn::buildFlipPolicy(G, Plan.Tau, InlineDefaultFeatureName,
                                     C.Recipe.FlipScope);
    if (!P)
      return P.takeError();
    P->Metadata.Recipe += Plan.RecipeNote;
    Candidates.push_back({Plan.Label, 10000 * Plan.Fraction, std::move(*P),
                          Plan.Tau, Round - 1, Plan.RefuseFraction});
  }
  return Candidates;
}

/// A candidate's standing on the selection set: its totals, and whether
/// the per-package limit allows it.
struct Judged {
  Totals Tot;
  bool Allowed = false;
};

/// Compiles \p Cand on the selection set, keeps it in <work>/candidates/
/// (named after its label, so that any candidate can be evaluated or
/// shipped by hand), logs and reports it, and says whether the
/// per-package limit allows it.
static Expected<Judged> judge(Context &C, const Baseline &B,
                              const Candidate &Cand) {
  std::string File;
  for (char Ch : Cand.Label)
    File += isAlnum(Ch) || Ch == '.' ? Ch : '-';
  if (Error E = Cand.M.save(C.workFile("candidates/" + File + ".json")))
    C.log("cannot keep candidate '" + Cand.Label +
          "': " + toString(std::move(E)));
  PackageSizes PerPkg;
  StringRef SelectName = B.selectionName();
  Expected<Totals> Evaluated = evaluate(
      C, B, B.selectionSet(), CompilePolicy::model(Cand.M.toJSONString()),
      (SelectName + " " + Cand.Label).str(), &PerPkg);
  if (!Evaluated)
    return Evaluated.takeError();
  Totals Tot = std::move(*Evaluated);
  Verdict V = judgeTotals(Tot, PerPkg, C.Recipe.MaxPackageRegression);
  const std::string &WorstPkg = V.WorstPackage;
  double Worst = V.WorstPct;
  bool Allowed = V.Allowed;
  C.log(formatv("select: {0}: {1} .text {2:F3}% vs -Oz (mean reward {3:F5}, "
                "worst package {4} {5:F2}%, {6} failed){7}",
                Cand.Label, SelectName, Tot.pct(), Tot.MeanReward, WorstPkg,
                Worst, Tot.Failures.size(), Allowed ? "" : " - not allowed")
            .str());
  C.Record.Report +=
      formatv("- {0}: {1} .text {2} bytes vs -Oz {3} ({4:F3}%), "
              "mean reward {5:F5}, worst package {6} ({7:F2}%){8}{9}.\n",
              Cand.Label, SelectName, Tot.Policy, Tot.Baseline, Tot.pct(),
              Tot.MeanReward, WorstPkg, Worst, Tot.failedClause(),
              Allowed ? "" : "; not allowed")
          .str();
  C.Record.SelectCurve.addPoint(uint64_t(std::lround(Cand.X < 0 ? 0 : Cand.X)),
                                {Tot.pct(), Worst});
  return Judged{std::move(Tot), Allowed};
}

/// limit_training_packages: compiles \p Cand on the training packages,
/// logs and reports it, and says whether it compiles every module and
/// grows no package by more than max_package_regression percent.
static Expected<bool> fitsTraining(Context &C, const Baseline &B,
                                   const Candidate &Cand) {
  PackageSizes PerPkg;
  Expected<Totals> Tot =
      evaluate(C, B, B.Train, CompilePolicy::model(Cand.M.toJSONString()),
               "training " + Cand.Label, &PerPkg);
  if (!Tot)
    return Tot.takeError();
  // The verdict covers both; the packages over the limit name why.
  Verdict V = judgeTotals(*Tot, PerPkg, C.Recipe.MaxPackageRegression);
  std::string Over = packagesOverLimit(PerPkg, C.Recipe.MaxPackageRegression);
  std::string Why = !Over.empty() ? "grows " + Over
                    : !V.Allowed  ? std::string("fails to compile a module")
                                  : "";
  C.log(formatv("select: {0}: training .text {1:F3}% vs -Oz{2}", Cand.Label,
                Tot->pct(), Why.empty() ? "" : "; " + Why + " - passed over")
            .str());
  C.Record.Report +=
      formatv("- {0} on the training packages: .text {1} bytes vs -Oz "
              "{2} ({3:F3}%){4}.\n",
              Cand.Label, Tot->Policy, Tot->Baseline, Tot->pct(),
              Why.empty() ? "" : "; " + Why + ", passed over")
          .str();
  return V.Allowed;
}

Expected<size_t> select(Context &C, const Baseline &B, Rounds &R) {
  std::vector<Candidate> &Candidates = R.Candidates;
  if (std::error_code EC =
          sys::fs::create_directories(C.workFile("candidates")))
    return makeError(C.workFile("candidates") + ": " + EC.message());
  // Every candidate's total on the selection set, and whether it may be
  // chosen; the smallest learned flip policy is where evolution
  // strategies start.
  std::vector<uint64_t> Sizes;
  std::vector<bool> Allowed, Learned;
  auto Consider = [&](size_t I) -> Error {
    Expected<Judged> J = judge(C, B, Candidates[I]);
    if (!J)
      return J.takeError();
    Allowed.push_back(J->Allowed);
    Sizes.push_back(J->Tot.Policy);
    Learned.push_back(Candidates[I].Param && !Candidates[I].RefuseFraction);
    return Error::success();
  };
  for (size_t I = 0; I < Candidates.size(); ++I)
    if (Error E = Consider(I))
      return E;
  std::optional<size_t> Smallest = chooseSmallest(Sizes, Learned);
  if (C.Recipe.ESIterations && Smallest) {
    Expected<Candidate> Tuned = evolve(
        C, B, R.Scorers[Candidates[*Smallest].Scorer], Candidates[*Smallest]);
    if (!Tuned)
      return Tuned.takeError();
    Candidates.push_back(std::move(*Tuned));
    if (Error E = Consider(Candidates.size() - 1))
      return E;
  }
  bool GuardTraining = C.Recipe.LimitTrainingPackages && !B.Validation.empty();
  Expected<std::optional<size_t>> Best =
      chooseSmallestPassing(Sizes, Allowed, [&](size_t I) -> Expected<bool> {
        if (!GuardTraining)
          return true;
        return fitsTraining(C, B, Candidates[I]);
      });
  if (!Best)
    return Best.takeError();
  if (!*Best)
    return makeError("no candidate model compiles every " + B.selectionName() +
                     " module within the per-package limit" +
                     (GuardTraining ? " on validation and training" : ""));
  return **Best;
}

Expected<ChosenOutcome> saveChosen(Context &C, const Baseline &B, Model &M) {
  ChosenOutcome O;
  CompilePolicy Chosen = CompilePolicy::model(M.toJSONString());
  Expected<Totals> Val =
      evaluate(C, B, B.Validation, Chosen, "validation", &O.ValPkg);
  if (!Val)
    return Val.takeError();
  O.Val = std::move(*Val);
  Expected<Totals> Tr =
      evaluate(C, B, B.Train, Chosen, "training", &O.TrainPkg);
  if (!Tr)
    return Tr.takeError();
  O.Train = std::move(*Tr);
  // Linked totals need the grouped sections: either measure "package".
  if (C.needGrouped() && !B.Validation.empty()) {
    Expected<Totals> Other =
        evaluate(C, B, B.Validation, Chosen, "validation", nullptr,
                 C.linkedTotals() ? TotalsKind::Objects : TotalsKind::Linked);
    if (!Other)
      return Other.takeError();
    O.ValOther = std::move(*Other);
  }
  // Recorded after the evaluations above, whose compile-cache keys
  // include the model text: the chosen model's compiles are already
  // cached.
  M.Metadata.CorpusHash = C.CorpusFingerprint;
  if (Error E = M.save(C.Options.OutputModel))
    return E;
  O.TrainOver = packagesOverLimit(O.TrainPkg, C.Recipe.MaxPackageRegression);
  if (!O.TrainOver.empty())
    C.log("warning: the chosen model makes training packages larger than "
          "-Oz by more than the per-package limit: " +
          O.TrainOver);
  return O;
}

} // namespace trainer
} // namespace mlgo
