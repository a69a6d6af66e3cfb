// A core file that reaches for LLVM IR: must not compile in an LLVM-free
// library (test/Layering/core-cannot-include-llvm-ir.test).
#include "llvm/IR/Module.h"

int probe(llvm::Module &M) { return static_cast<int>(M.size()); }
