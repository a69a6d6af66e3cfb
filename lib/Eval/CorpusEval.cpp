//===- lib/Eval/CorpusEval.cpp - Evaluate policies on a corpus ------------===//
//
// Runs every (module, policy) compile through the compiler's codeSizes()
// (a thread pool, or the ranks of a run across machines) and
// collects the sizes in module order (see mlgo/Eval/CorpusEval.h). Also the
// ModuleCompiler anchor.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Eval/CorpusEval.h"

#include "mlgo/Support/Parallel.h"

#include <optional>

using namespace llvm;

namespace mlgo {

ModuleCompiler::~ModuleCompiler() = default;

std::vector<Expected<CodeSize>>
ModuleCompiler::codeSizes(ArrayRef<Request> Requests, unsigned Threads,
                          const ProgressCallback &Progress) {
  return runJobs<Expected<CodeSize>>(
      Requests.size(), Threads,
      [&](size_t I) {
        return codeSize(Requests[I].Module, *Requests[I].Policy);
      },
      Progress);
}

SizeReport evaluateCorpus(ModuleCompiler &Compiler,
                          ArrayRef<std::string> Modules,
                          const NamedPolicy &Baseline,
                          ArrayRef<NamedPolicy> Models,
                          const CorpusEvalOptions &Options) {
  std::vector<const NamedPolicy *> Policies = {&Baseline};
  for (const NamedPolicy &M : Models)
    Policies.push_back(&M);
  size_t NumPolicies = Policies.size();
  size_t Total = Modules.size() * NumPolicies;
  // Results[Module * NumPolicies + Policy]: a size, or the error message.
  std::vector<std::optional<CodeSize>> Sizes(Total);
  std::vector<std::string> Errors(Total);
  // Module-major order: a module's compiles run close together, so a
  // failing module shows up early and the progress is even.
  std::vector<ModuleCompiler::Request> Requests(Total);
  for (size_t I = 0; I < Total; ++I)
    Requests[I] = {Modules[I / NumPolicies],
                   &Policies[I % NumPolicies]->Policy};
  std::vector<Expected<CodeSize>> Results =
      Compiler.codeSizes(Requests, Options.Jobs, Options.Progress);
  for (size_t I = 0; I < Total; ++I) {
    if (Results[I])
      Sizes[I] = std::move(*Results[I]);
    else
      Errors[I] = toString(Results[I].takeError());
  }

  SizeReport R;
  R.BaselineName = Baseline.Name;
  for (const NamedPolicy &M : Models)
    R.ModelNames.push_back(M.Name);
  R.ModulesRequested = Modules.size();
  for (size_t M = 0; M < Modules.size(); ++M) {
    bool Failed = false;
    for (size_t P = 0; P < NumPolicies; ++P) {
      size_t I = M * NumPolicies + P;
      if (Sizes[I])
        continue;
      Failed = true;
      R.Failures.push_back({Modules[M], Policies[P]->Name, Errors[I]});
    }
    if (Failed)
      continue;
    ModuleSizes S;
    S.Module = Modules[M];
    S.Baseline = Sizes[M * NumPolicies]->Total;
    bool Grouped = false;
    for (size_t P = 0; P < NumPolicies; ++P) {
      if (P > 0)
        S.Models.push_back(Sizes[M * NumPolicies + P]->Total);
      Grouped |= !Sizes[M * NumPolicies + P]->Grouped.empty();
    }
    if (Grouped)
      for (size_t P = 0; P < NumPolicies; ++P)
        S.Grouped.push_back(std::move(Sizes[M * NumPolicies + P]->Grouped));
    R.Modules.push_back(std::move(S));
  }
  return R;
}

} // namespace mlgo
