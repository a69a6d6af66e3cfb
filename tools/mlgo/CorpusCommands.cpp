//===- tools/mlgo/CorpusCommands.cpp - mlgo corpus ... --------------------===//
//
// The corpus commands: extract (objects -> corpus), combine, stats, profile
// (give a package its profile), compile (replay one module as clang compiled
// it, optionally with the plugin) and check (replay every module and compare
// .text sizes with the originals). The work is in the MLGOCorpus library
// (Extract.h, CorpusCombine.h, CorpusStats.h, CompileCommand.h, CorpusCheck.h);
// this file parses options and prints.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Corpus/CorpusCheck.h"
#include "mlgo/Corpus/CorpusCombine.h"
#include "mlgo/Corpus/CorpusDescription.h"
#include "mlgo/Corpus/CorpusStats.h"
#include "mlgo/Corpus/Extract.h"
#include "mlgo/Corpus/Package.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Speed/Profile.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Progress.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();

//===-- corpus extract ----------------------------------------------------===//

cl::SubCommand ExtractCmd(
    "corpus extract",
    "Extract a corpus from objects built with -Xclang -fembed-bitcode=all");
cl::opt<std::string> ExtractCompileCommands(
    "compile-commands", cl::desc("compile_commands.json of the build"),
    cl::value_desc("file"), cl::sub(ExtractCmd), cl::cat(Cat));
cl::opt<std::string> ExtractBaseDir(
    "base-dir",
    cl::desc("name modules relative to <dir> when their object is below it "
             "(default: relative to each compile command's directory)"),
    cl::value_desc("dir"), cl::sub(ExtractCmd), cl::cat(Cat));
cl::opt<std::string> ExtractObjects("objects",
                                    cl::desc("extract every *.o under <dir>"),
                                    cl::value_desc("dir"), cl::sub(ExtractCmd),
                                    cl::cat(Cat));
cl::opt<std::string> ExtractOutput("output", cl::desc("corpus directory"),
                                   cl::value_desc("dir"), cl::Required,
                                   cl::sub(ExtractCmd), cl::cat(Cat));
cl::alias ExtractOutputShort("o", cl::aliasopt(ExtractOutput));
cl::opt<unsigned> ExtractThreads("threads",
                                 cl::desc("worker threads (0: all cores)"),
                                 cl::init(0), cl::sub(ExtractCmd),
                                 cl::cat(Cat));
cl::alias ExtractThreadsShort("j", cl::aliasopt(ExtractThreads));
cl::opt<bool> ExtractAllowPartial(
    "allow-partial",
    cl::desc("exit 0 even when some objects were skipped (they are still "
             "listed)"),
    cl::sub(ExtractCmd), cl::cat(Cat));
cl::opt<bool> ExtractKeepDuplicates(
    "keep-duplicates",
    cl::desc("keep every module, even several of one source file or with "
             "identical bitcode (by default the first one is kept)"),
    cl::sub(ExtractCmd), cl::cat(Cat));

//===-- corpus combine ----------------------------------------------------===//

cl::SubCommand CombineCmd("corpus combine",
                          "Merge corpora that differ only in their modules");
cl::list<std::string> CombineInputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<corpus dir>..."),
                                    cl::sub(CombineCmd), cl::cat(Cat));
cl::opt<std::string> CombineOutput("o", cl::desc("combined corpus directory"),
                                   cl::value_desc("dir"), cl::Required,
                                   cl::sub(CombineCmd), cl::cat(Cat));

//===-- corpus stats ------------------------------------------------------===//

cl::SubCommand StatsCmd("corpus stats",
                        "Modules, IR instructions, functions, call sites");
cl::opt<std::string> StatsDir(cl::Positional, cl::Required,
                              cl::desc("<corpus dir>"), cl::sub(StatsCmd),
                              cl::cat(Cat));
cl::opt<unsigned> StatsThreads("threads",
                               cl::desc("worker threads (0: all cores)"),
                               cl::init(0), cl::sub(StatsCmd), cl::cat(Cat));
cl::alias StatsThreadsShort("j", cl::aliasopt(StatsThreads));

//===-- corpus compile ----------------------------------------------------===//

cl::SubCommand CompileCmd(
    "corpus compile",
    "Compile one module as clang compiled it; arguments after MODULE are "
    "passed to clang -cc1 (e.g. -fpass-plugin=P.so -mllvm -opt)");
cl::opt<std::string> CompileDir(cl::Positional, cl::Required,
                                cl::desc("<corpus dir>"), cl::sub(CompileCmd),
                                cl::cat(Cat));
cl::opt<std::string> CompileModule(cl::Positional, cl::Required,
                                   cl::desc("<module>"), cl::sub(CompileCmd),
                                   cl::cat(Cat));
cl::list<std::string> CompileExtra(cl::ConsumeAfter,
                                   cl::desc("<extra cc1 args>..."),
                                   cl::sub(CompileCmd), cl::cat(Cat));
cl::opt<std::string> CompileOutput("o",
                                   cl::desc("output (default: <module>.o "
                                            "basename, in the current dir)"),
                                   cl::value_desc("file"), cl::sub(CompileCmd),
                                   cl::cat(Cat));
cl::opt<std::string> CompileClang("clang", cl::desc("clang driver to run"),
                                  cl::init(std::string(DefaultClang)),
                                  cl::sub(CompileCmd), cl::cat(Cat));
cl::opt<bool> CompilePrint("print-command",
                           cl::desc("print the command instead of running it"),
                           cl::sub(CompileCmd), cl::cat(Cat));

//===-- corpus check ------------------------------------------------------===//

cl::SubCommand CheckCmd("corpus check",
                        "Replay every module and compare its .text size with "
                        "the original object's");
cl::opt<std::string> CheckDir(cl::Positional, cl::Required,
                              cl::desc("<corpus dir>"), cl::sub(CheckCmd),
                              cl::cat(Cat));
cl::opt<unsigned> CheckThreads("threads",
                               cl::desc("parallel compiles (0: all cores)"),
                               cl::init(0), cl::sub(CheckCmd), cl::cat(Cat));
cl::alias CheckThreadsShort("j", cl::aliasopt(CheckThreads));
cl::opt<std::string> CheckClang("clang", cl::desc("clang driver to run"),
                                cl::init(std::string(DefaultClang)),
                                cl::sub(CheckCmd), cl::cat(Cat));

std::string megabytes(uint64_t Bytes) {
  return formatv("{0:f1} MB", Bytes / 1e6).str();
}

int runExtract() {
  if (ExtractCompileCommands.empty() == ExtractObjects.empty())
    return fail("give exactly one of --compile-commands and --objects");
  std::vector<SkippedObject> Skipped;
  Expected<std::vector<ObjectInput>> Objects =
      ExtractObjects.empty()
          ? readCompileCommands(ExtractCompileCommands, Skipped, ExtractBaseDir)
          : findObjects(ExtractObjects);
  if (!Objects)
    return fail(Objects.takeError());
  size_t Considered = Objects->size() + Skipped.size();
  Progress Bar("extracting", "objects");
  ExtractOptions Options;
  Options.OutputDir = ExtractOutput;
  Options.Threads = ExtractThreads;
  Options.Deduplicate = !ExtractKeepDuplicates;
  Options.Progress = [&](size_t Done, size_t Total) {
    Bar.update(Done, Total);
  };
  Expected<ExtractResult> R =
      extractCorpus(*Objects, Options, std::move(Skipped));
  Bar.end();
  if (!R)
    return fail(R.takeError());

  // A static library of such objects made by GNU ar has no symbol table:
  // the build links, or fails, before anyone looks at the corpus, so say
  // why here. The objects' top directory is searched (not "/").
  std::string Top = ExtractObjects;
  if (Top.empty()) {
    std::vector<std::string> Dirs;
    for (const ObjectInput &O : *Objects)
      Dirs.push_back(sys::path::parent_path(O.ObjectPath).str());
    Top = getCommonRoot(Dirs);
  }
  if (!Top.empty() && Top != "/")
    for (const std::string &A : findUnindexedBitcodeArchives(Top))
      WithColor::warning(errs(), "mlgo")
          << A
          << ": a static library of objects with embedded bitcode but no "
             "symbol table (GNU ar writes none for them), so links against "
             "it fail; build with AR=llvm-ar-19 RANLIB=llvm-ranlib-19 "
             "(CMake: -DCMAKE_AR=/usr/bin/llvm-ar-19 "
             "-DCMAKE_RANLIB=/usr/bin/llvm-ranlib-19)\n";

  uint64_t Bytes = 0;
  for (const ExtractedModule &M : R->Modules)
    Bytes += M.BitcodeSize;
  raw_ostream &OS = outs();
  OS << "extracted " << R->Modules.size() << " modules (" << megabytes(Bytes)
     << " of bitcode) into " << ExtractOutput << '\n';
  if (!R->Dropped.empty()) {
    std::map<std::string, std::vector<const DroppedModule *>> ByReason;
    for (const DroppedModule &D : R->Dropped)
      ByReason[getDropReasonName(D.Reason).str()].push_back(&D);
    OS << "dropped " << R->Dropped.size()
       << " duplicate modules (the first module of each source file and of "
          "each bitcode content is kept):\n";
    for (const auto &[Reason, List] : ByReason) {
      OS << "  " << Reason << ": " << List.size() << '\n';
      for (size_t I = 0; I < List.size() && I < 5; ++I)
        OS << "    " << describeDroppedModule(*List[I]) << '\n';
      if (List.size() > 5)
        OS << "    ... (all listed in " << ExtractionReportFileName << ")\n";
    }
  }
  std::string Source = ExtractObjects.empty()
                           ? std::string(ExtractCompileCommands)
                           : std::string(ExtractObjects);
  OS.flush();
  if (Considered == 0)
    return fail(Source +
                ": no object to extract (--compile-commands takes the "
                "entries that compile with -c, --objects the files named *.o)");
  if (R->Skipped.empty())
    return 0;
  std::map<std::string, std::vector<const SkippedObject *>> ByReason;
  for (const SkippedObject &S : R->Skipped)
    ByReason[getSkipReasonName(S.Reason).str()].push_back(&S);
  OS << "skipped " << R->Skipped.size() << " of " << Considered
     << " objects:\n";
  for (const auto &[Reason, List] : ByReason) {
    OS << "  " << Reason << ": " << List.size() << '\n';
    for (size_t I = 0; I < List.size() && I < 5; ++I)
      OS << "    " << List[I]->Path << '\n';
    if (List.size() > 5)
      OS << "    ... (all listed in " << ExtractionReportFileName << ")\n";
  }
  OS.flush();
  // A corpus of nothing is never what was asked for, partial or not.
  if (R->Modules.empty())
    return fail("no module extracted: none of the " + Twine(Considered) +
                " objects of " + Source +
                " gave one (listed above); compile them with clang-19 "
                "-Xclang -fembed-bitcode=all");
  if (ExtractAllowPartial)
    return 0;
  return fail("the corpus is partial: " + Twine(R->Skipped.size()) + " of " +
              Twine(Considered) +
              " objects skipped (listed above); pass --allow-partial to "
              "accept it");
}

int runCombine() {
  Expected<CombinedCorpus> C = combineCorpus(CombineInputs, CombineOutput);
  if (!C)
    return fail(C.takeError());
  outs() << "combined " << CombineInputs.size() << " corpora ("
         << C->Description.Modules.size() << " modules) into " << CombineOutput
         << '\n';
  if (!C->HasExtractionReport)
    outs() << "note: not every input has an " << ExtractionReportFileName
           << "; the combined corpus has none\n";
  return 0;
}

/// min / median / p90 / max of \p V (sorted in place).
std::string spread(std::vector<uint64_t> &V) {
  if (V.empty())
    return "-";
  llvm::sort(V);
  auto At = [&](double Q) { return V[size_t(Q * (V.size() - 1))]; };
  return formatv("min {0}, median {1}, p90 {2}, max {3}", V.front(), At(0.5),
                 At(0.9), V.back())
      .str();
}

int runStats() {
  Progress Bar("reading", "modules");
  Expected<CorpusStats> S = computeCorpusStats(
      StatsDir, StatsThreads,
      [&](size_t Done, size_t Total) { Bar.update(Done, Total); });
  Bar.end();
  if (!S)
    return fail(S.takeError());
  const CorpusDescription &D = S->Description;
  size_t N = D.Modules.size();
  std::vector<uint64_t> Insts, Bytes, Funcs;
  std::vector<std::pair<uint64_t, std::string>> Largest;
  for (size_t I = 0; I < N; ++I) {
    if (!S->Modules[I]) {
      WithColor::warning(errs(), "mlgo") << S->Errors[I] << '\n';
      continue;
    }
    const ModuleStats &M = *S->Modules[I];
    Insts.push_back(M.Instructions);
    Bytes.push_back(M.BitcodeBytes);
    Funcs.push_back(M.Functions);
    Largest.emplace_back(M.Instructions, D.Modules[I]);
  }
  llvm::sort(Largest, [](const auto &A, const auto &B) { return A > B; });
  const ModuleStats &Total = S->Total;
  raw_ostream &OS = outs();
  OS << "corpus: " << StatsDir << '\n'
     << "modules: " << N << '\n'
     << "has_thinlto: " << (D.HasThinLTO ? "true" : "false") << '\n'
     << "global_command_override: " << (D.GlobalCommandOverride ? "yes" : "no")
     << '\n'
     << "bitcode: " << Total.BitcodeBytes << " bytes ("
     << megabytes(Total.BitcodeBytes) << ")\n"
     << "functions: " << Total.Functions << " defined, " << Total.Declarations
     << " declarations\n"
     << "instructions: " << Total.Instructions << '\n'
     << "call sites: " << Total.CallSites << '\n'
     << "instructions per module: " << spread(Insts) << '\n'
     << "functions per module: " << spread(Funcs) << '\n'
     << "bitcode bytes per module: " << spread(Bytes) << '\n';
  OS << "largest modules (instructions):\n";
  for (size_t I = 0; I < Largest.size() && I < 5; ++I)
    OS << "  " << Largest[I].first << "  " << Largest[I].second << '\n';
  // Packages as `mlgo train` sees them (a recipe holds whole packages out
  // for validation).
  OS << "packages: " << S->Packages.size() << '\n';
  for (const PackageStats &P : S->Packages)
    OS << "  " << describePackage(P.Package) << ": " << P.Modules
       << " modules, " << P.Instructions << " instructions\n";
  // Only a corpus that carries profiles says so: older output stays as it
  // was.
  if (!D.Profiles.empty()) {
    OS << "profiles: " << D.Profiles.size() << '\n';
    for (const auto &[Package, Path] : D.Profiles) {
      Expected<speed::ProfileInfo> Info =
          speed::readProfileInfo(*D.getProfilePath(StatsDir, Package));
      if (!Info)
        return fail(Info.takeError());
      OS << formatv("  {0}: {1} ({2} functions, {3} executed; largest count "
                    "{4})\n",
                    Package, Path, Info->Functions, Info->ExecutedFunctions,
                    Info->MaxCount);
    }
  }
  if (size_t Bad = S->getUnreadableCount())
    return fail(Twine(Bad) + " of " + Twine(N) + " modules could not be read");
  if (!S->FingerprintError.empty())
    return fail(S->FingerprintError);
  // The fingerprint `mlgo train` reports: equal fingerprints, equal models.
  OS << "fingerprint: " << S->Fingerprint << '\n';
  return 0;
}

//===-- corpus profile ----------------------------------------------------===//

cl::SubCommand ProfileCmd("corpus profile",
                          "Give a package of a corpus its profile (copied "
                          "into the corpus, named in its description)");
cl::opt<std::string> ProfileDir(cl::Positional, cl::Required,
                                cl::desc("<corpus dir>"), cl::sub(ProfileCmd),
                                cl::cat(Cat));
cl::opt<std::string> ProfilePackage("package", cl::Required,
                                    cl::desc("the package"),
                                    cl::value_desc("name"), cl::sub(ProfileCmd),
                                    cl::cat(Cat));
cl::opt<std::string>
    ProfileFile("profile", cl::Required,
                cl::desc("the package's indexed profile (mlgo profile run)"),
                cl::value_desc("P.profdata"), cl::sub(ProfileCmd),
                cl::cat(Cat));

cl::opt<std::string> ProfileCounts(
    "counts",
    cl::desc("the block counts of the workload that made the profile (mlgo "
             "profile package --counts); without it the package keeps none"),
    cl::value_desc("counts.tsv"), cl::sub(ProfileCmd), cl::cat(Cat));

int runProfile() {
  Expected<CorpusDescription> D = CorpusDescription::read(ProfileDir);
  if (!D)
    return fail(D.takeError());
  size_t Modules = llvm::count_if(D->Modules, [](const std::string &M) {
    return getModulePackage(M) == ProfilePackage;
  });
  if (Modules == 0)
    return fail("'" + ProfileDir + "' has no package '" + ProfilePackage + "'");
  Expected<speed::ProfileInfo> Info = speed::readProfileInfo(ProfileFile);
  if (!Info)
    return fail(Info.takeError());
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readWholeFile(ProfileFile);
  if (!Bytes)
    return fail(Bytes.takeError());
  // Everything is read and checked before the corpus changes.
  size_t CountedFunctions = 0;
  std::unique_ptr<MemoryBuffer> CountBytes;
  if (!ProfileCounts.empty()) {
    Expected<speed::MeasuredCounts> Counts =
        speed::readMeasuredCounts(ProfileCounts);
    if (!Counts)
      return fail(Counts.takeError());
    CountedFunctions = Counts->Functions.size();
    // The counts belong to the run that made the profile: the functions
    // that ran in one ran in the other. Counts leave out names defined
    // twice, so a part may be missing, but not most (another program's
    // counts share its main at most).
    size_t Matched = llvm::count_if(Info->ExecutedNames, [&](StringRef N) {
      return Counts->Functions.contains(N);
    });
    size_t Ran = Info->ExecutedNames.size();
    if (Matched == 0)
      return fail(ProfileCounts + ": none of its " + Twine(CountedFunctions) +
                  " functions is one of the " + Twine(Ran) +
                  " that ran in the profile " + ProfileFile +
                  " (block counts of another program's run?)");
    if (Matched * 2 < Ran)
      return fail(ProfileCounts + ": counts for only " + Twine(Matched) +
                  " of the " + Twine(Ran) + " functions that ran in the " +
                  "profile " + ProfileFile + " (" +
                  formatv("{0:F1}", 100.0 * double(Matched) / double(Ran)) +
                  "%): block counts of another run than the profile's?");
    Expected<std::unique_ptr<MemoryBuffer>> Read = readWholeFile(ProfileCounts);
    if (!Read)
      return fail(Read.takeError());
    CountBytes = std::move(*Read);
  }
  // The corpus owns a copy: the fingerprint covers its bytes, and a
  // profile that changes later elsewhere must not change the corpus.
  std::string Relative = "profiles/" + ProfilePackage + ".profdata";
  std::string Path = getModuleFile(ProfileDir, Relative, "");
  if (std::error_code EC =
          sys::fs::create_directories(sys::path::parent_path(Path)))
    return fail(Path + ": " + EC.message());
  if (Error E = writeFileAtomically(Path, (*Bytes)->getBuffer()))
    return fail(std::move(E));
  D->Profiles[ProfilePackage] = Relative;
  // Counts belong to the run that made the profile: a new profile without
  // its counts drops the old ones.
  D->BlockCounts.erase(ProfilePackage);
  if (!ProfileCounts.empty()) {
    std::string CountsRelative = "profiles/" + ProfilePackage + ".counts.tsv";
    if (Error E =
            writeFileAtomically(getModuleFile(ProfileDir, CountsRelative, ""),
                                CountBytes->getBuffer()))
      return fail(std::move(E));
    D->BlockCounts[ProfilePackage] = CountsRelative;
  }
  if (Error E = D->write(ProfileDir))
    return fail(std::move(E));
  outs() << formatv("{0}: {1} ({2} modules) profiled by {3}: {4} functions, "
                    "{5} executed; largest count {6}\n",
                    ProfileDir, ProfilePackage.getValue(), Modules, Relative,
                    Info->Functions, Info->ExecutedFunctions, Info->MaxCount);
  if (!ProfileCounts.empty())
    outs() << formatv("{0}: {1}: block counts of {2} functions, from {3}\n",
                      ProfileDir, ProfilePackage.getValue(), CountedFunctions,
                      ProfileCounts.getValue());
  return 0;
}

/// The corpus's module name for \p Name, which may carry a ".bc" suffix.
Expected<std::string> resolveModule(const CorpusDescription &D, StringRef Dir,
                                    StringRef Name) {
  if (llvm::is_contained(D.Modules, Name))
    return Name.str();
  if (Name.ends_with(".bc") && llvm::is_contained(D.Modules, Name.drop_back(3)))
    return Name.drop_back(3).str();
  return makeError("module '" + Name + "' is not in the corpus at '" + Dir +
                   "'");
}

int runCompile() {
  Expected<CorpusDescription> D = CorpusDescription::read(CompileDir);
  if (!D)
    return fail(D.takeError());
  Expected<std::string> Module = resolveModule(*D, CompileDir, CompileModule);
  if (!Module)
    return fail(Module.takeError());
  // Everything after MODULE is for clang, except our own "-o X",
  // "--print-command" and "--clang=X" (never meaningful to pass through).
  std::vector<std::string> Extra;
  std::string Output = CompileOutput;
  bool Print = CompilePrint;
  std::string Clang = CompileClang;
  for (size_t I = 0; I < CompileExtra.size(); ++I) {
    StringRef A = CompileExtra[I];
    if (A == "-o" && I + 1 < CompileExtra.size())
      Output = CompileExtra[++I];
    else if (A == "--print-command" || A == "-print-command")
      Print = true;
    else if (A.consume_front("--clang="))
      Clang = A.str();
    else
      Extra.push_back(A.str());
  }
  if (Output.empty()) {
    Output = sys::path::filename(*Module).str();
    if (!StringRef(Output).ends_with(".o"))
      Output += ".o";
  }
  Expected<std::vector<std::string>> Argv =
      getModuleCompileCommand(CompileDir, *D, *Module, Output, Extra, Clang);
  if (!Argv)
    return fail(Argv.takeError());
  if (Print) {
    outs() << shellQuote(*Argv) << '\n';
    return 0;
  }
  if (Error E = runCommand(*Argv))
    return fail(std::move(E));
  return 0;
}

int runCheck() {
  Progress Bar("compiling", "modules");
  CorpusCheckOptions Options;
  Options.Threads = CheckThreads;
  Options.Clang = CheckClang;
  Options.Progress = [&](size_t Done, size_t Total) {
    Bar.update(Done, Total);
  };
  Expected<std::vector<ModuleCheck>> Checks = checkCorpus(CheckDir, Options);
  Bar.end();
  if (!Checks)
    return fail(Checks.takeError());
  size_t Bad = 0;
  for (const ModuleCheck &C : *Checks)
    if (!C.Problem.empty()) {
      ++Bad;
      outs() << "mismatch: " << C.Module << ": " << C.Problem << '\n';
    }
  size_t N = Checks->size();
  outs() << "checked " << N << " modules: " << N - Bad
         << " recompile to the original .text size, " << Bad << " do not\n";
  return Bad ? 1 : 0;
}

tool::RegisterGroup
    RegGroup("corpus", "Extract, combine, inspect and replay training corpora");
tool::RegisterSubcommand RegExtract(ExtractCmd, runExtract);
tool::RegisterSubcommand RegCombine(CombineCmd, runCombine);
tool::RegisterSubcommand RegStats(StatsCmd, runStats);
tool::RegisterSubcommand RegProfile(ProfileCmd, runProfile);
tool::RegisterSubcommand RegCompile(CompileCmd, runCompile);
tool::RegisterSubcommand RegCheck(CheckCmd, runCheck);

} // namespace
