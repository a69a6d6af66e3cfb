//===- lib/Tune/LtoObjective.cpp - The final LTO artifact's .text ---------===//
//
// See mlgo/Tune/LtoObjective.h: the LTO compile steps and the user's link
// judge.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Tune/LtoObjective.h"

#include "mlgo/Compile/CompileService.h"
#include "mlgo/Corpus/CodeSize.h"
#include "mlgo/Corpus/CompileCommand.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"
#include "mlgo/Support/Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <limits>

using namespace llvm;

namespace mlgo {

namespace {

std::string md5Hex(StringRef Text) {
  return toHex(MD5::hash(arrayRefFromStringRef(Text)), /*LowerCase=*/true);
}

/// Runs \p Argv with its output in \p Log; the error names \p What, how it
/// ended and the log's end.
Error runLogged(ArrayRef<std::string> Argv, StringRef Log, unsigned Timeout,
                StringRef What) {
  RunOptions RO;
  RO.Stdin = "/dev/null";
  RO.Stdout = RO.Stderr = Log.str();
  RO.TimeoutSeconds = Timeout;
  RO.OwnProcessGroup = true;
  ProcessResult R = runProcess(Argv, RO);
  if (R.succeeded())
    return Error::success();
  return makeError(What + " " + R.describe() + " (" + Log + "):\n" +
                   readTail(Log, 20));
}

} // namespace

LtoObjective::LtoObjective(CompileService &S, LtoSetup Setup,
                           CompilePolicy Base,
                           std::vector<CompileOutcome> Stock,
                           std::vector<std::vector<Slot>> Slots)
    : Sizes(S, std::move(Stock), {}), S(S), Setup(std::move(Setup)),
      Base(std::move(Base)) {
  for (std::vector<Slot> &P : Slots) {
    ProgramState &St = Programs.emplace_back();
    St.Policies.assign(P.size(), this->Base);
    St.Slots = std::move(P);
  }
}

Expected<std::vector<uint64_t>> LtoObjective::start() {
  std::vector<uint64_t> StockSizes;
  for (size_t P = 0; P < Programs.size(); ++P) {
    Expected<uint64_t> Stock = link(P, Programs[P].Policies, /*Stock=*/true);
    if (!Stock)
      return Stock.takeError();
    StockSizes.push_back(*Stock);
    Expected<uint64_t> Model = link(P, Programs[P].Policies, /*Stock=*/false);
    if (!Model)
      return Model.takeError();
    Programs[P].Cost = *Model;
  }
  return StockSizes;
}

Expected<std::vector<Measurement>> LtoObjective::measure(ArrayRef<Trial> Trials,
                                                         StringRef What,
                                                         bool WithTrajectory) {
  Expected<std::vector<Measurement>> Out =
      Sizes.measure(Trials, What, WithTrajectory);
  if (!Out)
    return Out.takeError();
  for (size_t I = 0; I < Trials.size(); ++I)
    (*Out)[I].Detail = std::make_shared<LtoPolicy>(Trials[I].Policy);
  return Out;
}

Expected<std::vector<CompilePolicy>>
LtoObjective::withChanges(size_t Program, ArrayRef<SlotChange> Changes) const {
  std::vector<CompilePolicy> Policies = Programs[Program].Policies;
  for (const SlotChange &C : Changes) {
    const auto *L = dynamic_cast<const LtoPolicy *>(C.Detail);
    if (!L)
      return makeError("a change of the LTO objective without its policy");
    Policies[C.Slot] = L->Policy;
  }
  return Policies;
}

int64_t LtoObjective::delta(size_t Program,
                            ArrayRef<SlotChange> Changes) const {
  // A failure answers "larger", so that nothing is kept, and the search
  // stops with it (takeError).
  constexpr int64_t Larger = std::numeric_limits<int32_t>::max();
  if (!FirstError.empty())
    return Larger;
  Expected<std::vector<CompilePolicy>> Policies = withChanges(Program, Changes);
  if (!Policies) {
    FirstError = toString(Policies.takeError());
    return Larger;
  }
  Expected<uint64_t> Size = link(Program, *Policies, /*Stock=*/false);
  if (!Size) {
    FirstError = toString(Size.takeError());
    return Larger;
  }
  return int64_t(*Size) - int64_t(Programs[Program].Cost);
}

void LtoObjective::apply(size_t Program, ArrayRef<SlotChange> Changes) {
  // The link of these inputs ran in delta(): its key answers.
  const int64_t D = delta(Program, Changes);
  if (!FirstError.empty())
    return;
  Expected<std::vector<CompilePolicy>> Policies = withChanges(Program, Changes);
  if (!Policies) {
    FirstError = toString(Policies.takeError());
    return;
  }
  Programs[Program].Policies = std::move(*Policies);
  Programs[Program].Cost = uint64_t(int64_t(Programs[Program].Cost) + D);
}

Error LtoObjective::takeError() {
  if (FirstError.empty())
    return Error::success();
  return makeError(std::exchange(FirstError, ""));
}

/// A decisions file holding \p Fixed (none: no module), as written for a
/// compile step or a link.
static std::string printDecisions(ArrayRef<const ModuleDecisions *> Fixed) {
  DecisionsFile F;
  for (const ModuleDecisions *M : Fixed)
    if (M)
      F.addModule(*M);
  return F.print();
}

Expected<std::string> LtoObjective::compileStep(size_t Module,
                                                const CompilePolicy &P,
                                                bool Stock) const {
  const CorpusModule &M = S.modules()[Module];
  const std::string Flag = getLtoFlag(Setup.Mode);
  // Every compile step of a build with a decisions file is given it, so
  // each is given one (with no module for a module without entries): a
  // file makes the policy one asked for (docs/plugin.md, "In the link").
  const std::string Decisions =
      Stock ? std::string() : printDecisions({P.Fixed.get()});
  const std::string Key =
      md5Hex(M.ContentHash + "\n" + Flag + "\n" +
             (Stock ? "stock" : P.getKey()) + "\n" + Decisions);
  SmallString<256> Dir(Setup.WorkDir);
  sys::path::append(Dir, "bc");
  const std::string Out = (Dir + "/" + Key + ".o").str();
  if (sys::fs::exists(Out))
    return Out;
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return makeError(Dir + ": " + EC.message());
  std::vector<std::string> Extra;
  if (!Stock) {
    CompilePolicy Q = P;
    Q.DecisionsPath = (Dir + "/" + Key + ".decisions").str();
    if (Error E = writeFileAtomically(Q.DecisionsPath, Decisions))
      return E;
    Expected<std::vector<std::string>> Args = Q.getCC1Args(Setup.PluginPath);
    if (!Args)
      return Args.takeError();
    Extra = std::move(*Args);
  }
  Extra.insert(Extra.end(), {Flag, "-flto-unit", "-emit-llvm-bc"});
  const std::string Tmp = Out + ".tmp";
  CompileRequest R;
  R.Clang = Setup.Clang;
  R.CC1Args = M.CC1Args;
  R.BitcodePath = M.BitcodePath;
  R.OutputPath = Tmp;
  R.ExtraArgs = std::move(Extra);
  if (Error E = runLogged(
          buildCompileCommand(R), (Dir + "/" + Key + ".log").str(),
          Setup.TimeoutSeconds, "the " + Flag + " compile step of " + M.Name))
    return E;
  if (std::error_code EC = sys::fs::rename(Tmp, Out))
    return makeError("cannot rename '" + Tmp + "': " + EC.message());
  return Out;
}

Expected<uint64_t> LtoObjective::link(size_t Program,
                                      ArrayRef<CompilePolicy> Policies,
                                      bool Stock) const {
  const ProgramState &St = Programs[Program];
  std::vector<std::string> Bitcode;
  std::vector<const ModuleDecisions *> Fixed;
  for (size_t I = 0; I < St.Slots.size(); ++I) {
    Expected<std::string> Bc =
        compileStep(St.Slots[I].Module, Policies[I], Stock);
    if (!Bc)
      return Bc.takeError();
    Bitcode.push_back(std::move(*Bc));
    Fixed.push_back(Policies[I].Fixed.get());
  }
  const std::string Flag = getLtoFlag(Setup.Mode);
  const std::string Decisions = Stock ? "" : printDecisions(Fixed);
  std::string Key = Flag + "\n" + (Stock ? "stock" : Base.getKey()) + "\n" +
                    Setup.Link + "\n" + Decisions;
  for (const std::string &B : Bitcode)
    Key += "\n" + B;
  Key = md5Hex(Key);
  auto Known = Linked.find(Key);
  if (Known != Linked.end())
    return Known->second;

  // The link's directory is the same for every link of the program, so
  // that the paths lld names modules by (and its cache keys) stay.
  SmallString<256> Dir(Setup.WorkDir);
  sys::path::append(Dir, "link", std::to_string(Program));
  const std::string Objs = (Dir + "/objects").str();
  const std::string Program_ = (Dir + "/program").str();
  if (std::error_code EC = sys::fs::create_directories(Objs))
    return makeError(Objs + ": " + EC.message());
  for (size_t I = 0; I < St.Slots.size(); ++I) {
    // Named as the module, which a corpus names as its object.
    StringRef Name = S.modules()[St.Slots[I].Module].Name;
    const std::string To =
        Objs + "/" + Name.str() + (Name.ends_with(".o") ? "" : ".o");
    if (std::error_code EC =
            sys::fs::create_directories(sys::path::parent_path(To)))
      return makeError(sys::path::parent_path(To) + ": " + EC.message());
    if (Error E = copyFileAtomically(Bitcode[I], To))
      return E;
  }
  sys::fs::remove(Program_);
  std::string Flags = Flag + " -fuse-ld=lld";
  if (!Stock) {
    const std::string File = (Dir + "/decisions").str();
    if (Error E = writeFileAtomically(File, Decisions))
      return E;
    CompilePolicy Q = Base;
    Q.DecisionsPath = File;
    Expected<std::vector<std::string>> Args = Q.getLinkerArgs();
    if (!Args)
      return Args.takeError();
    Flags += " --ld-path=" + Setup.LdPath;
    for (const std::string &A : *Args)
      Flags += " " + A;
  }
  if (Setup.Mode == LtoMode::Thin) {
    SmallString<256> Cache(Setup.WorkDir);
    // One cache per model: lld's keys do not name the plugin's options.
    sys::path::append(Cache, Stock ? std::string("cache-stock")
                                   : "cache-" + md5Hex(Base.getKey()));
    Flags += " -Wl,--thinlto-cache-dir=" + std::string(Cache);
  }
  ++Links;
  const std::string Log = (Dir + "/link.log").str();
  std::vector<std::string> Argv = {"env", "MLGO_OBJECTS=" + Objs,
                                   "MLGO_PROGRAM=" + Program_,
                                   "MLGO_LTO_FLAGS=" + Flags};
  llvm::append_range(Argv, Setup.LinkEnv);
  llvm::append_range(Argv, std::vector<std::string>{"sh", "-c", Setup.Link});
  if (Error E = runLogged(Argv, Log, Setup.TimeoutSeconds, Setup.LinkSource))
    return E;
  if (!sys::fs::exists(Program_))
    return makeError(Setup.LinkSource + " wrote no $MLGO_PROGRAM (" + Program_ +
                     "; " + Log + "):\n" + readTail(Log, 20));
  Expected<uint64_t> Text = getTextSize(Program_);
  if (!Text)
    return Text.takeError();
  Linked[Key] = *Text;
  return *Text;
}

} // namespace mlgo
