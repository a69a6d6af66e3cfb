//===- lib/Eval/CorpusEval.cpp - Evaluate policies on a corpus ------------===//
//
// Runs every (module, policy) compile on a thread pool (runJobs) and
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
  runJobs(
      Total, Options.Jobs,
      [&](size_t I) {
        const std::string &Module = Modules[I / NumPolicies];
        const NamedPolicy &P = *Policies[I % NumPolicies];
        Expected<CodeSize> Size = Compiler.codeSize(Module, P.Policy);
        if (Size)
          Sizes[I] = std::move(*Size);
        else
          Errors[I] = toString(Size.takeError());
      },
      Options.Progress);

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
