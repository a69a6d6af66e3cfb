//===- lib/Corpus/LinkedProgram.cpp - A linked size, kept current --------===//
//
// See mlgo/Corpus/LinkedProgram.h. A change costs the grouped sections of the
// objects it replaces and of the ones it brings, never the whole program.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/LinkedProgram.h"

using namespace llvm;

namespace mlgo {

/// The object's bytes outside COMDAT groups.
static uint64_t getUngrouped(ObjectCode Code) {
  uint64_t G = 0;
  for (const auto &S : Code.Grouped)
    G += S.second;
  return Code.TextSize - G;
}

/// The bytes of a grouped section as linked: the lowest slot's copy.
static uint64_t getFirst(const std::map<size_t, uint64_t> &Holders) {
  return Holders.empty() ? 0 : Holders.begin()->second;
}

size_t LinkedProgram::add(ObjectCode Object) {
  size_t Slot = Objs.size();
  Objs.push_back({});
  apply(Change{Slot, Object});
  return Slot;
}

int64_t LinkedProgram::delta(ArrayRef<Change> Changes) const {
  int64_t D = 0;
  // The holders of each section a change touches, as they would be.
  std::map<uint64_t, std::map<size_t, uint64_t>> Touched;
  auto Holders = [&](uint64_t Hash) -> std::map<size_t, uint64_t> & {
    auto It = Touched.find(Hash);
    if (It != Touched.end())
      return It->second;
    auto Old = Held.find(Hash);
    return Touched[Hash] =
               Old == Held.end() ? std::map<size_t, uint64_t>() : Old->second;
  };
  for (const Change &C : Changes) {
    D -= int64_t(Objs[C.Slot].Ungrouped);
    for (const auto &G : Objs[C.Slot].Grouped)
      Holders(G.first).erase(C.Slot);
  }
  for (const Change &C : Changes) {
    D += int64_t(getUngrouped(C.Code));
    for (const auto &G : C.Code.Grouped)
      Holders(G.first)[C.Slot] = G.second;
  }
  for (const auto &[Hash, After] : Touched) {
    auto Old = Held.find(Hash);
    D += int64_t(getFirst(After)) -
         int64_t(Old == Held.end() ? 0 : getFirst(Old->second));
  }
  return D;
}

void LinkedProgram::apply(ArrayRef<Change> Changes) {
  Size += delta(Changes);
  for (const Change &C : Changes) {
    for (const auto &G : Objs[C.Slot].Grouped) {
      auto It = Held.find(G.first);
      It->second.erase(C.Slot);
      if (It->second.empty())
        Held.erase(It);
    }
    Objs[C.Slot] = {getUngrouped(C.Code), C.Code.Grouped.vec()};
    for (const auto &G : C.Code.Grouped)
      Held[G.first][C.Slot] = G.second;
  }
}

} // namespace mlgo
