//===- lib/Speed/Callgrind.cpp - Executed instructions, measured ----------===//
//
// See mlgo/Speed/Callgrind.h: callgrind over a command and its children,
// its per-process logs read back.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/Callgrind.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <map>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo {
namespace speed {

namespace {

/// One position of a cost line ("0x4a0", "12", "+3", "-8", "*"), given the
/// same position of the line before.
bool parsePosition(StringRef Token, uint64_t Previous, uint64_t &Out) {
  if (Token == "*") {
    Out = Previous;
    return true;
  }
  uint64_t Delta;
  if (Token.consume_front("+")) {
    if (Token.getAsInteger(0, Delta))
      return false;
    Out = Previous + Delta;
    return true;
  }
  if (Token.consume_front("-")) {
    if (Token.getAsInteger(0, Delta))
      return false;
    Out = Previous - Delta;
    return true;
  }
  return !Token.getAsInteger(0, Out);
}

} // namespace

Expected<std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>>>
readObjectInstructionCounts(StringRef Path,
                            function_ref<bool(StringRef)> Wanted) {
  auto Fail = [&](const Twine &Why) { return makeError(Path + ": " + Why); };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return Fail(Buf.getError().message());
  // Positions default to "line" alone: a file without instruction
  // positions cannot say which instruction ran.
  // (npos: not among them)
  const size_t None = ~size_t(0);
  size_t InstrAt = None, IrAt = None;
  size_t NumPositions = 1;
  StringMap<std::string> Objects; // "(3)" -> its name
  // Object name -> its counts, null for an object not wanted.
  StringMap<DenseMap<uint64_t, uint64_t> *> IsWanted;
  std::map<std::string, DenseMap<uint64_t, uint64_t>> Counts;
  DenseMap<uint64_t, uint64_t> *Current = nullptr;
  bool CallCost = false;
  uint64_t Previous = 0;
  // What callgrind promises about a part: its `summary:` (in the header)
  // and its `totals:` (after its costs) are the sum of its self costs. A
  // file cut at a line boundary parses; its missing totals line, or one
  // that disagrees with the costs read, is what tells.
  uint64_t PartIr = 0;
  bool CostsAfterTotals = false;
  std::optional<uint64_t> Summary;
  size_t SummaryLine = 0;
  auto irOf = [&](StringRef Values, uint64_t &Ir) {
    SmallVector<StringRef, 8> Tokens;
    Values.split(Tokens, ' ', -1, /*KeepEmpty=*/false);
    Ir = 0;
    return IrAt == None || IrAt >= Tokens.size() ||
           !Tokens[IrAt].getAsInteger(10, Ir);
  };
  auto lookUp = [&](StringRef Name) {
    auto [It, New] = IsWanted.try_emplace(Name, nullptr);
    if (New && Wanted(Name))
      It->second = &Counts[Name.str()];
    return It->second;
  };
  StringRef Rest = (*Buf)->getBuffer();
  for (size_t LineNo = 1; !Rest.empty(); ++LineNo) {
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    Line = Line.rtrim('\r');
    if (Line.empty() || Line.front() == '#')
      continue;
    char First = Line.front();
    if (isDigit(First) || First == '+' || First == '-' || First == '*') {
      if (InstrAt == None)
        return Fail("no instruction addresses (run callgrind with "
                    "--dump-instr=yes)");
      if (IrAt == None)
        return Fail("no Ir event (instructions executed) in its events");
      SmallVector<StringRef, 8> Tokens;
      Line.split(Tokens, ' ', -1, /*KeepEmpty=*/false);
      if (Tokens.size() < NumPositions)
        return Fail("line " + Twine(LineNo) + ": a cost line with " +
                    Twine(Tokens.size()) + " fields, fewer than its " +
                    Twine(NumPositions) + " positions");
      uint64_t Address;
      if (!parsePosition(Tokens[InstrAt], Previous, Address))
        return Fail("line " + Twine(LineNo) + ": '" + Tokens[InstrAt] +
                    "' is not an instruction position");
      Previous = Address;
      uint64_t Ir = 0;
      size_t At = NumPositions + IrAt;
      if (At < Tokens.size() && Tokens[At].getAsInteger(10, Ir))
        return Fail("line " + Twine(LineNo) + ": '" + Tokens[At] +
                    "' is not an event count");
      bool Call = CallCost;
      CallCost = false;
      // A call's cost line carries the callee's inclusive cost, not the
      // instruction's own.
      if (!Call) {
        PartIr += Ir;
        CostsAfterTotals = true;
      }
      if (!Call && Current && Ir)
        (*Current)[Address] += Ir;
      continue;
    }
    if (Line.starts_with("jump=") || Line.starts_with("jcnd="))
      return Fail("line " + Twine(LineNo) +
                  ": jump costs (--collect-jumps=yes) are not read; run "
                  "callgrind without it");
    if (Line.starts_with("calls=")) {
      CallCost = true;
      continue;
    }
    // ob= and cob= share one name table: "(id) name" defines id, "(id)"
    // names it again, "name" alone is uncompressed.
    bool Callee = Line.consume_front("cob=");
    if (Callee || Line.consume_front("ob=")) {
      StringRef Name = Line;
      if (Line.starts_with("(")) {
        auto [Id, After] = Line.split(')');
        StringRef Key = Id.drop_front();
        After = After.ltrim(' ');
        if (!After.empty())
          Objects[Key] = After.str();
        auto It = Objects.find(Key);
        if (It == Objects.end())
          return Fail("line " + Twine(LineNo) + ": object (" + Key +
                      ") used before it is named");
        Name = It->second;
      }
      if (!Callee)
        Current = lookUp(Name);
      continue;
    }
    if (Line.consume_front("positions:")) {
      SmallVector<StringRef, 4> Names;
      Line.split(Names, ' ', -1, /*KeepEmpty=*/false);
      NumPositions = Names.size();
      InstrAt = None;
      for (size_t I = 0; I < Names.size(); ++I)
        if (Names[I] == "instr")
          InstrAt = I;
      continue;
    }
    if (Line.consume_front("events:")) {
      SmallVector<StringRef, 8> Names;
      Line.split(Names, ' ', -1, /*KeepEmpty=*/false);
      IrAt = None;
      for (size_t I = 0; I < Names.size(); ++I)
        if (Names[I] == "Ir")
          IrAt = I;
      continue;
    }
    if (Line.consume_front("summary:")) {
      uint64_t Ir;
      if (!irOf(Line, Ir))
        return Fail("line " + Twine(LineNo) + ": a malformed summary line");
      Summary = Ir;
      SummaryLine = LineNo;
      continue;
    }
    if (Line.consume_front("totals:")) {
      uint64_t Ir;
      if (!irOf(Line, Ir))
        return Fail("line " + Twine(LineNo) + ": a malformed totals line");
      if (Ir != PartIr)
        return Fail("line " + Twine(LineNo) + ": its totals line says " +
                    Twine(Ir) +
                    " instructions ran, its cost lines add up "
                    "to " +
                    Twine(PartIr) + " (a cut or edited file?)");
      if (Summary && *Summary != PartIr)
        return Fail("line " + Twine(SummaryLine) + ": its summary line says " +
                    Twine(*Summary) +
                    " instructions ran, its cost lines "
                    "add up to " +
                    Twine(PartIr) + " (a cut or edited file?)");
      PartIr = 0;
      CostsAfterTotals = false;
      Summary.reset();
      continue;
    }
    // Other specifications (fl=, fn=, cfn=, cob=, ...) and header lines
    // (cmd:, part:, ...) do not change what ran where.
  }
  if (InstrAt == None)
    return Fail("no instruction addresses (run callgrind with "
                "--dump-instr=yes)");
  if (CostsAfterTotals)
    return Fail("the file ends before the totals line that follows the "
                "costs of a part: a file cut short (callgrind writes one at "
                "the end of every part)");
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> Sorted;
  for (auto &[Name, Ran] : Counts) {
    if (Ran.empty())
      continue;
    std::vector<std::pair<uint64_t, uint64_t>> &Out = Sorted[Name];
    Out.assign(Ran.begin(), Ran.end());
    llvm::sort(Out);
  }
  return Sorted;
}

Expected<std::vector<std::pair<uint64_t, uint64_t>>>
readInstructionCounts(StringRef Path, StringRef Program) {
  // Callgrind names the program by the path it ran under; a link or
  // another spelling of it is the same file.
  auto Objects = readObjectInstructionCounts(Path, [&](StringRef Name) {
    return Name == Program || sys::fs::equivalent(Name, Program);
  });
  if (!Objects)
    return Objects.takeError();
  std::vector<std::pair<uint64_t, uint64_t>> All;
  for (auto &[Name, Ran] : *Objects)
    llvm::append_range(All, Ran);
  if (All.empty())
    return makeError(Path + ": no instruction of " + Program +
                     " ran (a callgrind run of another program?)");
  llvm::sort(All);
  // One address under two names of the program: one count.
  std::vector<std::pair<uint64_t, uint64_t>> Summed;
  for (const auto &[Address, Ir] : All) {
    if (!Summed.empty() && Summed.back().first == Address)
      Summed.back().second += Ir;
    else
      Summed.emplace_back(Address, Ir);
  }
  return Summed;
}

std::optional<Error> benchmarkNoRoom(StringRef Name, const std::string &LogDir,
                                     const std::string &Out) {
  std::string Why = describeNoRoom(LogDir, readTail(Out, 10));
  if (Why.empty())
    return std::nullopt;
  return makeError(Name +
                   ": the benchmark under callgrind could not write "
                   "its logs: " +
                   Why + " (see " + Out + ")");
}

Expected<CallgrindRun> runCallgrind(StringRef Name, ArrayRef<std::string> Argv,
                                    const std::string &Tree,
                                    const std::string &LogDir,
                                    unsigned TimeoutSeconds,
                                    bool DumpInstructions) {
  sys::fs::remove_directories(LogDir);
  if (std::error_code EC = sys::fs::create_directories(LogDir))
    return makeError(LogDir + ": " + EC.message());
  std::vector<std::string> Full = {
      "valgrind",
      "--tool=callgrind",
      DumpInstructions ? "--callgrind-out-file=" + LogDir + "/%p.callgrind"
                       : std::string("--callgrind-out-file=/dev/null"),
      "--trace-children=yes",
      "--toggle-collect=main",
      "-v",
      "--log-file=" + LogDir + "/%p.log"};
  if (DumpInstructions)
    Full.push_back("--dump-instr=yes");
  llvm::append_range(Full, Argv);
  std::string Out = LogDir + "/output.txt";
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = Out;
  RO.Stderr = Out;
  RO.TimeoutSeconds = TimeoutSeconds;
  RO.OwnProcessGroup = true;
  ProcessResult R = runProcess(Full, RO);
  auto NoRoom = [&] { return benchmarkNoRoom(Name, LogDir, Out); };
  if (!R.succeeded()) {
    if (std::optional<Error> E = NoRoom())
      return std::move(*E);
    return makeError(Name + ": the benchmark under callgrind " + R.describe() +
                     "; last lines of " + Out + ":\n" + readTail(Out, 10));
  }
  CallgrindRun Run;
  std::set<std::string> Programs;
  std::error_code EC;
  for (sys::fs::directory_iterator It(LogDir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!StringRef(It->path()).ends_with(".log"))
      continue;
    Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(It->path());
    if (!Buf)
      return Buf.takeError();
    StringRef Program;
    std::optional<uint64_t> Collected;
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (StringRef L : Lines) {
      size_t Syms = L.find("Reading syms from ");
      if (Program.empty() && Syms != StringRef::npos)
        Program = L.drop_front(Syms + strlen("Reading syms from ")).trim();
      size_t C = L.find("Collected : ");
      uint64_t N;
      if (C != StringRef::npos &&
          !L.drop_front(C + strlen("Collected : ")).trim().getAsInteger(10, N))
        Collected = N;
    }
    if (!Program.starts_with(Tree + "/"))
      continue;
    if (!Collected || *Collected == 0) {
      if (std::optional<Error> E = NoRoom())
        return std::move(*E);
      return makeError(It->path() + ": callgrind counted nothing in main of " +
                       Program + " (did it end normally? is it stripped?)");
    }
    Run.Instructions += *Collected;
    Programs.insert(Program.drop_front(Tree.size() + 1).str());
  }
  if (EC)
    return makeError(LogDir + ": " + EC.message());
  if (Programs.empty()) {
    if (std::optional<Error> E = NoRoom())
      return std::move(*E);
    return makeError(Name + ": the benchmark ran no program of the build in " +
                     Tree + " (see " + Out + ")");
  }
  Run.Programs.assign(Programs.begin(), Programs.end());
  return Run;
}

} // namespace speed
} // namespace mlgo
