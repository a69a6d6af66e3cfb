// What LLVM-free code may use of LLVM: ADT, Support (JSON, Error,
// raw_ostream), Config. Must compile in every library.
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

int probe(llvm::StringRef S) {
  llvm::json::Value V(S);
  llvm::outs() << V << LLVM_VERSION_MAJOR;
  return static_cast<int>(S.size());
}
