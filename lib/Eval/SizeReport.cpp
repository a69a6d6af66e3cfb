//===- lib/Eval/SizeReport.cpp - .text sizes of a corpus, summarized ------===//
//
// Package grouping, totals, geometric means, best/worst modules and the
// printed report of `mlgo eval corpus` (see mlgo/Eval/SizeReport.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/SizeReport.h"

#include "mlgo/Corpus/Package.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace llvm;

namespace mlgo {

/// Sums \p Modules (indices into Report.Modules) into one GroupStats.
static GroupStats sumGroup(const SizeReport &Report, StringRef Name,
                           ArrayRef<size_t> Modules) {
  GroupStats G;
  G.Name = Name.str();
  G.Modules = Modules.size();
  size_t NumModels = Report.ModelNames.size();
  G.Models.resize(NumModels);
  std::vector<double> LogSum(NumModels, 0);
  size_t WithRatio = 0;
  for (size_t I : Modules) {
    const ModuleSizes &M = Report.Modules[I];
    G.BaselineTotal += M.Baseline;
    for (size_t J = 0; J < NumModels; ++J)
      G.Models[J].Total += M.Models[J];
    // A module whose .text is empty at the baseline has no ratio; one that
    // is empty under a model has ratio 0, whose log is -inf. Neither can
    // enter a geometric mean.
    bool HasRatio = M.Baseline != 0 &&
                    llvm::all_of(M.Models, [](uint64_t S) { return S != 0; });
    if (!HasRatio) {
      ++G.WithoutRatio;
      continue;
    }
    ++WithRatio;
    for (size_t J = 0; J < NumModels; ++J)
      LogSum[J] += std::log(double(M.Models[J]) / double(M.Baseline));
  }
  for (size_t J = 0; J < NumModels; ++J)
    G.Models[J].GeoMeanRatio =
        WithRatio ? std::exp(LogSum[J] / double(WithRatio)) : 1.0;

  // Policy P's code of the group linked together, modules in report order.
  static const std::vector<std::pair<std::string, uint64_t>> None;
  auto Once = [&](size_t P) {
    std::vector<std::pair<uint64_t, const decltype(None) *>> Code;
    for (size_t I : Modules) {
      const ModuleSizes &M = Report.Modules[I];
      const auto *Grouped = M.Grouped.empty() ? &None : &M.Grouped[P];
      G.HasGrouped |= !Grouped->empty();
      Code.push_back({P == 0 ? M.Baseline : M.Models[P - 1], Grouped});
    }
    return getCodeOnce<std::string>(Code);
  };
  G.BaselineOnce = Once(0);
  for (size_t J = 0; J < NumModels; ++J)
    G.Models[J].Once = Once(J + 1);
  return G;
}

std::vector<GroupStats> SizeReport::getPackageStats() const {
  std::map<std::string, std::vector<size_t>> ByPackage;
  for (size_t I = 0; I < Modules.size(); ++I)
    ByPackage[getModulePackage(Modules[I].Module).str()].push_back(I);
  std::vector<GroupStats> Out;
  for (const auto &[Package, Indices] : ByPackage)
    Out.push_back(sumGroup(*this, describePackage(Package), Indices));
  return Out;
}

GroupStats SizeReport::getTotalStats() const {
  std::vector<size_t> All(Modules.size());
  for (size_t I = 0; I < All.size(); ++I)
    All[I] = I;
  GroupStats T = sumGroup(*this, "TOTAL", All);
  // Packages are never linked together: a function two packages both
  // define is in both.
  T.BaselineOnce = 0;
  for (GroupModelStats &M : T.Models)
    M.Once = 0;
  for (const GroupStats &P : getPackageStats()) {
    T.BaselineOnce += P.BaselineOnce;
    for (size_t J = 0; J < T.Models.size(); ++J)
      T.Models[J].Once += P.Models[J].Once;
  }
  return T;
}

/// The module with the extreme ratio under model \p J: the smallest when
/// \p Smallest, else the largest. Ratios are compared exactly, as
/// cross-products of integers.
static std::optional<ModuleExtreme> findExtreme(const SizeReport &Report,
                                                size_t J, bool Smallest) {
  const ModuleSizes *Found = nullptr;
  for (const ModuleSizes &M : Report.Modules) {
    if (M.Baseline == 0)
      continue;
    if (!Found) {
      Found = &M;
      continue;
    }
    // M.Models[J] / M.Baseline vs Found->Models[J] / Found->Baseline.
    unsigned __int128 L = (unsigned __int128)M.Models[J] * Found->Baseline;
    unsigned __int128 R = (unsigned __int128)Found->Models[J] * M.Baseline;
    bool Better = Smallest ? L < R : L > R;
    if (Better || (L == R && M.Module < Found->Module))
      Found = &M;
  }
  if (!Found)
    return std::nullopt;
  return ModuleExtreme{Found->Module, Found->Baseline, Found->Models[J]};
}

std::optional<ModuleExtreme> SizeReport::getBest(size_t I) const {
  return findExtreme(*this, I, /*Smallest=*/true);
}

std::optional<ModuleExtreme> SizeReport::getWorst(size_t I) const {
  return findExtreme(*this, I, /*Smallest=*/false);
}

static std::string formatRatio(double R) { return formatv("{0:f4}", R).str(); }

/// The columns shared by every format: per model its bytes and the change;
/// package rows add the module count and the geometric mean.
Table SizeReport::getModuleTable(ReportFormat Format) const {
  Table T;
  bool CSV = Format == ReportFormat::CSV;
  if (CSV)
    T.Header = {"kind", "name", "modules"};
  else
    T.Header = {"module"};
  T.Header.push_back(BaselineName);
  for (const std::string &M : ModelNames) {
    T.Header.push_back(M);
    T.Header.push_back(CSV ? M + " delta %" : "delta");
    if (CSV)
      T.Header.push_back(M + " geomean");
  }
  for (const ModuleSizes &M : Modules) {
    std::vector<std::string> Row;
    if (CSV)
      Row = {"module", M.Module, "1"};
    else
      Row = {M.Module};
    Row.push_back(std::to_string(M.Baseline));
    for (uint64_t S : M.Models) {
      Row.push_back(std::to_string(S));
      Row.push_back(formatDeltaPercent(M.Baseline, S));
      if (CSV)
        Row.push_back(M.Baseline && S
                          ? formatRatio(double(S) / double(M.Baseline))
                          : "n/a");
    }
    T.addRow(std::move(Row));
  }
  return T;
}

/// The per-package table: the per-module sums, or (\p Once) each grouped
/// section counted once, for the packages with grouped code only (and no
/// geometric means: they are of per-module ratios).
static Table makePackageTable(const SizeReport &Report, ReportFormat Format,
                              bool Once) {
  Table T;
  bool CSV = Format == ReportFormat::CSV;
  if (CSV)
    T.Header = {"kind", "name", "modules"};
  else
    T.Header = {Once ? "package (grouped code once)" : "package", "modules"};
  T.Header.push_back(Report.BaselineName);
  for (const std::string &M : Report.ModelNames) {
    T.Header.push_back(M);
    T.Header.push_back(CSV ? M + " delta %" : "delta");
    if (CSV || !Once)
      T.Header.push_back(CSV ? M + " geomean" : "geomean");
  }
  auto AddGroup = [&](const GroupStats &G, StringRef Kind) {
    std::vector<std::string> Row;
    if (CSV)
      Row.push_back((Once ? Kind + "-once" : Kind).str());
    Row.push_back(G.Name);
    Row.push_back(std::to_string(G.Modules));
    uint64_t Base = Once ? G.BaselineOnce : G.BaselineTotal;
    Row.push_back(std::to_string(Base));
    for (const GroupModelStats &S : G.Models) {
      uint64_t Size = Once ? S.Once : S.Total;
      Row.push_back(std::to_string(Size));
      Row.push_back(formatDeltaPercent(Base, Size));
      if (Once && CSV)
        Row.push_back("n/a");
      else if (!Once)
        Row.push_back(G.Modules > G.WithoutRatio ? formatRatio(S.GeoMeanRatio)
                                                 : "n/a");
    }
    T.addRow(std::move(Row));
  };
  bool Any = false;
  for (const GroupStats &G : Report.getPackageStats())
    if (!Once || G.HasGrouped) {
      AddGroup(G, "package");
      Any = true;
    }
  if (Once && !Any)
    return T;
  T.addRuleBeforeNextRow();
  AddGroup(Report.getTotalStats(), "total");
  return T;
}

Table SizeReport::getPackageTable(ReportFormat Format) const {
  return makePackageTable(*this, Format, /*Once=*/false);
}

Table SizeReport::getPackageOnceTable(ReportFormat Format) const {
  return makePackageTable(*this, Format, /*Once=*/true);
}

void SizeReport::print(raw_ostream &OS, ReportFormat Format,
                       bool PerModule) const {
  if (Format == ReportFormat::CSV) {
    Table T = getPackageTable(Format);
    if (PerModule) {
      Table M = getModuleTable(Format);
      T.Rows.insert(T.Rows.begin(), M.Rows.begin(), M.Rows.end());
    }
    Table Once = getPackageOnceTable(Format);
    T.Rows.insert(T.Rows.end(), Once.Rows.begin(), Once.Rows.end());
    T.printCSV(OS);
    return;
  }
  bool MD = Format == ReportFormat::Markdown;
  if (PerModule) {
    getModuleTable(Format).print(OS, Format);
    OS << '\n';
  }
  getPackageTable(Format).print(OS, Format);
  OS << '\n';
  Table Once = getPackageOnceTable(Format);
  if (!Once.Rows.empty()) {
    OS << "C++ inline and template functions (COMDAT "
       << "groups) counted once per package, as linking its objects "
          "together keeps them:\n\n";
    Once.print(OS, Format);
    OS << '\n';
  }

  StringRef Bullet = MD ? "- " : "";
  for (size_t J = 0; J < ModelNames.size(); ++J) {
    auto Print = [&](StringRef What, const std::optional<ModuleExtreme> &E) {
      OS << Bullet << What << " module for " << ModelNames[J] << ": ";
      if (!E) {
        OS << "none (no module has .text at " << BaselineName << ")\n";
        return;
      }
      OS << E->Module << " " << formatDeltaPercent(E->Baseline, E->Size) << " ("
         << E->Baseline << " -> " << E->Size << " bytes)\n";
    };
    Print("best", getBest(J));
    Print("worst", getWorst(J));
  }
  GroupStats Total = getTotalStats();
  if (Total.WithoutRatio)
    OS << Bullet << Total.WithoutRatio << " of " << Total.Modules
       << " modules have no .text under some policy and are left out of the "
          "geometric means\n";
  if (!Failures.empty()) {
    std::vector<std::string> Failed;
    for (const CompileFailure &F : Failures)
      if (!llvm::is_contained(Failed, F.Module))
        Failed.push_back(F.Module);
    OS << Bullet << Failed.size() << " of " << ModulesRequested
       << " modules failed to compile and are not in the tables:";
    for (const std::string &M : Failed)
      OS << ' ' << M;
    OS << '\n';
  }
}

} // namespace mlgo
