//===- lib/Tune/TuneReport.cpp - What a tune run writes -------------------===//
//
// See mlgo/Tune/TuneReport.h: texts from values; the curve through
// learn::LearningCurve.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/TuneReport.h"

#include "mlgo/Learn/LearningCurve.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Percent.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace mlgo {

static std::string formatSummary(const RunReport &R) {
  std::string Md = "# mlgo tune report\n\n";
  Md += formatv("- Corpus: {0} ({1} modules, fingerprint {2}); {3} failed "
                "to compile and {4} left out{5}.\n",
                R.CorpusDir, R.Modules, R.Fingerprint, R.Failures.size(),
                R.Failures.size() == 1 ? "is" : "are",
                R.Failures.empty() ? "" : " (see Failed compiles)");
  Md += formatv("- Model: {0}; order {1}; seed {2}; budget {3}.\n",
                R.ModelDescription, R.OrderDescription, R.Seed, R.Budget);
  Md += formatv("- Search: {0} compiles{1}.\n", R.Compiles,
                R.StoppedByBudget ? ", stopped by the budget" : "");
  if (R.HoistedFunctions)
    Md += formatv("- Whole-program decisions: {0} linkonce_odr function{1} "
                  "decided once for {2} ({3} program entries; {4} module "
                  "entries left out, {5} added).\n",
                  R.HoistedFunctions, R.HoistedFunctions == 1 ? "" : "s",
                  R.Programs.size() == 1 ? "the program" : "their program",
                  R.ProgramEntries, R.Removed, R.Added);
  if (R.Filtered)
    Md += formatv("- Logged filter (each trajectory's logged size scores, "
                  "no compile): {0} planned moves without a positive logged "
                  "gain were skipped.\n",
                  *R.Filtered);
  return Md;
}

std::string formatProgramReport(const ProgramReport &P) {
  std::string Section =
      formatv("Linked .text: -Oz {0}, model {1}, tuned {2} bytes ({3:F2}% vs "
              "-Oz, {4:F2}% vs the model).\n\n",
              P.Stock, P.Model, P.Tuned, percentChange(P.Stock, P.Tuned),
              percentChange(P.Model, P.Tuned))
          .str();
  for (const std::string &L : P.KeptLines)
    Section += L + "\n";
  return Section;
}

std::string formatReport(const RunReport &R) {
  std::string Md = formatSummary(R);
  Md += "\n| program | -Oz | model | tuned | tuned vs -Oz | tuned vs model "
        "| modules tuned |\n|---|---:|---:|---:|---:|---:|---:|\n";
  uint64_t TS = 0, TM = 0, TT = 0;
  for (const ProgramReport &P : R.Programs) {
    Md += formatv("| {0} | {1} | {2} | {3} | {4:F2}% | {5:F2}% | {6} of {7} "
                  "|\n",
                  P.Shown, P.Stock, P.Model, P.Tuned,
                  percentChange(P.Stock, P.Tuned),
                  percentChange(P.Model, P.Tuned), P.UnitsTuned, P.Units);
    TS += P.Stock;
    TM += P.Model;
    TT += P.Tuned;
  }
  if (R.Programs.size() > 1)
    Md += formatv("| total | {0} | {1} | {2} | {3:F2}% | {4:F2}% | |\n", TS, TM,
                  TT, percentChange(TS, TT), percentChange(TM, TT));
  for (const ProgramReport &P : R.Programs)
    Md += "\n## " + P.Shown + "\n\n" + formatProgramReport(P);
  if (!R.Failures.empty()) {
    if (!StringRef(Md).ends_with("\n\n"))
      Md += "\n";
    Md += "## Failed compiles\n\nThese modules are in no program above and "
          "the decisions file has no entries for them. A timeout or a killed "
          "worker is not cached: rerunning the same command compiles them "
          "again.\n\n";
    for (const std::string &F : R.Failures)
      Md += "- " + F + "\n";
  }
  return Md;
}

std::string formatTries(ArrayRef<TryRecord> Tries,
                        function_ref<std::string(size_t)> ProgramOf,
                        function_ref<std::string(size_t)> UnitKey) {
  std::string Tsv = "step\tcompiles\tprogram\tmodule\tmove\tlogit\tchanged\t"
                    "callee_sites\tposition\tunit_text\tdelta\tok\tkept\n";
  for (const TryRecord &T : Tries) {
    const MoveFeatures &F = T.Move.Features;
    Tsv += formatv("{0}\t{1}\t{2}\t{3}\t{4}\t{5}\t{6}\t{7}\t{8}\t{9}\t{10}\t{"
                   "11}\t{12}\n",
                   T.Step, T.Compiles, ProgramOf(T.Unit), UnitKey(T.Unit),
                   T.Move.getKey(), formatv("{0:F4}", F.Logit), F.Changed,
                   F.CalleeSites, F.Position, T.UnitText, T.Delta,
                   unsigned(T.Ok), unsigned(T.Kept))
               .str();
  }
  return Tsv;
}

std::string formatFiltered(ArrayRef<FilteredRecord> Filtered) {
  std::string Tsv = "compiles\tmodule\tmove\tlogged_gain\n";
  for (const FilteredRecord &L : Filtered)
    Tsv +=
        formatv("{0}\t{1}\t{2}\t{3}\n", L.Compiles, L.Unit, L.Move.Key,
                std::isnan(L.Move.Gain) ? std::string("none")
                                        : formatv("{0:F2}", L.Move.Gain).str())
            .str();
  return Tsv;
}

Error writeCurve(StringRef Stem, ArrayRef<CurvePoint> Curve,
                 uint64_t ModelTotal) {
  // The table keeps integers as integers (LearningCurve's CSV writes
  // numbers in their shortest exact form, 1e+03 for 1000); the plot is
  // LearningCurve's.
  std::string Csv = "compiles,linked bytes,% vs the model,seconds\n";
  learn::LearningCurve Plot("mlgo tune: linked .text against the model's, "
                            "by compiles",
                            "compiles", {"% vs the model"});
  for (const CurvePoint &P : Curve) {
    const double Percent = percentChange(ModelTotal, P.Total);
    Csv += formatv("{0},{1},{2:F3},{3:F1}\n", P.Compiles, P.Total, Percent,
                   P.Seconds)
               .str();
    Plot.addPoint(P.Compiles, {Percent});
  }
  if (Error E = writeFileAtomically((Stem + ".csv").str(), Csv))
    return E;
  return Plot.saveSVG((Stem + ".svg").str());
}

} // namespace mlgo
