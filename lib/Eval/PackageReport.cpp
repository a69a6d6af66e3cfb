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
    if (T.BaselinePassed && (!T.ModelPassed || (HasTuned && !T.TunedPassed)))
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
  if (HasTuned) {
    T.Header.push_back(TunedName);
    T.Header.push_back(TunedName + " delta");
  }
  if (HasNoLto) {
    T.Header.push_back(NoLtoName);
    T.Header.push_back(BaselineName + " vs " + NoLtoName);
  }
  auto Row = [&](std::string Name, uint64_t Base, uint64_t Model,
                 uint64_t Tuned, uint64_t NoLto) {
    std::vector<std::string> R = {std::move(Name), std::to_string(Base),
                                  std::to_string(Model),
                                  formatDeltaPercent(Base, Model)};
    if (HasTuned) {
      R.push_back(std::to_string(Tuned));
      R.push_back(formatDeltaPercent(Base, Tuned));
    }
    if (HasNoLto) {
      R.push_back(std::to_string(NoLto));
      R.push_back(formatDeltaPercent(NoLto, Base));
    }
    T.addRow(std::move(R));
  };
  for (const ArtifactSizes &A : Artifacts)
    Row(A.Path, A.Baseline, A.Model, A.Tuned, A.NoLto);
  T.addRuleBeforeNextRow();
  Row("TOTAL (" + std::to_string(Artifacts.size()) + " artifacts)",
      getTotal(&ArtifactSizes::Baseline), getTotal(&ArtifactSizes::Model),
      getTotal(&ArtifactSizes::Tuned), getTotal(&ArtifactSizes::NoLto));
  return T;
}

Table PackageReport::getBuildTable() const {
  Table T;
  T.Header = {Package + " build", BaselineName, ModelName, "ratio"};
  if (HasTuned) {
    T.Header.push_back(TunedName);
    T.Header.push_back(TunedName + " ratio");
  }
  if (HasNoLto) {
    T.Header.push_back(NoLtoName);
    T.Header.push_back(NoLtoName + " ratio");
  }
  auto Ratio = [](double A, double B) {
    return A > 0 ? formatv("{0:f3}", B / A).str() : std::string("n/a");
  };
  auto Row = [&](std::string Name, auto Get, auto Show, bool WithRatio) {
    std::vector<std::string> R = {
        std::move(Name), Show(Get(Baseline)), Show(Get(Model)),
        WithRatio ? Ratio(double(Get(Baseline)), double(Get(Model)))
                  : std::string()};
    if (HasTuned) {
      R.push_back(Show(Get(Tuned)));
      R.push_back(WithRatio ? Ratio(double(Get(Baseline)), double(Get(Tuned)))
                            : std::string());
    }
    if (HasNoLto) {
      R.push_back(Show(Get(NoLto)));
      R.push_back(WithRatio ? Ratio(double(Get(Baseline)), double(Get(NoLto)))
                            : std::string());
    }
    T.addRow(std::move(R));
  };
  Row(
      "wall-clock seconds", [](const BuildStats &B) { return B.WallSeconds; },
      [](double V) { return formatv("{0:f2}", V).str(); }, true);
  Row(
      "peak compiler RSS (MiB)",
      [](const BuildStats &B) { return B.PeakRSSKiB; },
      [](uint64_t V) { return formatv("{0:f1}", V / 1024.0).str(); }, true);
  Row(
      "compiler runs", [](const BuildStats &B) { return B.CompilerRuns; },
      [](size_t V) { return std::to_string(V); }, false);
  return T;
}

Table PackageReport::getTestTable() const {
  Table T;
  T.Header = {Package + " test", BaselineName, ModelName};
  if (HasTuned)
    T.Header.push_back(TunedName);
  if (HasNoLto)
    T.Header.push_back(NoLtoName);
  for (const TestOutcome &O : Tests) {
    std::vector<std::string> R = {O.Name, O.BaselinePassed ? "pass" : "FAIL",
                                  O.ModelPassed ? "pass" : "FAIL"};
    if (HasTuned)
      R.push_back(O.TunedPassed ? "pass" : "FAIL");
    if (HasNoLto)
      R.push_back(O.NoLtoPassed ? "pass" : "FAIL");
    T.addRow(std::move(R));
  }
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
  bool Tuned = llvm::any_of(
      Packages, [](const auto &P) { return P.second && P.second->HasTuned; });
  T.Header = {"package", (BaselineName + " .text").str(),
              (ModelName + " .text").str(), "delta"};
  if (Tuned) {
    T.Header.push_back("tuned .text");
    T.Header.push_back("tuned delta");
  }
  T.Header.push_back(("tests passed " + BaselineName).str());
  T.Header.push_back(("tests passed " + ModelName).str());
  if (Tuned)
    T.Header.push_back("tests passed tuned");
  uint64_t TotalBase = 0, TotalModel = 0, TotalTuned = 0;
  size_t Reported = 0;
  for (const auto &[Name, R] : Packages) {
    if (!R) {
      std::vector<std::string> Row(T.Header.size(), "n/a");
      Row[0] = Name;
      Row[1] = Row[2] = "failed";
      T.addRow(std::move(Row));
      continue;
    }
    ++Reported;
    uint64_t Base = R->getTotal(&ArtifactSizes::Baseline),
             Mod = R->getTotal(&ArtifactSizes::Model),
             Tun = R->HasTuned ? R->getTotal(&ArtifactSizes::Tuned) : Mod;
    TotalBase += Base;
    TotalModel += Mod;
    TotalTuned += Tun;
    auto Passed = [&](bool TestOutcome::*Build) {
      if (R->Tests.empty())
        return std::string("no tests");
      return std::to_string(R->countPassed(Build)) + "/" +
             std::to_string(R->Tests.size());
    };
    std::vector<std::string> Row = {Name, std::to_string(Base),
                                    std::to_string(Mod),
                                    formatDeltaPercent(Base, Mod)};
    if (Tuned) {
      Row.push_back(R->HasTuned ? std::to_string(Tun) : "n/a");
      Row.push_back(R->HasTuned ? formatDeltaPercent(Base, Tun) : "n/a");
    }
    Row.push_back(Passed(&TestOutcome::BaselinePassed));
    Row.push_back(Passed(&TestOutcome::ModelPassed));
    if (Tuned)
      Row.push_back(R->HasTuned ? Passed(&TestOutcome::TunedPassed) : "n/a");
    T.addRow(std::move(Row));
  }
  T.addRuleBeforeNextRow();
  std::vector<std::string> Total = {
      "TOTAL (" + std::to_string(Reported) +
          (Reported == 1 ? " package)" : " packages)"),
      std::to_string(TotalBase), std::to_string(TotalModel),
      formatDeltaPercent(TotalBase, TotalModel)};
  if (Tuned) {
    Total.push_back(std::to_string(TotalTuned));
    Total.push_back(formatDeltaPercent(TotalBase, TotalTuned));
  }
  Total.resize(T.Header.size());
  T.addRow(std::move(Total));
  return T;
}

/// "0.9876 [0.9801, 0.9950]".
static std::string formatEstimate(const speed::RatioEstimate &E) {
  return formatv("{0:F4} [{1:F4}, {2:F4}]", E.Median, E.CI.Low, E.CI.High)
      .str();
}

/// \p Value / \p Base with four decimals; "-" without a base.
static std::string formatSpeedRatio(double Base, double Value) {
  if (Base <= 0)
    return "-";
  return formatv("{0:F4}", Value / Base).str();
}

Table PackageReport::getSpeedTable() const {
  Table T;
  T.Header = {Package + " speed", BaselineName, ModelName, "ratio"};
  auto Whole = [](double D) { return formatv("{0:F0}", D).str(); };
  T.addRow({"executed instructions (callgrind)",
            std::to_string(Speed.BaselineExecuted),
            std::to_string(Speed.ModelExecuted),
            formatSpeedRatio(double(Speed.BaselineExecuted),
                             double(Speed.ModelExecuted))});
  T.addRow({"reward: instructions (profile)",
            Whole(Speed.BaselineRewardInstructions),
            Whole(Speed.ModelRewardInstructions),
            formatSpeedRatio(Speed.BaselineRewardInstructions,
                             Speed.ModelRewardInstructions)});
  T.addRow(
      {"reward: cycles (profile)", Whole(Speed.BaselineRewardCycles),
       Whole(Speed.ModelRewardCycles),
       formatSpeedRatio(Speed.BaselineRewardCycles, Speed.ModelRewardCycles)});
  if (Speed.Cost == speed::CostKind::Cycles)
    T.addRow({"estimated cycles (callgrind simulation)",
              std::to_string(Speed.BaselineCycles),
              std::to_string(Speed.ModelCycles),
              formatSpeedRatio(double(Speed.BaselineCycles),
                               double(Speed.ModelCycles))});
  if (Speed.Cost == speed::CostKind::Time) {
    T.addRow({Speed.TimeMeasure + " (mlgo bench, " +
                  std::to_string(Speed.TimeRounds) + " rounds)",
              "1", formatEstimate(Speed.Time),
              speed::describe(speed::judge(Speed.Time.CI))});
    return T;
  }
  T.addRow(
      {"wall-clock seconds (median of " + std::to_string(Speed.WallRuns) + ")",
       formatv("{0:F3}", Speed.BaselineWallMedian).str(),
       formatv("{0:F3}", Speed.ModelWallMedian).str(),
       formatv("{0:F4}", Speed.WallRatioMedian).str()});
  return T;
}

Table PackageReport::getBoltTable() const {
  Table T;
  T.Header = {Package + " against BOLT", "executed instructions", "ratio",
              Bolt.Measure + " ratio [95% interval]", "verdict"};
  for (size_t I = 0; I < Bolt.Names.size(); ++I)
    T.addRow(
        {Bolt.Names[I], std::to_string(Bolt.Executed[I]),
         formatSpeedRatio(double(Bolt.Executed[0]), double(Bolt.Executed[I])),
         formatEstimate(Bolt.Time[I]),
         I == 0 ? "baseline" : speed::describe(speed::judge(Bolt.Time[I].CI))});
  return T;
}

/// The line that says whether \p Gainer's gain (\p Before, over
/// \p Without) survives \p Other (\p After: both with \p Other).
static void printSurvival(raw_ostream &OS, StringRef Gainer, StringRef Other,
                          StringRef Without, const speed::RatioEstimate &Before,
                          const speed::RatioEstimate &After) {
  speed::Verdict V = speed::judge(Before.CI), W = speed::judge(After.CI);
  OS << Gainer << " against " << Without << ": " << formatEstimate(Before)
     << ' ' << speed::describe(V) << "; with " << Other
     << " both: " << formatEstimate(After) << ' ' << speed::describe(W) << ": ";
  if (V != speed::Verdict::Faster)
    OS << Gainer << " has no gain for " << Other << " to keep or undo\n";
  else if (W == speed::Verdict::Faster)
    OS << Gainer << "'s gain survives " << Other << '\n';
  else
    OS << Gainer << "'s gain does not survive " << Other << '\n';
}

Table getSpeedSummaryTable(
    ArrayRef<std::pair<std::string, const PackageReport *>> Packages,
    StringRef BaselineName, StringRef ModelName) {
  // One --cost for every package of a run.
  speed::CostKind Cost = speed::CostKind::Instructions;
  for (const auto &[Name, R] : Packages)
    if (R && R->HasSpeed)
      Cost = R->Speed.Cost;
  Table T;
  T.Header = {"package",
              "instructions " + ModelName.str() + "/" + BaselineName.str(),
              "reward instructions", "reward cycles"};
  if (Cost == speed::CostKind::Cycles)
    T.Header.push_back("cycles (simulated)");
  T.Header.push_back(Cost == speed::CostKind::Time ? "time [95% interval]"
                                                   : "wall-clock");
  for (const auto &[Name, R] : Packages) {
    if (!R || !R->HasSpeed)
      continue;
    const SpeedReport &S = R->Speed;
    std::vector<std::string> Row = {
        Name,
        formatSpeedRatio(double(S.BaselineExecuted), double(S.ModelExecuted)),
        formatSpeedRatio(S.BaselineRewardInstructions,
                         S.ModelRewardInstructions),
        formatSpeedRatio(S.BaselineRewardCycles, S.ModelRewardCycles)};
    if (Cost == speed::CostKind::Cycles)
      Row.push_back(
          formatSpeedRatio(double(S.BaselineCycles), double(S.ModelCycles)));
    Row.push_back(Cost == speed::CostKind::Time
                      ? formatEstimate(S.Time)
                      : formatv("{0:F4}", S.WallRatioMedian).str());
    T.addRow(std::move(Row));
  }
  return T;
}

void PackageReport::print(raw_ostream &OS, ReportFormat Format) const {
  getSizeTable().print(OS, Format);
  OS << '\n';
  getBuildTable().print(OS, Format);
  OS << '\n';
  if (HasSpeed) {
    getSpeedTable().print(OS, Format);
    OS << '\n';
    if (Format != ReportFormat::CSV) {
      OS << "reward of: " << join(Speed.Programs, ", ") << '\n';
      if (!Speed.Mismatches.empty()) {
        OS << "functions whose control flow differs from the profile's (no "
              "counts): "
           << Speed.Mismatches.size() << " (";
        for (size_t I = 0; I < Speed.Mismatches.size() && I < 3; ++I)
          OS << (I ? ", " : "") << Speed.Mismatches[I];
        OS << (Speed.Mismatches.size() > 3 ? ", ...)" : ")") << '\n';
      }
      OS << '\n';
    }
  }
  if (HasBolt) {
    getBoltTable().print(OS, Format);
    OS << '\n';
    if (Format != ReportFormat::CSV) {
      const std::vector<std::string> &N = Bolt.Names;
      OS << "BOLTed: " << join(Bolt.Programs, ", ") << '\n'
         << "timed: " << Bolt.Measure << ", " << Bolt.Rounds << " rounds ("
         << Bolt.Stopped << "); load average " << Bolt.LoadBefore << " before, "
         << Bolt.LoadAfter << " after\n";
      printSurvival(OS, N[2], "BOLT", N[0], Bolt.Time[2], Bolt.ModelAfterBolt);
      printSurvival(OS, "BOLT", N[2], N[0], Bolt.Time[1], Bolt.BoltAfterModel);
      OS << '\n';
    }
  }
  if (Format == ReportFormat::CSV)
    return getTestTable().print(OS, Format);
  if (Tests.empty()) {
    OS << "no tests run\n";
    return;
  }
  getTestTable().print(OS, Format);
  OS << '\n';
  for (const TestOutcome *T : getPossibleMiscompiles()) {
    // The builds it fails with: the model's, the tuned one's, or both.
    std::string With = T->ModelPassed ? TunedName : ModelName;
    if (!T->ModelPassed && HasTuned && !T->TunedPassed)
      With += " and " + TunedName;
    OS << "possible miscompile: " << Package << ": test '" << T->Name
       << "' fails with " << With << " and passes with " << BaselineName
       << '\n';
  }
  for (const TestOutcome *T : getBaselineFailures())
    OS << "not attributable to " << ModelName << ": " << Package << ": test '"
       << T->Name << "' fails with " << BaselineName
       << (T->ModelPassed ? " (passes with " + ModelName + ")"
                          : std::string(" too"))
       << '\n';
  OS << Package << ": " << countPassed(&TestOutcome::ModelPassed) << " of "
     << Tests.size() << " tests pass with " << ModelName;
  if (HasTuned)
    OS << ", " << countPassed(&TestOutcome::TunedPassed) << " with "
       << TunedName;
  OS << '\n';
}

} // namespace mlgo
