//===- tools/mlgo/SizeCommand.cpp - mlgo size -----------------------------===//
//
//   mlgo size FILE|DIR...          .text of each file, and the total
//   mlgo size --diff A B           two builds compared, file by file
//
// The code size of linked binaries, shared libraries, archives and objects
// as the eval tables count it (every executable section; an archive's
// object members summed: mlgo/Eval/ClangModuleCompiler.h). A directory
// stands for the linked artifacts under it (ELF executables, shared
// objects, archives; CMake's probes left out), named relative to it.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/ClangModuleCompiler.h"
#include "mlgo/Eval/PackageEval.h"
#include "mlgo/Eval/Table.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace mlgo;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand SizeCmd("size", "Print the .text of linked binaries, libraries "
                               "and objects as the eval tables count it");
cl::list<std::string> Paths(cl::Positional, cl::OneOrMore,
                            cl::desc("<file or directory>..."),
                            cl::sub(SizeCmd), cl::cat(Cat));
cl::opt<bool> Diff("diff",
                   cl::desc("compare two builds (two directories or two "
                            "files): their artifacts paired by path"),
                   cl::sub(SizeCmd), cl::cat(Cat));
cl::opt<std::string> Format("format", cl::desc("table, markdown or csv"),
                            cl::init("table"), cl::sub(SizeCmd), cl::cat(Cat));

/// The sizes of \p Path's artifacts, by name (the file's path as given, or
/// the path relative to the directory).
Expected<std::map<std::string, uint64_t>> sizesOf(StringRef Path) {
  std::map<std::string, uint64_t> Out;
  if (!sys::fs::exists(Path))
    return createStringError(inconvertibleErrorCode(),
                             Path + ": No such file or directory");
  if (!sys::fs::is_directory(Path)) {
    Expected<uint64_t> S = measureTextSize(Path);
    if (!S)
      return S.takeError();
    Out[Path.str()] = *S;
    return Out;
  }
  Expected<std::vector<std::string>> Files = findLinkedArtifacts(Path);
  if (!Files)
    return Files.takeError();
  if (Files->empty())
    return createStringError(inconvertibleErrorCode(),
                             Path + ": no linked binary, library or archive "
                                    "under it");
  for (const std::string &F : *Files) {
    Expected<uint64_t> S = measureTextSize((Path + "/" + F).str());
    if (!S)
      return S.takeError();
    Out[F] = *S;
  }
  return Out;
}

int runSize() {
  Expected<ReportFormat> F = parseReportFormat(Format);
  if (!F)
    return fail(F.takeError());
  Table T;
  if (!Diff) {
    T.Header = {"file", ".text"};
    uint64_t Total = 0;
    size_t N = 0;
    for (const std::string &P : Paths) {
      Expected<std::map<std::string, uint64_t>> S = sizesOf(P);
      if (!S)
        return fail(S.takeError());
      bool Dir = sys::fs::is_directory(P);
      for (const auto &[Name, Bytes] : *S) {
        T.addRow({Dir ? P + "/" + Name : Name, std::to_string(Bytes)});
        Total += Bytes;
        ++N;
      }
    }
    T.addRuleBeforeNextRow();
    T.addRow(
        {"TOTAL (" + std::to_string(N) + " files)", std::to_string(Total)});
    T.print(outs(), *F);
    return 0;
  }
  if (Paths.size() != 2)
    return fail("--diff compares two builds; give two directories or two "
                "files");
  Expected<std::map<std::string, uint64_t>> A = sizesOf(Paths[0]),
                                            B = sizesOf(Paths[1]);
  if (!A)
    return fail(A.takeError());
  if (!B)
    return fail(B.takeError());
  // Two files: one row, whatever their names.
  if (!sys::fs::is_directory(Paths[0]) && !sys::fs::is_directory(Paths[1])) {
    *A = {{"file", A->begin()->second}};
    *B = {{"file", B->begin()->second}};
  }
  T.Header = {"file", Paths[0], Paths[1], "delta"};
  uint64_t TA = 0, TB = 0;
  size_t N = 0;
  std::vector<std::string> Unpaired;
  for (const auto &[Name, Bytes] : *A) {
    auto It = B->find(Name);
    if (It == B->end()) {
      Unpaired.push_back(Name + " (" + Paths[0] + " only)");
      continue;
    }
    T.addRow({Name, std::to_string(Bytes), std::to_string(It->second),
              formatDeltaPercent(Bytes, It->second)});
    TA += Bytes;
    TB += It->second;
    ++N;
  }
  for (const auto &[Name, Bytes] : *B)
    if (!A->count(Name))
      Unpaired.push_back(Name + " (" + Paths[1] + " only)");
  T.addRuleBeforeNextRow();
  T.addRow({"TOTAL (" + std::to_string(N) + " files)", std::to_string(TA),
            std::to_string(TB), formatDeltaPercent(TA, TB)});
  T.print(outs(), *F);
  for (const std::string &U : Unpaired)
    errs() << "mlgo size: not compared, built once only: " << U << "\n";
  return 0;
}

tool::RegisterSubcommand RegSize(SizeCmd, runSize);

} // namespace
