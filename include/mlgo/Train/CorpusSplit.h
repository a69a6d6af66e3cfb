//===- mlgo/Train/CorpusSplit.h - Training and validation sets --*- C++ -*-===//
//
// The first step of a training run: the corpus as loaded for compiling
// (mlgo/Compile/TrainingCorpus.h), split by the recipe into the modules that
// train and those held out for validation, excluded packages left out. The
// split also names the corpus (its fingerprint, mlgo/Corpus/Fingerprint.h)
// and its packages for messages. Everything after it is a function over
// values in mlgo/TrainCore/TrainerPhases.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAIN_CORPUSSPLIT_H
#define MLGO_TRAIN_CORPUSSPLIT_H

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/TrainCore/Recipe.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlgo {

/// The modules of a run, split by the recipe's packages.
struct CorpusSplit {
  /// The corpus's modules but the excluded packages', in corpus order.
  std::vector<CorpusModule> Modules;
  /// Indices into Modules.
  std::vector<size_t> Train, Validation;
  /// Of the whole corpus, excluded packages included: it names the corpus
  /// as built, whatever a recipe takes from it.
  std::string Fingerprint;
  /// Every package of the corpus as messages name it (describePackage),
  /// sorted.
  std::vector<std::string> Packages;
};

/// Splits \p All (the corpus at \p CorpusDir, for messages) by \p Recipe's
/// validation and excluded packages. Fails if a validation package is not
/// in the corpus, or if no module is left to train on.
llvm::Expected<CorpusSplit> splitCorpus(std::vector<CorpusModule> All,
                                        const TrainRecipe &Recipe,
                                        llvm::StringRef CorpusDir);

} // namespace mlgo

#endif // MLGO_TRAIN_CORPUSSPLIT_H
