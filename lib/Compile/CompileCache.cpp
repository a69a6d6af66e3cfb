//===- lib/Compile/CompileCache.cpp - Compile results kept on disk
//---------===//
//
// The file format is in mlgo/Compile/CompileCache.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Compile/CompileCache.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>

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

Error CompileCache::readLine(StringRef Line, const LineLocation &Where) {
  SmallVector<StringRef, 4> F;
  Line.split(F, '\t');
  if (!isKey(F[0]))
    return Where.malformed();
  Entry E;
  if (F.size() == 3 && F[1] == "error") {
    E.Error = F[2].str();
    Map[F[0]] = E;
    return Error::success();
  }
  if ((F.size() != 4 && F.size() != 5) || F[1].getAsInteger(10, E.TextSize) ||
      F[2].getAsInteger(10, E.Decisions) || F[3].getAsDouble(E.Seconds) ||
      (F.size() == 5 && !parseGrouped(F[4], E.Grouped)))
    return Where.malformed();
  E.GroupedKnown = F.size() == 5;
  E.Ok = true;
  Map[F[0]] = E;
  return Error::success();
}

Expected<uint64_t> CompileCache::read(StringRef Text, StringRef Name) {
  return LineFile::parse(Text, Name,
                         [&](StringRef Line, const LineLocation &Where) {
                           return readLine(Line, Where);
                         });
}

Error CompileCache::open(StringRef Path) {
  return File.open(Path, [&](StringRef Line, const LineLocation &Where) {
    return readLine(Line, Where);
  });
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
  return File.append(OS.str());
}

Error SiteCache::readLine(StringRef Line, const LineLocation &Where) {
  SmallVector<StringRef, 16> F;
  Line.split(F, '\t');
  uint32_t N = 0;
  if (F.size() < 2 || !isKey(F[0]) || F[1].getAsInteger(10, N) ||
      F.size() != size_t(N) + 2)
    return Where.malformed();
  std::vector<DecidedSite> Sites(N);
  for (uint32_t I = 0; I < N; ++I) {
    SmallVector<StringRef, 6> G;
    F[I + 2].split(G, ' ');
    DecidedSite &S = Sites[I];
    unsigned Flags = 0;
    if ((G.size() != 5 && G.size() != 6) || !decodeName(G[0], S.Site.Caller) ||
        !decodeName(G[1], S.Site.Callee) ||
        G[2].getAsInteger(10, S.Site.Ordinal) || G[3].getAsInteger(10, Flags) ||
        Flags > 3)
      return Where.malformed();
    S.Site.Inline = Flags & 1;
    S.Fixed = Flags & 2;
    auto ReadFloat = [](StringRef Field, float &V) {
      std::string Text = Field.str();
      char *End = nullptr;
      V = std::strtof(Text.c_str(), &End);
      return End == Text.c_str() + Text.size();
    };
    if (!ReadFloat(G[4], S.Logit) ||
        (G.size() == 6 && !ReadFloat(G[5], S.Score)))
      return Where.malformed();
  }
  Map[F[0]] = std::move(Sites);
  return Error::success();
}

Expected<uint64_t> SiteCache::read(StringRef Text, StringRef Name) {
  return LineFile::parse(Text, Name,
                         [&](StringRef Line, const LineLocation &Where) {
                           return readLine(Line, Where);
                         });
}

Error SiteCache::open(StringRef Path) {
  return File.open(Path, [&](StringRef Line, const LineLocation &Where) {
    return readLine(Line, Where);
  });
}

const std::vector<DecidedSite> *SiteCache::lookup(StringRef Key) const {
  auto It = Map.find(Key);
  return It == Map.end() ? nullptr : &It->second;
}

Error SiteCache::insert(StringRef Key, std::vector<DecidedSite> Sites) {
  std::string Line;
  raw_string_ostream OS(Line);
  OS << Key << '\t' << Sites.size();
  for (const DecidedSite &S : Sites) {
    OS << '\t' << encodeName(S.Site.Caller) << ' ' << encodeName(S.Site.Callee)
       << ' ' << S.Site.Ordinal << ' ' << (S.Site.Inline | S.Fixed << 1) << ' '
       << format("%a", double(S.Logit));
    if (!std::isnan(S.Score))
      OS << ' ' << format("%a", double(S.Score));
  }
  Map[Key] = std::move(Sites);
  return File.append(OS.str());
}

} // namespace mlgo
