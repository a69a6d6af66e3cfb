//===- lib/Tune/ProgramDecisions.cpp - linkonce_odr decided once ----------===//
//
// See mlgo/Tune/ProgramDecisions.h. Sites are compared by their key
// (caller, callee, ordinal); a program entry comes from the first module,
// in link order, whose trajectory has a site of its caller.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/ProgramDecisions.h"

#include "mlgo/Compile/Components.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <map>
#include <tuple>

using namespace llvm;

namespace mlgo {

Expected<StringSet<>> getLinkOnceODRFunctions(StringRef Path) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = readBitcodeModule(Path, Ctx);
  if (!M)
    return M.takeError();
  StringSet<> Out;
  for (const Function &F : **M)
    if (!F.isDeclaration() && F.hasLinkOnceODRLinkage() && F.hasName())
      Out.insert(F.getName());
  return Out;
}

namespace {

using SiteKey = std::tuple<std::string, std::string, uint32_t>;

SiteKey keyOf(const SiteDecision &S) { return {S.Caller, S.Callee, S.Ordinal}; }

} // namespace

ModuleDecisions hoistLinkOnceDecisions(MutableArrayRef<ProgramModule> Modules,
                                       HoistStats *Stats) {
  HoistStats Local;
  HoistStats &St = Stats ? *Stats : Local;
  // A function an inexact module defines stays decided per module.
  StringSet<> Blocked;
  for (const ProgramModule &M : Modules)
    if (!M.Exact)
      for (const auto &F : M.LinkOnceODR)
        Blocked.insert(F.getKey());
  // A function no module has entries for is left to the model, as before:
  // the file names only what the search fixed.
  StringSet<> Named;
  for (const ProgramModule &M : Modules)
    for (const SiteDecision &E : M.Entries.Sites)
      if (!E.isGroup())
        Named.insert(E.Caller);
  auto Hoisted = [&](const ProgramModule &M, StringRef Caller) {
    return M.LinkOnceODR.contains(Caller) && !Blocked.contains(Caller) &&
           Named.contains(Caller);
  };
  // The program's entries: each function's sites in its first copy.
  StringMap<size_t> Owner;
  std::map<SiteKey, bool> Program;
  for (size_t I = 0; I < Modules.size(); ++I)
    for (const DecidedSite &S : Modules[I].Trajectory) {
      if (!Hoisted(Modules[I], S.Site.Caller))
        continue;
      if (Owner.try_emplace(S.Site.Caller, I).first->second != I)
        continue;
      Program.try_emplace(keyOf(S.Site), S.Site.Inline);
    }
  // Each copy keeps what the program's entries would not decide as it did.
  for (ProgramModule &M : Modules) {
    std::map<SiteKey, bool> Own;
    std::vector<SiteDecision> Kept;
    for (const SiteDecision &E : M.Entries.Sites) {
      if (!E.isGroup())
        Own.try_emplace(keyOf(E), E.Inline);
      if (!E.isGroup() && Hoisted(M, E.Caller)) {
        auto It = Program.find(keyOf(E));
        if (It != Program.end() && It->second == E.Inline) {
          ++St.Removed;
          continue;
        }
      }
      Kept.push_back(E);
    }
    for (const DecidedSite &S : M.Trajectory) {
      if (!Hoisted(M, S.Site.Caller) || Own.count(keyOf(S.Site)))
        continue;
      auto It = Program.find(keyOf(S.Site));
      if (It == Program.end() || It->second == S.Site.Inline)
        continue;
      Kept.push_back(S.Site);
      Own.try_emplace(keyOf(S.Site), S.Site.Inline);
      ++St.Added;
    }
    M.Entries.Sites = std::move(Kept);
    M.Entries.sort();
  }
  ModuleDecisions Out;
  for (const auto &[Key, Inline] : Program)
    Out.Sites.push_back(
        {std::get<0>(Key), std::get<1>(Key), std::get<2>(Key), Inline});
  Out.sort();
  St.Functions = Owner.size();
  St.ProgramEntries = Out.Sites.size();
  return Out;
}

ModuleDecisions expandForModule(const ModuleDecisions &Entries,
                                const ModuleDecisions &Program,
                                const StringSet<> &LinkOnceODR) {
  ModuleDecisions Out = Entries;
  std::map<SiteKey, bool> Own;
  StringSet<> Groups;
  for (const SiteDecision &E : Entries.Sites) {
    if (E.isGroup())
      Groups.insert(E.Callee);
    else
      Own.try_emplace(keyOf(E), E.Inline);
  }
  for (const SiteDecision &P : Program.Sites)
    if (LinkOnceODR.contains(P.Caller) && !Groups.contains(P.Callee) &&
        !Own.count(keyOf(P)))
      Out.Sites.push_back(P);
  Out.sort();
  return Out;
}

bool mustCheckPerModule(bool HasProgramEntries, uint64_t Whole,
                        uint64_t Searched, uint64_t Model) {
  return HasProgramEntries && (Whole > Searched || Whole > Model);
}

std::pair<FileForm, uint64_t> chooseFileForm(uint64_t Whole,
                                             std::optional<uint64_t> PerModule,
                                             uint64_t Model) {
  std::pair<FileForm, uint64_t> Best{FileForm::WholeProgram, Whole};
  if (PerModule && *PerModule < Best.second)
    Best = {FileForm::PerModule, *PerModule};
  if (Model < Best.second)
    Best = {FileForm::NoEntries, Model};
  return Best;
}

} // namespace mlgo
