//===- mlgo/TrainCore/GreedySearch.h - Greedy search ------------*- C++ -*-===//
//
// The search ml-compiler-opt's BC-Max does, over many modules at once: each
// module tries inverting its candidate decisions one at a time, in order,
// and keeps every inversion that makes it smaller; later candidates are
// tried on top of the kept ones. The modules advance in lockstep - one try
// per module per step - so that a step's compiles run in parallel.
//
// A kept inversion can change how many decisions the module makes (an
// inlined call brings its callee's call sites along, a refused one takes
// them away); candidates at or past the current decision count are
// skipped, since no decision has that index any more.
//
// GreedySearch only proposes and bookkeeps; the caller compiles each try
// (mlgo/Compile/CompileService.h) in whatever size measure it searches and
// reports back. So the search is tested on made-up sizes
// (unittests/TrainCore/GreedySearchTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TRAINCORE_GREEDYSEARCH_H
#define MLGO_TRAINCORE_GREEDYSEARCH_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlgo {

class GreedySearch {
public:
  /// Adds module \p Module (the caller's index) with its candidate decision
  /// indices \p Candidates (tried in this order), its size \p Size and
  /// decision count \p Decisions with nothing inverted.
  void addModule(size_t Module, std::vector<uint32_t> Candidates, uint64_t Size,
                 uint32_t Decisions);

  /// One compile the search wants: module \p Module with the decisions
  /// \p Flips inverted (its kept inversions plus one candidate).
  struct Try {
    size_t Module;
    std::vector<uint32_t> Flips;
  };
  /// The next step: one try per module with a candidate left, in the order
  /// the modules were added. Empty when the search is over.
  std::vector<Try> nextStep();

  /// What compiling a try gave: its size and its decision count.
  struct Outcome {
    uint64_t Size;
    uint32_t Decisions;
  };
  /// Records the outcomes of the last nextStep()'s tries, in order (none
  /// for a compile that failed, which keeps nothing).
  void record(llvm::ArrayRef<std::optional<Outcome>> Outcomes);

  /// Modules in the order they were added.
  size_t size() const { return States.size(); }
  size_t getModule(size_t K) const { return States[K].Module; }
  /// Module K's kept inversions, its size with them, and that size's
  /// change from the start (negative: smaller).
  const std::vector<uint32_t> &getFlips(size_t K) const {
    return States[K].Flips;
  }
  uint64_t getSize(size_t K) const { return States[K].Size; }
  bool isImproved(size_t K) const {
    return States[K].Size < States[K].StartSize;
  }
  /// The sum of every module's current size.
  uint64_t getTotalSize() const;
  /// Tries proposed so far.
  size_t getTries() const { return Tries; }

private:
  struct State {
    size_t Module;
    std::vector<uint32_t> Candidates;
    size_t Next = 0;
    uint64_t StartSize, Size;
    uint32_t Decisions;
    std::vector<uint32_t> Flips;
  };
  std::vector<State> States;
  /// The states the last step's tries belong to.
  std::vector<size_t> Pending;
  size_t Tries = 0;
};

} // namespace mlgo

#endif // MLGO_TRAINCORE_GREEDYSEARCH_H
