//===- tools/mlgo/TuneSlices.cpp - mlgo tune slices -----------------------===//
//
//   mlgo tune slices --corpus DIR [--split components|functions]
//                    [--module NAME]... [--model FILE] [--scratch DIR]
//
// Function-level compiles measured against whole-module ones
// (mlgo/Compile/FunctionSlice.h, docs/tune.md "Function-level compiles"):
// per module, each slice's .text and the module's, summed and compared,
// and the wall clock of each way. Compiles run in this process, one at a
// time.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Compile/FunctionSlice.h"
#include "mlgo/Compile/TrainingCorpus.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

cl::SubCommand SlicesCmd("tune slices",
                         "Compile each module whole and slice by slice "
                         "(function-level compiles); compare .text and time");
cl::opt<std::string> SlicesCorpus("corpus", cl::desc("the program's corpus"),
                                  cl::value_desc("dir"), cl::Required,
                                  cl::sub(SlicesCmd), cl::cat(Cat));
cl::opt<std::string>
    Split("split",
          cl::desc("'components' (each component of `tune --components` "
                   "alone), 'statics' (functions joined through static "
                   "ones) or 'functions' (each function alone), what they "
                   "reach as bodies"),
          cl::init("functions"), cl::sub(SlicesCmd), cl::cat(Cat));
cl::list<std::string> OnlyModules("module",
                                  cl::desc("measure this corpus module only "
                                           "(repeatable)"),
                                  cl::value_desc("name"), cl::sub(SlicesCmd),
                                  cl::cat(Cat));
cl::opt<std::string> SlicesModel("model",
                                 cl::desc("a text model instead of the "
                                          "embedded one"),
                                 cl::value_desc("file"), cl::sub(SlicesCmd),
                                 cl::cat(Cat));
cl::opt<std::string> Scratch("scratch",
                             cl::desc("keep the slices' bitcode here, as "
                                      "<module>.slice-<N>.bc (default: a "
                                      "temporary directory, removed)"),
                             cl::value_desc("dir"), cl::sub(SlicesCmd),
                             cl::cat(Cat));
cl::opt<bool> PerSlice("per-slice",
                       cl::desc("also print each slice's .text and functions"),
                       cl::sub(SlicesCmd), cl::cat(Cat));

std::string signedBytes(int64_t N) {
  return (N > 0 ? "+" : "") + llvm::itostr(N);
}

int runSlices() {
  SplitKind K;
  if (Split == "components")
    K = SplitKind::Components;
  else if (Split == "statics")
    K = SplitKind::Statics;
  else if (Split == "functions")
    K = SplitKind::Functions;
  else
    return fail("--split must be 'components', 'statics' or 'functions', "
                "not '" +
                Split + "'");
  CompilePolicy P = CompilePolicy::embedded();
  if (!SlicesModel.empty()) {
    Expected<CompilePolicy> M = CompilePolicy::loadModel(SlicesModel);
    if (!M)
      return fail(M.takeError());
    P = std::move(*M);
  }
  Expected<std::vector<CorpusModule>> Modules =
      loadTrainingCorpus(SlicesCorpus);
  if (!Modules)
    return fail(Modules.takeError());
  StringSet<> Wanted;
  for (const std::string &M : OnlyModules)
    Wanted.insert(M);
  for (const std::string &M : OnlyModules)
    if (none_of(*Modules, [&](const CorpusModule &C) { return C.Name == M; }))
      return fail(SlicesCorpus + ": no module named '" + M + "'");
  SmallString<128> Dir(Scratch);
  bool Temporary = Dir.empty();
  if (Temporary)
    if (std::error_code EC = sys::fs::createUniqueDirectory("mlgo-slices", Dir))
      return fail("cannot create a scratch directory: " + EC.message());

  uint64_t AllModule = 0, AllSlices = 0;
  double ModuleSecs = 0, SliceSecs = 0, MaxSlice = 0;
  size_t AllCount = 0;
  int Status = 0;
  for (const CorpusModule &M : *Modules) {
    if (!Wanted.empty() && !Wanted.contains(M.Name))
      continue;
    Expected<SplitSizes> S = measureSplit(M, P, K, Dir, !Temporary);
    if (!S) {
      Status = fail(S.takeError());
      break;
    }
    outs() << formatv("{0}: {1} slices ({2}), {3} sites\n", M.Name,
                      S->Slices.size(), Split, S->Sites);
    if (PerSlice)
      for (const SliceSize &Sl : S->Slices)
        outs() << formatv(
                      "  {0,6} {1,6} {2,3} {3} ", Sl.Text,
                      signedBytes(int64_t(Sl.Text) - int64_t(Sl.ModuleBytes)),
                      Sl.Decided, Sl.Unfixed)
               << join(Sl.Functions, " ") << "\n";
    int64_t Diff = int64_t(S->sliceText()) - int64_t(S->ModuleText);
    outs() << formatv("  .text: module {0}, its function symbols {1}, slices "
                      "{2} ({3}, {4:f2}%)\n",
                      S->ModuleText, S->FunctionSymbols, S->sliceText(),
                      signedBytes(Diff),
                      S->ModuleText ? 100.0 * Diff / S->ModuleText : 0.0);
    double Largest = 0;
    for (const SliceSize &Sl : S->Slices)
      Largest = std::max(Largest, Sl.Seconds);
    outs() << formatv("  compile: module {0:f3} s, slices {1:f3} s in all, "
                      "mean {2:f3} s, largest {3:f3} s\n",
                      S->ModuleSeconds, S->sliceSeconds(),
                      S->Slices.empty() ? 0.0
                                        : S->sliceSeconds() / S->Slices.size(),
                      Largest);
    AllModule += S->ModuleText;
    AllSlices += S->sliceText();
    ModuleSecs += S->ModuleSeconds;
    SliceSecs += S->sliceSeconds();
    MaxSlice = std::max(MaxSlice, Largest);
    AllCount += S->Slices.size();
  }
  if (Status == 0) {
    int64_t Diff = int64_t(AllSlices) - int64_t(AllModule);
    outs() << formatv("total: .text modules {0}, slices {1} ({2}, {3:f2}%); "
                      "compile modules {4:f3} s, {5} slices {6:f3} s "
                      "(mean {7:f3} s)\n",
                      AllModule, AllSlices, signedBytes(Diff),
                      AllModule ? 100.0 * Diff / AllModule : 0.0, ModuleSecs,
                      AllCount, SliceSecs,
                      AllCount ? SliceSecs / AllCount : 0.0);
  }
  if (Temporary)
    sys::fs::remove_directories(Dir);
  return Status;
}

tool::RegisterSubcommand RegSlices(SlicesCmd, runSlices);

} // namespace
