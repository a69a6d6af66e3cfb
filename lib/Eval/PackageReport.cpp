//===- lib/Eval/PackageReport.cpp - A package built twice, compared -------===//
//
// The tables and verdicts of `mlgo eval package` (see
// mlgo/Eval/PackageReport.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/PackageReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace mlgo {

uint64_t parsePeakRSS(StringRef TimeLog, size_t *Runs) {
  uint64_t Peak = 0;
  size_t N = 0;
  SmallVector<StringRef> Lines;
  TimeLog.split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.trim();
    uint64_t V;
    if (Line.empty() || Line.getAsInteger(10, V))
      continue;
    ++N;
    Peak = std::max(Peak, V);
  }
  if (Runs)
    *Runs = N;
  return Peak;
}

std::vector<const TestOutcome *> PackageReport::getPossibleMiscompiles() const {
  std::vector<const TestOutcome *> Out;
  for (const TestOutcome &T : Tests)
    if (T.BaselinePassed && !T.ModelPassed)
      Out.push_back(&T);
  return Out;
}

std::vector<const TestOutcome *> PackageReport::getBaselineFailures() const {
  std::vector<const TestOutcome *> Out;
  for (const TestOutcome &T : Tests)
    if (!T.BaselinePassed)
      Out.push_back(&T);
  return Out;
}

Table PackageReport::getSizeTable() const {
  Table T;
  T.Header = {Package + " artifact", BaselineName, ModelName, "delta"};
  for (const ArtifactSizes &A : Artifacts)
    T.addRow({A.Path, std::to_string(A.Baseline), std::to_string(A.Model),
              formatDeltaPercent(A.Baseline, A.Model)});
  uint64_t TotalBase = getTotal(&ArtifactSizes::Baseline),
           TotalModel = getTotal(&ArtifactSizes::Model);
  T.addRuleBeforeNextRow();
  T.addRow({"TOTAL (" + std::to_string(Artifacts.size()) + " artifacts)",
            std::to_string(TotalBase), std::to_string(TotalModel),
            formatDeltaPercent(TotalBase, TotalModel)});
  return T;
}

Table PackageReport::getBuildTable() const {
  Table T;
  T.Header = {Package + " build", BaselineName, ModelName, "ratio"};
  auto Ratio = [](double A, double B) {
    return A > 0 ? formatv("{0:f3}", B / A).str() : std::string("n/a");
  };
  T.addRow({"wall-clock seconds", formatv("{0:f2}", Baseline.WallSeconds),
            formatv("{0:f2}", Model.WallSeconds),
            Ratio(Baseline.WallSeconds, Model.WallSeconds)});
  T.addRow({"peak compiler RSS (MiB)",
            formatv("{0:f1}", Baseline.PeakRSSKiB / 1024.0),
            formatv("{0:f1}", Model.PeakRSSKiB / 1024.0),
            Ratio(double(Baseline.PeakRSSKiB), double(Model.PeakRSSKiB))});
  T.addRow({"compiler runs", std::to_string(Baseline.CompilerRuns),
            std::to_string(Model.CompilerRuns), ""});
  return T;
}

Table PackageReport::getTestTable() const {
  Table T;
  T.Header = {Package + " test", BaselineName, ModelName};
  for (const TestOutcome &O : Tests)
    T.addRow({O.Name, O.BaselinePassed ? "pass" : "FAIL",
              O.ModelPassed ? "pass" : "FAIL"});
  return T;
}

uint64_t PackageReport::getTotal(uint64_t ArtifactSizes::*Build) const {
  uint64_t Total = 0;
  for (const ArtifactSizes &A : Artifacts)
    Total += A.*Build;
  return Total;
}

size_t PackageReport::countPassed(bool TestOutcome::*Build) const {
  return llvm::count_if(Tests, [&](const TestOutcome &T) { return T.*Build; });
}

Table getPackageSummaryTable(
    ArrayRef<std::pair<std::string, const PackageReport *>> Packages,
    StringRef BaselineName, StringRef ModelName) {
  Table T;
  T.Header = {"package",
              (BaselineName + " .text").str(),
              (ModelName + " .text").str(),
              "delta",
              ("tests passed " + BaselineName).str(),
              ("tests passed " + ModelName).str()};
  uint64_t TotalBase = 0, TotalModel = 0;
  size_t Reported = 0;
  for (const auto &[Name, R] : Packages) {
    if (!R) {
      T.addRow({Name, "failed", "failed", "n/a", "n/a", "n/a"});
      continue;
    }
    ++Reported;
    uint64_t Base = R->getTotal(&ArtifactSizes::Baseline),
             Mod = R->getTotal(&ArtifactSizes::Model);
    TotalBase += Base;
    TotalModel += Mod;
    auto Passed = [&](bool TestOutcome::*Build) {
      if (R->Tests.empty())
        return std::string("no tests");
      return std::to_string(R->countPassed(Build)) + "/" +
             std::to_string(R->Tests.size());
    };
    T.addRow({Name, std::to_string(Base), std::to_string(Mod),
              formatDeltaPercent(Base, Mod),
              Passed(&TestOutcome::BaselinePassed),
              Passed(&TestOutcome::ModelPassed)});
  }
  T.addRuleBeforeNextRow();
  T.addRow({"TOTAL (" + std::to_string(Reported) +
                (Reported == 1 ? " package)" : " packages)"),
            std::to_string(TotalBase), std::to_string(TotalModel),
            formatDeltaPercent(TotalBase, TotalModel), "", ""});
  return T;
}

void PackageReport::print(raw_ostream &OS, ReportFormat Format) const {
  getSizeTable().print(OS, Format);
  OS << '\n';
  getBuildTable().print(OS, Format);
  OS << '\n';
  if (Format == ReportFormat::CSV)
    return getTestTable().print(OS, Format);
  if (Tests.empty()) {
    OS << "no tests run\n";
    return;
  }
  getTestTable().print(OS, Format);
  OS << '\n';
  for (const TestOutcome *T : getPossibleMiscompiles())
    OS << "possible miscompile: " << Package << ": test '" << T->Name
       << "' fails with " << ModelName << " and passes with " << BaselineName
       << '\n';
  for (const TestOutcome *T : getBaselineFailures())
    OS << "not attributable to " << ModelName << ": " << Package << ": test '"
       << T->Name << "' fails with " << BaselineName
       << (T->ModelPassed ? " (passes with " + ModelName + ")"
                          : std::string(" too"))
       << '\n';
  OS << Package << ": " << countPassed(&TestOutcome::ModelPassed) << " of "
     << Tests.size() << " tests pass with " << ModelName << '\n';
}

} // namespace mlgo
