//===- lib/Tune/TuneCheck.cpp - mlgo tune check: stale decisions ----------===//
//
// See mlgo/Tune/TuneCheck.h. An entry is stale when it fixed no decision
// in any compile of a module it applies to: the plugin's DecisionTable
// marks each entry a compile's fixed sites look up, and the entries left
// unmarked are the stale ones. A file with a 'program' section compiles
// each module with what the plugin applies in it (its entries, then the
// program's for the linkonce_odr functions it defines: expandForModule),
// and a program entry is stale when no module's compile looked it up: its
// caller, callee or ordinal is in no module any more.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/TuneCheck.h"

#include "mlgo/Compile/TrainingCorpus.h"
#include "mlgo/Compile/WorkerPool.h"
#include "mlgo/Inline/Decisions.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Tune/ProgramDecisions.h"

#include "llvm/ADT/StringExtras.h"

#include <map>
#include <memory>

using namespace llvm;

namespace mlgo {

Expected<size_t> checkDecisions(StringRef CorpusDir, StringRef DecisionsPath,
                                StringRef ModelPath, raw_ostream &OS,
                                StringRef LTO) {
  if (!LTO.empty() && LTO != "thin" && LTO != "full")
    return makeError("--lto must be 'thin' or 'full', not '" + LTO + "'");
  Expected<std::unique_ptr<WorkerPool>> Pool = WorkerPool::create({});
  if (!Pool)
    return Pool.takeError();
  Expected<DecisionsFile> F = DecisionsFile::load(DecisionsPath);
  if (!F)
    return F.takeError();
  Expected<std::vector<CorpusModule>> Mods = loadTrainingCorpus(CorpusDir);
  if (!Mods)
    return Mods.takeError();
  CompilePolicy Base = CompilePolicy::embedded();
  if (!ModelPath.empty()) {
    Expected<CompilePolicy> P = CompilePolicy::loadModel(ModelPath);
    if (!P)
      return P.takeError();
    Base = std::move(*P);
  }
  // Each corpus module with the file's entries for it, and with a program
  // section the program's for the linkonce_odr functions it defines.
  std::vector<CompileJob> Jobs;
  std::vector<std::shared_ptr<const ModuleDecisions>> For;
  std::vector<StringSet<>> LinkOnce;
  const ModuleDecisions NoEntries;
  for (const CorpusModule &M : *Mods) {
    Expected<std::string> Src = getSourceFileName(M);
    if (!Src)
      return Src.takeError();
    std::shared_ptr<const ModuleDecisions> E = F->find(*Src);
    StringSet<> Defined;
    CompilePolicy P = Base;
    P.Fixed = E;
    if (F->Program) {
      Expected<StringSet<>> LO = getLinkOnceODRFunctions(M.BitcodePath);
      if (!LO)
        return LO.takeError();
      Defined = std::move(*LO);
      ModuleDecisions Applied =
          expandForModule(E ? *E : NoEntries, *F->Program, Defined);
      if (!Applied.Sites.empty())
        P.Fixed = std::make_shared<const ModuleDecisions>(std::move(Applied));
    }
    if (!P.Fixed)
      continue;
    CompileJob J = M.makeJob(P);
    J.WantSites = true;
    // clang -cc1 -flto=... runs the pre-link pipeline before the code
    // generator, as the compile step of an LTO build does before it writes
    // bitcode.
    if (!LTO.empty())
      J.CC1Args.push_back(("-flto=" + LTO).str());
    Jobs.push_back(std::move(J));
    For.push_back(E);
    LinkOnce.push_back(std::move(Defined));
  }
  std::vector<JobOutcome> R = (*Pool)->run(Jobs);
  // An entry is stale if it fixed no decision in any module it applies to.
  // A fixed site is the module's entry's if one fixes it, else the
  // program's (the plugin's order).
  std::map<const ModuleDecisions *, std::unique_ptr<DecisionTable>> Tables;
  std::unique_ptr<DecisionTable> ProgramTable;
  if (F->Program)
    ProgramTable = std::make_unique<DecisionTable>(F->Program);
  for (size_t K = 0; K < Jobs.size(); ++K) {
    if (!R[K].ok())
      return makeError(R[K].Error);
    DecisionTable *T = nullptr;
    if (For[K]) {
      auto &Own = Tables[For[K].get()];
      if (!Own)
        Own = std::make_unique<DecisionTable>(For[K]);
      T = Own.get();
    }
    for (const DecidedSite &S : R[K].Result->Sites) {
      if (!S.Fixed)
        continue;
      if (T && T->lookup(S.Site.Caller, S.Site.Callee, S.Site.Ordinal))
        continue;
      if (ProgramTable && LinkOnce[K].contains(S.Site.Caller))
        ProgramTable->lookup(S.Site.Caller, S.Site.Callee, S.Site.Ordinal);
    }
  }
  size_t Stale = 0, Entries = 0;
  if (ProgramTable) {
    Entries += F->Program->Sites.size();
    ModuleDecisions Unused;
    Unused.Sites = ProgramTable->getUnused();
    if (!Unused.Sites.empty()) {
      Stale += Unused.Sites.size();
      OS << DecisionsPath << ": program: " << Unused.Sites.size()
         << " stale entries (no module of the corpus has these call "
            "sites):\n";
      Unused.sort();
      std::string Lines = Unused.printSites();
      for (StringRef Line : split(StringRef(Lines).rtrim(), '\n'))
        OS << "  " << Line << "\n";
    }
  }
  for (const auto &M : F->Modules) {
    Entries += M->Sites.size();
    auto It = Tables.find(M.get());
    if (It == Tables.end()) {
      OS << DecisionsPath << ": module '" << M->Module
         << "' matches no module of the corpus (" << M->Sites.size()
         << " entries)\n";
      Stale += M->Sites.size();
      continue;
    }
    ModuleDecisions Unused;
    Unused.Sites = It->second->getUnused();
    if (Unused.Sites.empty())
      continue;
    Stale += Unused.Sites.size();
    OS << DecisionsPath << ": module '" << M->Module
       << "': " << Unused.Sites.size() << " stale entries:\n";
    Unused.sort();
    std::string Lines = Unused.printSites();
    for (StringRef Line : split(StringRef(Lines).rtrim(), '\n'))
      OS << "  " << Line << "\n";
  }
  OS << DecisionsPath << ": " << Stale << " of " << Entries
     << " entries match no call site\n";
  return Stale;
}

} // namespace mlgo
