//===- lib/Teacher/TeacherSet.cpp - The teacher set's text ----------------===//
//
// See mlgo/Teacher/TeacherSet.h (the format) and docs/teacher.md. The writer
// prints every field in one fixed way, so that equal sets are equal bytes
// and the fingerprint (the MD5 of the bytes before the end line) names the
// set; the reader refuses whatever the writer would not write.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Teacher/TeacherSet.h"

#include "mlgo/Inline/Decisions.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

using namespace llvm;

namespace mlgo {

static constexpr StringLiteral Comment =
    "# mlgo teacher set (format: docs/teacher.md)\n";

static std::string md5Hex(StringRef Bytes) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Bytes));
  return std::string(R.digest());
}

/// Everything print() writes before the end line.
static std::string printBody(const TeacherSet &S) {
  std::string Out = Comment.str();
  Out += "mlgo-teacher 1\n";
  for (const auto &[K, V] : S.Meta)
    Out += "meta " + K + " " + V + "\n";
  Out += "features " + std::to_string(S.FeatureNames.size());
  for (const std::string &F : S.FeatureNames)
    Out += " " + encodeName(F);
  Out += "\n";
  for (const TeacherSite &T : S.Sites) {
    Out += "site ";
    Out += T.Program == "*" ? "*" : encodeName(T.Program);
    Out += formatv(" {0} {1} {2} {3} {4:d} {5:d} {6:d} {7:d} {8}",
                   encodeName(T.Module), encodeName(T.Caller),
                   encodeName(T.Callee), T.Ordinal, int(T.Llvm),
                   int(T.ModelAnswer), int(T.Tuned), int(T.Moved), T.Saved)
               .str();
    for (int64_t V : T.Features)
      Out += " " + std::to_string(V);
    Out += "\n";
  }
  return Out;
}

std::string TeacherSet::print() const {
  std::string Body = printBody(*this);
  std::string Md5 = md5Hex(Body);
  return Body + "end " + std::to_string(Sites.size()) + " " + Md5 + "\n";
}

std::string TeacherSet::getFingerprint() const {
  return md5Hex(printBody(*this));
}

StringRef TeacherSet::getMeta(StringRef Key) const {
  for (const auto &[K, V] : Meta)
    if (K == Key)
      return V;
  return "";
}

template <typename T> static bool parseNumber(StringRef Field, T &Out) {
  // Decimal only, as the writer writes them: no sign for unsigned fields,
  // no leading '+', no leading zeros but "0" itself.
  if (Field.empty() || Field.starts_with("+") ||
      (Field.size() > 1 && Field.starts_with("0")) || Field.starts_with("-0"))
    return false;
  return !Field.getAsInteger(10, Out);
}

static bool parseBit(StringRef Field, bool &Out) {
  if (Field != "0" && Field != "1")
    return false;
  Out = Field == "1";
  return true;
}

Expected<TeacherSet> TeacherSet::parse(StringRef Text, StringRef Name) {
  TeacherSet S;
  unsigned LineNo = 0;
  bool SawHeader = false, SawFeatures = false, SawEnd = false;
  size_t Pos = 0;
  auto Fail = [&](const Twine &Msg) {
    return makeError(Name + ":" + Twine(LineNo) + ": " + Msg);
  };
  while (Pos < Text.size()) {
    size_t NL = Text.find('\n', Pos);
    size_t LineEnd = NL == StringRef::npos ? Text.size() : NL;
    StringRef Line = Text.slice(Pos, LineEnd);
    size_t Start = Pos;
    Pos = NL == StringRef::npos ? Text.size() : NL + 1;
    ++LineNo;
    if (SawEnd)
      return Fail("a line after the end line");
    if (Line.ends_with("\r"))
      return Fail("the line ends in \\r\\n (a file converted to DOS line "
                  "ends)");
    if (Line.starts_with("#"))
      continue;
    SmallVector<StringRef, 64> F;
    Line.split(F, ' ');
    if (!SawHeader) {
      if (Line != "mlgo-teacher 1")
        return Fail(
            Line.starts_with("mlgo-teacher ")
                ? "unsupported teacher set version '" + Line.substr(13) +
                      "' (this mlgo reads version 1)"
                : Twine("expected 'mlgo-teacher 1': not a teacher set"));
      SawHeader = true;
      continue;
    }
    if (F[0] == "meta") {
      if (SawFeatures)
        return Fail("a meta line after the features line");
      if (F.size() < 3)
        return Fail("expected 'meta <key> <value>'");
      size_t ValueAt = F[0].size() + 1 + F[1].size() + 1;
      S.Meta.emplace_back(F[1].str(), Line.substr(ValueAt).str());
      continue;
    }
    if (F[0] == "features") {
      size_t N = 0;
      if (SawFeatures)
        return Fail("a second features line");
      if (F.size() < 2 || !parseNumber(F[1], N) || F.size() != N + 2)
        return Fail("expected 'features <count>' and that many names");
      for (size_t I = 2; I < F.size(); ++I) {
        std::string Feature;
        if (!decodeName(F[I], Feature) || Feature.empty())
          return Fail("bad feature name '" + F[I] + "'");
        S.FeatureNames.push_back(std::move(Feature));
      }
      SawFeatures = true;
      continue;
    }
    if (F[0] == "site") {
      if (!SawFeatures)
        return Fail("a site line before the features line");
      const size_t Fixed = 11;
      if (F.size() != Fixed + S.FeatureNames.size())
        return Fail(formatv("expected 'site <program> <module> <caller> "
                            "<callee> <ordinal> <llvm> <model> <tuned> "
                            "<moved> <saved>' and {0} feature values, got {1} "
                            "fields",
                            S.FeatureNames.size(), F.size())
                        .str());
      TeacherSite T;
      if (F[1] == "*")
        T.Program = "*";
      else if (!decodeName(F[1], T.Program))
        return Fail("bad program name '" + F[1] + "'");
      if (!decodeName(F[2], T.Module) || !decodeName(F[3], T.Caller) ||
          !decodeName(F[4], T.Callee))
        return Fail("bad name (a '%' not followed by two hex digits)");
      if (!parseNumber(F[5], T.Ordinal))
        return Fail("bad ordinal '" + F[5] + "'");
      if (!parseBit(F[6], T.Llvm) || !parseBit(F[7], T.ModelAnswer) ||
          !parseBit(F[8], T.Tuned) || !parseBit(F[9], T.Moved))
        return Fail("<llvm> <model> <tuned> <moved> must each be 0 or 1");
      if (!parseNumber(F[10], T.Saved))
        return Fail("bad saved bytes '" + F[10] + "'");
      T.Features.resize(S.FeatureNames.size());
      for (size_t I = 0; I < S.FeatureNames.size(); ++I)
        if (!parseNumber(F[Fixed + I], T.Features[I]))
          return Fail("bad value '" + F[Fixed + I] + "' of feature " +
                      S.FeatureNames[I]);
      S.Sites.push_back(std::move(T));
      continue;
    }
    if (F[0] == "end") {
      size_t N = 0;
      if (F.size() != 3 || !parseNumber(F[1], N) || F[2].size() != 32)
        return Fail("expected 'end <sites> <md5>'");
      if (N != S.Sites.size())
        return Fail(formatv("the end line counts {0} sites, the file has {1}",
                            N, S.Sites.size())
                        .str());
      std::string Md5 = md5Hex(Text.substr(0, Start));
      if (F[2] != Md5)
        return Fail("the end line's fingerprint " + F[2] +
                    " is not the MD5 of the file's bytes, " + Md5 +
                    " (an edit?)");
      SawEnd = true;
      continue;
    }
    return Fail("expected 'meta', 'features', 'site' or 'end', not '" + F[0] +
                "'");
  }
  if (!SawHeader)
    return makeError(Name + ": empty: not a teacher set");
  if (!SawEnd)
    return makeError(Name + ": no end line after " + Twine(S.Sites.size()) +
                     " sites: the file was cut short");
  return S;
}

Expected<TeacherSet> TeacherSet::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  return parse((*B)->getBuffer(), Path);
}

} // namespace mlgo
