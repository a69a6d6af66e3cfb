//===- mlgo/Corpus/LinkedProgram.h - A program's linked size ----*- C++ -*-===//
//
// The size `mlgo tune` minimizes is a program's linked .text: its modules'
// objects linked together, each C++ inline or template function (a section
// in a COMDAT group) counted once, the first object's copy, as a linker
// keeps the first definition it sees (getCodeOnce in mlgo/Corpus/CodeSize.h,
// the "package" size measure of training).
//
// The search changes one module's object at a time and asks, for every
// try, what the program would weigh with it. Summing all objects again per
// try costs the program's size in work; LinkedProgram keeps, per grouped
// section, which objects hold it, so that the change of a try is computed
// from the objects it replaces only: delta() answers "how much smaller or
// larger with these objects instead", apply() makes it so. After any
// sequence of apply(), size() is exactly getCodeOnce over the current
// objects in slot order.
//
// Value code: no LLVM library, no files, no compiles.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_LINKEDPROGRAM_H
#define MLGO_CORPUS_LINKEDPROGRAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace mlgo {

/// One object's code, as linking counts it: its executable bytes, and of
/// those, its COMDAT-grouped sections as (section key, bytes) - the key
/// anything that names a section across objects (CompileCache::Entry keeps
/// a hash of the name).
struct ObjectCode {
  uint64_t TextSize = 0;
  llvm::ArrayRef<std::pair<uint64_t, uint64_t>> Grouped;
};

/// A program's objects linked together, kept up to date as its modules'
/// compiles change: each object's code outside COMDAT groups, plus each
/// grouped section once, the copy of the object in the lowest slot.
class LinkedProgram {
public:
  /// Adds an object; returns its slot (0, 1, ... in the order added).
  size_t add(ObjectCode Object);

  /// The linked .text of the objects as they are now.
  uint64_t size() const { return Size; }

  /// Slot Slot's object replaced by Code.
  struct Change {
    size_t Slot;
    ObjectCode Code;
  };

  /// How size() changes if each slot's object becomes the given one (at
  /// most one change per slot); the program is not changed.
  int64_t delta(llvm::ArrayRef<Change> Changes) const;

  /// Makes \p Changes: size() grows by delta(Changes).
  void apply(llvm::ArrayRef<Change> Changes);

private:
  struct Object {
    uint64_t Ungrouped = 0;
    std::vector<std::pair<uint64_t, uint64_t>> Grouped;
  };
  std::vector<Object> Objs;
  /// Per grouped section: the slots that hold it and their copy's bytes.
  llvm::DenseMap<uint64_t, std::map<size_t, uint64_t>> Held;
  uint64_t Size = 0;
};

} // namespace mlgo

#endif // MLGO_CORPUS_LINKEDPROGRAM_H
