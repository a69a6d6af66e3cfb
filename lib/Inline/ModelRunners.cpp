//===- ModelRunners.cpp - Model-backed runners for the inliner ------------===//
//
// The two ways the plugin evaluates a model, both PolicyRunners over the
// same text model format (see mlgo/Model/Model.h):
//  * embedded ("release mode"): models/inline-oz/model.json, turned into
//    plain C++ at build time by mlgo_embed_model and linked into the plugin;
//  * a model file ("development mode"), interpreted at run time.
// Both give bit-identical decisions for the same model (unittests/Model).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/MLGOInlineAdvisor.h"
#include "mlgo/Model/PolicyRunner.h"
#include "mlgo/embedded/inline_oz.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <mutex>

using namespace llvm;

namespace mlgo {

/// Parses each model file once per process; clang and opt build an advisor
/// per module (and the in-process compile worker compiles many modules).
static Expected<std::shared_ptr<const Model>> loadModelCached(StringRef Path) {
  static std::mutex Lock;
  static StringMap<std::shared_ptr<const Model>> Cache;
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Cache.find(Path);
  if (It != Cache.end())
    return It->second;
  Expected<Model> M = Model::load(Path);
  if (!M)
    return M.takeError();
  auto Shared = std::make_shared<const Model>(std::move(*M));
  Cache[Path] = Shared;
  return Shared;
}

static PolicyRunnerOptions
getRunnerOptions(const MLGOInlineAdvisorOptions &Options) {
  PolicyRunnerOptions RunnerOptions;
  if (Options.ExploreSeed) {
    RunnerOptions.ExplorationTemperature = Options.ExploreTemperature;
    RunnerOptions.Seed = *Options.ExploreSeed;
  }
  return RunnerOptions;
}

Expected<std::unique_ptr<ModelRunner>>
createModelRunner(std::shared_ptr<const Model> TheModel,
                  std::vector<TensorSpec> Inputs,
                  MLGOInlineAdvisorOptions &Options) {
  std::string Name = TheModel->Metadata.Name;
  auto R = InterpretedRunner::create(std::move(TheModel), std::move(Inputs),
                                     getRunnerOptions(Options));
  if (!R)
    return R.takeError();
  Options.ModelDescription = "model " + Name;
  return std::unique_ptr<ModelRunner>(std::move(*R));
}

Expected<std::unique_ptr<ModelRunner>>
createModelRunner(StringRef ModelPath, std::vector<TensorSpec> Inputs,
                  MLGOInlineAdvisorOptions &Options) {
  if (ModelPath.empty()) {
    auto R = EmbeddedRunner::create<embedded::inline_oz::Model>(
        std::move(Inputs), getRunnerOptions(Options));
    if (!R)
      return R.takeError();
    Options.ModelDescription = ("embedded model " + (*R)->getModelName()).str();
    return std::unique_ptr<ModelRunner>(std::move(*R));
  }
  auto M = loadModelCached(ModelPath);
  if (!M)
    return M.takeError();
  auto R = createModelRunner(*M, std::move(Inputs), Options);
  if (R)
    Options.ModelDescription += (" (" + ModelPath + ")").str();
  return R;
}

ModelHeuristicUse getModelHeuristicUse(const Model &M) {
  ModelHeuristicUse Use;
  const std::string Name = getInlineDefaultSpec().name();
  Use.ReadsDefault = llvm::any_of(
      M.Inputs, [&](const ModelInput &I) { return I.Spec.name() == Name; });
  Use.Settings = M.Heuristic;
  return Use;
}

Expected<ModelHeuristicUse> getModelHeuristicUse(StringRef ModelPath) {
  if (!ModelPath.empty()) {
    auto M = loadModelCached(ModelPath);
    if (!M)
      return M.takeError();
    return getModelHeuristicUse(**M);
  }
  EmbeddedModelInfo Info = getEmbeddedModelInfo<embedded::inline_oz::Model>();
  ModelHeuristicUse Use;
  const std::string Name = getInlineDefaultSpec().name();
  for (size_t I = 0; I < Info.NumInputs; ++I) {
    Expected<json::Value> JSON = json::parse(Info.InputSpecs[I]);
    if (!JSON)
      return JSON.takeError();
    Expected<TensorSpec> Spec = TensorSpec::fromJSON(*JSON);
    if (!Spec)
      return Spec.takeError();
    Use.ReadsDefault |= Spec->name() == Name;
  }
  if (Info.HasInlineThreshold)
    Use.Settings.InlineThreshold = Info.InlineThreshold;
  return Use;
}

void setInlineThreshold(InlineParams &Params, int32_t Threshold) {
  Params.DefaultThreshold = Threshold;
  Params.OptSizeThreshold.reset();
  Params.OptMinSizeThreshold.reset();
  Params.ColdThreshold.reset();
}

} // namespace mlgo
