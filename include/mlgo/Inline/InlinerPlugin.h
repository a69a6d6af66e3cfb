//===- mlgo/Inline/InlinerPlugin.h - Hooking the advisor into LLVM -*- C++ -*-===//
//
// Registers mlgo's inline advisor with a PassBuilder through LLVM's
// PluginInlineAdvisorAnalysis, so every inliner of the -O2/-Os/-Oz pipelines
// (and explicit `inline` passes) asks our advisor. The plugin entry point
// (plugin/Plugin.cpp) only calls registerInliner(); the in-process compile
// worker can call it too.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_INLINE_INLINERPLUGIN_H
#define MLGO_INLINE_INLINERPLUGIN_H

namespace llvm {
class PassBuilder;
}

namespace mlgo {

/// Makes \p PB's module analysis managers use mlgo's inline advisor,
/// configured by the -mlgo-* options.
void registerInliner(llvm::PassBuilder &PB);

} // namespace mlgo

#endif // MLGO_INLINE_INLINERPLUGIN_H
