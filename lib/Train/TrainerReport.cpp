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
namespace trainer {

Error writeReport(Context &C, const Baseline &B, StringRef ChosenLabel,
                  const ChosenOutcome &O, double Minutes) {
  RunSummary S;
  S.CorpusDir = C.Options.CorpusDir;
  S.Fingerprint = C.CorpusFingerprint;
  S.TrainModules = B.Train.size();
  S.ValidationModules = B.Validation.size();
  S.PhaseLines = C.Record.Report;
  S.ChosenLabel = ChosenLabel.str();
  S.SelectionName = B.selectionName().str();
  S.Outcome = O;
  S.LeftOut = B.LeftOut;
  S.Minutes = Minutes;
  std::string R = renderReport(C.Recipe, S);
  if (Error E = C.writeWorkFile("report.md", R))
    return E;
  const RunRecord &Rec = C.Record;
  std::vector<std::pair<const learn::LearningCurve *, StringRef>> Curves = {
      {&Rec.SearchCurve, "search-curve"}, {&Rec.EpochCurve, "imitation-curve"}};
  if (C.Recipe.ESIterations)
    Curves.push_back({&Rec.ESCurve, "es-curve"});
  Curves.push_back({&Rec.SelectCurve, "selection-curve"});
  for (auto [Curve, Stem] : Curves)
    if (Error E = Curve->save(C.workFile(Stem)))
      return E;
  // The run's outcome is its output, --quiet or not.
  outs() << R;
  outs().flush();
  return Error::success();
}

} // namespace trainer
} // namespace mlgo
