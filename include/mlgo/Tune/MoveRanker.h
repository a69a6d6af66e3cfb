//===- mlgo/Tune/MoveRanker.h - Which tuning move to try first -*- C++ -*-===//
//
// The guided search of `mlgo tune` tries first the moves a learned ranker
// expects to save the most linked .text. The ranker is a text model
// (docs/model-format.md) whose inputs are what the planner knows of a move
// (getMoveRankerFeatures()) and whose logit is the expected saving in
// bytes of one try: the mean, over tries of such moves, of the bytes the
// kept ones saved (a try that is not kept saves nothing).
//
// It is fitted by least squares to the tries logs of earlier tuning runs
// (W/tries-<order>.tsv, docs/tune.md): labels measured the way tune
// measures, linked. `mlgo tune fit-ranker` writes it;
// models/tune-ranker/ holds the shipped one and its recipe.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_MOVERANKER_H
#define MLGO_TUNE_MOVERANKER_H

#include "mlgo/Model/Model.h"
#include "mlgo/Tune/TuneSearch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlgo {

class ModelEvaluator;

/// The ranker's inputs, in model order (each a float of shape [1]).
llvm::ArrayRef<const char *> getMoveRankerFeatures();

/// The values of getMoveRankerFeatures() for move \p M of a unit whose
/// .text is \p UnitText bytes.
std::vector<float> getMoveRankerInputs(const TuneMove &M, uint64_t UnitText);

/// A model with the ranker's inputs, evaluated on moves.
class MoveRanker {
public:
  /// Checks that \p M reads exactly getMoveRankerFeatures(), in order, as
  /// floats of one element, and is not a per-column model.
  static llvm::Expected<MoveRanker> create(Model M, llvm::StringRef Name);
  static llvm::Expected<MoveRanker> load(llvm::StringRef Path);
  /// models/tune-ranker/ranker.json, embedded at build time.
  static llvm::Expected<MoveRanker> getShipped();
  MoveRanker(MoveRanker &&);
  MoveRanker &operator=(MoveRanker &&);
  ~MoveRanker();

  /// The expected bytes one try of \p M saves.
  double score(const TuneMove &M, uint64_t UnitText) const;
  const Model &getModel() const { return TheModel; }

private:
  MoveRanker(Model M);
  Model TheModel;
  std::unique_ptr<ModelEvaluator> Eval;
};

/// A tries log read back: one row per judged try.
struct TriesRow {
  std::string Program;
  TuneMove Move;
  uint64_t UnitText = 0;
  int64_t Delta = 0;
  bool Kept = false;
};

/// Reads a tries log. Errors name the file and line.
llvm::Expected<std::vector<TriesRow>> readTriesLog(llvm::StringRef Path);

struct RankerFitOptions {
  /// A kept try's saving counts up to this many bytes, so that a few
  /// large wins do not decide the whole ranking.
  double ClipBytes = 200;
  /// Ridge penalty on the weights (not the bias).
  double Ridge = 1e-3;
  std::string Description;
  std::string Recipe;
};

/// Fits the ranker to \p Rows by least squares; an error if there are
/// fewer rows than features.
llvm::Expected<Model> fitMoveRanker(llvm::ArrayRef<TriesRow> Rows,
                                    const RankerFitOptions &Options);

} // namespace mlgo

#endif // MLGO_TUNE_MOVERANKER_H
