//===- lib/Train/CompileCache.cpp - Compile results kept on disk ---------===//
//
// The file format is in mlgo/Train/CompileCache.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Train/CompileCache.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstdlib>

#include <sys/file.h>
#include <unistd.h>

using namespace llvm;

namespace mlgo {

/// Whether \p Field is a key: 32 lowercase hex digits (an MD5).
static bool isKey(StringRef Field) {
  return Field.size() == 32 && llvm::all_of(Field, [](char C) {
           return isDigit(C) || (C >= 'a' && C <= 'f');
         });
}

/// The <grouped> field; false when it is malformed.
static bool parseGrouped(StringRef Field, std::vector<GroupedSection> &Out) {
  if (Field == "-")
    return true;
  SmallVector<StringRef, 16> Items;
  Field.split(Items, ',');
  for (StringRef Item : Items) {
    auto [Hash, Bytes] = Item.split(':');
    GroupedSection &G = Out.emplace_back();
    if (Hash.size() != 16 || Hash.getAsInteger(16, G.first) ||
        Bytes.getAsInteger(10, G.second))
      return false;
  }
  return true;
}

/// The length of a line's checksum field: '\t' '#' <8 hex digits>.
static constexpr size_t ChecksumField = 10;

/// \p Line (without its '\n') as written: with the CRC-32 of its bytes as a
/// last field, and the '\n'.
static std::string withChecksum(StringRef Line) {
  std::string Out;
  raw_string_ostream(Out) << Line << "\t#"
                          << format_hex_no_prefix(
                                 crc32(arrayRefFromStringRef(Line)), 8)
                          << '\n';
  return Out;
}

/// Passes each complete line of \p Text (a torn last line is left out),
/// its checksum field checked and removed, to \p OnLine with the error a
/// malformed line is reported as ("NAME: line N (byte B): malformed line
/// '...'", at most 80 bytes of it shown); returns the bytes the complete
/// lines take, or the first error. Lines of earlier versions have no
/// checksum and are read as they are.
static Expected<uint64_t>
forEachLine(StringRef Text, StringRef Name,
            function_ref<Error(StringRef Line, function_ref<Error()> Malformed)>
                OnLine) {
  uint64_t CompleteBytes = 0; // up to the last '\n'
  for (size_t LineNo = 1; !Text.empty(); ++LineNo) {
    auto [Line, Rest] = Text.split('\n');
    bool Complete = Text.size() > Line.size();
    Text = Rest;
    if (!Complete)
      break;
    const uint64_t LineStart = CompleteBytes;
    CompleteBytes += Line.size() + 1;
    auto Malformed = [&, Line = Line]() -> Error {
      std::string Shown = Line.take_front(80).str();
      if (Line.size() > 80)
        Shown += "...";
      return makeError(Name + ": line " + Twine(LineNo) + " (byte " +
                       Twine(LineStart) + "): malformed line '" + Shown + "'");
    };
    // A line whose bytes changed after it was written (the disk, an
    // editor) would otherwise be read as a well-formed other result when
    // the change leaves it well-formed, e.g. a digit for another.
    if (Line.size() >= ChecksumField &&
        Line.substr(Line.size() - ChecksumField, 2) == "\t#") {
      StringRef Content = Line.drop_back(ChecksumField);
      uint32_t Sum = 0;
      if (Line.take_back(8).getAsInteger(16, Sum) ||
          Sum != crc32(arrayRefFromStringRef(Content)))
        return makeError(Name + ": line " + Twine(LineNo) + " (byte " +
                         Twine(LineStart) +
                         "): checksum mismatch: the line changed after it "
                         "was written; remove it to compile it again");
      Line = Content;
    }
    if (Error E = OnLine(Line, Malformed))
      return E;
  }
  return CompleteBytes;
}

Expected<uint64_t> CompileCache::read(StringRef Text, StringRef Name) {
  return forEachLine(
      Text, Name, [&](StringRef Line, function_ref<Error()> Malformed) -> Error {
        SmallVector<StringRef, 4> F;
        Line.split(F, '\t');
        if (!isKey(F[0]))
          return Malformed();
        Entry E;
        if (F.size() == 3 && F[1] == "error") {
          E.Error = F[2].str();
          Map[F[0]] = E;
          return Error::success();
        }
        if ((F.size() != 4 && F.size() != 5) ||
            F[1].getAsInteger(10, E.TextSize) ||
            F[2].getAsInteger(10, E.Decisions) ||
            F[3].getAsDouble(E.Seconds) ||
            (F.size() == 5 && !parseGrouped(F[4], E.Grouped)))
          return Malformed();
        E.GroupedKnown = F.size() == 5;
        E.Ok = true;
        Map[F[0]] = E;
        return Error::success();
      });
}

/// Opens \p Path for appending, locks it (one run per work directory: two
/// would append each other's results and cut each other's lines), and has
/// \p Read parse the text already in it (returning how many bytes its
/// complete lines take); a torn last line (no '\n', from kill -9) is cut
/// off, or the next line would be appended to it and make one malformed
/// line of the two.
Error LineFile::open(StringRef Path,
                     function_ref<Expected<uint64_t>(StringRef Text)> Read) {
  close();
  this->Path = Path.str();
  if (std::error_code EC = sys::fs::openFileForWrite(
          Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return makeError(Path + ": " + EC.message());
  // The lock goes with the descriptor: kill -9 releases it.
  while (::flock(FD, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR)
      continue;
    std::error_code EC(errno, std::generic_category());
    close();
    if (EC == std::errc::operation_would_block)
      return makeError(Path + ": in use by another mlgo process (one run "
                              "per work directory at a time)");
    return makeError(Path + ": cannot lock: " + EC.message());
  }
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  StringRef Text = (*Buf)->getBuffer();
  bool Torn = !Text.empty() && !Text.ends_with("\n");
  Expected<uint64_t> Complete = Read(Text);
  if (!Complete)
    return Complete.takeError();
  uint64_t CompleteBytes = *Complete;
  if (Torn)
    if (std::error_code EC = sys::fs::resize_file(FD, CompleteBytes))
      return makeError(Path +
                       ": cannot cut the torn last line: " + EC.message());
  Size = CompleteBytes;
  return Error::success();
}

Error LineFile::append(StringRef Line) {
  assert(FD >= 0 && "append to a file that is not open");
  StringRef Left = Line;
  while (!Left.empty()) {
    ssize_t N = ::write(FD, Left.data(), Left.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      std::error_code EC(N < 0 ? errno : ENOSPC, std::generic_category());
      // Leave no part of the line behind: a later append after it would
      // make one malformed line of the two.
      if (std::error_code Cut = sys::fs::resize_file(FD, Size))
        return makeError(Path + ": cannot append a result: " + EC.message() +
                         " (and cannot cut the partial line: " + Cut.message() +
                         ")");
      return makeError(Path + ": cannot append a result: " + EC.message());
    }
    Left = Left.drop_front(N);
  }
  Size += Line.size();
  return Error::success();
}

void LineFile::close() {
  if (FD >= 0)
    ::close(FD);
  FD = -1;
}

Error CompileCache::open(StringRef Path) {
  return File.open(Path, [&](StringRef Text) { return read(Text, Path); });
}

const CompileCache::Entry *CompileCache::lookup(StringRef Key) const {
  auto It = Map.find(Key);
  return It == Map.end() ? nullptr : &It->second;
}

Error CompileCache::insert(StringRef Key, const Entry &E) {
  Map[Key] = E;
  if (E.Transient)
    return Error::success();
  std::string Line;
  raw_string_ostream OS(Line);
  if (E.Ok) {
    OS << Key << '\t' << E.TextSize << '\t' << E.Decisions << '\t'
       << format("%.4f", E.Seconds) << '\t';
    if (E.Grouped.empty())
      OS << '-';
    for (size_t I = 0; I < E.Grouped.size(); ++I)
      OS << (I ? "," : "") << format_hex_no_prefix(E.Grouped[I].first, 16)
         << ':' << E.Grouped[I].second;
  } else {
    std::string Msg = E.Error;
    for (char &C : Msg)
      if (C == '\t' || C == '\n')
        C = ' ';
    OS << Key << '\t' << "error" << '\t' << Msg;
  }
  return File.append(withChecksum(OS.str()));
}

Expected<uint64_t> SiteCache::read(StringRef Text, StringRef Name) {
  return forEachLine(
      Text, Name, [&](StringRef Line, function_ref<Error()> Malformed) -> Error {
        SmallVector<StringRef, 16> F;
        Line.split(F, '\t');
        uint32_t N = 0;
        if (F.size() < 2 || !isKey(F[0]) || F[1].getAsInteger(10, N) ||
            F.size() != size_t(N) + 2)
          return Malformed();
        std::vector<DecidedSite> Sites(N);
        for (uint32_t I = 0; I < N; ++I) {
          SmallVector<StringRef, 5> G;
          F[I + 2].split(G, ' ');
          DecidedSite &S = Sites[I];
          unsigned Flags = 0;
          if (G.size() != 5 || !decodeName(G[0], S.Site.Caller) ||
              !decodeName(G[1], S.Site.Callee) ||
              G[2].getAsInteger(10, S.Site.Ordinal) ||
              G[3].getAsInteger(10, Flags) || Flags > 3)
            return Malformed();
          S.Site.Inline = Flags & 1;
          S.Fixed = Flags & 2;
          std::string Logit = G[4].str();
          char *End = nullptr;
          S.Logit = std::strtof(Logit.c_str(), &End);
          if (End != Logit.c_str() + Logit.size())
            return Malformed();
        }
        Map[F[0]] = std::move(Sites);
        return Error::success();
      });
}

Error SiteCache::open(StringRef Path) {
  return File.open(Path, [&](StringRef Text) { return read(Text, Path); });
}

const std::vector<DecidedSite> *SiteCache::lookup(StringRef Key) const {
  auto It = Map.find(Key);
  return It == Map.end() ? nullptr : &It->second;
}

Error SiteCache::insert(StringRef Key, std::vector<DecidedSite> Sites) {
  std::string Line;
  raw_string_ostream OS(Line);
  OS << Key << '\t' << Sites.size();
  for (const DecidedSite &S : Sites)
    OS << '\t' << encodeName(S.Site.Caller) << ' ' << encodeName(S.Site.Callee)
       << ' ' << S.Site.Ordinal << ' ' << (S.Site.Inline | S.Fixed << 1) << ' '
       << format("%a", double(S.Logit));
  Map[Key] = std::move(Sites);
  return File.append(withChecksum(OS.str()));
}

} // namespace mlgo
