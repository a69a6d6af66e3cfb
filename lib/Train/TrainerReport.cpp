//===- lib/Train/TrainerReport.cpp - report.md and the learning curves ----===//
//
// Phase 5 of mlgo/Train/Trainer.h: report.md (renderReport, a function of
// the run's summary), and each learning curve as CSV and SVG in the work
// directory.
//
//===----------------------------------------------------------------------===//

#include "TrainerImpl.h"

using namespace llvm;

namespace mlgo {

std::string renderReport(const TrainRecipe &Recipe, const RunSummary &S) {
  const ChosenOutcome &O = S.Outcome;
  bool Linked = Recipe.getSelectionMeasure() == TotalsKind::Linked;
  std::string R;
  raw_string_ostream OS(R);
  OS << "# mlgo train report: " << Recipe.Name << "\n\n"
     << "- Mode: " << getName(Recipe.Mode) << ", seed " << Recipe.Seed
     << "; corpus " << S.CorpusDir << "; " << S.TrainModules << " training and "
     << S.ValidationModules << " validation modules; corpus fingerprint "
     << S.Fingerprint << ".\n"
     << (S.ValidationModules == 0 ? "- Warning: the recipe holds out no "
                                    "validation packages; the model was chosen "
                                    "on the modules it was trained on.\n"
                                  : "")
     << (Recipe.SizeMeasure == SizeMeasureKind::Package
             ? "- Size measure: package. A module's reward and an "
               "inversion's label count only the code the module adds to "
               "its package: not the C++ inline or template functions "
               "(COMDAT groups) another module of the package has at "
               "-Oz.\n"
             : "")
     << (Recipe.SizeMeasure == SizeMeasureKind::Amortized
             ? "- Size measure: amortized. A module's reward and an "
               "inversion's label count each C++ inline or template "
               "function (COMDAT group) divided by the number of the "
               "package's modules holding a copy.\n"
             : "")
     << (Linked ? "- Selection measure: package. Totals are of each package's "
                  "objects linked together, every C++ inline or template "
                  "function (COMDAT group) once, as a linker keeps it.\n"
                : "")
     << S.PhaseLines
     << formatv("- Chosen: {0} (on {1}{2}).\n", S.ChosenLabel, S.SelectionName,
                Recipe.LimitTrainingPackages && S.SelectionName == "validation"
                    ? ", no training package over the limit"
                    : "")
     << formatv("- Validation: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                O.Val.Policy, O.Val.Baseline, O.Val.pct(), O.Val.failedClause())
     << (O.ValOther
             ? formatv(
                   "- Validation, {0}: .text {1} bytes vs -Oz {2} "
                   "({3:F3}%).\n",
                   Linked ? "objects summed" : "each package linked together",
                   O.ValOther->Policy, O.ValOther->Baseline, O.ValOther->pct())
                   .str()
             : "")
     << formatv("- Training: .text {0} bytes vs -Oz {1} ({2:F3}%){3}.\n",
                O.Train.Policy, O.Train.Baseline, O.Train.pct(),
                O.Train.failedClause())
     << (O.TrainOver.empty()
             ? ""
             : formatv("- Warning: the chosen model makes training packages "
                       "larger than -Oz by more than {0}%, which selection "
                       "(on validation) cannot see: {1}.\n",
                       Recipe.MaxPackageRegression, O.TrainOver)
                   .str())
     << formatv("- Wall-clock time of this invocation: {0:F1} min (cached "
                "compiles are replayed, not redone).\n\n",
                S.Minutes);
  auto Table = [&](StringRef Title, const PackageSizes &Map) {
    OS << "## " << Title
       << "\n\n| package | -Oz .text | model .text | change |\n"
       << "|---|---:|---:|---:|\n";
    for (auto &[Pkg, V] : Map)
      OS << "| " << Pkg << " | " << V.first << " | " << V.second << " | "
         << formatv("{0:F2}%", percentChange(V.first, V.second)) << " |\n";
    OS << "\n";
  };
  Table("Validation packages", O.ValPkg);
  Table("Training packages", O.TrainPkg);
  if (!S.LeftOut.empty() || !O.Val.Failures.empty() ||
      !O.Train.Failures.empty()) {
    OS << "## Failed compiles\n\n"
       << "These modules are in neither column of the tables above. A "
          "timeout or a killed worker is not cached: rerunning the same "
          "command compiles them again.\n\n";
    auto List = [&](StringRef Prefix, ArrayRef<std::string> Errors) {
      for (const std::string &E : Errors)
        OS << "- " << Prefix << E << "\n";
    };
    List("left out, ", S.LeftOut);
    List("validation, chosen model: ", O.Val.Failures);
    List("training, chosen model: ", O.Train.Failures);
    OS << "\n";
  }
  return R;
}

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
