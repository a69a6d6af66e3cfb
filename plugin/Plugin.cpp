//===- plugin/Plugin.cpp - mlgo's pass plugin entry point -----------------===//
//
// The only thing a pass plugin must export. Everything else lives in
// lib/Inline (see mlgo/Inline/InlinerPlugin.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/InlinerPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "mlgo-inliner", LLVM_VERSION_STRING,
          [](llvm::PassBuilder &PB) { mlgo::registerInliner(PB); }};
}
