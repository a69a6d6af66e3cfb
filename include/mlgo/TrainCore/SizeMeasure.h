//===- mlgo/TrainCore/SizeMeasure.h - How big a compile is ------*- C++ -*-===//
//
// Every search and every trainer asks how much code a module's compile
// costs, and how much a set of modules' compiles cost together. C++ makes
// the answer depend on the other objects: an inline or template function
// (a COMDAT group) is compiled into every object that uses it, and a linker
// keeps one copy per program. So a measure starts from the -Oz objects of
// every module of the corpus (who has a copy of what) and counts a
// module's compile in one of three ways (a recipe's "size_measure"):
//
//   module     the object's executable code;
//   package    that minus the grouped sections some other module of the
//              package has at -Oz: the code the module adds to its package
//              linked together;
//   amortized  each grouped section counted as its bytes divided by the
//              number of the package's modules holding a copy (this one
//              and those that have it at -Oz), rounded to the nearest byte.
//
// A set of modules is totalled (a recipe's "selection_measure") with each
// package's objects summed, or linked together (each grouped section once,
// as mlgo::getCodeOnce counts).
//
// These are values and functions over compile results, with no compiler
// behind them, so each rule is unit-tested on made-up results
// (unittests/TrainCore/SizeMeasureTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAINCORE_SIZEMEASURE_H
#define MLGO_TRAINCORE_SIZEMEASURE_H

#include "mlgo/TrainCore/CompileOutcome.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// How a module's compile is counted (see the file comment).
enum class SizeMeasureKind : uint8_t { Module, Package, Amortized };

/// How a set of modules is totalled: every object's code summed, or each
/// package's objects linked together.
enum class TotalsKind : uint8_t { Objects, Linked };

/// Per package: (-Oz .text, policy .text), in package order.
using PackageSizes = std::map<std::string, std::pair<uint64_t, uint64_t>>;

/// ml-compiler-opt's reward for inlining for size: per module
/// 1 - (policy + delta) / (baseline + delta); a module with no .text at all
/// (data only) scores 0 when the policy keeps it so.
double getReward(uint64_t PolicySize, uint64_t BaselineSize, double Delta);

class SizeMeasure {
public:
  /// The module measure, keeping no -Oz objects.
  SizeMeasure() = default;
  /// \p Packages[M] is module M's package and \p Stock[M] its -Oz compile
  /// (a failed one has none). The -Oz objects are kept when the kind is
  /// not Module or \p KeepStock is set (for linked totals).
  SizeMeasure(SizeMeasureKind Kind, bool KeepStock,
              std::vector<std::string> Packages,
              llvm::ArrayRef<CompileOutcome> Stock);

  SizeMeasureKind getKind() const { return Kind; }
  /// Whether compiles measured here must carry their grouped sections.
  bool needsGrouped() const { return !StockText.empty(); }

  /// Module \p M's compile \p E in this measure.
  uint64_t sizeOf(size_t M, const CompileOutcome &E) const;

  /// Module \p M's -Oz object: its code and its grouped sections (only when
  /// needsGrouped()).
  uint64_t getStockText(size_t M) const { return StockText[M]; }
  const std::vector<GroupedSection> &getStockGrouped(size_t M) const {
    return StockGrouped[M];
  }
  const std::string &getPackage(size_t M) const { return Packages[M]; }

private:
  SizeMeasureKind Kind = SizeMeasureKind::Module;
  std::vector<std::string> Packages;
  /// Per package: how many modules' -Oz objects have each grouped section
  /// (by name hash).
  llvm::StringMap<llvm::DenseMap<uint64_t, uint32_t>> GroupCopies;
  std::vector<uint64_t> StockText;
  std::vector<std::vector<GroupedSection>> StockGrouped;
};

/// A policy's .text on a set of modules against -Oz, and its mean reward.
struct Totals {
  uint64_t Policy = 0, Baseline = 0;
  double MeanReward = 0;
  /// The errors of the modules that failed to compile (each names its
  /// module); they are in neither total.
  std::vector<std::string> Failures;

  double pct() const;
  /// "; N modules failed ..." for a report line, or nothing.
  std::string failedClause() const;
};

/// Totals the compiles \p Results of modules \p Set (Results[K] is
/// Set[K]'s) against their -Oz sizes \p Baseline (indexed by module, in the
/// measure). The mean reward uses \p Measure's sizes; the totals are every
/// object's code summed, or (Linked, which needs Measure.needsGrouped())
/// each package's objects linked together under -Oz and under the policy.
/// Modules that failed are in neither total. Per package when
/// \p PerPackage is given.
Totals totalSizes(llvm::ArrayRef<size_t> Set,
                  llvm::ArrayRef<CompileOutcome> Results,
                  const SizeMeasure &Measure, llvm::ArrayRef<uint64_t> Baseline,
                  double Delta, TotalsKind Kind,
                  PackageSizes *PerPackage = nullptr);

/// The packages of \p Sizes that the policy makes larger than -Oz by more
/// than \p LimitPct percent, as "pkg (+1.23%)" joined by ", "; empty if
/// none.
std::string packagesOverLimit(const PackageSizes &Sizes, double LimitPct);

} // namespace mlgo

#endif // MLGO_TRAINCORE_SIZEMEASURE_H
