//===- lib/TrainCore/Recipe.cpp - Reading and writing a recipe ------------===//

#include "mlgo/TrainCore/Recipe.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/JSONInteger.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

using namespace llvm;

namespace mlgo {

namespace {
/// A recipe word and the value it stands for.
template <typename E> struct Word {
  E Value;
  StringRef Name;
};

constexpr Word<TrainMode> ModeWords[] = {
    {TrainMode::SearchImitate, "search-imitate"},
    {TrainMode::Counterfactual, "counterfactual"},
    {TrainMode::BehaviouralCloning, "bc"}};
constexpr Word<FlipWeighting> FlipWeightWords[] = {
    {FlipWeighting::Bytes, "bytes"},
    {FlipWeighting::ModuleRelative, "module-relative"}};
constexpr Word<learn::FlipScope> FlipScopeWords[] = {
    {learn::FlipScope::Both, "both"},
    {learn::FlipScope::InlineOnly, "inline-only"},
    {learn::FlipScope::NoInlineOnly, "no-inline-only"}};
constexpr Word<SizeMeasureKind> SizeMeasureWords[] = {
    {SizeMeasureKind::Module, "module"},
    {SizeMeasureKind::Package, "package"},
    {SizeMeasureKind::Amortized, "amortized"}};
constexpr Word<TotalsKind> TotalsWords[] = {{TotalsKind::Objects, "module"},
                                            {TotalsKind::Linked, "package"}};
constexpr Word<PredictedInversions> PredictedWords[] = {
    {PredictedInversions::Off, "off"},
    {PredictedInversions::Rank, "rank"},
    {PredictedInversions::Skip, "skip"}};

template <typename E, size_t N>
StringRef nameIn(const Word<E> (&Words)[N], E Value) {
  for (const Word<E> &W : Words)
    if (W.Value == Value)
      return W.Name;
  llvm_unreachable("a value without a recipe word");
}
} // namespace

StringRef getName(TrainMode M) { return nameIn(ModeWords, M); }
StringRef getName(FlipWeighting W) { return nameIn(FlipWeightWords, W); }
StringRef getName(learn::FlipScope S) { return nameIn(FlipScopeWords, S); }
StringRef getName(SizeMeasureKind K) { return nameIn(SizeMeasureWords, K); }
StringRef getName(TotalsKind K) { return nameIn(TotalsWords, K); }
StringRef getName(PredictedInversions P) { return nameIn(PredictedWords, P); }

TrainRecipe::TrainRecipe() = default;

Expected<TrainRecipe> TrainRecipe::fromJSON(const json::Value &V,
                                            StringRef FileName) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return makeError(FileName + ": a recipe is a JSON object");
  TrainRecipe R;
  static const StringSet<> Known = {"name",
                                    "description",
                                    "mode",
                                    "seed",
                                    "validation_packages",
                                    "excluded_packages",
                                    "notes",
                                    "search_candidates",
                                    "search_max_decisions",
                                    "search_max_module_bytes",
                                    "search_budget_bytes",
                                    "flip_fractions",
                                    "flip_weight_cap",
                                    "max_package_regression",
                                    "limit_training_packages",
                                    "hidden",
                                    "epochs",
                                    "learning_rate",
                                    "l2",
                                    "batch_size",
                                    "departure_weight",
                                    "thresholds",
                                    "delta",
                                    "workers",
                                    "timeout_seconds",
                                    "es_iterations",
                                    "es_directions",
                                    "es_sigma",
                                    "es_learning_rate",
                                    "es_batch_modules",
                                    "flip_scope",
                                    "refuse_fractions",
                                    "dagger_fraction",
                                    "predicted_inversions",
                                    "flip_weight",
                                    "counterfactual_rounds",
                                    "size_measure",
                                    "selection_measure"};
  for (const auto &KV : *O)
    if (!Known.contains(KV.first))
      return makeError(FileName + ": unknown key '" + KV.first.str() + "'");
  auto Str = [&](StringRef K, std::string &Out) -> Error {
    if (const json::Value *X = O->get(K)) {
      auto S = X->getAsString();
      if (!S)
        return makeError(FileName + ": '" + K + "' must be a string");
      Out = S->str();
    }
    return Error::success();
  };
  // A word that must be one of \p Words; Out becomes its value.
  auto OneOf = [&](StringRef K, auto &Out, const auto &Words) -> Error {
    const json::Value *X = O->get(K);
    if (!X)
      return Error::success();
    std::optional<StringRef> S = X->getAsString();
    if (!S)
      return makeError(FileName + ": '" + K + "' must be a string");
    for (const auto &W : Words)
      if (W.Name == *S) {
        Out = W.Value;
        return Error::success();
      }
    std::string Quoted;
    size_t N = std::size(Words);
    for (size_t I = 0; I < N; ++I)
      Quoted += (I == 0       ? ""
                 : I + 1 == N ? " or "
                              : ", ") +
                ("\"" + Words[I].Name + "\"").str();
    return makeError(FileName + ": '" + K + "' must be " + Quoted);
  };
  auto StrList = [&](StringRef K, std::vector<std::string> &Out) -> Error {
    if (const json::Value *X = O->get(K)) {
      const json::Array *A = X->getAsArray();
      if (!A)
        return makeError(FileName + ": '" + K +
                         "' must be an array of strings");
      Out.clear();
      for (const json::Value &E : *A) {
        auto S = E.getAsString();
        if (!S)
          return makeError(FileName + ": '" + K +
                           "' must be an array of strings");
        Out.push_back(S->str());
      }
    }
    return Error::success();
  };
  auto Bool = [&](StringRef K, bool &Out) -> Error {
    if (const json::Value *X = O->get(K)) {
      std::optional<bool> B = X->getAsBoolean();
      if (!B)
        return makeError(FileName + ": '" + K + "' must be true or false");
      Out = *B;
    }
    return Error::success();
  };
  auto Num = [&](StringRef K, double &Out, double Min) -> Error {
    if (const json::Value *X = O->get(K)) {
      auto D = X->getAsNumber();
      if (!D || !std::isfinite(*D) || *D < Min)
        return makeError(FileName + ": '" + K +
                         "' must be a number >= " + formatv("{0}", Min).str());
      Out = *D;
    }
    return Error::success();
  };
  // A non-empty array of numbers, each accepted by Ok; Rule describes Ok in
  // the message.
  auto NumList = [&](StringRef K, auto &Out, StringRef Rule,
                     function_ref<bool(double)> Ok,
                     bool MayBeEmpty = false) -> Error {
    const json::Value *X = O->get(K);
    if (!X)
      return Error::success();
    auto Bad = [&] {
      return makeError(FileName + ": '" + K + "' must be a" +
                       (MayBeEmpty ? "n" : " non-empty") + " array of " + Rule);
    };
    const json::Array *A = X->getAsArray();
    if (!A || (A->empty() && !MayBeEmpty))
      return Bad();
    Out.clear();
    for (const json::Value &E : *A) {
      auto D = E.getAsNumber();
      if (!D || !Ok(*D))
        return Bad();
      Out.push_back(*D);
    }
    return Error::success();
  };
  // An integer in [Min, the largest value of Out's type]: a larger one
  // must not be silently cut to its low bits.
  auto Int = [&](StringRef K, auto &Out, int64_t Min) -> Error {
    if (const json::Value *X = O->get(K)) {
      auto I = getAsInt64(*X);
      if (!I || *I < Min)
        return makeError(FileName + ": '" + K +
                         "' must be an integer >= " + Twine(Min));
      using T = std::remove_reference_t<decltype(Out)>;
      if (static_cast<uint64_t>(*I) > std::numeric_limits<T>::max())
        return makeError(FileName + ": '" + K + "' must be an integer <= " +
                         Twine(uint64_t(std::numeric_limits<T>::max())));
      Out = static_cast<T>(*I);
    }
    return Error::success();
  };
  double DepartureWeight = R.DepartureWeight;
  if (Error E =
          joinErrors(Str("name", R.Name), Str("description", R.Description)))
    return E;
  if (Error E = OneOf("mode", R.Mode, ModeWords))
    return E;
  if (Error E = Str("notes", R.Notes))
    return E;
  if (Error E = OneOf("flip_scope", R.FlipScope, FlipScopeWords))
    return E;
  if (Error E = OneOf("size_measure", R.SizeMeasure, SizeMeasureWords))
    return E;
  if (Error E = OneOf("predicted_inversions", R.Predicted, PredictedWords))
    return E;
  // Unset, it follows size_measure (TrainRecipe::getSelectionMeasure).
  if (O->get("selection_measure")) {
    TotalsKind Selection = TotalsKind::Objects;
    if (Error E = OneOf("selection_measure", Selection, TotalsWords))
      return E;
    R.SelectionMeasure = Selection;
  }
  if (Error E = StrList("validation_packages", R.ValidationPackages))
    return E;
  if (Error E = StrList("excluded_packages", R.ExcludedPackages))
    return E;
  if (Error E = Int("seed", R.Seed, 0))
    return E;
  if (Error E = Int("search_candidates", R.SearchCandidates, 0))
    return E;
  if (Error E = Int("search_max_decisions", R.SearchMaxDecisions, 0))
    return E;
  if (Error E = Int("search_max_module_bytes", R.SearchMaxModuleBytes, 0))
    return E;
  if (Error E = Int("search_budget_bytes", R.SearchBudgetBytes, 0))
    return E;
  if (Error E = Num("flip_weight_cap", R.FlipWeightCap, 0))
    return E;
  if (Error E = Int("counterfactual_rounds", R.CounterfactualRounds, 1))
    return E;
  if (Error E = Int("es_iterations", R.ESIterations, 0))
    return E;
  if (Error E = Int("es_directions", R.ESDirections, 1))
    return E;
  if (Error E = Num("es_sigma", R.ESSigma, 0))
    return E;
  if (Error E = Num("es_learning_rate", R.ESLearningRate, 0))
    return E;
  if (Error E = Int("es_batch_modules", R.ESBatchModules, 1))
    return E;
  if (Error E = Num("max_package_regression", R.MaxPackageRegression, 0))
    return E;
  if (Error E = Bool("limit_training_packages", R.LimitTrainingPackages))
    return E;
  if (Error E = NumList("flip_fractions", R.FlipFractions, "numbers in [0, 1]",
                        [](double D) { return D >= 0 && D <= 1; }))
    return E;
  // Empty (the default) adds no candidates that refuse inlines.
  if (Error E = NumList(
          "refuse_fractions", R.RefuseFractions, "numbers in (0, 1]",
          [](double D) { return D > 0 && D <= 1; },
          /*MayBeEmpty=*/true))
    return E;
  if (Error E = OneOf("flip_weight", R.FlipWeight, FlipWeightWords))
    return E;
  if (Error E = Num("dagger_fraction", R.DaggerFraction, 0))
    return E;
  if (R.DaggerFraction &&
      !llvm::is_contained(R.FlipFractions, R.DaggerFraction))
    return makeError(FileName + ": 'dagger_fraction' must be one of "
                                "'flip_fractions'");
  if (R.Predicted != PredictedInversions::Off &&
      R.Mode != TrainMode::Counterfactual)
    return makeError(FileName + ": 'predicted_inversions' needs 'mode' "
                                "\"counterfactual\" (it chooses the "
                                "inversions that mode compiles)");
  if (!R.RefuseFractions.empty() &&
      R.FlipScope != learn::FlipScope::NoInlineOnly)
    return makeError(FileName + ": 'refuse_fractions' needs 'flip_scope' "
                                "\"no-inline-only\" (they set the other "
                                "side's tau)");
  if (Error E = Int("epochs", R.Epochs, 1))
    return E;
  if (Error E = Num("learning_rate", R.LearningRate, 0))
    return E;
  if (Error E = Num("l2", R.L2, 0))
    return E;
  if (Error E = Int("batch_size", R.BatchSize, 1))
    return E;
  if (Error E = Num("departure_weight", DepartureWeight, 0))
    return E;
  R.DepartureWeight = DepartureWeight;
  if (Error E = Num("delta", R.Delta, 0))
    return E;
  if (Error E = Int("workers", R.Workers, 0))
    return E;
  if (Error E = Int("timeout_seconds", R.TimeoutSeconds, 0))
    return E;
  if (const json::Value *X = O->get("hidden")) {
    const json::Array *A = X->getAsArray();
    if (!A)
      return makeError(FileName +
                       ": 'hidden' must be an array of layer widths");
    R.Hidden.clear();
    for (const json::Value &E : *A) {
      auto I = getAsInt64(E);
      if (!I || *I < 1)
        return makeError(FileName +
                         ": 'hidden' must be an array of layer widths");
      R.Hidden.push_back(*I);
    }
  }
  // Thresholds are floats: a number beyond float range would become an
  // infinite threshold.
  if (Error E = NumList(
          "thresholds", R.Thresholds, "finite float numbers", [](double D) {
            return std::isfinite(D) &&
                   std::fabs(D) <= std::numeric_limits<float>::max();
          }))
    return E;
  return R;
}

Expected<TrainRecipe> TrainRecipe::load(StringRef Path) {
  Expected<json::Value> V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  return fromJSON(*V, Path);
}

json::Value TrainRecipe::toJSON() const {
  json::Array Hid, Th, Val, Exc, Frac, Refuse;
  for (double F : FlipFractions)
    Frac.push_back(F);
  for (double F : RefuseFractions)
    Refuse.push_back(F);
  for (size_t H : Hidden)
    Hid.push_back(int64_t(H));
  for (float T : Thresholds)
    Th.push_back(double(T));
  for (const std::string &P : ValidationPackages)
    Val.push_back(P);
  for (const std::string &P : ExcludedPackages)
    Exc.push_back(P);
  json::Object O{{"name", Name},
                 {"description", Description},
                 {"mode", getName(Mode).str()},
                 {"seed", int64_t(Seed)},
                 {"validation_packages", std::move(Val)},
                 {"excluded_packages", std::move(Exc)},
                 {"notes", Notes},
                 {"search_candidates", int64_t(SearchCandidates)},
                 {"search_max_decisions", int64_t(SearchMaxDecisions)},
                 {"search_max_module_bytes", int64_t(SearchMaxModuleBytes)},
                 {"search_budget_bytes", int64_t(SearchBudgetBytes)},
                 {"flip_fractions", std::move(Frac)},
                 {"flip_weight", getName(FlipWeight).str()},
                 {"flip_weight_cap", FlipWeightCap},
                 {"max_package_regression", MaxPackageRegression},
                 {"limit_training_packages", LimitTrainingPackages},
                 {"es_iterations", int64_t(ESIterations)},
                 {"es_directions", int64_t(ESDirections)},
                 {"es_sigma", ESSigma},
                 {"es_learning_rate", ESLearningRate},
                 {"es_batch_modules", int64_t(ESBatchModules)},
                 {"flip_scope", getName(FlipScope).str()},
                 {"size_measure", getName(SizeMeasure).str()},
                 {"selection_measure", getName(getSelectionMeasure()).str()},
                 {"refuse_fractions", std::move(Refuse)},
                 {"counterfactual_rounds", int64_t(CounterfactualRounds)},
                 {"dagger_fraction", DaggerFraction},
                 {"hidden", std::move(Hid)},
                 {"epochs", int64_t(Epochs)},
                 {"learning_rate", LearningRate},
                 {"l2", L2},
                 {"batch_size", int64_t(BatchSize)},
                 {"departure_weight", double(DepartureWeight)},
                 {"thresholds", std::move(Th)},
                 {"delta", Delta},
                 {"workers", int64_t(Workers)},
                 {"timeout_seconds", int64_t(TimeoutSeconds)}};
  // Only when set: the recipe.json and model metadata of a recipe without
  // it stay as they were.
  if (Predicted != PredictedInversions::Off)
    O["predicted_inversions"] = getName(Predicted).str();
  return O;
}

} // namespace mlgo
