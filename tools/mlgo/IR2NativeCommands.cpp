//===- tools/mlgo/IR2NativeCommands.cpp - mlgo ir2native ------------------===//
//
//   mlgo ir2native dataset --corpus DIR -o DATA.tsv [--packages P,...]
//   mlgo ir2native train --recipe R.json --data DATA.tsv -o model.json
//   mlgo ir2native eval --model M.json --data DATA.tsv [--recipe R.json]
//                       [--packages P,...] [--per-function] [--max-mdape P]
//   mlgo ir2native decisions --corpus DIR [--model M.json]
//                       [--packages P,...] [--max-per-module N]
//
// The native-size predictor (docs/ir2native.md): its dataset (every
// function's features at the end of the -Oz IR pipeline and its symbol's
// bytes in the object, compiled in-process as the trainers compile), its
// trainer, its accuracy per function (predicted against actual), and the
// agreement in sign of predicted and measured size changes of single
// inlining decisions.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Compile/CompileWorker.h"
#include "mlgo/Compile/DecisionLog.h"
#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Model/Model.h"
#include "mlgo/SizeModel/SizeData.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Progress.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
tool::RegisterGroup Group("ir2native",
                          "The native-size predictor: dataset, training, "
                          "accuracy");

cl::SubCommand DatasetCmd("ir2native dataset",
                          "Compile a corpus at -Oz and write every "
                          "function's size features and native bytes");
cl::SubCommand TrainCmd("ir2native train",
                        "Fit a native-size model to a dataset");
cl::SubCommand EvalCmd("ir2native eval",
                       "Predicted against actual native size per function");
cl::SubCommand DecisionsCmd(
    "ir2native decisions",
    "Predicted against measured size change of single inlining decisions");

cl::opt<std::string> CorpusDir("corpus", cl::Required,
                               cl::desc("the training corpus"),
                               cl::value_desc("dir"), cl::sub(DatasetCmd),
                               cl::sub(DecisionsCmd), cl::cat(Cat));
cl::opt<std::string> Output("o", cl::Required, cl::desc("output file"),
                            cl::value_desc("file"), cl::sub(DatasetCmd),
                            cl::sub(TrainCmd), cl::cat(Cat));
cl::list<std::string> Packages("packages", cl::CommaSeparated,
                               cl::desc("only the modules of these packages"),
                               cl::value_desc("p,..."), cl::sub(DatasetCmd),
                               cl::sub(EvalCmd), cl::sub(DecisionsCmd),
                               cl::cat(Cat));
cl::opt<std::string> RecipePath("recipe", cl::desc("the training recipe"),
                                cl::value_desc("recipe.json"),
                                cl::sub(TrainCmd), cl::sub(EvalCmd),
                                cl::cat(Cat));
cl::opt<std::string> DataPath("data", cl::Required,
                              cl::desc("a dataset (ir2native dataset)"),
                              cl::value_desc("data.tsv"), cl::sub(TrainCmd),
                              cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<std::string> ModelPath("model", cl::desc("a native-size model"),
                               cl::value_desc("model.json"), cl::sub(EvalCmd),
                               cl::sub(DecisionsCmd), cl::cat(Cat));
cl::opt<bool> PerFunction("per-function",
                          cl::desc("print every function: actual and "
                                   "predicted bytes, error"),
                          cl::sub(EvalCmd), cl::cat(Cat));
cl::opt<double> MaxMdAPE("max-mdape",
                         cl::desc("fail (exit 1) if the median absolute "
                                  "percentage error is above this"),
                         cl::value_desc("percent"), cl::sub(EvalCmd),
                         cl::cat(Cat));
cl::opt<unsigned>
    MaxPerModule("max-per-module",
                 cl::desc("flip at most this many decisions per module "
                          "(evenly spaced; 0: all)"),
                 cl::init(8), cl::sub(DecisionsCmd), cl::cat(Cat));

cl::opt<bool> Declined(
    "declined",
    cl::desc("the baseline also scores the sites it declined "
             "(-mlgo-size-score-declined: the estimated saving of inlining "
             "them); count how often that score's sign agrees with the "
             "measured change of inlining them"),
    cl::sub(DecisionsCmd), cl::cat(Cat));

Expected<std::vector<CorpusModule>> loadSelectedModules() {
  Expected<std::vector<CorpusModule>> Modules = loadTrainingCorpus(CorpusDir);
  if (!Modules)
    return Modules.takeError();
  if (Packages.empty())
    return Modules;
  std::vector<CorpusModule> Kept;
  for (CorpusModule &M : *Modules)
    if (is_contained(Packages, M.Package))
      Kept.push_back(std::move(M));
  if (Kept.empty())
    return makeError(CorpusDir + ": no module of the packages " +
                     join(Packages, ", "));
  return Kept;
}

int runDataset() {
  Expected<std::vector<CorpusModule>> Modules = loadSelectedModules();
  if (!Modules)
    return fail(Modules.takeError());
  SizeDataset Data;
  Data.CorpusHash = getCorpusFingerprint(*Modules);
  Progress P("ir2native dataset", "modules");
  size_t Done = 0, Failed = 0;
  for (const CorpusModule &M : *Modules) {
    CompileJob Job = M.makeJob(CompilePolicy::stock());
    Job.WantFunctionSizes = true;
    Expected<CompileResult> R = compileModule(Job);
    P.update(++Done, Modules->size());
    if (!R) {
      // A module that does not compile is reported and left out; the
      // dataset says how many.
      errs() << "mlgo: warning: " << toString(R.takeError()) << "\n";
      ++Failed;
      continue;
    }
    for (FunctionSize &F : R->Functions) {
      if (F.NativeSize == 0)
        continue;
      Data.Samples.push_back(
          {M.Name, std::move(F.Name), F.NativeSize, std::move(F.Features)});
    }
  }
  P.end();
  std::string Text;
  raw_string_ostream OS(Text);
  writeSizeDataset(OS, Data);
  if (Error E = writeFileAtomically(Output, Text))
    return fail(std::move(E));
  outs() << formatv("{0}: {1} functions of {2} modules ({3} failed to "
                    "compile), corpus {4}\n",
                    Output, Data.Samples.size(), Modules->size() - Failed,
                    Failed, Data.CorpusHash);
  return Failed ? 1 : 0;
}

int runTrain() {
  if (RecipePath.empty())
    return fail("ir2native train needs --recipe");
  Expected<SizeRecipe> Recipe = SizeRecipe::load(RecipePath);
  if (!Recipe)
    return fail(Recipe.takeError());
  Expected<SizeDataset> Data = readSizeDataset(DataPath);
  if (!Data)
    return fail(Data.takeError());
  std::vector<const SizeSample *> Train;
  for (const SizeSample &S : Data->Samples)
    if (!Recipe->isHeldOut(getSamplePackage(S)))
      Train.push_back(&S);
  Expected<Model> M = fitSizeModel(Train, *Recipe, Data->CorpusHash,
                                   "mlgo ir2native train --recipe " +
                                       sys::path::filename(RecipePath).str() +
                                       " (models/ir2native/README.md)");
  if (!M)
    return fail(RecipePath + ": " + toString(M.takeError()));
  if (Error E = M->save(Output))
    return fail(std::move(E));
  outs() << formatv("{0}: trained on {1} functions ({2} held out)\n", Output,
                    Train.size(), Data->Samples.size() - Train.size());
  return 0;
}

int runEval() {
  if (ModelPath.empty())
    return fail("ir2native eval needs --model");
  Expected<Model> M = Model::load(ModelPath);
  if (!M)
    return fail(M.takeError());
  if (Error E = checkSizeModel(*M, ModelPath))
    return fail(std::move(E));
  Expected<SizePredictorOverSamples> Predictor =
      SizePredictorOverSamples::create(*M);
  if (!Predictor)
    return fail(Predictor.takeError());
  Expected<SizeDataset> Data = readSizeDataset(DataPath);
  if (!Data)
    return fail(Data.takeError());
  std::optional<SizeRecipe> Recipe;
  if (!RecipePath.empty()) {
    Expected<SizeRecipe> R = SizeRecipe::load(RecipePath);
    if (!R)
      return fail(R.takeError());
    Recipe = std::move(*R);
  }
  // With a recipe: its held-out packages only (what the model never saw).
  auto Selected = [&](const SizeSample &S) {
    StringRef Pkg = getSamplePackage(S);
    if (!Packages.empty() && !is_contained(Packages, Pkg))
      return false;
    return !Recipe || Recipe->isHeldOut(Pkg);
  };
  std::vector<double> Predicted, Actual;
  if (PerFunction)
    outs() << "module\tfunction\tactual\tpredicted\terror%\n";
  for (const SizeSample &S : Data->Samples) {
    if (!Selected(S))
      continue;
    double P = Predictor->predict(S);
    Predicted.push_back(P);
    Actual.push_back(static_cast<double>(S.NativeSize));
    if (PerFunction)
      outs() << formatv("{0}\t{1}\t{2}\t{3:f1}\t{4:f1}\n", S.Module, S.Function,
                        S.NativeSize, P,
                        100.0 * (P - S.NativeSize) / S.NativeSize);
  }
  if (Predicted.empty())
    return fail(DataPath + ": no function selected");
  SizeAccuracy A = measureSizeAccuracy(Predicted, Actual);
  outs() << formatv("functions: {0}\nMdAPE: {1:f1}%\nmean APE: {2:f1}%\n"
                    "90th percentile APE: {3:f1}%\nactual bytes: {4:f0}\n"
                    "predicted bytes: {5:f0} ({6:+f1}%)\n",
                    A.Functions, 100 * A.MdAPE, 100 * A.MeanAPE, 100 * A.P90APE,
                    A.ActualBytes, A.PredictedBytes,
                    100 * (A.PredictedBytes - A.ActualBytes) / A.ActualBytes);
  if (MaxMdAPE.getNumOccurrences() && 100 * A.MdAPE > MaxMdAPE)
    return fail(formatv("MdAPE {0:f1}% is above --max-mdape {1}", 100 * A.MdAPE,
                        MaxMdAPE.getValue())
                    .str());
  return 0;
}

/// Sum of the predicted sizes of every function a compile left defined.
double predictModule(SizePredictorOverSamples &P, const CompileResult &R) {
  double Sum = 0;
  SizeSample S;
  for (const FunctionSize &F : R.Functions) {
    S.Features = F.Features;
    Sum += P.predict(S);
  }
  return Sum;
}

int runDecisions() {
  std::string Path = ModelPath;
  Expected<Model> M = Model::load(Path);
  if (!M)
    return fail(M.takeError());
  Expected<SizePredictorOverSamples> Predictor =
      SizePredictorOverSamples::create(*M);
  if (!Predictor)
    return fail(Path + ": " + toString(Predictor.takeError()));
  Expected<std::vector<CorpusModule>> Modules = loadSelectedModules();
  if (!Modules)
    return fail(Modules.takeError());
  size_t Decisions = 0, Changed = 0, Agree = 0, Failed = 0;
  // From the baseline's log alone (no compile per move): an inlined
  // decision's predicted saving, which inverting it should lose.
  size_t ScoredChanged = 0, ScoredAgree = 0;
  // With --declined: a declined decision's estimated saving, which
  // inverting it (inlining) should gain.
  size_t DeclinedChanged = 0, DeclinedAgree = 0;
  Progress P("ir2native decisions", "modules");
  size_t Done = 0;
  outs() << "module\tdecision\tmeasured\tpredicted\tlogged_delta_size\n";
  for (const CorpusModule &Mod : *Modules) {
    P.update(Done++, Modules->size());
    CompileJob Base = Mod.makeJob(CompilePolicy::heuristic(), /*WantLog=*/true);
    Base.WantFunctionSizes = true;
    Base.WantSizeScore = true;
    Base.WantDeclinedScore = Declined;
    Base.WantSites = Declined;
    Expected<CompileResult> B = compileModule(Base);
    if (!B) {
      consumeError(B.takeError());
      ++Failed;
      continue;
    }
    double BasePredicted = predictModule(*Predictor, *B);
    Expected<std::vector<float>> Scores = readLoggedScores(B->Log, Mod.Name);
    if (!Scores)
      return fail(Scores.takeError());
    uint32_t N = B->NumDecisions;
    uint32_t Take = MaxPerModule && MaxPerModule < N ? MaxPerModule : N;
    for (uint32_t K = 0; K < Take; ++K) {
      uint32_t Index = static_cast<uint32_t>(uint64_t(K) * N / Take);
      CompilePolicy Flip = CompilePolicy::heuristic();
      Flip.Flips = {Index};
      CompileJob Job = Mod.makeJob(Flip);
      Job.WantFunctionSizes = true;
      Expected<CompileResult> R = compileModule(Job);
      if (!R) {
        consumeError(R.takeError());
        ++Failed;
        continue;
      }
      ++Decisions;
      double Measured =
          static_cast<double>(R->TextSize) - static_cast<double>(B->TextSize);
      double Predicted = predictModule(*Predictor, *R) - BasePredicted;
      // A decision that inlined logged a predicted saving, which inverting
      // it loses (the module grows); one that did not inline logged 0.
      float Score = Index < Scores->size() ? (*Scores)[Index] : 0;
      outs() << formatv("{0}\t{1}\t{2:f0}\t{3:f1}\t{4}\n", Mod.Name, Index,
                        Measured, Predicted, Score);
      if (Measured == 0)
        continue;
      ++Changed;
      if ((Measured > 0) == (Predicted > 0))
        ++Agree;
      if (Declined && Index < B->Sites.size() && !B->Sites[Index].Site.Inline) {
        if (Score != 0) {
          ++DeclinedChanged;
          if ((Measured < 0) == (Score > 0))
            ++DeclinedAgree;
        }
      } else if (Score != 0) {
        ++ScoredChanged;
        if ((Measured > 0) == (Score > 0))
          ++ScoredAgree;
      }
    }
  }
  P.end();
  outs() << formatv("decisions flipped: {0} ({1} compiles failed)\n"
                    "changed size: {2}\nsign agrees: {3} ({4:f1}%)\n"
                    "with a logged delta_size: {5}, whose sign agrees: {6} "
                    "({7:f1}%)\n",
                    Decisions, Failed, Changed, Agree,
                    Changed ? 100.0 * Agree / Changed : 0.0, ScoredChanged,
                    ScoredAgree,
                    ScoredChanged ? 100.0 * ScoredAgree / ScoredChanged : 0.0);
  if (Declined)
    outs() << formatv("declined, with an estimated delta_size: {0}, whose "
                      "sign agrees: {1} ({2:f1}%)\n",
                      DeclinedChanged, DeclinedAgree,
                      DeclinedChanged ? 100.0 * DeclinedAgree / DeclinedChanged
                                      : 0.0);
  return 0;
}

tool::RegisterSubcommand RegisterDataset(DatasetCmd, runDataset);
tool::RegisterSubcommand RegisterTrain(TrainCmd, runTrain);
tool::RegisterSubcommand RegisterEval(EvalCmd, runEval);
tool::RegisterSubcommand RegisterDecisions(DecisionsCmd, runDecisions);

} // namespace
