//===- plugin/Plugin.cpp - mlgo's pass plugin entry point -----------------===//
//
// The only thing a pass plugin must export, and the eviction hook installed
// when the plugin is loaded (llc-19 -load has no other entry point).
// Everything else lives in lib/Inline (mlgo/Inline/InlinerPlugin.h) and
// lib/RegAlloc (mlgo/RegAlloc/EvictionPlugin.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/InlinerPlugin.h"
#include "mlgo/RegAlloc/EvictionPlugin.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {
      LLVM_PLUGIN_API_VERSION, "mlgo-inliner", LLVM_VERSION_STRING,
      [](llvm::PassBuilder &PB) {
        mlgo::registerInliner(PB);
        // -Os/-Oz code keeps LLVM's eviction, and a module's eviction
        // entries are found by its source (EvictionPlugin.h).
        PB.registerPipelineStartEPCallback(
            [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel Level) {
              mlgo::noteOptimizationLevel(Level.getSizeLevel() > 0);
              MPM.addPass(mlgo::NoteModuleSourcePass());
            });
        PB.registerOptimizerLastEPCallback(
            [](llvm::ModulePassManager &MPM, llvm::OptimizationLevel) {
              MPM.addPass(mlgo::NoteModuleProfilePass());
            });
      }};
}

namespace {
/// Runs when the plugin is loaded, before code generation builds a pipeline;
/// where an optimization pipeline runs first (clang, opt), a bad eviction
/// model is reported there, as an error of the compilation.
struct InstallEvictionHook {
  InstallEvictionHook() {
    mlgo::installEvictionHook();
    mlgo::registerSetupCheck(mlgo::checkEvictionOptions);
  }
} Installed;
} // namespace
