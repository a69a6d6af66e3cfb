//===- ExecutionCost.cpp - What a profile says runs, costed ---------------===//
//
// Reads the basic-block address map and its PGO analysis map from an ELF
// object, decodes each block's bytes with the target's disassembler and
// simulates them with llvm/MCA (mlgo/Speed/ExecutionCost.h says what and
// why).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Speed/ExecutionCost.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/MCA/Context.h"
#include "llvm/MCA/CustomBehaviour.h"
#include "llvm/MCA/InstrBuilder.h"
#include "llvm/MCA/Pipeline.h"
#include "llvm/MCA/SourceMgr.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <set>

using namespace llvm;

namespace mlgo::speed {

namespace {

/// The latency MCA would give a call's results. Calls never reach the
/// simulation (costUncached), so this only fills the builder's parameter.
constexpr unsigned CallLatency = 1;

void initializeTargets() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllDisassemblers();
  });
}

/// Expected visits of each block per entry into the function, solved from
/// the branch probabilities of the address map's PGO analysis: the visits x
/// satisfy x = e + Pᵀx, where e is 1 at the entry block (the first in the
/// map) and P(a, b) is the probability of the edge a -> b. Exact for any
/// control flow, irreducible or not - where MachineBlockFrequencyInfo's
/// propagation approximates irreducible cycles (an interpreter's computed
/// gotos, tail-duplicated into every handler), its frequencies can be 10^14
/// times too large, and these are not. Empty when the system has no
/// solution (a cycle the probabilities never leave): the caller then uses
/// the frequencies. A successor that is not a block of the function is an
/// error naming it.
Expected<std::vector<double>>
solveVisits(ArrayRef<uint32_t> IDs,
            ArrayRef<object::PGOAnalysisMap::PGOBBEntry> Entries,
            StringRef FunctionName) {
  size_t N = IDs.size();
  if (N == 0)
    return std::vector<double>();
  DenseMap<uint32_t, size_t> IndexOf;
  for (size_t I = 0; I < N; ++I)
    IndexOf[IDs[I]] = I;
  std::vector<Eigen::Triplet<double>> Terms;
  for (size_t I = 0; I < N; ++I)
    Terms.emplace_back(I, I, 1.0);
  for (size_t From = 0; From < N; ++From) {
    for (const auto &Successor : Entries[From].Successors) {
      auto It = IndexOf.find(Successor.ID);
      if (It == IndexOf.end())
        return makeError("the PGO analysis of '" + FunctionName +
                         "' names block " + Twine(Successor.ID) +
                         ", which its address map does not have");
      double Probability = double(Successor.Prob.getNumerator()) /
                           double(Successor.Prob.getDenominator());
      Terms.emplace_back(It->second, From, -Probability);
    }
  }
  Eigen::SparseMatrix<double> System(N, N);
  System.setFromTriplets(Terms.begin(), Terms.end());
  Eigen::SparseLU<Eigen::SparseMatrix<double>> Solver;
  Solver.compute(System);
  if (Solver.info() != Eigen::Success)
    return std::vector<double>();
  Eigen::VectorXd Entry = Eigen::VectorXd::Zero(N);
  Entry[0] = 1;
  Eigen::VectorXd X = Solver.solve(Entry);
  if (Solver.info() != Eigen::Success)
    return std::vector<double>();
  std::vector<double> Visits(N);
  for (size_t I = 0; I < N; ++I) {
    // Round-off leaves blocks that are never reached a hair below zero.
    if (!std::isfinite(X[I]) || X[I] < -1e-9)
      return std::vector<double>();
    Visits[I] = std::max(0.0, X[I]);
  }
  return Visits;
}

} // namespace

struct BlockCoster::Impl {
  std::string Triple, CPU;
  const Target *TheTarget = nullptr;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MCII;
  std::unique_ptr<MCInstrAnalysis> MCIA;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Disassembler;
  std::unique_ptr<mca::InstrumentManager> IM;
  /// Builds MCA's instructions; keeps their descriptors across blocks.
  std::unique_ptr<mca::InstrBuilder> Builder;
  /// Costs of blocks by their bytes.
  StringMap<BlockWork> Cache;

  Expected<BlockWork> costUncached(ArrayRef<uint8_t> Bytes, uint64_t Address);
};

Expected<std::unique_ptr<BlockCoster>> BlockCoster::create(StringRef TripleName,
                                                           StringRef CPU) {
  initializeTargets();
  auto I = std::make_unique<Impl>();
  I->Triple = Triple::normalize(TripleName);
  llvm::Triple T(I->Triple);
  I->CPU =
      CPU.empty() && T.getArch() == llvm::Triple::x86_64 ? "x86-64" : CPU.str();
  std::string Message;
  I->TheTarget = TargetRegistry::lookupTarget(I->Triple, Message);
  if (!I->TheTarget)
    return makeError("no target for '" + I->Triple + "': " + Message);
  I->MRI.reset(I->TheTarget->createMCRegInfo(I->Triple));
  MCTargetOptions Options;
  I->MAI.reset(I->TheTarget->createMCAsmInfo(*I->MRI, I->Triple, Options));
  I->STI.reset(I->TheTarget->createMCSubtargetInfo(I->Triple, I->CPU, ""));
  I->MCII.reset(I->TheTarget->createMCInstrInfo());
  if (!I->MRI || !I->MAI || !I->STI || !I->MCII)
    return makeError("the target of '" + I->Triple +
                     "' has no machine-code layer");
  if (!I->STI->isCPUStringValid(I->CPU))
    return makeError("'" + I->CPU + "' is not a CPU of '" + I->Triple + "'");
  if (!I->STI->getSchedModel().hasInstrSchedModel())
    return makeError("CPU '" + I->CPU + "' of '" + I->Triple +
                     "' has no scheduling model to cost blocks with");
  I->MCIA.reset(I->TheTarget->createMCInstrAnalysis(I->MCII.get()));
  I->Ctx = std::make_unique<MCContext>(llvm::Triple(I->Triple), I->MAI.get(),
                                       I->MRI.get(), I->STI.get());
  I->Disassembler.reset(I->TheTarget->createMCDisassembler(*I->STI, *I->Ctx));
  if (!I->Disassembler)
    return makeError("no disassembler for '" + I->Triple + "'");
  I->IM = std::make_unique<mca::InstrumentManager>(*I->STI, *I->MCII);
  I->Builder = std::make_unique<mca::InstrBuilder>(
      *I->STI, *I->MCII, *I->MRI, I->MCIA.get(), *I->IM, CallLatency);
  return std::unique_ptr<BlockCoster>(new BlockCoster(std::move(I)));
}

BlockCoster::BlockCoster(std::unique_ptr<Impl> I) : I(std::move(I)) {}
BlockCoster::~BlockCoster() = default;
StringRef BlockCoster::triple() const { return I->Triple; }
StringRef BlockCoster::cpu() const { return I->CPU; }

Expected<BlockWork> BlockCoster::Impl::costUncached(ArrayRef<uint8_t> Bytes,
                                                    uint64_t Address) {
  BlockWork Work;
  std::vector<MCInst> Insts;
  for (uint64_t At = 0; At < Bytes.size();) {
    MCInst Inst;
    uint64_t Size = 0;
    MCDisassembler::DecodeStatus S = Disassembler->getInstruction(
        Inst, Size, Bytes.slice(At), Address + At, nulls());
    if (S != MCDisassembler::Success || Size == 0)
      return makeError("cannot decode the instruction at 0x" +
                       Twine::utohexstr(Address + At));
    const MCInstrDesc &Desc = MCII->get(Inst.getOpcode());
    uint64_t Target;
    if ((Desc.isCall() || Desc.isBranch()) &&
        MCIA->evaluateBranch(Inst, Address + At, Size, Target))
      Work.Branches.push_back(
          {At, At + Size, int64_t(Target) - int64_t(Address)});
    Insts.push_back(Inst);
    At += Size;
  }
  Work.Instructions = Insts.size();
  if (Insts.empty())
    return Work;
  SmallVector<std::unique_ptr<mca::Instruction>> Sequence;
  unsigned Unmodelled = 0;
  for (const MCInst &Inst : Insts) {
    // Calls and returns cost one cycle each, outside the simulation: MCA
    // models neither (it warns that it ignores them), and what a callee does
    // is costed in the callee's own blocks. So does an instruction the
    // scheduling model does not describe (rare: some system instructions).
    const MCInstrDesc &Desc = MCII->get(Inst.getOpcode());
    if (Desc.isReturn() || Desc.isCall()) {
      ++Unmodelled;
      continue;
    }
    Expected<std::unique_ptr<mca::Instruction>> MI =
        Builder->createInstruction(Inst, {});
    if (!MI) {
      consumeError(MI.takeError());
      ++Unmodelled;
      continue;
    }
    Sequence.push_back(std::move(*MI));
  }
  double Cycles = Unmodelled;
  if (!Sequence.empty()) {
    mca::CircularSourceMgr Source(Sequence, BlockIterations);
    mca::Context Context(*MRI, *STI);
    // Zeros: the scheduling model's own dispatch width, register file and
    // queue sizes, as llvm-mca uses them by default.
    mca::PipelineOptions Options(0, 0, 0, 0, 0, 0, /*NoAlias=*/true);
    mca::CustomBehaviour CB(*STI, Source, *MCII);
    std::unique_ptr<mca::Pipeline> P =
        Context.createDefaultPipeline(Options, Source, CB);
    Expected<unsigned> Total = P->run();
    if (!Total)
      return Total.takeError();
    Cycles += double(*Total) / BlockIterations;
  }
  Work.Cycles = Cycles;
  return Work;
}

Expected<BlockWork> BlockCoster::cost(ArrayRef<uint8_t> Bytes,
                                      uint64_t Address) {
  StringRef Key(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  auto It = I->Cache.find(Key);
  if (It == I->Cache.end()) {
    Expected<BlockWork> C = I->costUncached(Bytes, Address);
    if (!C)
      return C.takeError();
    It = I->Cache.try_emplace(Key, std::move(*C)).first;
  }
  return It->second;
}

Expected<MeasuredCounts> readMeasuredCounts(StringRef Path) {
  auto Fail = [&](const Twine &Why) { return makeError(Path + ": " + Why); };
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  StringRef Rest = (*Buf)->getBuffer();
  StringRef First;
  std::tie(First, Rest) = Rest.split('\n');
  if (First.ends_with("\r"))
    return Fail("line 1 ends in CR LF (DOS line ends; a block counts file "
                "has LF line ends only)");
  if (First == "mlgo-block-counts 1")
    return Fail("block counts version 1 has no end line, so a cut file "
                "cannot be told from a whole one; write it again with mlgo "
                "speed counts (this mlgo reads version " +
                Twine(BlockCountsVersion) + ")");
  if (First != ("mlgo-block-counts " + Twine(BlockCountsVersion)).str())
    return Fail("not a block counts file (its first line is not "
                "'mlgo-block-counts " +
                Twine(BlockCountsVersion) + "')");
  MeasuredCounts Out;
  size_t Blocks = 0;
  for (size_t LineNo = 2; !Rest.empty(); ++LineNo) {
    StringRef Line;
    std::tie(Line, Rest) = Rest.split('\n');
    if (Line.ends_with("\r"))
      return Fail("line " + Twine(LineNo) +
                  " ends in CR LF (DOS line ends; a block counts file has LF "
                  "line ends only)");
    SmallVector<StringRef, 3> Fields;
    Line.split(Fields, '\t');
    size_t Said;
    if (Fields.size() == 2 && Fields[0] == "end" &&
        !Fields[1].getAsInteger(10, Said)) {
      if (!Rest.empty())
        return Fail("line " + Twine(LineNo) +
                    ": lines after the end line (two files joined?)");
      if (Said != Blocks)
        return Fail("line " + Twine(LineNo) + ": the end line counts " +
                    Twine(Said) + " blocks, the file has " + Twine(Blocks) +
                    " (an edited file?)");
      return Out;
    }
    uint32_t ID;
    uint64_t Count;
    if (Fields.size() != 3 || Fields[0].empty() ||
        Fields[1].getAsInteger(10, ID) || Fields[2].getAsInteger(10, Count))
      return Fail("line " + Twine(LineNo) +
                  ": not FUNCTION<TAB>BLOCK ID<TAB>COUNT");
    if (!Out.Functions[Fields[0]].try_emplace(ID, Count).second)
      return Fail("line " + Twine(LineNo) + ": block " + Twine(ID) + " of '" +
                  Fields[0] + "' again");
    ++Blocks;
  }
  return Fail("no end line after its " + Twine(Blocks) +
              " blocks: a file cut short (write it again with mlgo speed "
              "counts)");
}

Error writeMeasuredCounts(StringRef Path, const MeasuredCounts &Counts) {
  std::vector<StringRef> Names;
  for (const auto &F : Counts.Functions)
    Names.push_back(F.getKey());
  llvm::sort(Names);
  std::string Text =
      ("mlgo-block-counts " + Twine(BlockCountsVersion) + "\n").str();
  size_t Blocks = 0;
  for (StringRef Name : Names) {
    const DenseMap<uint32_t, uint64_t> &Ran =
        Counts.Functions.find(Name)->second;
    std::vector<std::pair<uint32_t, uint64_t>> Sorted(Ran.begin(), Ran.end());
    llvm::sort(Sorted);
    for (const auto &[ID, Count] : Sorted)
      Text += (Name + "\t" + Twine(ID) + "\t" + Twine(Count) + "\n").str();
    Blocks += Sorted.size();
  }
  Text += ("end\t" + Twine(Blocks) + "\n").str();
  return writeFileAtomically(Path, Text);
}

/// Gives each block of \p Blocks (in layout order) the run did not measure
/// (\p Known false) its profile count (\p Solved) scaled by the
/// measured/profile ratio of the nearest measured block before it in
/// layout, else of the function's measured blocks together. Such blocks are
/// the ones this build keeps and the measured build's passes after register
/// allocation removed, or made anew (tail duplication): code on the paths of
/// the blocks around them, whose counts the profile gets wrong by the same
/// factor where it gets a loop nest wrong.
static void scaleUnmeasured(std::vector<BlockCost> &Blocks,
                            ArrayRef<double> Solved,
                            const std::vector<bool> &Known) {
  double MeasuredSum = 0, SolvedSum = 0;
  for (size_t I = 0; I < Blocks.size(); ++I)
    if (Known[I] && Solved[I] > 0) {
      MeasuredSum += Blocks[I].Count;
      SolvedSum += Solved[I];
    }
  double FunctionRatio = SolvedSum > 0 ? MeasuredSum / SolvedSum : 1;
  std::optional<double> Ratio;
  for (size_t I = 0; I < Blocks.size(); ++I) {
    if (Known[I]) {
      if (Solved[I] > 0)
        Ratio = Blocks[I].Count / Solved[I];
      continue;
    }
    Blocks[I].Count = Solved[I] * Ratio.value_or(FunctionRatio);
  }
}

Expected<ObjectCost> measureExecutionCost(MemoryBufferRef Buffer,
                                          BlockCoster *Coster,
                                          const MeasuredCounts *Measured) {
  StringRef Name = Buffer.getBufferIdentifier();
  auto Fail = [&](const Twine &Why) { return makeError(Name + ": " + Why); };
  Expected<std::unique_ptr<object::ObjectFile>> File =
      object::ObjectFile::createObjectFile(Buffer);
  if (!File)
    return Fail(toString(File.takeError()));
  auto *Elf = dyn_cast<object::ELFObjectFileBase>(File->get());
  if (!Elf)
    return Fail("not an ELF object");

  std::unique_ptr<BlockCoster> Own;
  if (!Coster) {
    Expected<std::unique_ptr<BlockCoster>> C =
        BlockCoster::create(Elf->makeTriple().str(), "");
    if (!C)
      return Fail(toString(C.takeError()));
    Own = std::move(*C);
    Coster = Own.get();
  }

  // Function names by (section, address).
  DenseMap<std::pair<uint64_t, uint64_t>, StringRef> Names;
  for (const object::SymbolRef &Sym : Elf->symbols()) {
    Expected<object::SymbolRef::Type> Type = Sym.getType();
    Expected<object::section_iterator> Sec = Sym.getSection();
    Expected<uint64_t> Address = Sym.getAddress();
    Expected<StringRef> SymName = Sym.getName();
    if (!Type || !Sec || !Address || !SymName) {
      consumeError(Type.takeError());
      consumeError(Sec.takeError());
      consumeError(Address.takeError());
      consumeError(SymName.takeError());
      continue;
    }
    if (*Type != object::SymbolRef::ST_Function || *Sec == Elf->section_end())
      continue;
    Names.try_emplace({(*Sec)->getIndex(), *Address}, *SymName);
  }

  // The text sections, by index. In an object file each function's map
  // is linked to the function's own section; a linker joins the maps into
  // one linked to .text, so in a program or library a function in another
  // text section (lmdb's `text_env`) is found by its address.
  struct TextSection {
    uint64_t Index;
    uint64_t Address;
    ArrayRef<uint8_t> Bytes;
  };
  std::vector<TextSection> Texts;
  for (const object::SectionRef &Sec : Elf->sections()) {
    if (!Sec.isText())
      continue;
    Expected<StringRef> Contents = Sec.getContents();
    if (!Contents)
      return Fail(toString(Contents.takeError()));
    Texts.push_back(
        {Sec.getIndex(), Sec.getAddress(),
         ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Contents->data()),
                           Contents->size())});
  }
  bool Relocatable = Elf->isRelocatableObject();
  auto SectionOf = [&](const TextSection &Own,
                       uint64_t Address) -> const TextSection & {
    if (Relocatable)
      return Own;
    for (const TextSection &T : Texts)
      if (Address >= T.Address && Address < T.Address + T.Bytes.size())
        return T;
    return Own;
  };

  // In an object, the symbols the relocations of each text section name,
  // by (section, offset): a call to another section's function, or to
  // one the assembler could not resolve, is a relocation.
  std::map<std::pair<uint64_t, uint64_t>, std::string> Relocations;
  if (Relocatable)
    for (const object::SectionRef &Sec : Elf->sections()) {
      Expected<object::section_iterator> Target = Sec.getRelocatedSection();
      if (!Target) {
        consumeError(Target.takeError());
        continue;
      }
      if (*Target == Elf->section_end() || !(*Target)->isText())
        continue;
      for (const object::RelocationRef &R : Sec.relocations()) {
        object::symbol_iterator Sym = R.getSymbol();
        if (Sym == Elf->symbol_end())
          continue;
        Expected<StringRef> SymName = Sym->getName();
        if (!SymName) {
          consumeError(SymName.takeError());
          continue;
        }
        Relocations[{(*Target)->getIndex(), R.getOffset()}] = SymName->str();
      }
    }
  // The functions a call or jump reaches: by its relocation, else by the
  // address it goes to.
  std::set<std::string> Called;
  auto NoteBranches = [&](const TextSection &Home, uint64_t BlockOffset,
                          const BlockWork &Work) {
    for (const BlockWork::Branch &B : Work.Branches) {
      if (Relocatable) {
        auto R = Relocations.lower_bound({Home.Index, BlockOffset + B.Begin});
        if (R != Relocations.end() && R->first.first == Home.Index &&
            R->first.second < BlockOffset + B.End) {
          Called.insert(R->second);
          continue;
        }
      }
      uint64_t Target = Home.Address + BlockOffset + B.Target;
      const TextSection &To = SectionOf(Home, Target);
      auto It = Names.find({To.Index, Target});
      if (It != Names.end())
        Called.insert(It->second.str());
    }
  };

  ObjectCost Result;
  bool SawMap = false;
  for (const TextSection &Sec : Texts) {
    std::vector<object::PGOAnalysisMap> PGO;
    Expected<std::vector<object::BBAddrMap>> Maps =
        Elf->readBBAddrMap(Sec.Index, &PGO);
    if (!Maps)
      return Fail(toString(Maps.takeError()));
    if (Maps->empty())
      continue;
    SawMap = true;
    for (size_t F = 0; F < Maps->size(); ++F) {
      const object::BBAddrMap &Map = (*Maps)[F];
      const object::PGOAnalysisMap &Analysis = PGO[F];
      uint64_t FunctionAddress = Map.getFunctionAddress();
      const TextSection &Home = SectionOf(Sec, FunctionAddress);
      ArrayRef<uint8_t> Bytes = Home.Bytes;
      uint64_t SectionAddress = Home.Address;
      FunctionCost Function;
      Function.Address = FunctionAddress;
      auto NameIt = Names.find({Home.Index, FunctionAddress});
      Function.Name =
          NameIt != Names.end()
              ? NameIt->second.str()
              : "<function at 0x" + utohexstr(FunctionAddress) + ">";
      if (!Analysis.FeatEnable.FuncEntryCount || !Analysis.FeatEnable.BBFreq ||
          !Analysis.FeatEnable.BrProb)
        return Fail("the address map of '" + Function.Name +
                    "' has no PGO analysis with branch probabilities "
                    "(compile with -mllvm "
                    "-pgo-analysis-map=func-entry-count,bb-freq,br-prob)");
      Function.EntryCount = Analysis.FuncEntryCount;
      Function.HasProfile = Analysis.FuncEntryCount > 0;
      Result.Profiled += Function.HasProfile;
      std::vector<uint32_t> IDs;
      for (const object::BBAddrMap::BBRangeEntry &Range : Map.getBBRanges())
        for (const object::BBAddrMap::BBEntry &Entry : Range.BBEntries)
          IDs.push_back(Entry.ID);
      if (IDs.size() != Analysis.BBEntries.size())
        return Fail("the PGO analysis of '" + Function.Name + "' has " +
                    Twine(Analysis.BBEntries.size()) +
                    " blocks, its address "
                    "map " +
                    Twine(IDs.size()));
      Expected<std::vector<double>> Visits =
          solveVisits(IDs, Analysis.BBEntries, Function.Name);
      if (!Visits)
        return Fail(toString(Visits.takeError()));
      Function.CountsSolved = !Visits->empty();
      const DenseMap<uint32_t, uint64_t> *Ran = nullptr;
      // A function the profile never saw run is not the one the run's
      // counts were kept for (another program's `main`, named alike).
      if (Measured && Function.HasProfile) {
        auto It = Measured->Functions.find(Function.Name);
        if (It != Measured->Functions.end())
          Ran = &It->second;
      }
      Function.CountsMeasured = Ran != nullptr;
      double EntryFreq =
          IDs.empty()
              ? 0
              : double(Analysis.BBEntries.front().BlockFreq.getFrequency());
      size_t Index = 0;
      // Each block's count from the profile, and whether the run measured
      // it.
      std::vector<double> Solved;
      std::vector<bool> Known;
      for (const object::BBAddrMap::BBRangeEntry &Range : Map.getBBRanges()) {
        for (const object::BBAddrMap::BBEntry &Entry : Range.BBEntries) {
          BlockCost Block;
          Block.ID = Entry.ID;
          Block.Offset = Range.BaseAddress + Entry.Offset - FunctionAddress;
          Block.Size = Entry.Size;
          double PerEntry =
              Function.CountsSolved
                  ? (*Visits)[Index]
                  : (EntryFreq > 0 ? double(Analysis.BBEntries[Index]
                                                .BlockFreq.getFrequency()) /
                                         EntryFreq
                                   : 0);
          ++Index;
          Block.Count = double(Function.EntryCount) * PerEntry;
          Solved.push_back(Block.Count);
          Known.push_back(false);
          if (Ran) {
            auto It = Ran->find(Entry.ID);
            if (It != Ran->end()) {
              Block.Count = double(It->second);
              Known.back() = true;
            }
          }
          uint64_t Start = Range.BaseAddress + Entry.Offset - SectionAddress;
          if (Start + Entry.Size > Bytes.size())
            return Fail("block " + Twine(Entry.ID) + " of '" + Function.Name +
                        "' lies outside its section");
          Expected<BlockWork> Work = Coster->cost(
              Bytes.slice(Start, Entry.Size), Range.BaseAddress + Entry.Offset);
          if (!Work)
            return Fail("'" + Function.Name + "', block " + Twine(Entry.ID) +
                        ": " + toString(Work.takeError()));
          NoteBranches(Home, Start, *Work);
          Block.Instructions = Work->Instructions;
          Block.Cycles = Work->Cycles;
          Function.Blocks.push_back(Block);
        }
      }
      if (Ran)
        scaleUnmeasured(Function.Blocks, Solved, Known);
      for (const BlockCost &Block : Function.Blocks) {
        Function.Instructions += Block.Count * Block.Instructions;
        Function.Cycles += Block.Count * Block.Cycles;
      }
      Result.Instructions += Function.Instructions;
      Result.Cycles += Function.Cycles;
      Result.Functions.push_back(std::move(Function));
    }
  }
  if (!SawMap)
    return Fail("no basic-block address map (compile with "
                "-fbasic-block-address-map)");
  for (FunctionCost &F : Result.Functions)
    F.Called = Called.count(F.Name);
  return Result;
}

} // namespace mlgo::speed
