//===- tools/mlgo/RegAllocCommands.cpp - mlgo regalloc score --------------===//
//
//   mlgo regalloc score FILE...  [--llc-arg=ARG]... [--json] [--jobs=N]
//                                [--timeout=S] [--profile=P.profdata]
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
// With --profile, each .ll/.bc file (IR before optimization) gets the
// profile applied by clang-19 -O2 and is compiled twice by llc-19 with the
// basic-block address map (mlgo/RegAllocTrain/SpeedReward.h): beside the
// static score, each function shows its entry count, LLVM's score with
// profile-based block counts, and the profile-weighted instructions and
// cycles of its final code. A profile that does not match a file is an
// error naming both.
//
// The tables round to two decimals; --json prints every number in the
// shortest form that reads back as the same double.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/Table.h"
#include "mlgo/RegAlloc/Score.h"
#include "mlgo/RegAllocTrain/SpeedReward.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Parallel.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
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
cl::opt<std::string>
    Profile("profile",
            cl::desc("apply this profile to .ll/.bc files (IR before "
                     "optimization) and print the profile-weighted score "
                     "and cost of every function"),
            cl::value_desc("P.profdata"), cl::sub(ScoreCmd), cl::cat(Cat));

/// One file's scores and, with --profile, its functions' costs by name.
struct FileResult {
  ModuleScore Scores;
  std::optional<speed::ObjectCost> Cost;
  StringMap<const speed::FunctionCost *> ByName;
};

/// The shortest decimal that reads back as \p D.
std::string formatNumber(double D) {
  char Buf[64];
  std::to_chars_result R = std::to_chars(Buf, Buf + sizeof(Buf), D);
  assert(R.ec == std::errc() && "64 characters hold any double");
  return std::string(Buf, R.ptr);
}

Expected<ModuleScore> scoreStatic(StringRef File) {
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

/// The scores and costs of \p File with --profile applied.
Expected<FileResult> scoreWithProfile(StringRef File) {
  StringRef Ext = sys::path::extension(File);
  if (Ext != ".ll" && Ext != ".bc")
    return makeError(File + ": --profile applies to .ll and .bc files (IR "
                            "before optimization)");
  SmallString<128> Profiled;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-profiled", "bc", Profiled))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover Remove(Profiled);
  if (Error E = applyProfile(File, Profile, Profiled, Timeout))
    return E;
  LLCOptions Options;
  Options.ExtraArgs.assign(LLCArgs.begin(), LLCArgs.end());
  Options.TimeoutSeconds = Timeout;
  Expected<SpeedScore> S = scoreProfiledIR(Profiled, Options);
  if (!S)
    return makeError(File + ": " + toString(S.takeError()));
  FileResult R;
  R.Scores = std::move(S->Scores);
  R.Scores.File = File.str();
  R.Cost = std::move(S->Cost);
  for (const speed::FunctionCost &F : R.Cost->Functions)
    R.ByName[F.Name] = &F;
  for (const FunctionScore &F : R.Scores.Functions)
    if (!R.ByName.count(F.Name))
      return makeError(File + ": function '" + F.Name +
                       "' is in the MIR but not in the object");
  return R;
}

Expected<FileResult> scoreFile(StringRef File) {
  if (!Profile.empty())
    return scoreWithProfile(File);
  Expected<ModuleScore> S = scoreStatic(File);
  if (!S)
    return S.takeError();
  FileResult R;
  R.Scores = std::move(*S);
  return R;
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

/// Totals over every file.
struct Totals {
  ScoreCounts Counts;
  double Score = 0.0, ProfileScore = 0.0, Instructions = 0.0, Cycles = 0.0;
  size_t Functions = 0;
};

void printTables(raw_ostream &OS, ArrayRef<FileResult> Files,
                 const Totals &All) {
  for (const FileResult &R : Files) {
    const ModuleScore &M = R.Scores;
    Table T;
    if (R.Cost) {
      T.Header = {"function",      "entry count",  "score",
                  "profile score", "instructions", "cycles"};
      for (const FunctionScore &F : M.Functions) {
        const speed::FunctionCost &C = *R.ByName.lookup(F.Name);
        T.addRow({F.Name, F.EntryCount ? std::to_string(*F.EntryCount) : "-",
                  formatCell(F.Score), formatCell(F.ProfileScore),
                  formatv("{0:F0}", C.Instructions).str(),
                  formatv("{0:F0}", C.Cycles).str()});
      }
      T.addRuleBeforeNextRow();
      T.addRow({"TOTAL (" + std::to_string(M.Functions.size()) + " functions)",
                "", formatCell(M.Score), formatCell(M.ProfileScore),
                formatv("{0:F0}", R.Cost->Instructions).str(),
                formatv("{0:F0}", R.Cost->Cycles).str()});
    } else {
      T.Header = {"function",     "score",           "copies",
                  "loads",        "stores",          "loads+stores",
                  "cheap-remats", "expensive-remats"};
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
    }
    OS << M.File << ":\n";
    T.printTerminal(OS);
    OS << '\n';
  }
  OS << "TOTAL (" << Files.size()
     << (Files.size() == 1 ? " file, " : " files, ") << All.Functions
     << " functions): score " << formatCell(All.Score);
  if (!Profile.empty())
    OS << formatv(", profile score {0}, {1:F0} instructions, {2:F0} cycles",
                  formatCell(All.ProfileScore), All.Instructions, All.Cycles);
  OS << '\n';
}

void writeNumber(json::OStream &J, StringRef Key, double D) {
  J.attributeBegin(Key);
  J.rawValue(formatNumber(D));
  J.attributeEnd();
}

void writeNumbers(json::OStream &J, double Score, const ScoreCounts &C) {
  writeNumber(J, "score", Score);
  writeNumber(J, "copies", C.Copies);
  writeNumber(J, "loads", C.Loads);
  writeNumber(J, "stores", C.Stores);
  writeNumber(J, "loads_stores", C.LoadStores);
  writeNumber(J, "cheap_remats", C.CheapRemats);
  writeNumber(J, "expensive_remats", C.ExpensiveRemats);
}

/// With --profile: the profile-weighted numbers.
void writeProfileNumbers(json::OStream &J, double ProfileScore,
                         double Instructions, double Cycles) {
  writeNumber(J, "profile_score", ProfileScore);
  writeNumber(J, "instructions", Instructions);
  writeNumber(J, "cycles", Cycles);
}

void printJSON(raw_ostream &OS, ArrayRef<FileResult> Files, const Totals &All) {
  json::OStream J(OS, 2);
  J.object([&] {
    J.attributeArray("files", [&] {
      for (const FileResult &R : Files)
        J.object([&] {
          const ModuleScore &M = R.Scores;
          J.attribute("file", M.File);
          J.attributeArray("functions", [&] {
            for (const FunctionScore &F : M.Functions)
              J.object([&] {
                J.attribute("name", F.Name);
                writeNumbers(J, F.Score, F.Counts);
                if (!R.Cost)
                  return;
                if (F.EntryCount)
                  J.attribute("entry_count", int64_t(*F.EntryCount));
                else
                  J.attribute("entry_count", nullptr);
                const speed::FunctionCost &C = *R.ByName.lookup(F.Name);
                writeProfileNumbers(J, F.ProfileScore, C.Instructions,
                                    C.Cycles);
              });
          });
          J.attributeObject("total", [&] {
            writeNumbers(J, M.Score, M.Counts);
            if (R.Cost)
              writeProfileNumbers(J, M.ProfileScore, R.Cost->Instructions,
                                  R.Cost->Cycles);
          });
        });
    });
    J.attributeObject("total", [&] {
      writeNumbers(J, All.Score, All.Counts);
      if (!Profile.empty())
        writeProfileNumbers(J, All.ProfileScore, All.Instructions, All.Cycles);
    });
  });
  OS << '\n';
}

int runScore() {
  // Each file is parsed in an LLVMContext of its own, so files can be
  // scored on several threads; results come back in command-line order.
  std::vector<Expected<FileResult>> Results = runJobs<Expected<FileResult>>(
      Files.size(), Jobs, [](size_t I) { return scoreFile(Files[I]); });
  std::vector<FileResult> Scored;
  Totals All;
  int Status = 0;
  for (Expected<FileResult> &R : Results) {
    if (!R) {
      Status = fail(R.takeError());
      continue;
    }
    All.Counts += R->Scores.Counts;
    All.Score += R->Scores.Score;
    All.ProfileScore += R->Scores.ProfileScore;
    All.Functions += R->Scores.Functions.size();
    if (R->Cost) {
      All.Instructions += R->Cost->Instructions;
      All.Cycles += R->Cost->Cycles;
    }
    Scored.push_back(std::move(*R));
  }
  // A total that leaves files out would pass for the whole.
  if (Status)
    return Status;
  if (JSON)
    printJSON(outs(), Scored, All);
  else
    printTables(outs(), Scored, All);
  return 0;
}

tool::RegisterGroup RegisterRegAlloc("regalloc",
                                     "Register allocation: LLVM's static "
                                     "score of MIR or modules, and training "
                                     "eviction models on it");
tool::RegisterSubcommand RegisterScore(ScoreCmd, runScore);

} // namespace
