//===- lib/Speed/BlockCounts.cpp - Block counts of a run ------------------===//
//
// See mlgo/Speed/BlockCounts.h: callgrind's per-instruction counts of a
// run, summed over its processes, mapped to machine blocks.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/BlockCounts.h"

#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>

using namespace llvm;

namespace mlgo::speed {

Expected<MeasuredCounts> countBlocks(ArrayRef<std::string> CallgrindFiles,
                                     function_ref<bool(StringRef)> Wanted,
                                     BlockCountsSummary *Summary) {
  // Object -> address -> count, over every process.
  std::map<std::string, DenseMap<uint64_t, uint64_t>> Ran;
  for (const std::string &File : CallgrindFiles) {
    auto Objects = readObjectInstructionCounts(File, Wanted);
    if (!Objects)
      return Objects.takeError();
    for (const auto &[Name, Counts] : *Objects) {
      DenseMap<uint64_t, uint64_t> &Into = Ran[Name];
      for (const auto &[Address, Count] : Counts)
        Into[Address] += Count;
    }
  }
  BlockCountsSummary S;
  MeasuredCounts Out;
  StringSet<> Ambiguous;
  std::unique_ptr<BlockCoster> Coster;
  for (const auto &[Object, Counts] : Ran) {
    S.Objects.push_back(Object);
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Object, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return makeError(Object + ": " + Buffer.getError().message());
    Expected<ObjectCost> Cost =
        measureExecutionCost((*Buffer)->getMemBufferRef(), Coster.get());
    if (!Cost)
      return Cost.takeError();
    StringMap<unsigned> Defined;
    for (const FunctionCost &F : Cost->Functions)
      ++Defined[F.Name];
    for (const FunctionCost &F : Cost->Functions) {
      if (Ambiguous.contains(F.Name))
        continue;
      if (Defined[F.Name] > 1) {
        Ambiguous.insert(F.Name);
        Out.Functions.erase(F.Name);
        continue;
      }
      DenseMap<uint32_t, uint64_t> Blocks;
      for (const BlockCost &B : F.Blocks) {
        auto It = Counts.find(F.Address + B.Offset);
        Blocks[B.ID] = It == Counts.end() ? 0 : It->second;
      }
      auto [Known, New] = Out.Functions.try_emplace(F.Name, Blocks);
      if (New)
        continue;
      // The same name in an object before: the same function if its blocks
      // are the same.
      bool Same = Known->second.size() == Blocks.size() &&
                  llvm::all_of(Blocks, [&](const auto &B) {
                    return Known->second.count(B.first);
                  });
      if (!Same) {
        Ambiguous.insert(F.Name);
        Out.Functions.erase(Known);
        continue;
      }
      for (const auto &[ID, Count] : Blocks)
        Known->second[ID] += Count;
    }
  }
  S.Ambiguous = Ambiguous.size();
  for (const auto &F : Out.Functions) {
    ++S.Functions;
    S.Blocks += F.second.size();
  }
  if (Summary)
    *Summary = std::move(S);
  return Out;
}

} // namespace mlgo::speed
