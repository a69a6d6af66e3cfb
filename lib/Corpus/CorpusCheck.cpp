//===- lib/Corpus/CorpusCheck.cpp - Does a corpus replay? -----------------===//

#include "mlgo/Corpus/CorpusCheck.h"

#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/Extract.h"
#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace mlgo {

Expected<std::vector<ModuleCheck>>
checkCorpus(StringRef Dir, const CorpusCheckOptions &Options) {
  Expected<CorpusDescription> D = CorpusDescription::read(Dir);
  if (!D)
    return D.takeError();
  Expected<std::vector<ExtractedModule>> Report = readExtractionReport(Dir);
  if (!Report)
    return Report.takeError();
  StringMap<uint64_t> OriginalText;
  for (const ExtractedModule &M : *Report)
    OriginalText[M.Module] = M.TextSize;
  SmallString<128> TmpDir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-corpus-check", TmpDir))
    return makeError("cannot create a temporary directory: " + EC.message());

  std::vector<ModuleCheck> Checks = runJobs<ModuleCheck>(
      D->Modules.size(), Options.Threads,
      [&](size_t I) {
        const std::string &Module = D->Modules[I];
        std::string Out = (TmpDir + "/" + Twine(I) + ".o").str();
        auto Check = [&]() -> std::string {
          auto It = OriginalText.find(Module);
          if (It == OriginalText.end())
            return "not in " + ExtractionReportFileName.str();
          auto Argv =
              getModuleCompileCommand(Dir, *D, Module, Out, {}, Options.Clang);
          if (!Argv)
            return toString(Argv.takeError());
          if (Error E = runCommand(*Argv))
            return toString(std::move(E));
          auto Size = getTextSize(Out);
          if (!Size)
            return toString(Size.takeError());
          if (*Size != It->second)
            return formatv(".text size {0}, original {1}", *Size, It->second);
          return "";
        };
        ModuleCheck C{Module, Check()};
        sys::fs::remove(Out);
        return C;
      },
      Options.Progress);
  sys::fs::remove(TmpDir);
  return Checks;
}

} // namespace mlgo
