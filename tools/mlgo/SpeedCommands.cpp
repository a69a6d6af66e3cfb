//===- tools/mlgo/SpeedCommands.cpp - mlgo speed cost ---------------------===//
//
//   mlgo speed cost FILE... [--cpu=CPU] [--top=N] [--json [--blocks]]
//                  [--profile=P.profdata]
//   mlgo speed cost PROGRAM --callgrind=callgrind.out [...]
//   mlgo speed counts PROGRAM --callgrind=callgrind.out -o counts.tsv
//   mlgo speed cost FILE... --counts=counts.tsv [...]
//
// What the profile compiled into each object or program says its code does
// (mlgo/Speed/ExecutionCost.h): per function, the profile's entry count, the
// estimated executed instructions (Σ count × instructions over its blocks)
// and cycles (Σ count × the block's reciprocal throughput under LLVM's
// scheduling model, through llvm/MCA); a total per file and over all files.
// Files must be compiled with the profile and the address map:
//
//   clang-19 -O2 -fprofile-use=P.profdata -fbasic-block-address-map
//       -mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob -c f.c
//
// The tables list functions hottest first (by cycles; --top keeps the first
// N of each file) and round to whole numbers; --json prints every function,
// in the file's order, with every number exact; --blocks adds each
// function's address and blocks (where the estimate puts the work, to
// compare with a profiler's per-instruction counts). --callgrind puts
// beside each estimate what a run of the program under callgrind
// (--dump-instr=yes) executed in the function's blocks, and with --blocks
// each block's measured count (its first instruction's): where, and by how
// much, the profile's branch probabilities miss what ran. `speed counts`
// writes a run's block counts (function, machine block ID, count) and
// `speed cost --counts` costs any build of the same code with them where
// a function has them: register allocation does not renumber blocks, so
// one run's counts hold for every eviction policy's build. --profile names
// the profile the files were compiled with: a function that ran in it, is
// still called in them but has no count (clang-19 dropped the counts of a
// function edited since, with only a warning) would cost nothing, which is
// an error if the function is hot in the profile and a warning with the
// fraction if not. One no call reaches was inlined where it was called.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/Table.h"
#include "mlgo/Speed/BlockCounts.h"
#include "mlgo/Speed/Callgrind.h"
#include "mlgo/Speed/ExecutionCost.h"
#include "mlgo/Speed/Profile.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <optional>

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
tool::RegisterGroup SpeedGroup("speed",
                               "Profile-weighted cost of machine code");
cl::SubCommand CostCmd("speed cost",
                       "Print the profile-weighted executed instructions and "
                       "cycles of each function of objects or programs");
cl::list<std::string> Files(cl::Positional, cl::OneOrMore,
                            cl::desc("<object or program>..."),
                            cl::sub(CostCmd), cl::cat(Cat));
cl::opt<std::string> CPU("cpu",
                         cl::desc("the CPU whose scheduling model costs the "
                                  "blocks (default: the triple's, x86-64)"),
                         cl::sub(CostCmd), cl::cat(Cat));
cl::opt<unsigned> Top("top",
                      cl::desc("list only the N costliest functions of each "
                               "file (0: all)"),
                      cl::init(0), cl::sub(CostCmd), cl::cat(Cat));
cl::opt<bool> JSON("json", cl::desc("print JSON instead of tables"),
                   cl::sub(CostCmd), cl::cat(Cat));
cl::opt<std::string> CallgrindFile(
    "callgrind",
    cl::desc("beside each estimate, what the program's run under callgrind "
             "executed (a callgrind.out file written with "
             "--dump-instr=yes; one program only)"),
    cl::value_desc("callgrind.out"), cl::sub(CostCmd), cl::cat(Cat));
cl::opt<std::string>
    CountsFile("counts",
               cl::desc("take block counts from a run (mlgo speed counts) "
                        "where it has them, the profile elsewhere"),
               cl::value_desc("counts.tsv"), cl::sub(CostCmd), cl::cat(Cat));
cl::opt<std::string> ProfileFile(
    "profile",
    cl::desc("the profile the files were compiled with: a function that ran "
             "in it but has no count in them (edited since, or another "
             "profile) is an error if it is hot, else a warning"),
    cl::value_desc("P.profdata"), cl::sub(CostCmd), cl::cat(Cat));
cl::opt<bool> Blocks("blocks",
                     cl::desc("with --json, every function's address and "
                              "blocks (id, address, size, count, "
                              "instructions, cycles)"),
                     cl::sub(CostCmd), cl::cat(Cat));

std::string whole(double D) { return formatv("{0:F0}", D).str(); }

/// What callgrind measured of one program, per instruction address.
struct Measured {
  std::vector<std::pair<uint64_t, uint64_t>> Counts;
  /// Σ counts of the addresses in [Begin, End).
  uint64_t instructions(uint64_t Begin, uint64_t End) const {
    uint64_t Sum = 0;
    for (auto It =
             llvm::lower_bound(Counts, std::pair<uint64_t, uint64_t>(Begin, 0));
         It != Counts.end() && It->first < End; ++It)
      Sum += It->second;
    return Sum;
  }
  /// How often the instruction at \p Address ran: for a block's first
  /// instruction, how often the block ran.
  uint64_t count(uint64_t Address) const {
    auto It =
        llvm::lower_bound(Counts, std::pair<uint64_t, uint64_t>(Address, 0));
    return It != Counts.end() && It->first == Address ? It->second : 0;
  }
  uint64_t function(const FunctionCost &F) const {
    uint64_t Sum = 0;
    for (const BlockCost &B : F.Blocks)
      Sum += instructions(F.Address + B.Offset, F.Address + B.Offset + B.Size);
    return Sum;
  }
};
std::optional<Measured> TheMeasured;

json::Object functionJSON(const FunctionCost &F) {
  json::Object O{{"name", F.Name},
                 {"entry_count", int64_t(F.EntryCount)},
                 {"instructions", F.Instructions},
                 {"cycles", F.Cycles}};
  if (TheMeasured)
    O["callgrind_instructions"] = int64_t(TheMeasured->function(F));
  if (!Blocks)
    return O;
  O["address"] = int64_t(F.Address);
  O["counts_solved"] = F.CountsSolved;
  O["counts_measured"] = F.CountsMeasured;
  json::Array Array;
  for (const BlockCost &B : F.Blocks) {
    json::Object Block{{"id", int64_t(B.ID)},
                       {"address", int64_t(F.Address + B.Offset)},
                       {"size", int64_t(B.Size)},
                       {"count", B.Count},
                       {"instructions", int64_t(B.Instructions)},
                       {"cycles", B.Cycles}};
    if (TheMeasured)
      Block["callgrind_count"] =
          int64_t(TheMeasured->count(F.Address + B.Offset));
    Array.push_back(std::move(Block));
  }
  O["blocks"] = std::move(Array);
  return O;
}

int runCost() {
  if (!CallgrindFile.empty()) {
    if (Files.size() != 1)
      return fail("--callgrind compares one program with its run, not " +
                  Twine(Files.size()) + " files");
    Expected<std::vector<std::pair<uint64_t, uint64_t>>> Counts =
        readInstructionCounts(CallgrindFile, Files.front());
    if (!Counts)
      return fail(Counts.takeError());
    TheMeasured = Measured{std::move(*Counts)};
  }
  std::optional<ProfileInfo> Profile;
  if (!ProfileFile.empty()) {
    Expected<ProfileInfo> P = readProfileInfo(ProfileFile);
    if (!P)
      return fail(P.takeError());
    Profile = std::move(*P);
  }
  std::optional<MeasuredCounts> Ran;
  if (!CountsFile.empty()) {
    Expected<MeasuredCounts> C = readMeasuredCounts(CountsFile);
    if (!C)
      return fail(C.takeError());
    Ran = std::move(*C);
  }
  std::vector<ObjectCost> Costs;
  std::unique_ptr<BlockCoster> Coster;
  bool Failed = false;
  for (const std::string &File : Files) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(File, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      fail(File + ": " + Buffer.getError().message());
      Failed = true;
      continue;
    }
    if (!Coster) {
      // One coster for all files: blocks that repeat between files (a
      // program and its objects, two builds) are simulated once.
      Expected<std::unique_ptr<BlockCoster>> C =
          BlockCoster::create(sys::getDefaultTargetTriple(), CPU);
      if (!C)
        return fail(C.takeError());
      Coster = std::move(*C);
    }
    Expected<ObjectCost> Cost = measureExecutionCost(
        (*Buffer)->getMemBufferRef(), Coster.get(), Ran ? &*Ran : nullptr);
    if (!Cost) {
      fail(Cost.takeError());
      Failed = true;
      continue;
    }
    Costs.push_back(std::move(*Cost));
  }
  // A total that leaves files out would pass for the whole.
  if (Failed)
    return 1;

  double Instructions = 0, Cycles = 0;
  size_t Profiled = 0;
  for (const ObjectCost &C : Costs) {
    Instructions += C.Instructions;
    Cycles += C.Cycles;
    Profiled += C.Profiled;
  }
  // Zero everywhere is what code compiled without a profile looks like;
  // it must not pass for code that never runs.
  if (Profiled == 0)
    return fail("no function of " +
                Twine(Files.size() == 1 ? Files.front() : "these files") +
                " has a profile count: compiled without -fprofile-use, or "
                "with a profile of other code");
  std::string Where =
      Files.size() == 1 ? Files.front() : std::string("these files");
  // A function the profile saw run but the build has no count for costs
  // nothing: LLVM dropped its counts (edited since the profile), or the
  // build used another profile. A hot one leaves out much of what runs.
  if (Profile) {
    // A function no call here reaches was inlined wherever it was called
    // (its count moved into its callers, where its work is costed), or is
    // called only from files not given.
    std::vector<std::pair<std::string, bool>> Functions;
    for (const ObjectCost &C : Costs)
      for (const FunctionCost &F : C.Functions)
        Functions.emplace_back(F.Name, F.HasProfile || !F.Called);
    MissingCounts Missing = findMissingCounts(*Profile, Functions);
    if (!Missing.Missing.empty()) {
      constexpr size_t Shown = 5;
      std::string Names;
      for (size_t I = 0; I < Missing.Missing.size() && I < Shown; ++I)
        Names += (I ? ", " : "") + Missing.Missing[I] +
                 (I < Missing.Hot ? " (hot)" : "");
      if (Missing.Missing.size() > Shown)
        Names += formatv(" and {0} more", Missing.Missing.size() - Shown).str();
      bool One = Missing.Missing.size() == 1;
      std::string What =
          formatv("{0}: {1} of the {2} functions that ran in {3} ({4:F1}%) "
                  "{5} no profile count: {6}",
                  Where, Missing.Missing.size(), Missing.Ran, ProfileFile,
                  100.0 * double(Missing.Missing.size()) / double(Missing.Ran),
                  One ? "has" : "have", Names)
              .str();
      if (Missing.Hot)
        return fail(What +
                    "; compiled from source edited since the profile "
                    "(clang-19 warned of a control flow change) or "
                    "with another profile, " +
                    (One ? "it" : "they") + " would cost nothing");
      WithColor::warning(errs(), "mlgo")
          << What << "; edited since the profile? " << (One ? "Its" : "Their")
          << " cost is left out of the totals\n";
    }
  }
  // Every profiled run enters main: a main without a count was compiled
  // with a profile of another program (or of an edited main), and the
  // functions that did match cost a small fraction of what runs.
  for (size_t I = 0; I < Costs.size(); ++I)
    for (const FunctionCost &F : Costs[I].Functions)
      if (F.Name == "main" && !F.HasProfile)
        return fail(Files[I] +
                    ": main has no profile count: it was compiled with a "
                    "profile of another program (or main changed since), "
                    "and only " +
                    Twine(Costs[I].Profiled) + " of its " +
                    Twine(Costs[I].Functions.size()) +
                    " functions have a count");
  if (Ran) {
    // The counts of another program match nothing; those of a package's
    // workload may cover a program's functions in part (names defined
    // twice are left out of them), but not in small part.
    size_t Executed = 0, Measured = 0;
    for (const ObjectCost &C : Costs)
      for (const FunctionCost &F : C.Functions) {
        Executed += F.HasProfile;
        Measured += F.HasProfile && F.CountsMeasured;
      }
    if (Measured == 0)
      return fail(CountsFile + ": none of its " + Twine(Ran->Functions.size()) +
                  " functions is one of the " + Twine(Executed) +
                  " that ran in " + Where +
                  " (block counts of another program?)");
    if (Measured * 2 < Executed)
      WithColor::warning(errs(), "mlgo")
          << CountsFile << ": counts for only " << Measured << " of the "
          << Executed << " functions that ran in " << Where << " ("
          << formatv("{0:F1}", 100.0 * double(Measured) / double(Executed))
          << "%); the others are costed from the profile\n";
  }
  if (Blocks && !JSON)
    return fail("--blocks is for --json");
  if (JSON) {
    json::Array FileArray;
    for (size_t I = 0; I < Costs.size(); ++I) {
      json::Array Functions;
      for (const FunctionCost &F : Costs[I].Functions)
        Functions.push_back(functionJSON(F));
      FileArray.push_back(
          json::Object{{"file", Files[I]},
                       {"functions", std::move(Functions)},
                       {"profiled_functions", int64_t(Costs[I].Profiled)},
                       {"instructions", Costs[I].Instructions},
                       {"cycles", Costs[I].Cycles}});
    }
    outs() << formatv("{0:2}",
                      json::Value(json::Object{{"files", std::move(FileArray)},
                                               {"cpu", Coster->cpu()},
                                               {"instructions", Instructions},
                                               {"cycles", Cycles}}))
           << "\n";
    return 0;
  }
  for (size_t I = 0; I < Costs.size(); ++I) {
    const ObjectCost &C = Costs[I];
    std::vector<const FunctionCost *> Order;
    for (const FunctionCost &F : C.Functions)
      Order.push_back(&F);
    std::stable_sort(Order.begin(), Order.end(),
                     [](const FunctionCost *A, const FunctionCost *B) {
                       return A->Cycles > B->Cycles;
                     });
    if (Top && Order.size() > Top)
      Order.resize(Top);
    outs() << Files[I] << ": " << C.Functions.size() << " functions, "
           << C.Profiled << " with a profile count\n";
    Table T;
    T.Header = {"function", "entry count", "instructions", "cycles"};
    if (TheMeasured)
      T.Header.insert(T.Header.end(), {"callgrind", "estimate / callgrind"});
    auto ratio = [](double Estimate, uint64_t Measured) {
      return Measured ? formatv("{0:F3}", Estimate / double(Measured)).str()
                      : std::string("-");
    };
    uint64_t MeasuredTotal = 0;
    for (const FunctionCost &F : C.Functions)
      MeasuredTotal += TheMeasured ? TheMeasured->function(F) : 0;
    for (const FunctionCost *F : Order) {
      std::vector<std::string> Row = {F->Name, std::to_string(F->EntryCount),
                                      whole(F->Instructions), whole(F->Cycles)};
      if (TheMeasured) {
        uint64_t M = TheMeasured->function(*F);
        Row.push_back(std::to_string(M));
        Row.push_back(ratio(F->Instructions, M));
      }
      T.addRow(Row);
    }
    T.addRuleBeforeNextRow();
    std::vector<std::string> Total = {"total", "", whole(C.Instructions),
                                      whole(C.Cycles)};
    if (TheMeasured) {
      Total.push_back(std::to_string(MeasuredTotal));
      Total.push_back(ratio(C.Instructions, MeasuredTotal));
    }
    T.addRow(Total);
    T.printTerminal(outs());
    outs() << "\n";
  }
  outs() << "all files: " << whole(Instructions) << " instructions, "
         << whole(Cycles) << " cycles (" << Coster->cpu() << ")\n";
  return 0;
}

tool::RegisterSubcommand Registered(CostCmd, runCost);

cl::SubCommand CountsCmd("speed counts",
                         "Write the block counts of a run under callgrind, "
                         "for speed cost --counts");
cl::list<std::string> CountsPrograms(cl::Positional, cl::OneOrMore,
                                     cl::desc("<program or library>..."),
                                     cl::sub(CountsCmd), cl::cat(Cat));
cl::list<std::string> CountsCallgrind(
    "callgrind", cl::OneOrMore, cl::CommaSeparated,
    cl::desc("the run: callgrind.out files written with --dump-instr=yes "
             "(one per process; their counts add up)"),
    cl::value_desc("callgrind.out"), cl::sub(CountsCmd), cl::cat(Cat));
cl::opt<std::string> CountsOut("o", cl::Required,
                               cl::desc("the block counts file to write"),
                               cl::value_desc("counts.tsv"), cl::sub(CountsCmd),
                               cl::cat(Cat));

int runCounts() {
  for (const std::string &P : CountsPrograms)
    if (!sys::fs::exists(P))
      return fail(P + ": no such file");
  auto Wanted = [](StringRef Name) {
    return llvm::any_of(CountsPrograms, [&](const std::string &P) {
      return Name == P || sys::fs::equivalent(Name, P);
    });
  };
  BlockCountsSummary Summary;
  Expected<MeasuredCounts> Counts = countBlocks(
      std::vector<std::string>(CountsCallgrind.begin(), CountsCallgrind.end()),
      Wanted, &Summary);
  if (!Counts)
    return fail(Counts.takeError());
  if (Summary.Objects.empty())
    return fail(join(CountsCallgrind, ", ") + ": no instruction of " +
                join(CountsPrograms, ", ") +
                " ran (a callgrind run of another program?)");
  if (Error E = writeMeasuredCounts(CountsOut, *Counts))
    return fail(std::move(E));
  outs() << CountsOut << ": " << Summary.Blocks << " blocks of "
         << Summary.Functions << " functions";
  if (Summary.Ambiguous)
    outs() << "; " << Summary.Ambiguous
           << " functions left out (their names are defined more than "
              "once)";
  outs() << "\n";
  return 0;
}

tool::RegisterSubcommand RegisteredCounts(CountsCmd, runCounts);

} // namespace
