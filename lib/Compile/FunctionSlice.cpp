//===- lib/Compile/FunctionSlice.cpp - Compiling part of a module ---------===//
//
// See mlgo/Compile/FunctionSlice.h. A slice is made from the module's
// bitcode (the input of the -Oz pipeline) by changing linkage and deleting
// bodies only: what stays defined is byte for byte the module's IR, so the
// pipeline sees what it sees in the module but for the dropped functions.
// measureSplit() compiles in this process (compileModule), one compile at
// a time, so its wall clocks compare like with like.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/FunctionSlice.h"

#include "mlgo/Compile/CompileWorker.h"
#include "mlgo/Compile/Components.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace llvm;

namespace mlgo {

namespace {

/// Whether some instruction that uses \p V (directly, or through constant
/// expressions and aliases) is in a function for which \p Lost is true.
/// A use from a global variable's initializer is kept in every slice.
bool usedWhere(const Value &V, function_ref<bool(const Function &)> Lost,
               SmallPtrSetImpl<const Value *> &Seen) {
  if (!Seen.insert(&V).second)
    return false;
  for (const User *U : V.users()) {
    if (const auto *I = dyn_cast<Instruction>(U)) {
      if (Lost(*I->getFunction()))
        return true;
      continue;
    }
    if (isa<GlobalVariable>(U))
      continue;
    if (isa<Constant>(U) && usedWhere(*U, Lost, Seen))
      return true;
  }
  return false;
}

bool usedWhere(const Value &V, function_ref<bool(const Function &)> Lost) {
  SmallPtrSet<const Value *, 8> Seen;
  return usedWhere(V, Lost, Seen);
}

/// Gives local \p G a linkage that outlives the users it loses, accessed
/// as a local symbol is (hidden, dso_local).
void externalize(GlobalValue &G) {
  if (G.hasLocalLinkage()) {
    G.setLinkage(GlobalValue::ExternalLinkage);
    G.setVisibility(GlobalValue::HiddenVisibility);
    G.setDSOLocal(true);
    return;
  }
  // A linkonce definition with no user left would be deleted.
  if (G.hasLinkOnceLinkage())
    G.setLinkage(G.hasLinkOnceODRLinkage() ? GlobalValue::WeakODRLinkage
                                           : GlobalValue::WeakAnyLinkage);
}

/// Replaces alias \p A with a declaration of its name.
void declareInstead(Module &M, GlobalAlias &A) {
  GlobalValue *D;
  if (auto *FTy = dyn_cast<FunctionType>(A.getValueType()))
    D = Function::Create(FTy, GlobalValue::ExternalLinkage, A.getAddressSpace(),
                         "", &M);
  else
    D = new GlobalVariable(M, A.getValueType(), /*isConstant=*/false,
                           GlobalValue::ExternalLinkage, nullptr, "", nullptr,
                           GlobalValue::NotThreadLocal, A.getAddressSpace());
  bool Local = A.hasLocalLinkage();
  D->takeName(&A);
  if (Local) {
    D->setVisibility(GlobalValue::HiddenVisibility);
    D->setDSOLocal(true);
  } else {
    D->setVisibility(A.getVisibility());
    D->setDSOLocal(A.isDSOLocal());
  }
  A.replaceAllUsesWith(D);
  A.eraseFromParent();
}

} // namespace

void sliceModule(Module &M, const SliceSpec &S) {
  auto Role = [&](const Function &F) { return S.roleOf(F.getName()); };
  auto Dropped = [&](const Function &F) {
    return !F.isDeclaration() && Role(F) == SliceRole::Drop;
  };
  // Decided on the module as it is, before any body goes.
  std::vector<GlobalValue *> Outlive;
  for (GlobalVariable &G : M.globals())
    if (G.hasLocalLinkage() && usedWhere(G, Dropped))
      Outlive.push_back(&G);
  for (Function &F : M)
    if (!F.isDeclaration() && Role(F) == SliceRole::Emit &&
        (F.hasLocalLinkage() || F.hasLinkOnceLinkage()) &&
        usedWhere(F, Dropped))
      Outlive.push_back(&F);
  std::vector<GlobalAlias *> Aliases;
  for (GlobalAlias &A : M.aliases()) {
    const auto *F = dyn_cast_or_null<Function>(A.getAliaseeObject());
    if (F && Dropped(*F))
      Aliases.push_back(&A);
  }
  for (GlobalAlias *A : Aliases)
    declareInstead(M, *A);
  for (GlobalValue *G : Outlive)
    externalize(*G);
  for (Function &F : M) {
    if (!Dropped(F))
      continue;
    bool Local = F.hasLocalLinkage();
    F.setComdat(nullptr);
    F.deleteBody();
    if (Local) {
      F.setVisibility(GlobalValue::HiddenVisibility);
      F.setDSOLocal(true);
    }
  }
}

Error writeSlice(StringRef In, StringRef Out, const SliceSpec &S,
                 SliceInstructions *Counts) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = readBitcodeModule(In, Ctx);
  if (!M)
    return M.takeError();
  auto Count = [&] {
    uint64_t N = 0;
    for (const Function &F : **M)
      N += F.getInstructionCount();
    return N;
  };
  if (Counts)
    Counts->Module = Count();
  sliceModule(**M, S);
  if (Counts)
    Counts->Slice = Count();
  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(**M, &BrokenOS))
    return makeError(
        In + ": the slice is not valid IR: " + StringRef(Broken).trim());
  std::string Bitcode;
  raw_string_ostream OS(Bitcode);
  WriteBitcodeToFile(**M, OS);
  OS.flush();
  return writeFileAtomically(Out, Bitcode);
}

uint64_t SplitSizes::sliceText() const {
  uint64_t N = 0;
  for (const SliceSize &S : Slices)
    N += S.Text;
  return N;
}

double SplitSizes::sliceSeconds() const {
  double N = 0;
  for (const SliceSize &S : Slices)
    N += S.Seconds;
  return N;
}

namespace {

/// What planSlices() needs of a module: the functions it defines, in
/// module order, and the globals whose every user the module holds (local
/// or linkonce: a static function's calls can be rewritten by
/// interprocedural passes, a linkonce one is deleted with its last use).
struct Definitions {
  std::vector<std::string> Functions;
  StringSet<> Closed;
  /// A function and each static variable its code uses: what GlobalOpt
  /// knows of the variable (never stored, stored once) depends on all of
  /// them.
  std::vector<FunctionEdge> StaticData;
};

Expected<Definitions> getDefinitions(StringRef Path) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = readBitcodeModule(Path, Ctx);
  if (!M)
    return M.takeError();
  Definitions Out;
  for (const GlobalObject &G : (*M)->global_objects()) {
    if (G.isDeclaration())
      continue;
    if (isa<Function>(G))
      Out.Functions.push_back(G.getName().str());
    if (G.hasLocalLinkage() || G.hasLinkOnceLinkage())
      Out.Closed.insert(G.getName());
  }
  for (const GlobalVariable &G : (*M)->globals())
    if (G.hasLocalLinkage()) {
      StringSet<> Users;
      usedWhere(G, [&](const Function &F) {
        if (Users.insert(F.getName()).second)
          Out.StaticData.push_back({F.getName().str(), G.getName().str()});
        return false;
      });
    }
  return Out;
}

/// Keeps as bodies of \p S every function reached from \p Work through
/// \p Edges (caller to what it uses) that \p S does not emit: what the
/// emitted functions need to compile as they would in the module.
void closeOverBodies(const StringMap<std::vector<StringRef>> &Edges,
                     std::vector<StringRef> Work, SliceSpec &S) {
  while (!Work.empty()) {
    auto It = Edges.find(Work.back());
    Work.pop_back();
    if (It == Edges.end())
      continue;
    for (StringRef To : It->second)
      if (!S.Emit.contains(To) && S.Body.insert(To).second)
        Work.push_back(To);
  }
}

/// The slices of kind \p K: per slice, what it emits and keeps.
std::vector<SliceSpec> planSlices(SplitKind K, const Definitions &D,
                                  const StringMap<uint64_t> &Kept,
                                  ArrayRef<DecidedSite> T,
                                  ArrayRef<FunctionEdge> Edges,
                                  bool AllSets = false) {
  ArrayRef<std::string> Defined = D.Functions;
  std::vector<SliceSpec> Out;
  StringMap<std::vector<StringRef>> Uses;
  for (const FunctionEdge &E : Edges)
    Uses[E.first].push_back(E.second);
  for (const DecidedSite &S : T)
    Uses[S.Site.Caller].push_back(S.Site.Callee);
  // What a slice that emits \p Emit keeps as bodies: every function its
  // functions reach through calls and references.
  auto AddBodies = [&](SliceSpec &S) {
    std::vector<StringRef> Work;
    for (const auto &E : S.Emit)
      Work.push_back(E.getKey());
    closeOverBodies(Uses, std::move(Work), S);
  };
  if (K != SplitKind::Functions) {
    // Components: every edge joins. Statics: an edge joins only when it
    // reaches a closed global, whose code or life depends on its users,
    // and so does a static variable's use.
    std::vector<FunctionEdge> Joining;
    std::vector<DecidedSite> Sites;
    for (const FunctionEdge &E : Edges)
      if (K == SplitKind::Components || D.Closed.contains(E.second))
        Joining.push_back(E);
    if (K == SplitKind::Statics)
      llvm::append_range(Joining, D.StaticData);
    for (const DecidedSite &S : T)
      if (K == SplitKind::Components || D.Closed.contains(S.Site.Callee))
        Sites.push_back(S);
    for (const std::vector<size_t> &C :
         partitionFunctions(Defined, Sites, Joining)) {
      // A component the module leaves no code of is left out: it
      // compiles to nothing in the module and in its slice.
      if (!AllSets &&
          none_of(C, [&](size_t I) { return Kept.contains(Defined[I]); }))
        continue;
      SliceSpec &S = Out.emplace_back();
      for (size_t I : C)
        S.Emit.insert(Defined[I]);
      AddBodies(S);
    }
    return Out;
  }
  for (const std::string &F : Defined) {
    if (!Kept.contains(F))
      continue;
    SliceSpec &S = Out.emplace_back();
    S.Emit.insert(F);
    AddBodies(S);
  }
  return Out;
}

} // namespace

Expected<ModuleComponents>
getModuleComponents(StringRef Path, ArrayRef<DecidedSite> T, SplitKind K) {
  assert(K != SplitKind::Functions && "functions are not closed sets");
  Expected<Definitions> D = getDefinitions(Path);
  if (!D)
    return D.takeError();
  Expected<std::vector<FunctionEdge>> Edges = getReferenceEdges(Path);
  if (!Edges)
    return Edges.takeError();
  std::vector<SliceSpec> Sets =
      planSlices(K, *D, {}, T, *Edges, /*AllSets=*/true);
  StringMap<size_t> SetOf;
  for (size_t I = 0; I < Sets.size(); ++I)
    for (const auto &F : Sets[I].Emit)
      SetOf[F.getKey()] = I;
  ModuleComponents Out;
  // Components in order of their first site; a caller in no set is a
  // component of its own.
  StringMap<size_t> ComponentOf;
  for (size_t I = 0; I < T.size(); ++I) {
    StringRef Caller = T[I].Site.Caller;
    auto Set = SetOf.find(Caller);
    std::string Key = Set == SetOf.end() ? "?" + Caller.str()
                                         : "#" + std::to_string(Set->second);
    auto [It, New] = ComponentOf.try_emplace(Key, Out.Sites.size());
    if (New) {
      Out.Sites.emplace_back();
      if (Set == SetOf.end())
        Out.Slices.emplace_back();
      else
        Out.Slices.push_back(Sets[Set->second]);
    }
    Out.Sites[It->second].push_back(I);
  }
  return Out;
}

Expected<std::vector<std::string>> getDefinedFunctions(StringRef Path) {
  Expected<Definitions> D = getDefinitions(Path);
  if (!D)
    return D.takeError();
  return std::move(D->Functions);
}

Expected<SplitSizes> measureSplit(const CorpusModule &M, const CompilePolicy &P,
                                  SplitKind K, StringRef ScratchDir,
                                  bool KeepSlices) {
  CompileJob First = M.makeJob(P);
  First.WantSites = true;
  Expected<CompileResult> R0 = compileModule(First);
  if (!R0)
    return makeError(M.BitcodePath + ": " + toString(R0.takeError()));
  CompilePolicy Fixed = P;
  Fixed.Fixed =
      std::make_shared<const ModuleDecisions>(fixAll(M.Name, R0->Sites));
  CompileJob Whole = M.makeJob(Fixed);
  Whole.WantFunctionSizes = true;
  Expected<CompileResult> R1 = compileModule(Whole);
  if (!R1)
    return R1.takeError();
  SplitSizes Out;
  Out.Module = M.Name;
  Out.ModuleText = R1->TextSize;
  Out.ModuleSeconds = R1->Seconds;
  Out.Sites = R0->Sites.size();
  StringMap<uint64_t> Kept;
  for (const FunctionSize &F : R1->Functions) {
    Out.FunctionSymbols += F.NativeSize;
    Kept[F.Name] = F.NativeSize;
  }

  Expected<Definitions> Defined = getDefinitions(M.BitcodePath);
  if (!Defined)
    return Defined.takeError();
  Expected<std::vector<FunctionEdge>> Edges = getReferenceEdges(M.BitcodePath);
  if (!Edges)
    return Edges.takeError();
  std::vector<SliceSpec> Plan =
      planSlices(K, *Defined, Kept, R0->Sites, *Edges);
  for (size_t I = 0; I < Plan.size(); ++I) {
    SmallString<128> Path(ScratchDir);
    sys::path::append(Path, formatv("{0}.slice-{1}.bc", M.Name, I).str());
    StringRef Parent = sys::path::parent_path(Path);
    if (std::error_code EC = sys::fs::create_directories(Parent))
      return makeError(Parent + ": cannot create: " + EC.message());
    if (Error E = writeSlice(M.BitcodePath, Path, Plan[I]))
      return E;
    CompileJob J = M.makeJob(Fixed);
    J.BitcodePath = std::string(Path);
    J.WantSites = true;
    J.WantFunctionSizes = true;
    Expected<CompileResult> R = compileModule(J);
    if (!KeepSlices)
      sys::fs::remove(Path);
    if (!R)
      return makeError(
          formatv("{0}: slice {1}: {2}", M.Name, I, toString(R.takeError()))
              .str());
    SliceSize &S = Out.Slices.emplace_back();
    for (const std::string &F : Defined->Functions)
      if (Plan[I].Emit.contains(F)) {
        S.Functions.push_back(F);
        S.ModuleBytes += Kept.lookup(F);
      }
    S.Decided = R->Sites.size();
    S.Unfixed =
        count_if(R->Sites, [](const DecidedSite &D) { return !D.Fixed; });
    for (const FunctionSize &F : R->Functions)
      if (Plan[I].Emit.contains(F.Name))
        S.Text += F.NativeSize;
    S.Seconds = R->Seconds;
  }
  return Out;
}

} // namespace mlgo
