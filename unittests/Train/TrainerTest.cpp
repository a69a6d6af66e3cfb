//===- unittests/Train/TrainerTest.cpp - The trainer's report helpers -----===//

#include "mlgo/Train/Trainer.h"

#include "llvm/Support/FormatVariadic.h"

#include <set>

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
  EXPECT_EQ(O->size(), 36u);
  EXPECT_EQ(*O->getString("mode"), "search-imitate");
  EXPECT_EQ(*O->getString("size_measure"), "module");
  EXPECT_EQ(*O->getString("selection_measure"), "module");
  llvm::json::Value AsRun = Shipped->toJSON();
  EXPECT_EQ(*AsRun.getAsObject()->getNumber("flip_weight_cap"), 1000000);
}

// models/inline-oz/headroom-recipe.json measures the room on the shipped
// recipe's validation packages, so it must search exactly those: every
// other package of scripts/corpus-debian.sh --all is excluded, none held
// out.
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
  std::set<std::string> Searched = {
      "zlib",    "bzip2",       "lua5.4",        "expat",
      "libyaml", "pcre2",       "zstd",          "lz4",
      "brotli",  "lmdb",        "libuv1",        "jansson",
      "libxml2", "redis",       "libjpeg-turbo", "giflib",
      "libwebp", "lzo2",        "libsodium",     "libarchive",
      "fmtlib",  "snappy",      "libjsoncpp",    "double-conversion",
      "pugixml", "ninja-build", "cppcheck",      "googletest"};
  for (const std::string &P : Headroom->ExcludedPackages)
    EXPECT_EQ(Searched.erase(P), 1u) << P;
  EXPECT_EQ(Searched, std::set<std::string>(Shipped->ValidationPackages.begin(),
                                            Shipped->ValidationPackages.end()));
}

} // namespace
