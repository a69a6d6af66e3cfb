//===- mlgo/Support/CodeOnce.h - Code linked once ---------------*- C++ -*-===//
//
// A linker keeps one copy of each COMDAT section group per program: C++
// inline and template functions that several objects carry are linked
// once. Every place that adds up objects the way linking them does - the
// corpus's code sizes (mlgo/Corpus/CodeSize.h), the trainers' size
// measures (mlgo/TrainCore/SizeMeasure.h), tuning, evaluation - uses the
// one rule here, over sections keyed by name or by a hash of it.
//
// Header-only and LLVM-free, so that the trainers' value code
// (lib/TrainCore), which cannot see LLVM's Object library, counts as the
// corpus code does.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_CODEONCE_H
#define MLGO_SUPPORT_CODEONCE_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mlgo {

/// An executable section in a COMDAT group as a compile result keeps it
/// (CompileResult::Grouped): the 64-bit xxh3 hash of its name
/// (hashGroupedName) and its size in bytes.
using GroupedSection = std::pair<uint64_t, uint64_t>;

/// The code of objects linked together, each given as (total code, grouped
/// sections), the grouped sections keyed by anything that identifies a
/// section across objects (its name, or a hash of it as the trainer keeps
/// them): every object's code, with each grouped section counted once, at
/// the size of the first object (in the given order) that has it - a
/// linker keeps the first definition it sees.
template <typename Key>
uint64_t
getCodeOnce(llvm::ArrayRef<
            std::pair<uint64_t, const std::vector<std::pair<Key, uint64_t>> *>>
                Objects) {
  uint64_t Sum = 0;
  std::unordered_set<Key> Seen;
  for (const auto &[Total, Grouped] : Objects) {
    Sum += Total;
    // A later copy of a section is not linked.
    for (const auto &[Section, Bytes] : *Grouped)
      if (!Seen.insert(Section).second)
        Sum -= Bytes;
  }
  return Sum;
}

} // namespace mlgo

#endif // MLGO_SUPPORT_CODEONCE_H
