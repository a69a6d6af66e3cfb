//===- lib/RegAlloc/Score.cpp - LLVM's static register-allocation score ---===//
//
// The counting follows LLVM 19's RegAllocScore.cpp (see the header for the
// classes and the summation order); the rest is the plumbing around it:
// parsing MIR with the public MIRParser into a MachineModuleInfo of the
// module's target, computing block frequencies the way the
// MachineBlockFrequencyInfo pass does (dominators, loops, branch
// probabilities from the MIR's successor lists), making readable the MIR
// that LLVM 19 prints but cannot parse (repairPrintedMIR), and running
// llc-19 through mlgo's subprocess layer to get the MIR in the first place.
//
//===----------------------------------------------------------------------===//

#include "mlgo/RegAlloc/Score.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/CodeGen/MachineBlockFrequencyInfo.h"
#include "llvm/CodeGen/MachineBranchProbabilityInfo.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFrameInfo.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/CodeGen/MachineRegisterInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>
#include <mutex>
#include <optional>

using namespace llvm;

namespace mlgo::regalloc {

//===-- Counting ----------------------------------------------------------===//

ScoreCounts &ScoreCounts::operator+=(const ScoreCounts &Other) {
  Copies += Other.Copies;
  Loads += Other.Loads;
  Stores += Other.Stores;
  LoadStores += Other.LoadStores;
  CheapRemats += Other.CheapRemats;
  ExpensiveRemats += Other.ExpensiveRemats;
  return *this;
}

bool ScoreCounts::operator==(const ScoreCounts &Other) const {
  return Copies == Other.Copies && Loads == Other.Loads &&
         Stores == Other.Stores && LoadStores == Other.LoadStores &&
         CheapRemats == Other.CheapRemats &&
         ExpensiveRemats == Other.ExpensiveRemats;
}

double ScoreCounts::weighted() const {
  double Sum = 0.0;
  Sum += CopyWeight * Copies;
  Sum += LoadWeight * Loads;
  Sum += StoreWeight * Stores;
  Sum += LoadStoreWeight * LoadStores;
  Sum += CheapRematWeight * CheapRemats;
  Sum += ExpensiveRematWeight * ExpensiveRemats;
  return Sum;
}

namespace {

/// Adds \p MI, in a block of relative frequency \p Freq, to \p Counts.
void countInstruction(const MachineInstr &MI, const TargetInstrInfo &TII,
                      double Freq, ScoreCounts &Counts) {
  if (MI.isDebugInstr() || MI.isKill() || MI.isInlineAsm())
    return;
  if (MI.isCopy()) {
    Counts.Copies += Freq;
    return;
  }
  if (TII.isTriviallyReMaterializable(MI)) {
    // The static flag of the opcode, as upstream asks, not the target hook
    // TargetInstrInfo::isAsCheapAsAMove(MI).
    if (MI.getDesc().isAsCheapAsAMove())
      Counts.CheapRemats += Freq;
    else
      Counts.ExpensiveRemats += Freq;
    return;
  }
  bool Loads = MI.mayLoad(), Stores = MI.mayStore();
  if (Loads && Stores)
    Counts.LoadStores += Freq;
  else if (Loads)
    Counts.Loads += Freq;
  else if (Stores)
    Counts.Stores += Freq;
}

} // namespace

/// The counts of \p MF, each block weighed by \p Weight(block), added in
/// upstream's order.
template <typename WeightFn>
static ScoreCounts countWeighted(const MachineFunction &MF, WeightFn Weight) {
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  ScoreCounts Total;
  for (const MachineBasicBlock &MBB : MF) {
    double Freq = Weight(MBB);
    ScoreCounts Block;
    // MachineBasicBlock's iterator visits a bundle once, at its header.
    for (const MachineInstr &MI : MBB)
      countInstruction(MI, TII, Freq, Block);
    Total += Block;
  }
  return Total;
}

ScoreCounts countInstructions(const MachineFunction &MF,
                              const MachineBlockFrequencyInfo &MBFI) {
  return countWeighted(MF, [&](const MachineBasicBlock &MBB) {
    return MBFI.getBlockFreqRelativeToEntryBlock(&MBB);
  });
}

ScoreCounts countInstructionsByProfile(const MachineFunction &MF,
                                       const MachineBlockFrequencyInfo &MBFI) {
  return countWeighted(MF, [&](const MachineBasicBlock &MBB) {
    return static_cast<double>(MBFI.getBlockProfileCount(&MBB).value_or(0));
  });
}

FunctionScore scoreMachineFunction(MachineFunction &MF) {
  FunctionScore S;
  S.Name = MF.getName().str();
  if (MF.empty())
    return S;
  MachineDominatorTree DomTree(MF);
  MachineLoopInfo Loops(DomTree);
  MachineBranchProbabilityInfo Probabilities;
  MachineBlockFrequencyInfo Frequencies(MF, Probabilities, Loops);
  S.Counts = countInstructions(MF, Frequencies);
  S.Score = S.Counts.weighted();
  if (std::optional<Function::ProfileCount> Entry =
          MF.getFunction().getEntryCount())
    S.EntryCount = Entry->getCount();
  S.ProfileCounts = countInstructionsByProfile(MF, Frequencies);
  S.ProfileScore = S.ProfileCounts.weighted();
  return S;
}

//===-- Reading MIR -------------------------------------------------------===//

namespace {

/// Keeps the first error the IR or MIR parser reports, and silences the
/// rest (LLVMContext's default handler would print it and exit).
class FirstErrorHandler : public DiagnosticHandler {
public:
  explicit FirstErrorHandler(std::string &FirstError)
      : FirstError(FirstError) {}

  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() != DS_Error || !FirstError.empty())
      return true;
    if (const auto *MIR = dyn_cast<DiagnosticInfoMIRParser>(&DI)) {
      const SMDiagnostic &D = MIR->getDiagnostic();
      FirstError = D.getFilename().str();
      if (D.getLineNo() > 0)
        FirstError += formatv(":{0}:{1}", D.getLineNo(), D.getColumnNo() + 1);
      FirstError += ": " + D.getMessage().str();
      return true;
    }
    raw_string_ostream OS(FirstError);
    DiagnosticPrinterRawOStream Printer(OS);
    DI.print(Printer);
    return true;
  }

private:
  std::string &FirstError;
};

void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
  });
}

/// The target machine llc -O2 would use for \p TripleName with no -mcpu or
/// -mattr: the functions' own "target-cpu"/"target-features" attributes
/// select their subtargets.
Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(StringRef File, StringRef TripleName) {
  if (TripleName.empty())
    return makeError(File + ": no target triple (the MIR has no LLVM IR "
                            "module naming its target)");
  Triple TheTriple(Triple::normalize(TripleName));
  std::string Problem;
  const Target *T = TargetRegistry::lookupTarget(TheTriple.str(), Problem);
  if (!T)
    return makeError(File + ": unknown target '" + TripleName +
                     "': " + Problem);
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TheTriple.str(), /*CPU=*/"", /*Features=*/"", TargetOptions(),
      /*RM=*/std::nullopt, /*CM=*/std::nullopt, CodeGenOptLevel::Default));
  if (!TM)
    return makeError(File + ": cannot create a target machine for '" +
                     TripleName + "'");
  return TM;
}

/// Refuses MIR from a point where the score means something else: before
/// register allocation (virtual registers, COPYs that are not moves yet),
/// or after prologue/epilogue insertion (callee-saved spills and reloads
/// counted). The latter is what llc prints when asked to stop after a
/// virtregrewriter its pipeline does not have (-O0, -regalloc=fast): it
/// runs to the end.
Error checkRightAfterRegisterAllocation(const MachineFunction &MF,
                                        StringRef File) {
  if (MF.getRegInfo().getNumVirtRegs() != 0)
    return makeError(File + ": function '" + MF.getName() +
                     "' has virtual registers: the MIR is from before "
                     "register allocation, and the score is taken right "
                     "after it (llc-19 -stop-after=virtregrewriter)");
  if (MF.getFrameInfo().isCalleeSavedInfoValid())
    return makeError(File + ": function '" + MF.getName() +
                     "' is past prologue/epilogue insertion, and the score "
                     "is taken right after register allocation "
                     "(llc-19 -stop-after=virtregrewriter; with -O0 or "
                     "-regalloc=fast llc-19 has no virtregrewriter and runs "
                     "to the end)");
  return Error::success();
}

} // namespace

//===-- What LLVM 19 prints but cannot read back --------------------------===//

namespace {

/// How many metadata nodes \p Value holds side by side ("!4!7" holds two;
/// "!DILocation(line: 3, scope: !5)" one).
unsigned countMetadataNodes(StringRef Value) {
  unsigned Nodes = 0, Depth = 0;
  for (char C : Value) {
    if (C == '(')
      ++Depth;
    else if (C == ')' && Depth > 0)
      --Depth;
    else if (C == '!' && Depth == 0)
      ++Nodes;
  }
  return Nodes;
}

/// Empties the debug-info fields of stack objects that hold several
/// variables' ("debug-info-variable: '!43!50', debug-info-expression:
/// '!DIExpression()!DIExpression()', debug-info-location: '!135!158'").
/// Everything else, line breaks included, is kept.
std::string emptyMergedStackDebugInfo(StringRef MIR) {
  static constexpr StringLiteral Keys[] = {"debug-info-variable: '",
                                           "debug-info-expression: '",
                                           "debug-info-location: '"};
  std::string Out;
  Out.reserve(MIR.size());
  while (true) {
    size_t Start = MIR.find(Keys[0]);
    if (Start == StringRef::npos)
      break;
    // The three quoted values and what separates them.
    StringRef Rest = MIR.substr(Start);
    SmallVector<StringRef, 3> Values, Separators;
    bool WellFormed = true;
    for (StringLiteral Key : Keys) {
      size_t KeyAt = Rest.find(Key);
      // The next key within this flow mapping: after a comma and spaces.
      if (KeyAt == StringRef::npos ||
          !Rest.take_front(KeyAt).ltrim(", \n").empty()) {
        WellFormed = false;
        break;
      }
      Separators.push_back(Rest.take_front(KeyAt + Key.size()));
      Rest = Rest.drop_front(KeyAt + Key.size());
      size_t Quote = Rest.find('\'');
      // The printer writes each value on one line; a value that is not is
      // not its output, and emptying it would move the line breaks.
      if (Quote == StringRef::npos || Rest.take_front(Quote).contains('\n')) {
        WellFormed = false;
        break;
      }
      Values.push_back(Rest.take_front(Quote));
      Rest = Rest.drop_front(Quote + 1);
    }
    bool Merged = WellFormed && llvm::any_of(Values, [](StringRef V) {
                    return countMetadataNodes(V) > 1;
                  });
    if (!Merged) {
      size_t Next = Start + Keys[0].size();
      Out += MIR.take_front(Next);
      MIR = MIR.drop_front(Next);
      continue;
    }
    Out += MIR.take_front(Start);
    for (StringRef Separator : Separators)
      (Out += Separator) += "'";
    MIR = Rest;
  }
  Out += MIR;
  return Out;
}

/// The zero of \p ElementType as the IR parser reads it, or none.
std::optional<StringRef> zeroLiteral(StringRef ElementType) {
  if (ElementType.starts_with("ptr"))
    return StringRef("null");
  if (ElementType.size() > 1 && ElementType[0] == 'i' &&
      llvm::all_of(ElementType.drop_front(), isDigit))
    return StringRef("0");
  if (is_contained({"half", "bfloat", "float", "double", "x86_fp80", "fp128",
                    "ppc_fp128"},
                   ElementType))
    return StringRef("0.0");
  return std::nullopt;
}

/// Rewrites constant-pool values "'<4 x i32> zeroinitializer'" as
/// "'<4 x i32> splat (i32 0)'", line by line.
std::string spellZeroVectorsAsSplats(StringRef MIR) {
  std::string Out;
  Out.reserve(MIR.size());
  while (!MIR.empty()) {
    auto [Line, Rest] = MIR.split('\n');
    bool LastLine = Line.size() == MIR.size();
    MIR = Rest;
    StringRef Value = Line.ltrim();
    std::optional<StringRef> Zero;
    StringRef Type;
    if (Value.consume_front("value:")) {
      Value = Value.ltrim();
      if (Value.consume_front("'<") &&
          Value.consume_back("> zeroinitializer'")) {
        Type = Value;
        size_t X = Type.rfind(" x ");
        if (X != StringRef::npos)
          Zero = zeroLiteral(Type.drop_front(X + 3));
      }
    }
    if (!Zero) {
      Out += Line;
    } else {
      StringRef Element = Type.drop_front(Type.rfind(" x ") + 3);
      Out += Line.take_front(Line.find('\''));
      Out += ("'<" + Type + "> splat (" + Element + " " + *Zero + ")'").str();
    }
    if (!LastLine)
      Out += '\n';
  }
  return Out;
}

} // namespace

std::string repairPrintedMIR(StringRef MIR) {
  return spellZeroVectorsAsSplats(emptyMergedStackDebugInfo(MIR));
}

Expected<ModuleScore> scoreMIR(MemoryBufferRef MIR) {
  initializeTargets();
  StringRef File = MIR.getBufferIdentifier();
  LLVMContext Context;
  std::string FirstError;
  Context.setDiagnosticHandler(std::make_unique<FirstErrorHandler>(FirstError));
  auto parseError = [&]() {
    return makeError(FirstError.empty() ? File + ": cannot parse the MIR"
                                        : Twine(FirstError));
  };

  // The target is known once the IR module's triple is: the parser asks
  // for the data layout then, as llc sets it.
  std::unique_ptr<TargetMachine> TM;
  std::optional<Error> TargetError;
  auto SetDataLayout = [&](StringRef TripleName,
                           StringRef) -> std::optional<std::string> {
    Expected<std::unique_ptr<TargetMachine>> Created =
        createTargetMachine(File, TripleName);
    if (!Created) {
      TargetError = Created.takeError();
      return std::nullopt;
    }
    TM = std::move(*Created);
    return TM->createDataLayout().getStringRepresentation();
  };
  std::string Repaired = repairPrintedMIR(MIR.getBuffer());
  std::unique_ptr<MIRParser> Parser =
      createMIRParser(MemoryBuffer::getMemBuffer(
                          Repaired, File, /*RequiresNullTerminator=*/true),
                      Context);
  if (!Parser)
    return parseError();
  std::unique_ptr<Module> M = Parser->parseIRModule(SetDataLayout);
  // The IR parser asks for the data layout before it has read the
  // functions: a module that does not parse is that error, whatever its
  // triple.
  if (!M) {
    if (TargetError)
      consumeError(std::move(*TargetError));
    return parseError();
  }
  if (TargetError)
    return std::move(*TargetError);
  if (!TM)
    return makeError(File + ": no target triple (the MIR has no LLVM IR "
                            "module naming its target)");

  MachineModuleInfo MMI(static_cast<const LLVMTargetMachine *>(TM.get()));
  if (Parser->parseMachineFunctions(*M, MMI) || !FirstError.empty())
    return parseError();

  ModuleScore Out;
  Out.File = File.str();
  for (const Function &F : *M) {
    MachineFunction *MF = MMI.getMachineFunction(F);
    if (!MF)
      continue;
    if (Error E = checkRightAfterRegisterAllocation(*MF, File))
      return E;
    FunctionScore S = scoreMachineFunction(*MF);
    Out.Counts += S.Counts;
    Out.Score += S.Score;
    Out.ProfileCounts += S.ProfileCounts;
    Out.ProfileScore += S.ProfileScore;
    Out.Functions.push_back(std::move(S));
  }
  return Out;
}

Expected<ModuleScore> scoreMIRFile(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  return scoreMIR((*Buf)->getMemBufferRef());
}

//===-- Running llc -------------------------------------------------------===//

namespace {

/// The first non-blank line of the file at \p Path, trimmed; empty if none.
std::string firstLineOf(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  StringRef Rest = (*Buf)->getBuffer();
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    if (!Line.trim().empty())
      return Line.trim().str();
    Rest = Tail;
  }
  return "";
}

} // namespace

/// Runs `llc -O2 <Mode> <ExtraArgs> IRPath -o OutPath`; errors name
/// \p IRPath and give llc's first line of stderr.
static Error runLLC(StringRef IRPath, ArrayRef<std::string> Mode,
                    StringRef OutPath, const LLCOptions &Options) {
  sys::fs::file_status Status;
  if (std::error_code EC = sys::fs::status(IRPath, Status))
    return makeError(IRPath + ": " + EC.message());
  if (sys::fs::is_directory(Status))
    return makeError(IRPath + ": is a directory, not a .ll or .bc file");

  SmallString<128> ErrPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-regalloc", "err", ErrPath))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveErr(ErrPath);

  std::vector<std::string> Argv = {Options.LLC, "-O2"};
  Argv.insert(Argv.end(), Mode.begin(), Mode.end());
  Argv.insert(Argv.end(), Options.ExtraArgs.begin(), Options.ExtraArgs.end());
  Argv.insert(Argv.end(), {IRPath.str(), "-o", OutPath.str()});
  RunOptions Run;
  Run.Stdin = "/dev/null";
  Run.Stdout = "/dev/null";
  Run.Stderr = ErrPath.str().str();
  Run.TimeoutSeconds = Options.TimeoutSeconds;
  ProcessResult R = runProcess(Argv, Run);
  if (!R.hasStarted())
    return makeError(IRPath + ": " + R.describe());
  if (!R.succeeded()) {
    std::string Line = firstLineOf(ErrPath);
    return makeError(IRPath + ": " + Options.LLC + " " + R.describe() +
                     (Line.empty() ? "" : ": " + Line));
  }
  return Error::success();
}

Expected<std::string> compileToMIR(StringRef IRPath,
                                   const LLCOptions &Options) {
  SmallString<128> OutPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("mlgo-regalloc", "mir", OutPath))
    return makeError("cannot create a temporary file: " + EC.message());
  FileRemover RemoveOut(OutPath);
  if (Error E =
          runLLC(IRPath, {"-stop-after=virtregrewriter"}, OutPath, Options))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> MIR = readWholeFile(OutPath);
  if (!MIR)
    return MIR.takeError();
  return (*MIR)->getBuffer().str();
}

Error compileToObject(StringRef IRPath, StringRef ObjectPath,
                      const LLCOptions &Options) {
  return runLLC(IRPath, {"-filetype=obj"}, ObjectPath, Options);
}

Expected<ModuleScore> compileAndScore(StringRef IRPath,
                                      const LLCOptions &Options) {
  Expected<std::string> MIR = compileToMIR(IRPath, Options);
  if (!MIR)
    return MIR.takeError();
  // Errors in llc's MIR name the input and say the lines are the MIR's.
  std::string Name = (IRPath + " (" + Options.LLC + "'s MIR)").str();
  Expected<ModuleScore> Score = scoreMIR(MemoryBufferRef(*MIR, Name));
  if (Score)
    Score->File = IRPath.str();
  return Score;
}

} // namespace mlgo::regalloc
