//===- unittests/Train/TrainerTest.cpp - The trainer's report helpers -----===//

#include "mlgo/Train/Trainer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

using namespace mlgo;

namespace {

TEST(TrainerTest, PackagesOverLimitNamesOnlyThoseAboveIt) {
  PackageSizes S;
  S["bzip2"] = {49503, 52443};      // +5.94%
  S["fmtlib"] = {2708090, 2732328}; // +0.895%
  S["lua5.4"] = {1000, 1005};       // +0.50%: at the limit, not above
  S["zlib"] = {48930, 48930};       // 0
  S["snappy"] = {59534, 58157};     // smaller
  EXPECT_EQ(packagesOverLimit(S, 0.5), "bzip2 (+5.94%), fmtlib (+0.90%)");
  EXPECT_EQ(packagesOverLimit(S, 1.0), "bzip2 (+5.94%)");
  EXPECT_EQ(packagesOverLimit(S, 10.0), "");
  EXPECT_EQ(packagesOverLimit({}, 0.5), "");
  // A package with no -Oz bytes counts as unchanged.
  EXPECT_EQ(packagesOverLimit({{"empty", {0, 10}}}, 0.5), "");
}

std::string print(const TrainRecipe &R) {
  return llvm::formatv("{0:2}", R.toJSON()).str();
}

// mlgo train writes the recipe as run (toJSON) into its work directory;
// reading it back must give the same recipe, key for key.
TEST(TrainerTest, RecipeAsRunReadsBackTheSame) {
  llvm::Expected<TrainRecipe> Shipped =
      TrainRecipe::load(MLGO_SOURCE_DIR "/models/inline-oz/recipe.json");
  ASSERT_TRUE(bool(Shipped)) << llvm::toString(Shipped.takeError());
  for (const TrainRecipe &R : {*Shipped, TrainRecipe()}) {
    llvm::Expected<TrainRecipe> Back =
        TrainRecipe::fromJSON(R.toJSON(), "as-run.json");
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    EXPECT_EQ(print(*Back), print(R));
  }
  // Every key is written, defaults included.
  TrainRecipe Default;
  llvm::json::Value Defaults = Default.toJSON();
  const llvm::json::Object *O = Defaults.getAsObject();
  ASSERT_NE(O, nullptr);
  EXPECT_EQ(O->size(), 37u);
  EXPECT_EQ(*O->getString("mode"), "search-imitate");
  EXPECT_EQ(*O->getString("size_measure"), "module");
  EXPECT_EQ(*O->getString("selection_measure"), "module");
  llvm::json::Value AsRun = Shipped->toJSON();
  EXPECT_EQ(*AsRun.getAsObject()->getNumber("flip_weight_cap"), 1000000);
  EXPECT_EQ(O->get("predicted_inversions"), nullptr)
      << "off is not written: a recipe without it keeps its bytes";
}

// predicted_inversions: read, written back when set, and checked.
TEST(TrainerTest, PredictedInversionsKey) {
  llvm::Expected<TrainRecipe> R = TrainRecipe::fromJSON(
      llvm::json::Object{{"mode", "counterfactual"},
                         {"predicted_inversions", "rank"}},
      "r.json");
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Predicted, PredictedInversions::Rank);
  llvm::json::Value Back = R->toJSON();
  EXPECT_EQ(*Back.getAsObject()->getString("predicted_inversions"), "rank");
  llvm::Expected<TrainRecipe> Again = TrainRecipe::fromJSON(Back, "as-run");
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(print(*Again), print(*R));

  llvm::Expected<TrainRecipe> Bad = TrainRecipe::fromJSON(
      llvm::json::Object{{"mode", "counterfactual"},
                         {"predicted_inversions", "first"}},
      "r.json");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(llvm::toString(Bad.takeError()),
            "r.json: 'predicted_inversions' must be \"off\", \"rank\" or "
            "\"skip\"");
  llvm::Expected<TrainRecipe> Search = TrainRecipe::fromJSON(
      llvm::json::Object{{"predicted_inversions", "skip"}}, "r.json");
  ASSERT_FALSE(bool(Search));
  EXPECT_EQ(llvm::toString(Search.takeError()),
            "r.json: 'predicted_inversions' needs 'mode' \"counterfactual\" "
            "(it chooses the inversions that mode compiles)");
}

/// The packages of scripts/packages/list.tsv that have a role matching
/// \p Role ("corpus-" matches corpus-train and corpus-validation), in the
/// list's order.
std::vector<std::string> listedPackages(llvm::StringRef Role) {
  const char *Path = MLGO_SOURCE_DIR "/scripts/packages/list.tsv";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buf)) << Path;
  if (!Buf)
    return {};
  std::vector<std::string> Out;
  llvm::SmallVector<llvm::StringRef> Lines, Fields, Roles;
  (*Buf)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef L : Lines) {
    if (L.starts_with("#") || L.starts_with("package\t"))
      continue;
    Fields.clear();
    L.split(Fields, '\t');
    EXPECT_EQ(Fields.size(), 4u) << L.str();
    if (Fields.size() != 4)
      continue;
    Roles.clear();
    Fields[2].split(Roles, ',');
    if (llvm::any_of(Roles,
                     [&](llvm::StringRef R) { return R.starts_with(Role); }))
      Out.push_back(Fields[0].str());
  }
  return Out;
}

// models/inline-oz/headroom-recipe.json measures the room on the shipped
// recipe's validation packages, so it must search exactly those: every
// other corpus package of scripts/packages/list.tsv (what
// scripts/corpus-debian.sh --all builds) is excluded, none held out. The
// list's corpus-validation role names the same packages.
TEST(TrainerTest, HeadroomRecipeSearchesTheShippedValidationPackages) {
  llvm::Expected<TrainRecipe> Shipped =
      TrainRecipe::load(MLGO_SOURCE_DIR "/models/inline-oz/recipe.json");
  ASSERT_TRUE(bool(Shipped)) << llvm::toString(Shipped.takeError());
  llvm::Expected<TrainRecipe> Headroom = TrainRecipe::load(
      MLGO_SOURCE_DIR "/models/inline-oz/headroom-recipe.json");
  ASSERT_TRUE(bool(Headroom)) << llvm::toString(Headroom.takeError());
  EXPECT_EQ(Headroom->Mode, TrainMode::SearchImitate);
  EXPECT_TRUE(Headroom->ValidationPackages.empty());
  EXPECT_EQ(Headroom->SearchCandidates, 400u);
  EXPECT_EQ(Headroom->SearchBudgetBytes, 0u);
  EXPECT_EQ(Headroom->SizeMeasure, SizeMeasureKind::Package);
  std::vector<std::string> Corpus = listedPackages("corpus-");
  EXPECT_EQ(Corpus.size(), 28u);
  std::set<std::string> Searched(Corpus.begin(), Corpus.end());
  for (const std::string &P : Headroom->ExcludedPackages)
    EXPECT_EQ(Searched.erase(P), 1u) << P;
  std::set<std::string> Validation(Shipped->ValidationPackages.begin(),
                                   Shipped->ValidationPackages.end());
  EXPECT_EQ(Searched, Validation);
  std::vector<std::string> Listed = listedPackages("corpus-validation");
  EXPECT_EQ(std::set<std::string>(Listed.begin(), Listed.end()), Validation);
}

} // namespace
