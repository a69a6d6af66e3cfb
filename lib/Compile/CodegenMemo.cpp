//===- lib/Compile/CodegenMemo.cpp - Code sizes of functions, memoized ----===//
//
// See mlgo/Compile/CodegenMemo.h. The keys are computed before any body is
// replaced, so a function's key never depends on which of the others the
// memo knew.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CodegenMemo.h"

#include "mlgo/Corpus/CodeSize.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

using namespace llvm;

namespace mlgo {

namespace {

std::string md5Of(StringRef Text) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Text));
  return std::string(R.digest());
}

/// The module-level part of every key of \p M.
std::string moduleContext(const Module &M, ArrayRef<std::string> CC1Args) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << M.getTargetTriple() << '\n'
     << M.getDataLayoutStr() << '\n'
     << M.getModuleInlineAsm() << '\n';
  SmallVector<Module::ModuleFlagEntry, 8> Flags;
  M.getModuleFlagsMetadata(Flags);
  for (const Module::ModuleFlagEntry &E : Flags) {
    OS << unsigned(E.Behavior) << ' ' << E.Key->getString() << ' ';
    E.Val->print(OS, &M);
    OS << '\n';
  }
  for (const std::string &A : CC1Args)
    OS << A << '\0';
  return md5Of(Text);
}

/// What code generation reads of a global value a function refers to.
std::string describeGlobal(const GlobalValue &G) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << G.getName() << ' ' << unsigned(G.getLinkage()) << ' '
     << unsigned(G.getVisibility()) << ' ' << G.isDSOLocal() << ' '
     << unsigned(G.getUnnamedAddr()) << ' ' << unsigned(G.getThreadLocalMode())
     << ' ' << unsigned(G.getDLLStorageClass()) << ' ' << G.getAddressSpace()
     << ' ' << G.isDeclaration() << ' ';
  G.getValueType()->print(OS);
  if (const auto *O = dyn_cast<GlobalObject>(&G)) {
    OS << " align " << (O->getAlign() ? O->getAlign()->value() : 0)
       << " section '" << O->getSection() << "' comdat '"
       << (O->getComdat() ? O->getComdat()->getName() : "") << "'";
  }
  if (const auto *F = dyn_cast<Function>(&G)) {
    OS << " cc " << F->getCallingConv();
    const AttributeList &A = F->getAttributes();
    for (unsigned I : A.indexes())
      OS << " [" << I << ' ' << A.getAsString(I) << ']';
  } else if (const auto *V = dyn_cast<GlobalVariable>(&G)) {
    OS << " constant " << V->isConstant() << " extinit "
       << V->isExternallyInitialized();
    if (V->isConstant() && V->hasInitializer()) {
      OS << " = ";
      V->getInitializer()->print(OS);
    }
  } else if (const auto *A = dyn_cast<GlobalAlias>(&G)) {
    OS << " alias ";
    A->getAliasee()->print(OS);
  } else if (const auto *I = dyn_cast<GlobalIFunc>(&G)) {
    OS << " ifunc ";
    I->getResolver()->print(OS);
  }
  return Text;
}

/// Adds every global value \p C refers to (through constant expressions
/// and aggregates, not through initializers) to \p Out.
void collectGlobals(const Constant *C, SmallPtrSetImpl<const Constant *> &Seen,
                    SmallVectorImpl<const GlobalValue *> &Out) {
  if (!Seen.insert(C).second)
    return;
  if (const auto *G = dyn_cast<GlobalValue>(C)) {
    Out.push_back(G);
    return;
  }
  for (const Use &U : C->operands())
    if (const auto *Op = dyn_cast<Constant>(U.get()))
      collectGlobals(Op, Seen, Out);
}

/// Whether the callee of tail call \p CB is a local symbol (internal or
/// private linkage): the only kind of symbol an ELF assembler resolves a
/// PC-relative jump to itself, and may then make the jump a short one
/// over the distance between the two functions. A jump to any other
/// symbol, dso_local or hidden ones included, keeps its relocation and its
/// 4-byte displacement.
bool tailCallsLocalSymbol(const CallBase &CB) {
  const auto *G =
      dyn_cast<GlobalValue>(CB.getCalledOperand()->stripPointerCasts());
  return G && G->hasLocalLinkage();
}

/// Whether tail call \p CI may be lowered to a jump: its block ends in a
/// return or unreachable (the code generator's tail call position), or
/// in an unconditional branch (CodeGenPrepare duplicates a return block
/// into such a predecessor to make the call a tail call).
bool mayBecomeJump(const CallInst &CI) {
  const Instruction *Term = CI.getParent()->getTerminator();
  if (isa<ReturnInst>(Term) || isa<UnreachableInst>(Term))
    return true;
  const auto *Br = dyn_cast<BranchInst>(Term);
  return Br && Br->isUnconditional();
}

/// Whether a function's code can be measured once and stood in for by a
/// placeholder: its symbol's size does not depend on where it is placed.
bool isMemoizable(const Function &F) {
  if (F.isDeclaration() || F.hasAvailableExternallyLinkage() ||
      F.hasPrivateLinkage() || F.getName().starts_with("\1"))
    return false;
  if (!F.hasMinSize() || F.hasPrefixData() || F.hasPrologueData() ||
      F.hasFnAttribute(Attribute::Naked) ||
      F.hasMetadata(LLVMContext::MD_func_sanitize) ||
      F.hasMetadata(LLVMContext::MD_kcfi_type))
    return false;
  for (const Attribute &A : F.getAttributes().getFnAttrs()) {
    if (!A.isStringAttribute())
      continue;
    StringRef Kind = A.getKindAsString();
    if (Kind.starts_with("patchable-function") ||
        Kind.starts_with("instrument-function") || Kind == "fentry-call" ||
        Kind.starts_with("xray") || Kind == "align-all-blocks")
      return false;
  }
  for (const BasicBlock &BB : F) {
    if (BB.hasAddressTaken())
      return false;
    for (const Instruction &I : BB) {
      const auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (CB->isInlineAsm())
        return false;
      const auto *CI = dyn_cast<CallInst>(CB);
      if (CI && CI->isTailCall() && mayBecomeJump(*CI) &&
          tailCallsLocalSymbol(*CI))
        return false;
    }
  }
  return true;
}

/// The keys' second part: \p F printed alone in \p Scratch, an empty module
/// of its context, then put back where it was.
std::string printAlone(Function &F, Module &Scratch) {
  Module &M = *F.getParent();
  auto Next = std::next(F.getIterator());
  F.removeFromParent();
  Scratch.getFunctionList().push_back(&F);
  std::string Text;
  raw_string_ostream OS(Text);
  Scratch.print(OS, nullptr);
  F.removeFromParent();
  M.getFunctionList().insert(Next, &F);
  return Text;
}

/// Replaces the body of \p F by ".skip Bytes"; \p OptNone: makes \p F
/// optnone, which the code generator's passes skip.
void makePlaceholder(Function &F, uint64_t Bytes, bool OptNone) {
  for (BasicBlock &BB : F)
    BB.dropAllReferences();
  while (!F.empty())
    F.back().eraseFromParent();
  F.setSubprogram(nullptr);
  F.addFnAttr(Attribute::Naked);
  if (OptNone) {
    F.addFnAttr(Attribute::OptimizeNone);
    F.addFnAttr(Attribute::NoInline);
  }
  LLVMContext &Ctx = F.getContext();
  BasicBlock *BB = BasicBlock::Create(Ctx, "", &F);
  IRBuilder<> B(BB);
  InlineAsm *Skip =
      InlineAsm::get(FunctionType::get(Type::getVoidTy(Ctx), false),
                     ".skip " + std::to_string(Bytes), "",
                     /*hasSideEffects=*/true);
  B.CreateCall(Skip);
  B.CreateUnreachable();
}

} // namespace

void reportCodegenMemoStats() {
  const char *V = std::getenv("MLGO_CODEGEN_MEMO_STATS");
  if (!V || !*V || StringRef(V) == "0")
    return;
  const CodegenMemoStats &S = getProcessCodegenMemo().getStats();
  std::fprintf(stderr,
               "mlgo codegen memo: %llu compiles, %llu functions, %llu "
               "placeholders, %llu compiled again, %.2f CPU s keying\n",
               (unsigned long long)S.Compiles, (unsigned long long)S.Functions,
               (unsigned long long)S.Reused, (unsigned long long)S.Mismatches,
               S.KeySeconds);
}

CodegenMemo::Plan CodegenMemo::prepare(Module &M, ArrayRef<std::string> CC1Args,
                                       bool Unverified) {
  std::clock_t Start = std::clock();
  Plan P;
  uint64_t Defined = 0;
  std::string Context = moduleContext(M, CC1Args);
  Module Scratch("mlgo-codegen-memo", M.getContext());
  DenseMap<const GlobalValue *, std::string> Described;
  std::vector<std::pair<Function *, std::string>> Keyed;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    ++Defined;
    if (!isMemoizable(F))
      continue;
    SmallPtrSet<const Constant *, 32> Seen;
    SmallVector<const GlobalValue *, 16> Globals;
    if (F.hasPersonalityFn())
      collectGlobals(F.getPersonalityFn(), Seen, Globals);
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        for (const Use &U : I.operands())
          if (const auto *C = dyn_cast<Constant>(U.get()))
            collectGlobals(C, Seen, Globals);
    MD5 Hash;
    Hash.update(Context);
    Hash.update(printAlone(F, Scratch));
    for (const GlobalValue *G : Globals) {
      auto [It, New] = Described.try_emplace(G);
      if (New)
        It->second = md5Of(describeGlobal(*G));
      Hash.update(It->second);
    }
    MD5::MD5Result R;
    Hash.final(R);
    Keyed.emplace_back(&F, std::string(R.digest()));
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Stats.Compiles;
  Stats.Functions += Defined;
  for (auto &[F, Key] : Keyed) {
    auto It = Sizes.find(Key);
    if (It == Sizes.end()) {
      P.Record.emplace_back(F->getName().str(), std::move(Key));
      continue;
    }
    P.Placeholders.emplace_back(F->getName().str(), It->second);
    makePlaceholder(*F, It->second, Unverified);
    ++Stats.Reused;
  }
  Stats.KeySeconds += double(std::clock() - Start) / CLOCKS_PER_SEC;
  return P;
}

Expected<bool> CodegenMemo::finish(const Plan &P, MemoryBufferRef Object) {
  Expected<std::vector<std::pair<std::string, uint64_t>>> Symbols =
      getFunctionSizes(Object);
  if (!Symbols)
    return Symbols.takeError();
  auto SizeOf = [&](StringRef Name) -> std::optional<uint64_t> {
    auto It =
        llvm::lower_bound(*Symbols, Name,
                          [](const std::pair<std::string, uint64_t> &S,
                             StringRef N) { return StringRef(S.first) < N; });
    if (It == Symbols->end() || It->first != Name)
      return std::nullopt;
    return It->second;
  };
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const auto &[Name, Bytes] : P.Placeholders) {
    if (SizeOf(Name) != Bytes) {
      ++Stats.Mismatches;
      return false;
    }
  }
  for (const auto &[Name, Key] : P.Record)
    if (std::optional<uint64_t> Bytes = SizeOf(Name))
      Sizes[Key] = *Bytes;
  return true;
}

bool isCodegenMemoEnabled() {
  static const bool Enabled = [] {
    const char *V = std::getenv("MLGO_CODEGEN_MEMO");
    return !V || StringRef(V) != "0";
  }();
  return Enabled;
}

CodegenMemo &getProcessCodegenMemo() {
  static CodegenMemo Memo;
  return Memo;
}

} // namespace mlgo
