//===- mlgo/Compile/Components.h - Independent decisions ----*- C++ -*-===//
//
// A module's inlining decisions split into components that cannot change
// each other's size (docs/tune.md, "Components"; Theodoridis, Grosser and
// Su, ASPLOS'22, observed that a program's decisions split this way). The
// split is what `mlgo tune slices` compiles function-level slices by
// (mlgo/Compile/FunctionSlice.h); the search over components that `mlgo tune
// --components` made is gone (measured not to pay: docs/lab).
//
// Two functions are *connected* when one calls or refers to the other in
// the module's bitcode (directly, or through the initializer of a global
// variable that refers to functions, such as a vtable), or when a decided
// call site joins them. A component is a connected set of functions; its
// decisions are the call sites of the model's trajectory whose caller is in
// it. Inlining moves a callee's body, and so its calls and references,
// into the caller: both ends are in one component, so every function
// whose code a decision can change is in the decision's component, and the
// module's .text is the sum of its functions' sizes (at -Oz functions are
// not padded). What the argument leaves out - a global variable's uses
// seen by interprocedural passes, the model's features that count the
// whole module at a site the trajectory did not have - is what the
// combination's measurement checks.
//
// These are functions over values (unittests/Compile/ComponentsTest.cpp),
// apart from getReferenceEdges and readBitcodeModule, which read bitcode.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_COMPONENTS_H
#define MLGO_COMPILE_COMPONENTS_H

#include "mlgo/Inline/Decisions.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlgo {

/// Two functions whose sizes may depend on each other's decisions.
using FunctionEdge = std::pair<std::string, std::string>;

/// The module of the bitcode file \p Path, in \p Ctx. Errors name the
/// file.
llvm::Expected<std::unique_ptr<llvm::Module>>
readBitcodeModule(llvm::StringRef Path, llvm::LLVMContext &Ctx);

/// The call and reference edges between the functions defined in the
/// bitcode file \p Path: a function and each function or function-holding
/// global variable its body uses, and such a variable and each function
/// its initializer refers to. Errors name the file.
llvm::Expected<std::vector<FunctionEdge>>
getReferenceEdges(llvm::StringRef Path);

/// The components of trajectory \p T: per component, the indices of its
/// sites in \p T, ascending; components ordered by their first site.
/// Functions are joined by each site (caller and callee) and by \p Edges.
std::vector<std::vector<size_t>>
partitionSites(llvm::ArrayRef<DecidedSite> T,
               llvm::ArrayRef<FunctionEdge> Edges);

/// The components of every function of \p Functions (the functions a
/// module defines): per component, the indices of its functions in
/// \p Functions, ascending; components ordered by their first function.
/// Joined as partitionSites() joins them; a function no site or edge
/// touches is a component of its own.
std::vector<std::vector<size_t>>
partitionFunctions(llvm::ArrayRef<std::string> Functions,
                   llvm::ArrayRef<DecidedSite> T,
                   llvm::ArrayRef<FunctionEdge> Edges);

} // namespace mlgo

#endif // MLGO_COMPILE_COMPONENTS_H
