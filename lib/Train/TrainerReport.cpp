//===- lib/Train/TrainerReport.cpp - report.md and the learning curves ----===//
//
// Phase 5 of mlgo/Train/Trainer.h: report.md (the run's summary, rendered
// by renderReport in mlgo/TrainCore/TrainerPhases.h), and each learning
// curve as CSV and SVG in the work directory.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

using namespace llvm;

namespace mlgo {

Error Trainer::writeReport(StringRef ChosenLabel, const Outcome &O,
                           double Minutes) {
  RunSummary S;
  S.CorpusDir = Options.CorpusDir;
  S.Fingerprint = CorpusFingerprint;
  S.TrainModules = Train.size();
  S.ValidationModules = Validation.size();
  S.PhaseLines = Report;
  S.ChosenLabel = ChosenLabel.str();
  S.SelectionName = selectionName().str();
  S.Outcome = O;
  S.LeftOut = LeftOut;
  S.Minutes = Minutes;
  std::string R = renderReport(Recipe, S);
  if (Error E = writeWorkFile("report.md", R))
    return E;
  std::vector<std::pair<const learn::LearningCurve *, StringRef>> Curves = {
      {&SearchCurve, "search-curve"}, {&EpochCurve, "imitation-curve"}};
  if (Recipe.ESIterations)
    Curves.push_back({&ESCurve, "es-curve"});
  Curves.push_back({&SelectCurve, "selection-curve"});
  for (auto [Curve, Stem] : Curves)
    if (Error E = Curve->save(workFile(Stem)))
      return E;
  // The run's outcome is its output, --quiet or not.
  outs() << R;
  outs().flush();
  return Error::success();
}

} // namespace mlgo
