//===- tools/mlgo/SpeedCommands.cpp - mlgo speed cost ---------------------===//
//
//   mlgo speed cost FILE... [--cpu=CPU] [--top=N] [--json]
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
// in the file's order, with every number exact.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Eval/Table.h"
#include "mlgo/Speed/ExecutionCost.h"

#include "mlgo/Support/Error.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

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

std::string whole(double D) { return formatv("{0:F0}", D).str(); }

json::Object functionJSON(const FunctionCost &F) {
  return json::Object{{"name", F.Name},
                      {"entry_count", int64_t(F.EntryCount)},
                      {"instructions", F.Instructions},
                      {"cycles", F.Cycles}};
}

int runCost() {
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
    Expected<ObjectCost> Cost =
        measureExecutionCost((*Buffer)->getMemBufferRef(), Coster.get());
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
    for (const FunctionCost *F : Order)
      T.addRow({F->Name, std::to_string(F->EntryCount), whole(F->Instructions),
                whole(F->Cycles)});
    T.addRuleBeforeNextRow();
    T.addRow({"total", "", whole(C.Instructions), whole(C.Cycles)});
    T.printTerminal(outs());
    outs() << "\n";
  }
  outs() << "all files: " << whole(Instructions) << " instructions, "
         << whole(Cycles) << " cycles (" << Coster->cpu() << ")\n";
  return 0;
}

tool::RegisterSubcommand Registered(CostCmd, runCost);

} // namespace
