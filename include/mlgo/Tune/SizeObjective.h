//===- mlgo/Tune/SizeObjective.h - Linked .text as the objective -*- C++ -*-=//
//
// The size objective of `mlgo tune` (mlgo/Tune/Objective.h): a trial is a
// compile at -Oz through the compile service (the worker pool, the work
// directory's caches compiles.tsv and sites.tsv), and a program's cost is
// its modules' objects linked, each COMDAT group counted once, the copy of
// the lowest slot (mlgo/Corpus/LinkedProgram.h). LLVM's heuristic is
// answered from each module's -Oz baseline compile: the plugin's advisor
// letting the heuristic decide builds what stock clang does
// (test/Inline/default-policy-matches-stock.ll), so that try costs no
// compile (docs/tune.md, "LLVM's heuristic without a compile"); its
// LTO form is mlgo/Tune/LtoObjective.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TUNE_SIZEOBJECTIVE_H
#define MLGO_TUNE_SIZEOBJECTIVE_H

#include "mlgo/Corpus/LinkedProgram.h"
#include "mlgo/Tune/Objective.h"

#include <map>
#include <string>
#include <vector>

namespace mlgo {

class CompileService;

class SizeObjective final : public Objective {
public:
  /// \p Stock: each corpus module's -Oz compile (a Baseline trial's
  /// answer); \p Programs: each program's objects as the search starts.
  SizeObjective(CompileService &S, std::vector<CompileOutcome> Stock,
                std::vector<LinkedProgram> Programs)
      : S(S), Stock(std::move(Stock)), Programs(std::move(Programs)) {}

  llvm::Expected<std::vector<Measurement>>
  measure(llvm::ArrayRef<Trial> Trials, llvm::StringRef What,
          bool WithTrajectory = true) override;
  int64_t delta(size_t Program,
                llvm::ArrayRef<SlotChange> Changes) const override;
  void apply(size_t Program, llvm::ArrayRef<SlotChange> Changes) override;
  uint64_t cost(size_t Program) const override {
    return Programs[Program].size();
  }

private:
  static std::vector<LinkedProgram::Change>
  toChanges(llvm::ArrayRef<SlotChange> Changes);

  CompileService &S;
  const std::vector<CompileOutcome> Stock;
  std::vector<LinkedProgram> Programs;
};

} // namespace mlgo

#endif // MLGO_TUNE_SIZEOBJECTIVE_H
