//===- tools/mlgo/SpeedSimulateCommand.cpp - mlgo speed simulate ----------===//
//
//   mlgo speed simulate [--tree=DIR] [--timeout=S] [--json] -- CMD ARGS...
//
// Runs a command under callgrind's cache and branch simulation and prints
// what its programs under DIR (default: the directory of CMD's program)
// executed from main on: instructions, simulated L1 and LL misses and
// mispredicted branches, and the cycle estimate of mlgo/Speed/
// CycleEstimate.h, a deterministic cost that moves with misses where the
// instruction count does not.
//
//===----------------------------------------------------------------------===//

#include "Subcommand.h"

#include "mlgo/Speed/CycleEstimate.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace mlgo;
using namespace mlgo::speed;
using tool::fail;

namespace {

cl::OptionCategory &Cat = tool::getToolCategory();
cl::SubCommand SimulateCmd("speed simulate",
                           "Run a command under callgrind's cache and branch "
                           "simulation and estimate its cycles");
cl::list<std::string> Command(cl::Positional, cl::OneOrMore,
                              cl::desc("-- <program> <argument>..."),
                              cl::sub(SimulateCmd), cl::cat(Cat));
cl::opt<std::string> Tree("tree",
                          cl::desc("count the programs under this directory "
                                   "(default: the program's directory)"),
                          cl::value_desc("dir"), cl::sub(SimulateCmd),
                          cl::cat(Cat));
cl::opt<unsigned> Timeout("timeout",
                          cl::desc("seconds before the run is an error "
                                   "(default 600)"),
                          cl::init(600), cl::sub(SimulateCmd), cl::cat(Cat));
cl::opt<bool> JSON("json", cl::desc("print JSON"), cl::sub(SimulateCmd),
                   cl::cat(Cat));

/// \p Path made absolute with links resolved, as callgrind names programs.
Expected<std::string> realPath(StringRef Path) {
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(Path, Real))
    return createStringError(EC, "%s: %s", Path.str().c_str(),
                             EC.message().c_str());
  return Real.str().str();
}

int runSimulate() {
  std::string Program = Command.front();
  if (!StringRef(Program).contains('/')) {
    ErrorOr<std::string> Found = sys::findProgramByName(Program);
    if (!Found)
      return fail("cannot find '" + Program + "' in PATH");
    Program = *Found;
  }
  std::string Dir = Tree;
  if (Dir.empty())
    Dir = sys::path::parent_path(Program).str();
  Expected<std::string> RealTree = realPath(Dir.empty() ? "." : Dir);
  if (!RealTree)
    return fail(RealTree.takeError());
  SmallString<128> LogDir;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("mlgo-simulate", LogDir))
    return fail("cannot create a temporary directory: " + EC.message());
  std::vector<std::string> Argv(Command.begin(), Command.end());
  Expected<SimulatedRun> Run = runCallgrindSimulated(
      Command.front(), Argv, *RealTree, LogDir.str().str(), Timeout);
  if (!Run) {
    // The logs stay for the reader of the error.
    return fail(Run.takeError());
  }
  sys::fs::remove_directories(LogDir);
  const SimulatedEvents &E = Run->Events;
  if (JSON) {
    json::Array Programs;
    for (const std::string &P : Run->Programs)
      Programs.push_back(P);
    outs() << formatv("{0:2}",
                      json::Value(json::Object{
                          {"programs", std::move(Programs)},
                          {"instructions", int64_t(E.Ir)},
                          {"l1_misses", int64_t(E.l1Misses())},
                          {"ll_misses", int64_t(E.llMisses())},
                          {"branches", int64_t(E.Bc + E.Bi)},
                          {"mispredicted_branches", int64_t(E.mispredicts())},
                          {"cycles", int64_t(Run->cycles())}}))
           << "\n";
    return 0;
  }
  outs() << "programs:";
  for (const std::string &P : Run->Programs)
    outs() << " " << P;
  outs() << "\ninstructions:          " << E.Ir
         << "\nL1 misses:             " << E.l1Misses() << " (I1 " << E.I1mr
         << ", D1 read " << E.D1mr << ", D1 write " << E.D1mw << ")"
         << "\nLL misses:             " << E.llMisses() << " (instructions "
         << E.ILmr << ", data read " << E.DLmr << ", data write " << E.DLmw
         << ")"
         << "\nbranches:              " << E.Bc + E.Bi << " ("
         << E.mispredicts() << " mispredicted)"
         << "\ncycle estimate:        " << Run->cycles() << " (instructions + "
         << CycleWeights::L1Miss << " x L1 misses + " << CycleWeights::LLMiss
         << " x LL misses + " << CycleWeights::Mispredict
         << " x mispredicted branches)\n";
  return 0;
}

tool::RegisterSubcommand Registered(SimulateCmd, runSimulate);

} // namespace
