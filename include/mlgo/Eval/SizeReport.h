//===- mlgo/Eval/SizeReport.h - .text sizes of a corpus ---------*- C++ -*-===//
//
// The numbers `mlgo eval corpus` reports, and how it prints them. A
// SizeReport holds, for every module that compiled under every policy, the
// .text size under the baseline (stock clang -Oz) and under each model; and
// every failed compile. From it come:
//
//   * per-module rows (optional) and per-package rows, the package being the
//     module name's first path component ("zlib/deflate.o" -> "zlib"):
//     baseline bytes, then for each model its bytes, the change of the total
//     in percent, and the geometric mean of the per-module ratios
//     model/baseline;
//   * a TOTAL row over all modules;
//   * per model, the best and the worst module (smallest and largest ratio);
//   * an SVG bar chart of the per-package change (SizeChart.h);
//   * per package with C++ inline or template functions (COMDAT groups),
//     its code with each such function counted once, as linking the
//     package's objects together keeps it (mlgo/Corpus/CodeSize.h): the
//     per-module sums count a function once in every module that still
//     calls it, so they overstate what inlining saves in C++.
//
// Modules whose .text is empty under the baseline or a model (data-only
// sources, such as a CRC table) have no usable ratio: they count in the
// byte totals but not in the geometric means, and the report says how many
// there are. Best/worst modules are taken among those with a non-empty
// baseline.
//
// This file needs LLVM Support only, so the reports are unit-tested with
// exact strings, apart from any compiler.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_EVAL_SIZEREPORT_H
#define MLGO_EVAL_SIZEREPORT_H

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Eval/Table.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo {

/// The .text sizes of one module: under the baseline and under each model
/// (in SizeReport::ModelNames order).
struct ModuleSizes {
  std::string Module;
  uint64_t Baseline = 0;
  std::vector<uint64_t> Models;
  /// The grouped code (CodeSize::Grouped) under the baseline, then under
  /// each model; empty when the module has none under any policy.
  std::vector<std::vector<std::pair<std::string, uint64_t>>> Grouped;
};

/// One compile that did not produce a size.
struct CompileFailure {
  std::string Module;
  /// The baseline's or the model's name.
  std::string Policy;
  std::string Message;
};

/// Sums over a set of modules (one package, or all), for one model.
struct GroupModelStats {
  uint64_t Total = 0;
  /// The code of the modules linked together (getCodeOnce in
  /// mlgo/Corpus/CodeSize.h): each grouped section once.
  uint64_t Once = 0;
  /// Geometric mean of Model/Baseline over the modules with a non-empty
  /// baseline .text; 1 when there is none.
  double GeoMeanRatio = 1;
};

/// Sums over a set of modules.
struct GroupStats {
  std::string Name;
  size_t Modules = 0;
  /// Modules left out of the geometric means: their .text is empty under
  /// the baseline or under some model.
  size_t WithoutRatio = 0;
  uint64_t BaselineTotal = 0;
  /// GroupModelStats::Once for the baseline.
  uint64_t BaselineOnce = 0;
  /// Whether any module of the group has grouped code under any policy.
  bool HasGrouped = false;
  std::vector<GroupModelStats> Models;
};

/// The best or worst module of one model.
struct ModuleExtreme {
  std::string Module;
  uint64_t Baseline = 0;
  uint64_t Size = 0;
};

struct SizeReport {
  /// The baseline's column title, "-Oz" by default.
  std::string BaselineName = "-Oz";
  std::vector<std::string> ModelNames;
  /// Modules that compiled under every policy, in input order.
  std::vector<ModuleSizes> Modules;
  std::vector<CompileFailure> Failures;
  /// Modules asked for (compiled or not).
  size_t ModulesRequested = 0;

  /// One GroupStats per package (mlgo/Corpus/Package.h), sorted by package
  /// name and named as describePackage() shows it.
  std::vector<GroupStats> getPackageStats() const;
  /// All modules together, named "TOTAL". Its Once totals add up the
  /// packages' (packages are never linked together).
  GroupStats getTotalStats() const;
  /// The module with the smallest (Best) or largest ratio under model \p I;
  /// ties go to the first module name in sort order. None when no module
  /// has a non-empty baseline.
  std::optional<ModuleExtreme> getBest(size_t I) const;
  std::optional<ModuleExtreme> getWorst(size_t I) const;

  /// Prints the per-module table (when \p PerModule), the per-package table
  /// with its TOTAL row, then, except for CSV, the best and worst modules
  /// and a note on modules left out of the ratios and on failures. CSV
  /// prints the tables only, one "kind" column telling the rows apart.
  void print(llvm::raw_ostream &OS, ReportFormat Format, bool PerModule) const;

  /// The tables print() prints, for tests and other front ends.
  Table getModuleTable(ReportFormat Format) const;
  Table getPackageTable(ReportFormat Format) const;
  /// The packages with grouped code, each grouped section counted once
  /// (GroupStats::BaselineOnce, GroupModelStats::Once), and the TOTAL of
  /// every package's Once totals; CSV rows are of kind "package-once" and
  /// "total-once". No rows when no module has grouped code.
  Table getPackageOnceTable(ReportFormat Format) const;
};

} // namespace mlgo

#endif // MLGO_EVAL_SIZEREPORT_H
