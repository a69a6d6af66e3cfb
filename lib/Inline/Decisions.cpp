//===- lib/Inline/Decisions.cpp - Inlining decisions per call site --------===//
//
// Reading, writing and looking up decisions files (mlgo/Inline/Decisions.h,
// docs/decisions.md).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Inline/Decisions.h"

#include "mlgo/Config.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace mlgo {

//===-- Names and paths ---------------------------------------------------===//

static bool needsEscape(unsigned char C) {
  return C <= ' ' || C >= 0x7f || C == '%' || C == '*';
}

std::string encodeName(StringRef Name) {
  std::string Out;
  for (unsigned char C : Name) {
    if (!needsEscape(C)) {
      Out += C;
      continue;
    }
    Out += '%';
    Out += hexdigit(C >> 4, /*LowerCase=*/false);
    Out += hexdigit(C & 15, /*LowerCase=*/false);
  }
  return Out;
}

bool decodeName(StringRef Field, std::string &Name) {
  Name.clear();
  for (size_t I = 0; I < Field.size(); ++I) {
    if (Field[I] != '%') {
      Name += Field[I];
      continue;
    }
    unsigned Hi = -1U, Lo = -1U;
    if (I + 2 < Field.size()) {
      Hi = hexDigitValue(Field[I + 1]);
      Lo = hexDigitValue(Field[I + 2]);
    }
    if (Hi == -1U || Lo == -1U)
      return false;
    Name += char(Hi << 4 | Lo);
    I += 2;
  }
  return true;
}

/// The name \p Field stands for, or why it stands for none.
static Expected<std::string> decodeField(StringRef Field) {
  std::string Name;
  if (!decodeName(Field, Name))
    return makeError("'%' must be followed by two hex digits in '" + Field +
                     "'");
  return Name;
}

std::string normalizeSourcePath(StringRef Path) {
  SmallString<256> P(Path);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true, sys::path::Style::posix);
  return std::string(P);
}

std::string resolveSourcePath(StringRef SourcePath, StringRef CompileDir) {
  if (sys::path::is_absolute(SourcePath, sys::path::Style::posix) ||
      CompileDir.empty())
    return normalizeSourcePath(SourcePath);
  SmallString<256> P(CompileDir);
  sys::path::append(P, sys::path::Style::posix, SourcePath);
  return normalizeSourcePath(P);
}

bool sourceMatchesKey(StringRef SourcePath, StringRef Key) {
  if (Key.empty() || !SourcePath.ends_with(Key))
    return false;
  if (SourcePath.size() == Key.size())
    return true;
  return SourcePath[SourcePath.size() - Key.size() - 1] == '/';
}

//===-- Entries -----------------------------------------------------------===//

static bool entryBefore(const SiteDecision &A, const SiteDecision &B) {
  return std::make_tuple(!A.isGroup(), StringRef(A.Caller), StringRef(A.Callee),
                         A.Ordinal) <
         std::make_tuple(!B.isGroup(), StringRef(B.Caller), StringRef(B.Callee),
                         B.Ordinal);
}

static bool sameSite(const SiteDecision &A, const SiteDecision &B) {
  return A.Caller == B.Caller && A.Callee == B.Callee &&
         (A.isGroup() || A.Ordinal == B.Ordinal);
}

static bool evictionBefore(const EvictDecision &A, const EvictDecision &B) {
  return std::make_tuple(StringRef(A.Function), A.Ordinal) <
         std::make_tuple(StringRef(B.Function), B.Ordinal);
}

void ModuleDecisions::sort() {
  llvm::stable_sort(Sites, entryBefore);
  llvm::stable_sort(Evictions, evictionBefore);
}

void ModuleDecisions::setEviction(const EvictDecision &D) {
  for (EvictDecision &E : Evictions)
    if (E.Function == D.Function && E.Ordinal == D.Ordinal) {
      E = D;
      return;
    }
  Evictions.push_back(D);
}

std::string ModuleDecisions::printEvictions() const {
  std::vector<EvictDecision> Sorted = Evictions;
  llvm::stable_sort(Sorted, evictionBefore);
  std::string Out;
  for (const EvictDecision &E : Sorted)
    Out += "evict " + encodeName(E.Function) + " " + std::to_string(E.Ordinal) +
           " " + utohexstr(E.Hash, /*LowerCase=*/false, 16) + " " +
           std::to_string(E.Column) + "\n";
  return Out;
}

void ModuleDecisions::set(const SiteDecision &D) {
  for (SiteDecision &S : Sites)
    if (sameSite(S, D)) {
      S.Inline = D.Inline;
      return;
    }
  Sites.push_back(D);
}

std::string ModuleDecisions::printSites() const {
  std::string Out;
  for (const SiteDecision &S : Sites) {
    Out += S.Inline ? "inline " : "no-inline ";
    if (S.isGroup()) {
      Out += "* " + encodeName(S.Callee) + " *\n";
      continue;
    }
    Out += encodeName(S.Caller) + " " + encodeName(S.Callee) + " " +
           std::to_string(S.Ordinal) + "\n";
  }
  return Out;
}

/// The lookup key of a site (\p Caller empty: a callee's group entry).
static std::string siteKey(StringRef Caller, StringRef Callee,
                           uint32_t Ordinal) {
  std::string K;
  K.reserve(Caller.size() + Callee.size() + 12);
  K += Caller;
  K += '\0';
  K += Callee;
  K += '\0';
  if (!Caller.empty())
    K += std::to_string(Ordinal);
  return K;
}

DecisionTable::DecisionTable(std::shared_ptr<const ModuleDecisions> E)
    : Entries(std::move(E)), Used(Entries->Sites.size()) {
  for (size_t I = 0; I < Entries->Sites.size(); ++I) {
    const SiteDecision &S = Entries->Sites[I];
    Index.try_emplace(siteKey(S.Caller, S.Callee, S.Ordinal), I);
  }
}

std::optional<bool> DecisionTable::lookup(StringRef Caller, StringRef Callee,
                                          uint32_t Ordinal) {
  if (Caller.empty() || Callee.empty())
    return std::nullopt;
  auto It = Index.find(siteKey(Caller, Callee, Ordinal));
  if (It == Index.end())
    It = Index.find(siteKey("", Callee, 0));
  if (It == Index.end())
    return std::nullopt;
  Used[It->second] = true;
  return Entries->Sites[It->second].Inline;
}

std::vector<SiteDecision> DecisionTable::getUnused() const {
  std::vector<SiteDecision> Out;
  for (size_t I = 0; I < Used.size(); ++I)
    if (!Used[I])
      Out.push_back(Entries->Sites[I]);
  return Out;
}

std::vector<SiteDecision> DecisionTable::getUsed() const {
  std::vector<SiteDecision> Out;
  for (size_t I = 0; I < Used.size(); ++I)
    if (Used[I])
      Out.push_back(Entries->Sites[I]);
  return Out;
}

StringRef getCompileStepName(StringRef Name) {
  for (;;) {
    size_t Dot = Name.rfind('.');
    if (Dot == StringRef::npos || Dot == 0 || Dot + 1 == Name.size() ||
        !llvm::all_of(Name.drop_front(Dot + 1), isDigit))
      break;
    Name = Name.take_front(Dot);
    Name.consume_back(".llvm");
  }
  return Name;
}

/// The lookup key of an eviction decision.
static std::string evictionKey(StringRef Function, uint32_t Ordinal) {
  return (Function + Twine('\0') + Twine(Ordinal)).str();
}

EvictionTable::EvictionTable(std::shared_ptr<const ModuleDecisions> E)
    : Entries(std::move(E)), Used(Entries->Evictions.size()) {
  for (size_t I = 0; I < Entries->Evictions.size(); ++I) {
    const EvictDecision &D = Entries->Evictions[I];
    Index.try_emplace(evictionKey(D.Function, D.Ordinal), I);
  }
}

std::optional<uint32_t> EvictionTable::lookup(StringRef Function,
                                              uint32_t Ordinal, uint64_t Hash) {
  if (const EvictDecision *D = lookupEntry(Function, Ordinal, Hash))
    return D->Column;
  return std::nullopt;
}

const EvictDecision *EvictionTable::lookupEntry(StringRef Function,
                                                uint32_t Ordinal,
                                                uint64_t Hash) {
  auto It = Index.find(evictionKey(Function, Ordinal));
  if (It == Index.end())
    return nullptr;
  const EvictDecision &D = Entries->Evictions[It->second];
  if (D.Hash != Hash)
    return nullptr;
  Used[It->second] = true;
  return &D;
}

std::vector<EvictDecision> EvictionTable::getUnused() const {
  std::vector<EvictDecision> Out;
  for (size_t I = 0; I < Used.size(); ++I)
    if (!Used[I])
      Out.push_back(Entries->Evictions[I]);
  return Out;
}

//===-- Files -------------------------------------------------------------===//

Expected<DecisionsFile> DecisionsFile::parse(StringRef Text, StringRef Name) {
  DecisionsFile F;
  bool SawHeader = false;
  ModuleDecisions *Cur = nullptr;
  StringMap<unsigned> ModuleLines;
  StringMap<unsigned> SiteLines;
  unsigned LineNo = 0, ProgramLine = 0;
  unsigned Version = 0, EndLine = 0;
  // Entries (inline, no-inline, evict lines), for the end line's check.
  size_t Entries = 0;
  auto Fail = [&](const Twine &Message) {
    return makeError(Name + ":" + Twine(LineNo) + ": " + Message);
  };
  while (!Text.empty()) {
    StringRef Line;
    std::tie(Line, Text) = Text.split('\n');
    ++LineNo;
    // A CR would end up in the last field (version '1\r', a name): say
    // what it is instead.
    if (Line.ends_with("\r"))
      return Fail("the line ends in CR LF (DOS line ends); decisions files "
                  "have LF line ends (convert it with dos2unix)");
    if (Line.empty() || Line.starts_with("#"))
      continue;
    if (EndLine)
      return Fail("a line after the end line (line " + Twine(EndLine) +
                  "; two files joined?)");
    SmallVector<StringRef, 4> Fields;
    Line.split(Fields, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
    if (!SawHeader) {
      if (Fields.size() != 2 || Fields[0] != "mlgo-decisions")
        return Fail(
            "expected 'mlgo-decisions " + Twine(DecisionsFormatVersion) +
            "' (the first line of a decisions file), found '" + Line + "'");
      if (Fields[1] != "1" && Fields[1] != "2")
        return Fail("format version '" + Fields[1] +
                    "' is not supported (this mlgo reads versions 1 and 2)");
      Version = Fields[1] == "1" ? 1 : 2;
      SawHeader = true;
      continue;
    }
    StringRef Kind = Fields[0];
    if (Kind == "end" && Version >= 2) {
      size_t Said;
      if (Fields.size() != 2 || Fields[1].getAsInteger(10, Said))
        return Fail("expected 'end <entries>'");
      if (Said != Entries)
        return Fail("the end line counts " + Twine(Said) +
                    " entries, the file has " + Twine(Entries) +
                    " (lines lost, or an edit: after an edit, make it 'end " +
                    Twine(Entries) + "')");
      EndLine = LineNo;
      continue;
    }
    if (Kind == "evict" || Kind == "inline" || Kind == "no-inline")
      ++Entries;
    if (Kind == "meta") {
      if (Cur)
        return Fail("metadata must come before the first 'module' or "
                    "'program' line");
      if (Fields.size() < 3 || Fields[1].empty())
        return Fail("expected 'meta <key> <value>'");
      StringRef Value = Line.drop_front(Kind.size() + Fields[1].size() + 2);
      if (Fields[1] == "objective" && Value != "size" && Value != "speed")
        return Fail("objective '" + Value + "' is neither 'size' nor 'speed'");
      F.Meta.push_back({Fields[1].str(), Value.str()});
      F.MetaLines[Fields[1]] = LineNo;
      continue;
    }
    if (Kind == "program") {
      if (Fields.size() != 1)
        return Fail("expected 'program' alone on its line");
      if (F.Program)
        return Fail("a second 'program' line (the first on line " +
                    Twine(ProgramLine) + ")");
      if (!F.Modules.empty())
        return Fail("the 'program' entries must come before the first "
                    "'module' line");
      if (F.isForSpeed())
        return Fail("a 'program' section in a file for speed; it holds "
                    "inlining entries of files for size");
      ProgramLine = LineNo;
      F.Program = std::make_shared<ModuleDecisions>();
      Cur = F.Program.get();
      SiteLines.clear();
      continue;
    }
    if (Kind == "module") {
      if (Fields.size() != 2 || Fields[1].empty())
        return Fail("expected 'module <source path>'");
      Expected<std::string> Key = decodeField(Fields[1]);
      if (!Key)
        return Fail(toString(Key.takeError()));
      auto [It, New] = ModuleLines.try_emplace(*Key, LineNo);
      if (!New)
        return Fail("module '" + *Key + "' is listed twice (first on line " +
                    Twine(It->second) + ")");
      F.Modules.push_back(std::make_shared<ModuleDecisions>());
      Cur = F.Modules.back().get();
      Cur->Module = std::move(*Key);
      SiteLines.clear();
      continue;
    }
    if (Kind == "evict") {
      if (!Cur)
        return Fail("a decision before the first 'module' line");
      if (Cur == F.Program.get())
        return Fail("an eviction entry in the 'program' section");
      if (!F.isForSpeed())
        return Fail("an eviction entry in a file for size; eviction entries "
                    "belong to files for speed ('meta objective speed')");
      if (Fields.size() != 5 || Fields[1].empty())
        return Fail("expected 'evict <function> <ordinal> <hash> <column>'");
      EvictDecision D;
      Expected<std::string> Function = decodeField(Fields[1]);
      if (!Function)
        return Fail(toString(Function.takeError()));
      D.Function = std::move(*Function);
      if (Fields[2].getAsInteger(10, D.Ordinal))
        return Fail("ordinal '" + Fields[2] +
                    "' is not a number from 0 to 4294967295");
      if (Fields[3].size() != 16 || Fields[3].getAsInteger(16, D.Hash))
        return Fail("hash '" + Fields[3] + "' is not 16 hex digits");
      if (Fields[4].getAsInteger(10, D.Column) || D.Column > 32)
        return Fail("column '" + Fields[4] + "' is not a number from 0 to 32");
      auto [It, New] = SiteLines.try_emplace(
          "evict\0" + evictionKey(D.Function, D.Ordinal), LineNo);
      if (!New)
        return Fail("eviction decision " + Twine(D.Ordinal) + " of '" +
                    D.Function + "' is decided twice (first on line " +
                    Twine(It->second) + ")");
      D.Line = LineNo;
      Cur->Evictions.push_back(std::move(D));
      continue;
    }
    if (Kind != "inline" && Kind != "no-inline")
      return Fail(
          "unknown line '" + Kind +
          "'; expected meta, program, module, inline, no-inline or evict");
    if (!Cur)
      return Fail("a decision before the first 'module' line");
    if (Fields.size() != 4 || Fields[1].empty() || Fields[2].empty() ||
        Fields[3].empty())
      return Fail("expected '" + Kind + " <caller> <callee> <ordinal>' or '" +
                  Kind + " * <callee> *'");
    SiteDecision D;
    D.Inline = Kind == "inline";
    D.Line = LineNo;
    bool Group = Fields[1] == "*";
    if (Group != (Fields[3] == "*"))
      return Fail("a group entry has '*' as both caller and ordinal");
    if (Group && Cur == F.Program.get())
      return Fail("a group entry in the 'program' section; it holds site "
                  "entries only");
    Expected<std::string> Callee = decodeField(Fields[2]);
    if (!Callee)
      return Fail(toString(Callee.takeError()));
    D.Callee = std::move(*Callee);
    if (!Group) {
      Expected<std::string> Caller = decodeField(Fields[1]);
      if (!Caller)
        return Fail(toString(Caller.takeError()));
      D.Caller = std::move(*Caller);
      if (Fields[3].getAsInteger(10, D.Ordinal))
        return Fail("ordinal '" + Fields[3] +
                    "' is not a number from 0 to 4294967295");
    }
    auto [It, New] =
        SiteLines.try_emplace(siteKey(D.Caller, D.Callee, D.Ordinal), LineNo);
    if (!New)
      return Fail(Twine(Group ? "the group of callee '" + D.Callee + "'"
                              : "call site '" + D.Caller + "' -> '" + D.Callee +
                                    "' #" + Twine(D.Ordinal)) +
                  " is decided twice (first on line " + Twine(It->second) +
                  ")");
    Cur->Sites.push_back(std::move(D));
  }
  if (!SawHeader)
    return makeError(Name + ": empty; expected 'mlgo-decisions " +
                     Twine(DecisionsFormatVersion) + "'");
  if (Version >= 2 && !EndLine)
    return makeError(Name + ": no end line after its " + Twine(Entries) +
                     " entries: the file was cut short (a version 2 file "
                     "ends with 'end <entries>')");
  llvm::sort(F.Modules, [](const auto &A, const auto &B) {
    return A->Module < B->Module;
  });
  return F;
}

Expected<DecisionsFile> DecisionsFile::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  return parse((*Buf)->getBuffer(), Path);
}

std::string DecisionsFile::print() const {
  std::string Out = isForSpeed() ? "# mlgo decisions for speed (format: "
                                   "docs/decisions.md)\n"
                                 : "# mlgo inlining decisions (format: "
                                   "docs/decisions.md)\n";
  Out += "mlgo-decisions " + std::to_string(DecisionsFormatVersion) + "\n";
  size_t Entries = 0;
  for (const auto &[Key, Value] : Meta)
    Out += "meta " + Key + " " + Value + "\n";
  if (Program) {
    ModuleDecisions Sorted = *Program;
    Sorted.sort();
    Out += "\nprogram\n" + Sorted.printSites();
    Entries += Sorted.Sites.size();
  }
  for (const auto &M : Modules) {
    ModuleDecisions Sorted = *M;
    Sorted.sort();
    Out += "\nmodule " + encodeName(M->Module) + "\n" + Sorted.printSites() +
           Sorted.printEvictions();
    Entries += Sorted.Sites.size() + Sorted.Evictions.size();
  }
  Out += "\nend " + std::to_string(Entries) + "\n";
  return Out;
}

StringRef DecisionsFile::getMeta(StringRef Key) const {
  for (const auto &[K, V] : Meta)
    if (K == Key)
      return V;
  return "";
}

void DecisionsFile::setMeta(StringRef Key, StringRef Value) {
  for (auto &[K, V] : Meta)
    if (K == Key) {
      V = Value.str();
      return;
    }
  Meta.push_back({Key.str(), Value.str()});
}

std::shared_ptr<const ModuleDecisions>
DecisionsFile::find(StringRef SourcePath) const {
  std::string Source = normalizeSourcePath(SourcePath);
  std::shared_ptr<const ModuleDecisions> Best;
  for (const auto &M : Modules)
    if (sourceMatchesKey(Source, M->Module) &&
        (!Best || M->Module.size() > Best->Module.size()))
      Best = M;
  return Best;
}

void DecisionsFile::addModule(ModuleDecisions M) {
  auto It =
      llvm::lower_bound(Modules, M.Module, [](const auto &A, StringRef K) {
        return StringRef(A->Module) < K;
      });
  if (It != Modules.end() && (*It)->Module == M.Module) {
    **It = std::move(M);
    return;
  }
  Modules.insert(It, std::make_shared<ModuleDecisions>(std::move(M)));
}

ModuleDecisions fixAll(StringRef Module, ArrayRef<DecidedSite> T) {
  ModuleDecisions Out;
  Out.Module = Module.str();
  for (const DecidedSite &S : T)
    Out.Sites.push_back(S.Site);
  Out.sort();
  return Out;
}

//===-- The eviction model of a file for speed ----------------------------===//

Expected<std::string> getEvictionModelMeta(StringRef ModelPath) {
  if (ModelPath.empty())
    return std::string("embedded");
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(ModelPath);
  if (!Buf)
    return Buf.takeError();
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef((*Buf)->getBuffer()));
  return ("file " + ModelPath + " (md5 " + toHex(R, /*LowerCase=*/true) + ")")
      .str();
}

StringRef getEmbeddedEvictionModelMD5() {
  for (const config::EmbeddedModel &M : config::EmbeddedModels)
    if (StringRef(M.Name) == "regalloc-evict")
      return M.MD5;
  llvm_unreachable("the build embeds the eviction model");
}

/// The MD5 in `model` metadata \p Meta (`file <path> (md5 <hex>)`), or ""
/// for the embedded model (`embedded`, or no metadata).
static StringRef getModelDigest(StringRef Meta) {
  if (!Meta.consume_back(")"))
    return "";
  size_t At = Meta.rfind(" (md5 ");
  return At == StringRef::npos ? StringRef() : Meta.substr(At + 6);
}

/// How an error names the model of `model` metadata \p Meta.
static std::string describeModel(StringRef Meta, StringRef EmbeddedMD5) {
  if (getModelDigest(Meta).empty())
    return ("the embedded eviction model (md5 " + EmbeddedMD5 + ")").str();
  Meta.consume_front("file ");
  return "the eviction model " + Meta.str();
}

Error checkDecisionsModel(const DecisionsFile &F, StringRef FilePath,
                          StringRef ModelPath, StringRef EmbeddedMD5) {
  if (llvm::none_of(F.Modules,
                    [](const auto &M) { return !M->Evictions.empty(); }))
    return Error::success();
  Expected<std::string> Used = getEvictionModelMeta(ModelPath);
  if (!Used)
    return Used.takeError();
  StringRef Tuned = F.getMeta("model");
  auto Digest = [&](StringRef Meta) {
    StringRef D = getModelDigest(Meta);
    return D.empty() ? EmbeddedMD5 : D;
  };
  if (Digest(Tuned) == Digest(*Used))
    return Error::success();
  std::string Hint =
      ModelPath.empty() ? "; build with -mlgo-evict-model=" +
                              Tuned.drop_front(5).rsplit(" (md5 ").first.str()
      : getModelDigest(Tuned).empty() ? "; build without -mlgo-evict-model"
                                      : "";
  // The line of the `meta model` that says which model (none: the
  // embedded one, by default).
  std::string Where = FilePath.str();
  if (unsigned Line = F.getMetaLine("model"))
    Where += ":" + std::to_string(Line);
  return makeError(Where + ": eviction entries tuned on " +
                   describeModel(Tuned, EmbeddedMD5) + " cannot apply with " +
                   describeModel(*Used, EmbeddedMD5) + Hint);
}

} // namespace mlgo
