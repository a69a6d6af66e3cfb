//===- unittests/RegAlloc/ScoreTest.cpp - MLGORegAlloc unit tests ---------===//
//
// Our static regalloc score against libLLVM's own, to the last bit. The
// MIR is real: llc-19 compiles test/RegAlloc/Inputs/spills.ll (from
// spills.c: spills, reloads, copies, remats, debug instructions, inline
// asm, a KILL) to the point where upstream scores. The reference parses
// that MIR separately, computes block frequencies through the new pass
// manager's machine analyses (another route than ours, which builds them
// by hand), and calls libLLVM-19.so's exported calculateRegAllocScore.
// Also: the errors users can hit (missing file, malformed MIR, unknown
// target, failing and crashing llc) name the file and the problem.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAlloc/Score.h"

#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineBranchProbabilityInfo.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/MachinePassManager.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <thread>

// LLVM's RegAllocScore lives in a private header of lib/CodeGen
// (RegAllocScore.h, LLVM 19.1.7) that Debian does not ship, while
// libLLVM-19.so exports calculateRegAllocScore() and
// RegAllocScore::getScore(). To call them, this test declares the class
// with upstream's layout: six doubles in upstream's order, trivially
// copyable, returned by value. Only this test does; mlgo's code never
// depends on the private layout.
namespace llvm {
class RegAllocScore final {
  double CopyCounts = 0.0;
  double LoadCounts = 0.0;
  double StoreCounts = 0.0;
  double CheapRematCounts = 0.0;
  double LoadStoreCounts = 0.0;
  double ExpensiveRematCounts = 0.0;

public:
  RegAllocScore() = default;
  RegAllocScore(const RegAllocScore &) = default;

  double copyCounts() const { return CopyCounts; }
  double loadCounts() const { return LoadCounts; }
  double storeCounts() const { return StoreCounts; }
  double loadStoreCounts() const { return LoadStoreCounts; }
  double expensiveRematCounts() const { return ExpensiveRematCounts; }
  double cheapRematCounts() const { return CheapRematCounts; }

  double getScore() const;
};

RegAllocScore calculateRegAllocScore(const MachineFunction &MF,
                                     const MachineBlockFrequencyInfo &MBFI);
} // namespace llvm

using namespace llvm;
using namespace mlgo::regalloc;

namespace {

static_assert(sizeof(RegAllocScore) == 6 * sizeof(double),
              "upstream's RegAllocScore is six doubles");

template <typename T> T unwrap(Expected<T> E) {
  if (!E) {
    std::fprintf(stderr, "unexpected error: %s\n",
                 toString(E.takeError()).c_str());
    std::abort();
  }
  return std::move(*E);
}

template <typename T> std::string errorOf(Expected<T> E) {
  if (E)
    return "<success>";
  return toString(E.takeError());
}

const char SpillsLL[] = MLGO_SOURCE_DIR "/test/RegAlloc/Inputs/spills.ll";

/// llc-19's MIR of spills.ll, compiled once for all tests.
const std::string &getSpillsMIR() {
  static const std::string MIR = unwrap(compileToMIR(SpillsLL, {}));
  return MIR;
}

/// The bits of \p D, so that a failure prints them.
uint64_t bitsOf(double D) {
  uint64_t Bits;
  std::memcpy(&Bits, &D, sizeof(D));
  return Bits;
}

/// Every test may run alone (ctest runs each in its own process), so each
/// helper that looks up a target registers them first.
void initializeTargets() {
  InitializeAllTargetInfos();
  InitializeAllTargets();
  InitializeAllTargetMCs();
}

/// libLLVM's score of every function of \p MIR, by name: the MIR parsed
/// into a MachineModuleInfo of its target, block frequencies from
/// MachineBlockFrequencyAnalysis.
std::map<std::string, RegAllocScore> referenceScores(StringRef MIR) {
  initializeTargets();
  LLVMContext Context;
  std::unique_ptr<TargetMachine> TM;
  auto SetDataLayout = [&](StringRef Triple,
                           StringRef) -> std::optional<std::string> {
    std::string Problem;
    const Target *T = TargetRegistry::lookupTarget(Triple, Problem);
    if (!T)
      return std::nullopt;
    TM.reset(T->createTargetMachine(Triple, "", "", TargetOptions(),
                                    std::nullopt, std::nullopt,
                                    CodeGenOptLevel::Default));
    return TM->createDataLayout().getStringRepresentation();
  };
  std::unique_ptr<MIRParser> Parser = createMIRParser(
      MemoryBuffer::getMemBuffer(MIR, "reference.mir"), Context);
  std::unique_ptr<Module> M = Parser->parseIRModule(SetDataLayout);
  if (!M || !TM) {
    ADD_FAILURE() << "the reference cannot parse the MIR";
    return {};
  }
  MachineModuleInfo MMI(static_cast<const LLVMTargetMachine *>(TM.get()));
  if (Parser->parseMachineFunctions(*M, MMI)) {
    ADD_FAILURE() << "the reference cannot parse the machine functions";
    return {};
  }

  MachineFunctionAnalysisManager MFAM;
  MFAM.registerPass([] { return PassInstrumentationAnalysis(); });
  MFAM.registerPass([] { return MachineDominatorTreeAnalysis(); });
  MFAM.registerPass([] { return MachineLoopAnalysis(); });
  MFAM.registerPass([] { return MachineBranchProbabilityAnalysis(); });
  MFAM.registerPass([] { return MachineBlockFrequencyAnalysis(); });
  std::map<std::string, RegAllocScore> Out;
  for (Function &F : *M)
    if (MachineFunction *MF = MMI.getMachineFunction(F))
      Out[F.getName().str()] = calculateRegAllocScore(
          *MF, MFAM.getResult<MachineBlockFrequencyAnalysis>(*MF));
  return Out;
}

#define EXPECT_SAME_BITS(Ours, Theirs, What)                                   \
  EXPECT_EQ(bitsOf(Ours), bitsOf(Theirs))                                      \
      << F.Name << " " << What << ": ours " << Ours << ", libLLVM's "          \
      << Theirs

/// Scores \p MIR with our code and \p ReferenceMIR with libLLVM's, expects
/// every count and score of every function to be the same double, and
/// returns ours.
ModuleScore expectEqualToLibLLVM(StringRef MIR, StringRef ReferenceMIR) {
  ModuleScore Ours = unwrap(scoreMIR(MemoryBufferRef(MIR, "ours.mir")));
  std::map<std::string, RegAllocScore> Theirs = referenceScores(ReferenceMIR);
  EXPECT_EQ(Theirs.size(), Ours.Functions.size());
  for (const FunctionScore &F : Ours.Functions) {
    auto It = Theirs.find(F.Name);
    if (It == Theirs.end()) {
      ADD_FAILURE() << F.Name << " has no reference score";
      continue;
    }
    const RegAllocScore &R = It->second;
    EXPECT_SAME_BITS(F.Counts.Copies, R.copyCounts(), "copies");
    EXPECT_SAME_BITS(F.Counts.Loads, R.loadCounts(), "loads");
    EXPECT_SAME_BITS(F.Counts.Stores, R.storeCounts(), "stores");
    EXPECT_SAME_BITS(F.Counts.LoadStores, R.loadStoreCounts(), "loads+stores");
    EXPECT_SAME_BITS(F.Counts.CheapRemats, R.cheapRematCounts(),
                     "cheap remats");
    EXPECT_SAME_BITS(F.Counts.ExpensiveRemats, R.expensiveRematCounts(),
                     "expensive remats");
    EXPECT_SAME_BITS(F.Score, R.getScore(), "score");
  }
  return Ours;
}

TEST(RegAllocScoreTest, EqualsLibLLVMToTheBit) {
  // llc's MIR as it is: libLLVM parses it, and our repairs change nothing.
  ASSERT_EQ(repairPrintedMIR(getSpillsMIR()), getSpillsMIR());
  ModuleScore Ours = expectEqualToLibLLVM(getSpillsMIR(), getSpillsMIR());
  std::vector<std::string> Names;
  for (const FunctionScore &F : Ours.Functions)
    Names.push_back(F.Name);
  // Module order, every defined function.
  EXPECT_EQ(Names, (std::vector<std::string>{"pressure", "fill", "poly",
                                             "with_asm", "leaf"}));

  // The comparison means something only if every kind of instruction was
  // counted, at frequencies that are not all whole numbers.
  const ScoreCounts &C = Ours.Counts;
  EXPECT_GT(C.Copies, 0);
  EXPECT_GT(C.Loads, 0);
  EXPECT_GT(C.Stores, 0);
  EXPECT_GT(C.LoadStores, 0);
  EXPECT_GT(C.CheapRemats, 0);
  EXPECT_GT(C.ExpensiveRemats, 0);
  EXPECT_NE(
      Ours.Functions[0].Counts.Loads,
      static_cast<double>(static_cast<int64_t>(Ours.Functions[0].Counts.Loads)))
      << "pressure's loads are in blocks of fractional frequency";
}

/// Whether libLLVM's MIR parser reads \p MIR (its errors silenced).
bool libLLVMParses(StringRef MIR) {
  initializeTargets();
  LLVMContext Context;
  Context.setDiagnosticHandlerCallBack([](const DiagnosticInfo *, void *) {},
                                       nullptr);
  std::unique_ptr<TargetMachine> TM;
  auto SetDataLayout = [&](StringRef Triple,
                           StringRef) -> std::optional<std::string> {
    std::string Problem;
    const Target *T = TargetRegistry::lookupTarget(Triple, Problem);
    if (!T)
      return std::nullopt;
    TM.reset(T->createTargetMachine(Triple, "", "", TargetOptions(),
                                    std::nullopt, std::nullopt,
                                    CodeGenOptLevel::Default));
    return TM->createDataLayout().getStringRepresentation();
  };
  std::unique_ptr<MIRParser> Parser =
      createMIRParser(MemoryBuffer::getMemBuffer(MIR, "check.mir"), Context);
  std::unique_ptr<Module> M = Parser->parseIRModule(SetDataLayout);
  if (!M || !TM)
    return false;
  MachineModuleInfo MMI(static_cast<const LLVMTargetMachine *>(TM.get()));
  return !Parser->parseMachineFunctions(*M, MMI);
}

// LLVM 19 prints MIR it cannot read back: stack slots shared by several
// variables, constant-pool vectors of zeros (Inputs/printer-bugs.c). We
// score it, and equal libLLVM's score of the repaired text.
TEST(RegAllocScoreTest, PrinterBugsRepaired) {
  std::string MIR = unwrap(compileToMIR(
      MLGO_SOURCE_DIR "/test/RegAlloc/Inputs/printer-bugs.ll", {}));
  ASSERT_NE(MIR.find("debug-info-variable: '!14!20'"), std::string::npos);
  ASSERT_NE(MIR.find("'<4 x i32> zeroinitializer'"), std::string::npos);
  EXPECT_FALSE(libLLVMParses(MIR));
  std::string Repaired = repairPrintedMIR(MIR);
  EXPECT_TRUE(libLLVMParses(Repaired));
  EXPECT_EQ(std::count(MIR.begin(), MIR.end(), '\n'),
            std::count(Repaired.begin(), Repaired.end(), '\n'));

  ModuleScore Ours = expectEqualToLibLLVM(MIR, Repaired);
  ASSERT_EQ(Ours.Functions.size(), 2u);
  EXPECT_EQ(Ours.Functions[0].Name, "disjoint_arrays");
  EXPECT_EQ(Ours.Functions[0].Score, 2.0);
  EXPECT_EQ(Ours.Functions[1].Name, "zero_around_call");
  EXPECT_EQ(Ours.Functions[1].Score, 8.8);
}

TEST(RegAllocScoreTest, RepairTouchesOnlyWhatDoesNotParse) {
  // Two stack objects, one with a variable of its own, one shared; and two
  // constants.
  StringRef Printed =
      "stack:\n"
      "  - { id: 0, debug-info-variable: '!7', debug-info-expression: "
      "'!DIExpression(DW_OP_plus_uconst, 8)', \n"
      "      debug-info-location: '!DILocation(line: 3, scope: !5)' }\n"
      "  - { id: 1, debug-info-variable: '!43!50', debug-info-expression: "
      "'!DIExpression()!DIExpression()', \n"
      "      debug-info-location: '!135!158' }\n"
      "constants:\n"
      "  - id:              0\n"
      "    value:           '<4 x i32> zeroinitializer'\n"
      "  - id:              1\n"
      "    value:           '<2 x double> zeroinitializer'\n"
      "  - id:              2\n"
      "    value:           '<2 x ptr> zeroinitializer'\n"
      "  - id:              3\n"
      "    value:           'i32 7'";
  EXPECT_EQ(repairPrintedMIR(Printed),
            "stack:\n"
            "  - { id: 0, debug-info-variable: '!7', debug-info-expression: "
            "'!DIExpression(DW_OP_plus_uconst, 8)', \n"
            "      debug-info-location: '!DILocation(line: 3, scope: !5)' }\n"
            "  - { id: 1, debug-info-variable: '', debug-info-expression: "
            "'', \n"
            "      debug-info-location: '' }\n"
            "constants:\n"
            "  - id:              0\n"
            "    value:           '<4 x i32> splat (i32 0)'\n"
            "  - id:              1\n"
            "    value:           '<2 x double> splat (double 0.0)'\n"
            "  - id:              2\n"
            "    value:           '<2 x ptr> splat (ptr null)'\n"
            "  - id:              3\n"
            "    value:           'i32 7'");
}

// A merged value the printer would write on one line, spread over two, is
// not its output: emptying it would take the line break with it and move
// every later line (fuzz/regressions/mir-repair).
TEST(RegAllocScoreTest, RepairKeepsValuesThatSpanLines) {
  StringRef Spread = "  - { id: 1, debug-info-variable: '!43!50', "
                     "debug-info-expression: '!DIExpression()\n"
                     "!DIExpression()', debug-info-location: '!135!158' }\n";
  EXPECT_EQ(repairPrintedMIR(Spread), Spread);
}

TEST(RegAllocScoreTest, ModuleSumsFunctionsInOrder) {
  ModuleScore M =
      unwrap(scoreMIR(MemoryBufferRef(getSpillsMIR(), "spills.mir")));
  ScoreCounts Counts;
  double Score = 0.0;
  for (const FunctionScore &F : M.Functions) {
    EXPECT_EQ(bitsOf(F.Score), bitsOf(F.Counts.weighted())) << F.Name;
    Counts += F.Counts;
    Score += F.Score;
  }
  EXPECT_TRUE(Counts == M.Counts);
  EXPECT_EQ(bitsOf(Score), bitsOf(M.Score));
  EXPECT_EQ(M.File, "spills.mir");
}

// `mlgo regalloc score --jobs` scores files on several threads: each call
// has its own LLVMContext and target machine, and gets the same bits.
TEST(RegAllocScoreTest, ThreadsScoreAlike) {
  const std::string &MIR = getSpillsMIR();
  ModuleScore Alone = unwrap(scoreMIR(MemoryBufferRef(MIR, "spills.mir")));
  std::vector<std::optional<ModuleScore>> Results(4);
  std::vector<std::thread> Threads;
  for (std::optional<ModuleScore> &R : Results)
    Threads.emplace_back(
        [&] { R = unwrap(scoreMIR(MemoryBufferRef(MIR, "spills.mir"))); });
  for (std::thread &T : Threads)
    T.join();
  for (const std::optional<ModuleScore> &R : Results) {
    ASSERT_TRUE(R);
    ASSERT_EQ(R->Functions.size(), Alone.Functions.size());
    for (size_t I = 0; I < Alone.Functions.size(); ++I) {
      EXPECT_TRUE(R->Functions[I].Counts == Alone.Functions[I].Counts);
      EXPECT_EQ(bitsOf(R->Functions[I].Score),
                bitsOf(Alone.Functions[I].Score));
    }
  }
}

TEST(RegAllocScoreTest, WeightsAreUpstreams) {
  ScoreCounts C;
  C.Copies = 1;
  EXPECT_EQ(C.weighted(), 0.2);
  C = {};
  C.Loads = 1;
  EXPECT_EQ(C.weighted(), 4.0);
  C = {};
  C.Stores = 1;
  EXPECT_EQ(C.weighted(), 1.0);
  C = {};
  C.LoadStores = 1;
  EXPECT_EQ(C.weighted(), 5.0);
  C = {};
  C.CheapRemats = 1;
  EXPECT_EQ(C.weighted(), 0.2);
  C = {};
  C.ExpensiveRemats = 1;
  EXPECT_EQ(C.weighted(), 1.0);
}

TEST(RegAllocScoreTest, CompiledModuleIsNamedByItsFile) {
  ModuleScore FromIR = unwrap(compileAndScore(SpillsLL, {}));
  ModuleScore FromMIR =
      unwrap(scoreMIR(MemoryBufferRef(getSpillsMIR(), "spills.mir")));
  EXPECT_EQ(FromIR.File, SpillsLL);
  EXPECT_EQ(bitsOf(FromIR.Score), bitsOf(FromMIR.Score));
}

TEST(RegAllocScoreTest, ErrorsNameTheFile) {
  unittest::TempDir Dir("mlgo-regalloc", /*Unique=*/true);
  std::string Missing = Dir.path("missing.mir").str().str();
  EXPECT_EQ(errorOf(scoreMIRFile(Missing)),
            Missing + ": No such file or directory");
  std::string MissingIR = Dir.path("missing.ll").str().str();
  EXPECT_EQ(errorOf(compileToMIR(MissingIR, {})),
            MissingIR + ": No such file or directory");

  // Malformed machine functions: the MIR parser's message, located.
  const char *BadInstruction =
      "--- |\n"
      "  target triple = \"x86_64-unknown-linux-gnu\"\n"
      "  define void @f() { ret void }\n"
      "...\n"
      "---\n"
      "name: f\n"
      "body: |\n"
      "  bb.0:\n"
      "    BOGUS_OPCODE\n"
      "...\n";
  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef(BadInstruction, "bad.mir"))),
            "bad.mir:9:5: unknown machine instruction name 'BOGUS_OPCODE'");
  const char *NoIRFunction = "--- |\n"
                             "  target triple = \"x86_64-unknown-linux-gnu\"\n"
                             "...\n"
                             "---\n"
                             "name: f\n"
                             "body: |\n"
                             "  bb.0:\n"
                             "    RET64\n"
                             "...\n";
  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef(NoIRFunction, "bad.mir"))),
            "bad.mir: function 'f' isn't defined in the provided LLVM IR");
  // The IR parser's errors are located in the MIR file too.
  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef(
                "--- |\n  target triple = \"x86_64-unknown-linux-gnu\"\n"
                "  define i32 @f(\n...\n",
                "badir.mir"))),
            "badir.mir:4:1: expected type");

  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef(
                "--- |\n  target triple = \"nosuch-unknown-none\"\n...\n",
                "alien.mir"))),
            "alien.mir: unknown target 'nosuch-unknown-none': No available "
            "targets are compatible with triple \"nosuch-unknown-none\"");

  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef("", "empty.mir"))),
            "empty.mir: no target triple (the MIR has no LLVM IR module "
            "naming its target)");
}

// The score is taken right after register allocation; MIR from before it
// or from the end of the pipeline would give another number, silently.
TEST(RegAllocScoreTest, MIRFromElsewhereRefused) {
  LLCOptions ISel;
  ISel.ExtraArgs = {"-stop-after=finalize-isel"};
  std::string BeforeRA = unwrap(compileToMIR(SpillsLL, ISel));
  EXPECT_EQ(errorOf(scoreMIR(MemoryBufferRef(BeforeRA, "isel.mir"))),
            "isel.mir: function 'pressure' has virtual registers: the MIR is "
            "from before register allocation, and the score is taken right "
            "after it (llc-19 -stop-after=virtregrewriter)");

  // -O0 has no virtregrewriter: llc-19 runs to the end and prints that.
  LLCOptions O0;
  O0.ExtraArgs = {"-O0"};
  EXPECT_EQ(errorOf(compileAndScore(SpillsLL, O0)),
            std::string(SpillsLL) +
                " (llc-19's MIR): function 'pressure' is past "
                "prologue/epilogue insertion, and the score is taken right "
                "after register allocation (llc-19 "
                "-stop-after=virtregrewriter; with -O0 or -regalloc=fast "
                "llc-19 has no virtregrewriter and runs to the end)");
}

TEST(RegAllocScoreTest, LLCFailuresNameTheFileAndStatus) {
  LLCOptions Bogus;
  Bogus.ExtraArgs = {"-no-such-llc-option"};
  EXPECT_EQ(errorOf(compileToMIR(SpillsLL, Bogus)),
            std::string(SpillsLL) +
                ": llc-19 exited with status 1: llc-19: Unknown command "
                "line argument '-no-such-llc-option'.  Try: 'llc-19 --help'");

  // A "compiler" that crashes after a line on stderr.
  unittest::TempDir Dir("mlgo-regalloc", /*Unique=*/true);
  std::string Crasher = Dir.path("crash.sh").str().str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Crasher, EC);
    ASSERT_FALSE(EC);
    OS << "#!/bin/sh\n\necho '  boom: stack overflow' >&2\necho more >&2\n"
          "kill -SEGV $$\n";
  }
  ASSERT_FALSE(
      sys::fs::setPermissions(Crasher, sys::fs::all_exe | sys::fs::owner_read));
  LLCOptions Crash;
  Crash.LLC = Crasher;
  EXPECT_EQ(errorOf(compileToMIR(SpillsLL, Crash)),
            std::string(SpillsLL) + ": " + Crasher +
                " was killed by signal 11 (Segmentation fault): boom: stack "
                "overflow");

  std::string Sleeper = Dir.path("sleep.sh").str().str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Sleeper, EC);
    ASSERT_FALSE(EC);
    OS << "#!/bin/sh\nexec sleep 30\n";
  }
  ASSERT_FALSE(
      sys::fs::setPermissions(Sleeper, sys::fs::all_exe | sys::fs::owner_read));
  LLCOptions Slow;
  Slow.LLC = Sleeper;
  Slow.TimeoutSeconds = 1;
  EXPECT_EQ(errorOf(compileToMIR(SpillsLL, Slow)),
            std::string(SpillsLL) + ": " + Sleeper + " timed out after 1 s");

  LLCOptions Absent;
  Absent.LLC = "no-such-llc-19";
  EXPECT_EQ(errorOf(compileToMIR(SpillsLL, Absent)),
            std::string(SpillsLL) + ": cannot find 'no-such-llc-19' in PATH");
}

} // namespace
