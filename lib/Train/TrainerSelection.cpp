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

Expected<Model> Trainer::policyFor(const Model &Base, ArrayRef<double> Theta,
                                   float Param) const {
  Model M = Base;
  if (Error E = learn::setModelParameters(M, Theta))
    return E;
  if (isCounterfactual())
    return learn::buildFlipPolicy(M, Param, InlineDefaultFeatureName,
                                  Recipe.FlipScope);
  M.Decision.Threshold = Param;
  return M;
}

Expected<Candidate> Trainer::evolve(const Model &Base, const Candidate &Start) {
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
  KeyHash.update(formatv("{0} {1} {2} {3} {4} {5}", Param, Recipe.ESDirections,
                         Recipe.ESSigma, Recipe.ESLearningRate,
                         Recipe.ESBatchModules, Recipe.Seed)
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
    std::vector<CompileRequest> Req;
    for (const std::vector<double> &Th : Thetas) {
      Expected<Model> P = policyFor(Base, Th, Param);
      if (!P)
        return P.takeError();
      std::string JSON = P->toJSONString();
      for (size_t M : Batch)
        Req.push_back({M, CompilePolicy::model(JSON)});
    }
    Expected<std::vector<CompileCache::Entry>> Compiled =
        compile(Req, ("es iteration " + Twine(It)).str());
    if (!Compiled)
      return Compiled.takeError();
    const std::vector<CompileCache::Entry> &R = *Compiled;
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

Error Trainer::addCandidates() {
  unsigned Round = Scorers.size();
  const Model &G = Scorers.back();
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
  for (const std::string &Why : describeEmptyFlipFractions(Recipe,
                                                          Scores->size()))
    WithColor::warning(errs(), "mlgo train") << Why << "\n";
  for (const FlipCandidatePlan &Plan :
       planFlipCandidates(Recipe, Round, *Scores, *InlineScores)) {
    Expected<Model> P =
        Plan.RefuseFraction
            ? learn::buildFlipPolicyPerBranch(G, Plan.Tau, Plan.TauInline)
            : learn::buildFlipPolicy(G, Plan.Tau, InlineDefaultFeatureName,
                                     Recipe.FlipScope);
    if (!P)
      return P.takeError();
    P->Metadata.Recipe += Plan.RecipeNote;
    Candidates.push_back({Plan.Label, 10000 * Plan.Fraction, std::move(*P),
                          Plan.Tau, Round - 1, Plan.RefuseFraction});
  }
  return Error::success();
}

Expected<bool> Trainer::judge(const Candidate &Cand, Totals &Tot) {
  std::string File;
  for (char C : Cand.Label)
    File += isAlnum(C) || C == '.' ? C : '-';
  if (Error E = Cand.M.save(workFile("candidates/" + File + ".json")))
    log("cannot keep candidate '" + Cand.Label +
        "': " + toString(std::move(E)));
  PackageSizes PerPkg;
  StringRef SelectName = selectionName();
  Expected<Totals> Evaluated =
      evaluate(selectionSet(), CompilePolicy::model(Cand.M.toJSONString()),
               (SelectName + " " + Cand.Label).str(), &PerPkg);
  if (!Evaluated)
    return Evaluated.takeError();
  Tot = std::move(*Evaluated);
  Verdict V = judgeTotals(Tot, PerPkg, Recipe.MaxPackageRegression);
  const std::string &WorstPkg = V.WorstPackage;
  double Worst = V.WorstPct;
  bool Allowed = V.Allowed;
  log(formatv("select: {0}: {1} .text {2:F3}% vs -Oz (mean reward {3:F5}, "
              "worst package {4} {5:F2}%, {6} failed){7}",
              Cand.Label, SelectName, Tot.pct(), Tot.MeanReward, WorstPkg,
              Worst, Tot.Failures.size(), Allowed ? "" : " - not allowed")
          .str());
  Report += formatv("- {0}: {1} .text {2} bytes vs -Oz {3} ({4:F3}%), "
                    "mean reward {5:F5}, worst package {6} ({7:F2}%){8}{9}.\n",
                    Cand.Label, SelectName, Tot.Policy, Tot.Baseline, Tot.pct(),
                    Tot.MeanReward, WorstPkg, Worst, Tot.failedClause(),
                    Allowed ? "" : "; not allowed")
                .str();
  SelectCurve.addPoint(uint64_t(std::lround(Cand.X < 0 ? 0 : Cand.X)),
                       {Tot.pct(), Worst});
  return Allowed;
}

Expected<size_t> Trainer::select() {
  if (std::error_code EC = sys::fs::create_directories(workFile("candidates")))
    return makeError(workFile("candidates") + ": " + EC.message());
  // Every candidate's total on the selection set, and whether it may be
  // chosen; the smallest learned flip policy is where evolution
  // strategies start.
  std::vector<uint64_t> Sizes;
  std::vector<bool> Allowed, Learned;
  auto Consider = [&](size_t C) -> Error {
    Totals Tot;
    Expected<bool> Judged = judge(Candidates[C], Tot);
    if (!Judged)
      return Judged.takeError();
    Allowed.push_back(*Judged);
    Sizes.push_back(Tot.Policy);
    Learned.push_back(Candidates[C].Param && !Candidates[C].RefuseFraction);
    return Error::success();
  };
  for (size_t C = 0; C < Candidates.size(); ++C)
    if (Error E = Consider(C))
      return E;
  std::optional<size_t> Smallest = chooseSmallest(Sizes, Learned);
  if (Recipe.ESIterations && Smallest) {
    Expected<Candidate> Tuned =
        evolve(Scorers[Candidates[*Smallest].Scorer], Candidates[*Smallest]);
    if (!Tuned)
      return Tuned.takeError();
    Candidates.push_back(std::move(*Tuned));
    if (Error E = Consider(Candidates.size() - 1))
      return E;
  }
  bool GuardTraining = Recipe.LimitTrainingPackages && !Validation.empty();
  Expected<std::optional<size_t>> Best =
      chooseSmallestPassing(Sizes, Allowed, [&](size_t C) -> Expected<bool> {
        if (!GuardTraining)
          return true;
        return fitsTraining(Candidates[C]);
      });
  if (!Best)
    return Best.takeError();
  if (!*Best)
    return makeError("no candidate model compiles every " + selectionName() +
                     " module within the per-package limit" +
                     (GuardTraining ? " on validation and training" : ""));
  return **Best;
}

Expected<bool> Trainer::fitsTraining(const Candidate &Cand) {
  PackageSizes PerPkg;
  Expected<Totals> Tot =
      evaluate(Train, CompilePolicy::model(Cand.M.toJSONString()),
               "training " + Cand.Label, &PerPkg);
  if (!Tot)
    return Tot.takeError();
  // The verdict covers both; the packages over the limit name why.
  Verdict V = judgeTotals(*Tot, PerPkg, Recipe.MaxPackageRegression);
  std::string Over = packagesOverLimit(PerPkg, Recipe.MaxPackageRegression);
  std::string Why = !Over.empty() ? "grows " + Over
                    : !V.Allowed  ? std::string("fails to compile a module")
                                  : "";
  log(formatv("select: {0}: training .text {1:F3}% vs -Oz{2}", Cand.Label,
              Tot->pct(), Why.empty() ? "" : "; " + Why + " - passed over")
          .str());
  Report += formatv("- {0} on the training packages: .text {1} bytes vs -Oz "
                    "{2} ({3:F3}%){4}.\n",
                    Cand.Label, Tot->Policy, Tot->Baseline, Tot->pct(),
                    Why.empty() ? "" : "; " + Why + ", passed over")
                .str();
  return V.Allowed;
}

Expected<Trainer::Outcome> Trainer::saveChosen(Model &M) {
  Outcome O;
  CompilePolicy Chosen = CompilePolicy::model(M.toJSONString());
  Expected<Totals> Val = evaluate(Validation, Chosen, "validation", &O.ValPkg);
  if (!Val)
    return Val.takeError();
  O.Val = std::move(*Val);
  Expected<Totals> Tr = evaluate(Train, Chosen, "training", &O.TrainPkg);
  if (!Tr)
    return Tr.takeError();
  O.Train = std::move(*Tr);
  // Linked totals need the grouped sections: either measure "package".
  if (needGrouped() && !Validation.empty()) {
    Expected<Totals> Other =
        evaluate(Validation, Chosen, "validation", nullptr,
                 linkedTotals() ? TotalsKind::Objects : TotalsKind::Linked);
    if (!Other)
      return Other.takeError();
    O.ValOther = std::move(*Other);
  }
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

} // namespace mlgo
