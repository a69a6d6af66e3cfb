//===- lib/Corpus/ModuleStats.cpp - What a corpus module holds ------------===//
//
// Loads one bitcode module into a fresh LLVMContext and counts functions,
// instructions and call sites. A context per module keeps the counting
// thread-safe, so `mlgo corpus stats` can run modules in parallel.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/ModuleStats.h"

#include "mlgo/Support/Error.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace mlgo {

Expected<ModuleStats> computeModuleStats(MemoryBufferRef Bitcode) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = parseBitcodeFile(Bitcode, Ctx);
  if (!M)
    return makeError(Bitcode.getBufferIdentifier() + ": " +
                     toString(M.takeError()));
  ModuleStats S;
  S.BitcodeBytes = Bitcode.getBufferSize();
  for (const Function &F : **M) {
    if (F.isDeclaration()) {
      ++S.Declarations;
      continue;
    }
    ++S.Functions;
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB) {
        ++S.Instructions;
        if (const auto *CB = dyn_cast<CallBase>(&I))
          if (!isa<IntrinsicInst>(CB))
            ++S.CallSites;
      }
  }
  return S;
}

} // namespace mlgo
