//===- lib/Corpus/Package.cpp - The package of a corpus module ------------===//

#include "mlgo/Corpus/Package.h"

using namespace llvm;

namespace mlgo {

StringRef getModulePackage(StringRef Module) {
  auto [First, Rest] = Module.split('/');
  return Rest.empty() ? StringRef() : First;
}

std::string describePackage(StringRef Package) {
  return Package.empty() ? "(modules without a directory)" : Package.str();
}

} // namespace mlgo
