//===- mlgo/Compile/FunctionSlice.h - Part of a module --------*- C++ -*-===//
//
// Function-level compiles (issue #53; docs/tune.md, "Function-level
// compiles"): a move of `mlgo tune` changes a few functions of a module,
// yet measuring it recompiles the whole module. A *slice* of the module
// keeps what a set of functions needs to compile as it does in the module
// and nothing else:
//
//   - Emit functions are compiled and measured: the slice's size is the
//     sum of their symbols' sizes in its object;
//   - Body functions stay as they are in the module, compiled but not
//     counted: the optimizer sees them as in the module (a callee that
//     may be inlined, or whose attributes - memory effects, noreturn -
//     the pipeline infers from its body);
//   - every other function becomes a declaration.
//
// Body functions stay ordinary definitions, not available_externally
// ones: the pipeline infers no attributes from a body the linker may
// replace, and measured on bzip2's BZ2_bzDecompress that alone made the
// caller 199 bytes smaller than in its module.
//
// Linkage is what would change the code: a static function or variable
// that stays referenced by a dropped function's body would otherwise be
// seen as wholly known (GlobalOpt folds a static variable no code stores
// to, dead-argument elimination rewrites a static function's calls). So
// local symbols that lose a user or become declarations are made external
// with hidden visibility (dso_local, accessed as a static one is), and an
// Emit function's local linkage is kept only when no dropped function
// uses it. What slicing cannot keep - a static function's
// interprocedural facts that depended on callers now dropped - is what
// measureSplit() measures: the slices summed against the module's .text.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_FUNCTIONSLICE_H
#define MLGO_COMPILE_FUNCTIONSLICE_H

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Inline/CompilePolicy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlgo {

/// What a slice does with a function (see the file comment).
enum class SliceRole : uint8_t { Drop, Body, Emit };

/// The functions a slice emits and those it keeps as bodies only;
/// every other function of the module is dropped.
struct SliceSpec {
  llvm::StringSet<> Emit;
  llvm::StringSet<> Body;
  SliceRole roleOf(llvm::StringRef Function) const {
    if (Emit.contains(Function))
      return SliceRole::Emit;
    return Body.contains(Function) ? SliceRole::Body : SliceRole::Drop;
  }
};

/// Turns \p M into the slice \p S, in place. The module stays valid (an
/// alias of a function that is no longer emitted becomes a declaration).
void sliceModule(llvm::Module &M, const SliceSpec &S);

/// The IR instructions of a module's function bodies, and of its slice's.
struct SliceInstructions {
  uint64_t Module = 0, Slice = 0;
};

/// Reads the bitcode file \p In, slices it by \p S and writes the slice's
/// bitcode to \p Out; in \p Counts, if given, the instructions of both.
/// Errors name the file.
llvm::Error writeSlice(llvm::StringRef In, llvm::StringRef Out,
                       const SliceSpec &S, SliceInstructions *Counts = nullptr);

/// The functions the bitcode file \p Path defines, in module order.
/// Errors name the file.
llvm::Expected<std::vector<std::string>>
getDefinedFunctions(llvm::StringRef Path);

/// How measureSplit() cuts a module.
enum class SplitKind : uint8_t {
  /// The components of Components.h: functions
  /// joined by calls, references and decided sites, each set emitted
  /// alone; closed, so nothing is kept as a body.
  Components,
  /// Functions joined only through the globals whose every user the
  /// module holds (static functions and variables, linkonce functions;
  /// a static variable joins every function that uses it):
  /// the split at calls of external functions, which no pass of the
  /// module rewrites; what the sets call, as bodies.
  Statics,
  /// Each function the module keeps emitted alone, with every function it
  /// reaches through calls and references as bodies (Theodoridis et al.'s
  /// split: a call left out of line separates caller and callee).
  Functions,
};

/// A module's decisions split into components (Components.h): per
/// component, the indices of its sites in the trajectory (ascending;
/// components ordered by their first site), and the slice that measures
/// it - none for a site whose caller the bitcode does not define (made
/// by the pipeline), which is measured on the whole module.
struct ModuleComponents {
  std::vector<std::vector<size_t>> Sites;
  std::vector<std::optional<SliceSpec>> Slices;
};

/// The components of kind \p K (Components or Statics) of the module in
/// the bitcode file \p Path with trajectory \p T. Errors name the file.
llvm::Expected<ModuleComponents>
getModuleComponents(llvm::StringRef Path, llvm::ArrayRef<DecidedSite> T,
                    SplitKind K);

/// One slice's compile.
struct SliceSize {
  /// The slice's emitted functions, in module order.
  std::vector<std::string> Functions;
  /// The sum of the symbol sizes of Functions in the slice's object (Text)
  /// and in the whole module's (ModuleBytes).
  uint64_t Text = 0;
  uint64_t ModuleBytes = 0;
  /// Decisions the slice's compile asked, and those no site of the
  /// module's fixed (a call site the module's compile never had).
  size_t Decided = 0, Unfixed = 0;
  double Seconds = 0;
};

/// A module compiled whole and slice by slice, under the same decisions.
struct SplitSizes {
  std::string Module;
  /// The whole module's compile: its .text, the sum of its function
  /// symbols' sizes (st_size, without padding), and its wall clock.
  uint64_t ModuleText = 0;
  uint64_t FunctionSymbols = 0;
  double ModuleSeconds = 0;
  /// The decided call sites, each fixed in every compile.
  size_t Sites = 0;
  std::vector<SliceSize> Slices;
  uint64_t sliceText() const;
  double sliceSeconds() const;
};

/// Compiles module \p M in this process under \p P: once whole, to learn
/// its decided call sites, then whole and as each slice of \p K with every
/// site fixed as decided (so a slice cannot decide otherwise because the
/// module around it changed). Slice I is written to
/// <ScratchDir>/<module>.slice-<I>.bc, and removed after its compile unless
/// \p KeepSlices. Errors name the module.
llvm::Expected<SplitSizes> measureSplit(const CorpusModule &M,
                                        const CompilePolicy &P, SplitKind K,
                                        llvm::StringRef ScratchDir,
                                        bool KeepSlices = false);

} // namespace mlgo

#endif // MLGO_COMPILE_FUNCTIONSLICE_H
