//===- lib/TrainCore/SizeMeasure.cpp - How big a module's compile is ------===//
//
// The three size measures and the two ways of totalling a set of modules
// (see mlgo/TrainCore/SizeMeasure.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/TrainCore/SizeMeasure.h"

#include "mlgo/Support/CodeOnce.h"
#include "mlgo/Support/Percent.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace mlgo {

double getReward(uint64_t PolicySize, uint64_t BaselineSize, double Delta) {
  double Den = double(BaselineSize) + Delta;
  if (Den == 0)
    return PolicySize == 0 ? 0.0 : -1.0;
  return 1.0 - (double(PolicySize) + Delta) / Den;
}

SizeMeasure::SizeMeasure(SizeMeasureKind Kind, bool KeepStock,
                         std::vector<std::string> PackagesIn,
                         ArrayRef<CompileOutcome> Stock)
    : Kind(Kind), Packages(std::move(PackagesIn)) {
  assert(Packages.size() == Stock.size() && "one -Oz compile per module");
  if (Kind == SizeMeasureKind::Module && !KeepStock)
    return;
  StockText.assign(Stock.size(), 0);
  StockGrouped.assign(Stock.size(), {});
  for (size_t I = 0; I < Stock.size(); ++I) {
    if (!Stock[I].Ok)
      continue;
    StockText[I] = Stock[I].TextSize;
    StockGrouped[I] = Stock[I].Grouped;
    DenseMap<uint64_t, uint32_t> &Copies = GroupCopies[Packages[I]];
    for (const auto &[Hash, Bytes] : Stock[I].Grouped)
      ++Copies[Hash];
  }
}

uint64_t SizeMeasure::sizeOf(size_t M, const CompileOutcome &E) const {
  if (Kind == SizeMeasureKind::Module)
    return E.TextSize;
  auto Copies = GroupCopies.find(Packages[M]);
  if (Copies == GroupCopies.end())
    return E.TextSize;
  bool Amortized = Kind == SizeMeasureKind::Amortized;
  uint64_t Size = E.TextSize;
  for (const auto &[Hash, Bytes] : E.Grouped) {
    auto It = Copies->second.find(Hash);
    if (It == Copies->second.end())
      continue;
    // StockGrouped is sorted by hash (CompileResult::Grouped).
    auto Own = llvm::lower_bound(
        StockGrouped[M], Hash,
        [](const GroupedSection &G, uint64_t H) { return G.first < H; });
    bool Mine = Own != StockGrouped[M].end() && Own->first == Hash;
    uint64_t Others = It->second - (Mine ? 1u : 0u);
    if (Others == 0)
      continue;
    Size -= Amortized ? Bytes - divideNearest(Bytes, Others + 1) : Bytes;
  }
  return Size;
}

double Totals::pct() const { return percentChange(Baseline, Policy); }

std::string Totals::failedClause() const {
  if (Failures.empty())
    return "";
  bool One = Failures.size() == 1;
  return formatv("; {0} module{1} failed to compile and {2} left out of "
                 "both totals",
                 Failures.size(), One ? "" : "s", One ? "is" : "are")
      .str();
}

static void addPackageSizes(PackageSizes &P, const std::string &Package,
                            uint64_t Baseline, uint64_t Size) {
  P[Package].first += Baseline;
  P[Package].second += Size;
}

Totals totalSizes(ArrayRef<size_t> Set, ArrayRef<CompileOutcome> Results,
                  const SizeMeasure &Measure, ArrayRef<uint64_t> Baseline,
                  double Delta, TotalsKind Kind, PackageSizes *PerPackage) {
  assert(Set.size() == Results.size() && "one result per module");
  bool Linked = Kind == TotalsKind::Linked;
  assert((!Linked || Measure.needsGrouped()) &&
         "linked totals need the -Oz objects");
  Totals T;
  for (size_t K = 0; K < Set.size(); ++K) {
    size_t M = Set[K];
    if (!Results[K].Ok) {
      T.Failures.push_back(Results[K].Error);
      continue;
    }
    uint64_t Size = Measure.sizeOf(M, Results[K]);
    T.MeanReward += getReward(Size, Baseline[M], Delta);
    if (Linked)
      continue;
    // Summed objects: each module's own code, whatever the size measure
    // (the -Oz objects are kept when the measure is not "module";
    // otherwise Baseline is the -Oz object's code).
    uint64_t Stock =
        Measure.needsGrouped() ? Measure.getStockText(M) : Baseline[M];
    T.Policy += Results[K].TextSize;
    T.Baseline += Stock;
    if (PerPackage)
      addPackageSizes(*PerPackage, Measure.getPackage(M), Stock,
                      Results[K].TextSize);
  }
  // Linked totals are exact, each package's objects linked together,
  // under -Oz and under the policy (modules that failed are in neither).
  if (Linked) {
    std::map<std::string, std::vector<size_t>> ByPackage;
    for (size_t K = 0; K < Set.size(); ++K)
      if (Results[K].Ok)
        ByPackage[Measure.getPackage(Set[K])].push_back(K);
    for (const auto &[Package, Ks] : ByPackage) {
      std::vector<std::pair<uint64_t, const std::vector<GroupedSection> *>>
          Stock, Policy;
      for (size_t K : Ks) {
        Stock.push_back(
            {Measure.getStockText(Set[K]), &Measure.getStockGrouped(Set[K])});
        Policy.push_back({Results[K].TextSize, &Results[K].Grouped});
      }
      // As a linker keeps them (mlgo::getCodeOnce, by name hash).
      uint64_t Base = getCodeOnce<uint64_t>(Stock),
               Size = getCodeOnce<uint64_t>(Policy);
      T.Baseline += Base;
      T.Policy += Size;
      if (PerPackage)
        addPackageSizes(*PerPackage, Package, Base, Size);
    }
  }
  if (!Set.empty())
    T.MeanReward /= Set.size();
  return T;
}

std::string packagesOverLimit(const PackageSizes &Sizes, double LimitPct) {
  std::string Out;
  for (auto &[Pkg, V] : Sizes) {
    double Pct = percentChange(V.first, V.second);
    if (Pct <= LimitPct)
      continue;
    Out += (Out.empty() ? "" : ", ") + Pkg + formatv(" (+{0:F2}%)", Pct).str();
  }
  return Out;
}

} // namespace mlgo
