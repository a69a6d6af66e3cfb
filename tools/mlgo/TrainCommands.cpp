//===- tools/mlgo/TrainCommands.cpp - mlgo train --------------------------===//
//
//   mlgo train --recipe R --corpus DIR --work-dir W -o model.json
//
// Runs a training recipe (mlgo/Train/Trainer.h). Rerunning the same command
// after an interruption resumes: finished compiles are replayed from
// W/compiles.tsv and the classifier from its last epoch checkpoint.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Train/Trainer.h"

#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand TrainCmd("train",
                        "Train an inlining-for-size policy from a recipe");
cl::opt<std::string> RecipePath("recipe",
                                cl::desc("the training recipe, JSON (every "
                                         "key: docs/training.md, 'Recipe "
                                         "keys'; the shipped model's: "
                                         "models/inline-oz/recipe.json)"),
                                cl::value_desc("file"), cl::Required,
                                cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> Corpus("corpus", cl::desc("corpus directory"),
                            cl::value_desc("dir"), cl::Required,
                            cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> WorkDir("work-dir",
                             cl::desc("where compiles, checkpoints, curves "
                                      "and the report go (resumable)"),
                             cl::value_desc("dir"), cl::Required,
                             cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<std::string> Output("o", cl::desc("the trained model"),
                            cl::value_desc("file"), cl::Required,
                            cl::sub(TrainCmd), cl::cat(Cat));
cl::opt<unsigned> Workers("jobs",
                          cl::desc("compile workers (overrides the recipe; "
                                   "does not change the result)"),
                          cl::init(0), cl::sub(TrainCmd), cl::cat(Cat));
cl::alias WorkersShort("j", cl::aliasopt(Workers));
cl::opt<bool> Quiet("quiet", cl::desc("no progress output"), cl::sub(TrainCmd),
                    cl::cat(Cat));

int runTrain() {
  Expected<TrainRecipe> R = TrainRecipe::load(RecipePath);
  if (!R) {
    WithColor::error(errs(), "mlgo") << toString(R.takeError()) << "\n";
    return 1;
  }
  if (Workers)
    R->Workers = Workers;
  TrainOptions O;
  O.CorpusDir = Corpus;
  O.WorkDir = WorkDir;
  O.OutputModel = Output;
  O.Verbose = !Quiet;
  if (Error E = runTraining(*R, O)) {
    WithColor::error(errs(), "mlgo") << toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}

tool::RegisterSubcommand RegTrain(TrainCmd, runTrain);

} // namespace
