//===- lib/Compile/Components.cpp - Independent inlining decisions --------===//
//
// See mlgo/Compile/Components.h. The partition is a union-find over function
// names; the reference graph is read from the corpus module's bitcode (the
// input of the -Oz pipeline), so it holds every call the inliner could
// ever see and every reference that keeps a function alive.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/Components.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <map>

using namespace llvm;

namespace mlgo {

namespace {

/// What a use refers to, through constant expressions and aliases: the
/// defined functions and the global variables whose initializers hold one.
class ReferenceFinder {
public:
  /// Calls \p Found with each function definition or function-holding
  /// variable that \p V refers to.
  void find(const Value *V, function_ref<void(const GlobalObject &)> Found) {
    SmallPtrSet<const Value *, 8> Seen;
    walk(V, Seen, Found);
  }

  /// Whether \p G's initializer refers to a defined function.
  bool holdsFunctions(const GlobalVariable &G) {
    auto [It, New] = Holds.try_emplace(&G, false);
    if (!New || !G.hasInitializer())
      return It->second;
    bool Any = false;
    find(G.getInitializer(), [&](const GlobalObject &) { Any = true; });
    // The walk may have grown the map: look the entry up again.
    Holds[&G] = Any;
    return Any;
  }

private:
  void walk(const Value *V, SmallPtrSetImpl<const Value *> &Seen,
            function_ref<void(const GlobalObject &)> Found) {
    if (!Seen.insert(V).second)
      return;
    if (const auto *A = dyn_cast<GlobalAlias>(V)) {
      if (const GlobalObject *O = A->getAliaseeObject())
        walk(O, Seen, Found);
      return;
    }
    if (const auto *F = dyn_cast<Function>(V)) {
      if (!F->isDeclaration())
        Found(*F);
      return;
    }
    if (const auto *G = dyn_cast<GlobalVariable>(V)) {
      if (holdsFunctions(*G))
        Found(*G);
      return;
    }
    if (const auto *C = dyn_cast<Constant>(V))
      for (const Use &U : C->operands())
        walk(U.get(), Seen, Found);
  }

  DenseMap<const GlobalVariable *, bool> Holds;
};

/// A union-find over names.
class NameSets {
public:
  size_t get(StringRef Name) {
    auto [It, New] = Index.try_emplace(Name, Parent.size());
    if (New)
      Parent.push_back(Parent.size());
    return find(It->second);
  }
  void join(StringRef A, StringRef B) {
    size_t X = get(A), Y = get(B);
    if (X != Y)
      Parent[std::max(X, Y)] = std::min(X, Y);
  }

private:
  size_t find(size_t X) {
    while (Parent[X] != X)
      X = Parent[X] = Parent[Parent[X]];
    return X;
  }
  StringMap<size_t> Index;
  std::vector<size_t> Parent;
};

} // namespace

Expected<std::unique_ptr<Module>> readBitcodeModule(StringRef Path,
                                                    LLVMContext &Ctx) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<std::unique_ptr<Module>> M =
      parseBitcodeFile((*Buf)->getMemBufferRef(), Ctx);
  if (!M)
    return makeError(Path + ": " + toString(M.takeError()));
  return M;
}

Expected<std::vector<FunctionEdge>> getReferenceEdges(StringRef Path) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = readBitcodeModule(Path, Ctx);
  if (!M)
    return M.takeError();
  ReferenceFinder Refs;
  std::vector<FunctionEdge> Edges;
  for (const Function &F : **M) {
    if (F.isDeclaration())
      continue;
    for (const Instruction &I : instructions(F))
      for (const Use &U : I.operands())
        if (isa<Constant>(U.get()))
          Refs.find(U.get(), [&](const GlobalObject &G) {
            Edges.push_back({F.getName().str(), G.getName().str()});
          });
  }
  for (const GlobalVariable &G : (*M)->globals())
    if (Refs.holdsFunctions(G))
      Refs.find(G.getInitializer(), [&](const GlobalObject &O) {
        Edges.push_back({G.getName().str(), O.getName().str()});
      });
  return Edges;
}

namespace {

/// Joins the functions that each decided site of \p T (caller and callee)
/// and each edge connects, and groups the indices 0 .. \p N - 1 by the set
/// holding the function \p FunctionOf names for each, groups and their
/// members in order of first appearance.
std::vector<std::vector<size_t>>
groupConnected(ArrayRef<DecidedSite> T, ArrayRef<FunctionEdge> Edges, size_t N,
               function_ref<StringRef(size_t)> FunctionOf) {
  NameSets Sets;
  for (const DecidedSite &S : T)
    Sets.join(S.Site.Caller, S.Site.Callee);
  for (const FunctionEdge &E : Edges)
    Sets.join(E.first, E.second);
  std::vector<std::vector<size_t>> Out;
  std::map<size_t, size_t> GroupOf;
  for (size_t I = 0; I < N; ++I) {
    auto [It, New] = GroupOf.try_emplace(Sets.get(FunctionOf(I)), Out.size());
    if (New)
      Out.emplace_back();
    Out[It->second].push_back(I);
  }
  return Out;
}

} // namespace

std::vector<std::vector<size_t>> partitionSites(ArrayRef<DecidedSite> T,
                                                ArrayRef<FunctionEdge> Edges) {
  return groupConnected(T, Edges, T.size(), [&](size_t I) -> StringRef {
    return T[I].Site.Caller;
  });
}

std::vector<std::vector<size_t>>
partitionFunctions(ArrayRef<std::string> Functions, ArrayRef<DecidedSite> T,
                   ArrayRef<FunctionEdge> Edges) {
  return groupConnected(T, Edges, Functions.size(),
                        [&](size_t I) -> StringRef { return Functions[I]; });
}

} // namespace mlgo
