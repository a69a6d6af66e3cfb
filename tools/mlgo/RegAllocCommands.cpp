//===- tools/mlgo/RegAllocCommands.cpp - mlgo regalloc score --------------===//
//
//   mlgo regalloc score FILE...  [--llc-arg=ARG]... [--json] [--jobs=N]
//                                [--timeout=S]
//
// LLVM's static register-allocation score (mlgo/RegAlloc/Score.h) of each
// function of each file, with the six frequency-weighted counts it is made
// of, a total per file and a total over all files. A .mir file (as
// `llc-19 -stop-after=virtregrewriter` writes it) is scored as it is; a .ll
// or .bc file is compiled with `llc-19 -O2 -stop-after=virtregrewriter`
// first, with the --llc-arg arguments (e.g. another eviction advisor).
// Functions are listed in module order, files in command-line order;
// `--jobs` scores several files at once. Every file that cannot be scored
// is an error line naming it, and then nothing is printed on stdout: a
// total that leaves files out would pass for the whole.
//
// The tables round to two decimals; --json prints every number in the
// shortest form that reads back as the same double.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/Table.h"
#include "mlgo/RegAlloc/Score.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::regalloc;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand ScoreCmd("regalloc score",
                        "Print LLVM's static register-allocation score of "
                        "each function of .mir, .ll or .bc files");
cl::list<std::string> Files(cl::Positional, cl::OneOrMore,
                            cl::desc("<.mir, .ll or .bc file>..."),
                            cl::sub(ScoreCmd), cl::cat(Cat));
cl::list<std::string>
    LLCArgs("llc-arg",
            cl::desc("pass <arg> to llc-19 when compiling .ll/.bc files "
                     "(repeatable)"),
            cl::value_desc("arg"), cl::sub(ScoreCmd), cl::cat(Cat));
cl::opt<bool> JSON("json", cl::desc("print JSON instead of tables"),
                   cl::sub(ScoreCmd), cl::cat(Cat));
cl::opt<unsigned> Jobs("jobs",
                       cl::desc("files scored at once (0: one per hardware "
                                "thread)"),
                       cl::init(1), cl::sub(ScoreCmd), cl::cat(Cat));
cl::alias JobsShort("j", cl::aliasopt(Jobs));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("seconds per llc-19 run (0: no limit)"),
                          cl::init(300), cl::sub(ScoreCmd), cl::cat(Cat));

/// The shortest decimal that reads back as \p D.
std::string formatNumber(double D) {
  char Buf[64];
  std::to_chars_result R = std::to_chars(Buf, Buf + sizeof(Buf), D);
  assert(R.ec == std::errc() && "64 characters hold any double");
  return std::string(Buf, R.ptr);
}

Expected<ModuleScore> scoreFile(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  if (Ext == ".mir") {
    // No silent no-op: the arguments were meant for a compile that a .mir
    // file does not get.
    if (!LLCArgs.empty())
      return makeError(File + ": --llc-arg applies to .ll and .bc files; a "
                              ".mir file is scored as it is");
    return scoreMIRFile(File);
  }
  if (Ext == ".ll" || Ext == ".bc") {
    LLCOptions Options;
    Options.ExtraArgs.assign(LLCArgs.begin(), LLCArgs.end());
    Options.TimeoutSeconds = Timeout;
    return compileAndScore(File, Options);
  }
  return makeError(File + ": not a .mir, .ll or .bc file");
}

/// \p D with two decimals, for the tables.
std::string formatCell(double D) { return formatv("{0:F2}", D).str(); }

std::vector<std::string> numberCells(double Score, const ScoreCounts &C) {
  return {formatCell(Score),
          formatCell(C.Copies),
          formatCell(C.Loads),
          formatCell(C.Stores),
          formatCell(C.LoadStores),
          formatCell(C.CheapRemats),
          formatCell(C.ExpensiveRemats)};
}

void printTables(raw_ostream &OS, ArrayRef<ModuleScore> Modules, double Score) {
  size_t Functions = 0;
  for (const ModuleScore &M : Modules) {
    Table T;
    T.Header = {"function", "score",        "copies",       "loads",
                "stores",   "loads+stores", "cheap-remats", "expensive-remats"};
    for (const FunctionScore &F : M.Functions) {
      std::vector<std::string> Row = {F.Name};
      for (std::string &Cell : numberCells(F.Score, F.Counts))
        Row.push_back(std::move(Cell));
      T.addRow(std::move(Row));
    }
    T.addRuleBeforeNextRow();
    std::vector<std::string> Total = {
        "TOTAL (" + std::to_string(M.Functions.size()) + " functions)"};
    for (std::string &Cell : numberCells(M.Score, M.Counts))
      Total.push_back(std::move(Cell));
    T.addRow(std::move(Total));
    OS << M.File << ":\n";
    T.printTerminal(OS);
    OS << '\n';
    Functions += M.Functions.size();
  }
  OS << "TOTAL (" << Modules.size()
     << (Modules.size() == 1 ? " file, " : " files, ") << Functions
     << " functions): score " << formatCell(Score) << '\n';
}

void writeNumbers(json::OStream &J, double Score, const ScoreCounts &C) {
  auto Number = [&](StringRef Key, double D) {
    J.attributeBegin(Key);
    J.rawValue(formatNumber(D));
    J.attributeEnd();
  };
  Number("score", Score);
  Number("copies", C.Copies);
  Number("loads", C.Loads);
  Number("stores", C.Stores);
  Number("loads_stores", C.LoadStores);
  Number("cheap_remats", C.CheapRemats);
  Number("expensive_remats", C.ExpensiveRemats);
}

void printJSON(raw_ostream &OS, ArrayRef<ModuleScore> Modules,
               const ScoreCounts &Counts, double Score) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attributeArray("files", [&] {
      for (const ModuleScore &M : Modules)
        J.object([&] {
          J.attribute("file", M.File);
          J.attributeArray("functions", [&] {
            for (const FunctionScore &F : M.Functions)
              J.object([&] {
                J.attribute("name", F.Name);
                writeNumbers(J, F.Score, F.Counts);
              });
          });
          J.attributeObject("total",
                            [&] { writeNumbers(J, M.Score, M.Counts); });
        });
    });
    J.attributeObject("total", [&] { writeNumbers(J, Score, Counts); });
  });
  OS << '\n';
}

int runScore() {
  // Each file is parsed in an LLVMContext of its own, so files can be
  // scored on several threads; results come back in command-line order.
  std::vector<Expected<ModuleScore>> Results = runJobs<Expected<ModuleScore>>(
      Files.size(), Jobs, [](size_t I) { return scoreFile(Files[I]); });
  std::vector<ModuleScore> Modules;
  ScoreCounts Counts;
  double Score = 0.0;
  int Status = 0;
  for (Expected<ModuleScore> &M : Results) {
    if (!M) {
      Status = fail(M.takeError());
      continue;
    }
    Counts += M->Counts;
    Score += M->Score;
    Modules.push_back(std::move(*M));
  }
  // A total that leaves files out would pass for the whole.
  if (Status)
    return Status;
  if (JSON)
    printJSON(outs(), Modules, Counts, Score);
  else
    printTables(outs(), Modules, Score);
  return 0;
}

tool::RegisterGroup RegisterRegAlloc("regalloc",
                                     "Register allocation: LLVM's static "
                                     "score of MIR or modules, and training "
                                     "eviction models on it");
tool::RegisterSubcommand RegisterScore(ScoreCmd, runScore);

} // namespace
