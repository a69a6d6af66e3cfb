//===- lib/Teacher/EvictTeacherSet.cpp - The eviction teacher set's text --===//
//
// See mlgo/Teacher/EvictTeacherSet.h (the format) and docs/teacher.md. As
// for the inlining set, the writer prints every field in one way only, so
// that equal sets are equal bytes and the fingerprint names the set, and
// the reader refuses whatever the writer would not write: each number is
// read, printed again and compared with the field.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Teacher/EvictTeacherSet.h"

#include "mlgo/Inline/Decisions.h"
#include "mlgo/Model/Model.h"
#include "mlgo/RegAllocModel/EvictionFeatures.h"
#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

#include <cmath>
#include <cstring>
#include <optional>

using namespace llvm;

namespace mlgo {

static constexpr StringLiteral Comment =
    "# mlgo eviction teacher set (format: docs/teacher.md)\n";

static std::string md5Hex(StringRef Bytes) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Bytes));
  return std::string(R.digest());
}

static std::string formatFloat(float V) {
  if (std::isnan(V))
    return "nan";
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  return formatModelFloat(V);
}

/// Element \p I of a feature's bytes \p Data of type \p T, as written.
static std::string formatElement(const char *Data, TensorType T, size_t I) {
  if (T == TensorType::Float) {
    float V;
    std::memcpy(&V, Data + I * sizeof(V), sizeof(V));
    return formatFloat(V);
  }
  int64_t V;
  std::memcpy(&V, Data + I * sizeof(V), sizeof(V));
  return std::to_string(V);
}

/// Everything print() writes before the end line.
static std::string printBody(const EvictTeacherSet &S) {
  std::string Out = Comment.str();
  Out += EvictTeacherSet::Header.str();
  Out += "\n";
  for (const auto &[K, V] : S.Meta)
    Out += "meta " + K + " " + V + "\n";
  for (const TensorSpec &F : S.Features)
    Out += formatv("feature {0} {1} {2}\n", encodeName(F.name()),
                   toString(F.type()), F.getElementCount())
               .str();
  for (const EvictTeacherDecision &D : S.Decisions) {
    Out += formatv("decision {0} {1} {2} {3} {4} {5} {6:d} {7}",
                   encodeName(D.Module), encodeName(D.Function), D.Ordinal,
                   utohexstr(D.Hash, /*LowerCase=*/false, 16), D.ModelAnswer,
                   D.Tuned, int(D.Moved), D.Saved)
               .str();
    for (size_t F = 0; F < S.Features.size(); ++F)
      for (size_t I = 0; I < S.Features[F].getElementCount(); ++I)
        Out += " " + formatElement(D.Values[F].data(), S.Features[F].type(), I);
    Out += "\n";
  }
  return Out;
}

std::string EvictTeacherSet::print() const {
  std::string Body = printBody(*this);
  std::string Md5 = md5Hex(Body);
  return Body + "end " + std::to_string(Decisions.size()) + " " + Md5 + "\n";
}

std::string EvictTeacherSet::getFingerprint() const {
  return md5Hex(printBody(*this));
}

StringRef EvictTeacherSet::getMeta(StringRef Key) const {
  for (const auto &[K, V] : Meta)
    if (K == Key)
      return V;
  return "";
}

int64_t EvictTeacherSet::getFeatureIndex(StringRef Name) const {
  for (size_t I = 0; I < Features.size(); ++I)
    if (Features[I].name() == Name)
      return int64_t(I);
  return -1;
}

/// Reads a decimal as the writer writes it: no sign for unsigned types, no
/// '+', no leading zeros but "0" itself.
template <typename T> static bool parseNumber(StringRef Field, T &Out) {
  if (Field.getAsInteger(10, Out))
    return false;
  return Field == std::to_string(Out);
}

/// Reads element \p I of a feature of type \p T into \p Data.
static bool parseElement(StringRef Field, TensorType T, char *Data, size_t I) {
  if (T == TensorType::Float) {
    float V;
    if (Field == "nan") {
      V = std::nanf("");
    } else if (Field == "inf" || Field == "-inf") {
      V = Field == "inf" ? INFINITY : -INFINITY;
    } else {
      double D;
      if (!to_float(Field, D))
        return false;
      V = static_cast<float>(D);
      if (formatFloat(V) != Field)
        return false;
    }
    std::memcpy(Data + I * sizeof(V), &V, sizeof(V));
    return true;
  }
  int64_t V;
  if (!parseNumber(Field, V))
    return false;
  std::memcpy(Data + I * sizeof(V), &V, sizeof(V));
  return true;
}

Expected<EvictTeacherSet> EvictTeacherSet::parse(StringRef Text,
                                                 StringRef Name) {
  EvictTeacherSet S;
  unsigned LineNo = 0;
  bool SawHeader = false, SawEnd = false;
  size_t Values = 0;
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
    SmallVector<StringRef, 0> F;
    Line.split(F, ' ');
    if (!SawHeader) {
      if (Line != Header)
        return Fail(Line.starts_with("mlgo-evict-teacher ")
                        ? "unsupported eviction teacher set version '" +
                              Line.substr(19) + "' (this mlgo reads version 2)"
                        : Twine("expected '" + Header +
                                "': not an eviction teacher set"));
      SawHeader = true;
      continue;
    }
    if (F[0] == "meta") {
      if (!S.Features.empty())
        return Fail("a meta line after the feature lines");
      if (F.size() < 3)
        return Fail("expected 'meta <key> <value>'");
      size_t ValueAt = F[0].size() + 1 + F[1].size() + 1;
      S.Meta.emplace_back(F[1].str(), Line.substr(ValueAt).str());
      continue;
    }
    if (F[0] == "feature") {
      if (!S.Decisions.empty())
        return Fail("a feature line after the decision lines");
      std::string Feature;
      std::optional<TensorType> T =
          F.size() == 4 ? parseTensorType(F[2]) : std::nullopt;
      int64_t N = 0;
      if (!T || (*T != TensorType::Int64 && *T != TensorType::Float) ||
          !parseNumber(F[3], N) || N < 1 || N > EvictionColumns ||
          !decodeName(F[1], Feature) || Feature.empty())
        return Fail("expected 'feature <name> <int64_t|float> <elements>' "
                    "with 1 to 33 elements");
      S.Features.emplace_back(Feature, 0, *T, std::vector<int64_t>{1, N});
      Values += size_t(N);
      continue;
    }
    if (F[0] == "decision") {
      if (S.Features.empty())
        return Fail("a decision line before the feature lines");
      const size_t Fixed = 9;
      if (F.size() != Fixed + Values)
        return Fail(formatv("expected 'decision <module> <function> "
                            "<ordinal> <hash> <model> <tuned> <moved> "
                            "<saved>' and {0} feature values, got {1} fields",
                            Values, F.size())
                        .str());
      EvictTeacherDecision D;
      if (!decodeName(F[1], D.Module) || !decodeName(F[2], D.Function))
        return Fail("bad name (a '%' not followed by two hex digits)");
      if (!parseNumber(F[3], D.Ordinal))
        return Fail("bad ordinal '" + F[3] + "'");
      if (F[4].size() != 16 || F[4].getAsInteger(16, D.Hash) ||
          F[4] != utohexstr(D.Hash, /*LowerCase=*/false, 16))
        return Fail("bad hash '" + F[4] +
                    "' (16 upper-case hexadecimal digits)");
      bool Moved = false;
      if (!parseNumber(F[5], D.ModelAnswer) || !parseNumber(F[6], D.Tuned) ||
          D.ModelAnswer >= EvictionColumns || D.Tuned >= EvictionColumns ||
          (F[7] != "0" && F[7] != "1"))
        return Fail("<model> and <tuned> must be columns 0 to 32, <moved> 0 "
                    "or 1");
      Moved = F[7] == "1";
      D.Moved = Moved;
      if (!parseNumber(F[8], D.Saved))
        return Fail("bad saved instructions '" + F[8] + "'");
      size_t K = Fixed;
      for (const TensorSpec &Spec : S.Features) {
        std::vector<char> Bytes(Spec.getTotalTensorBufferSize());
        for (size_t I = 0; I < Spec.getElementCount(); ++I, ++K)
          if (!parseElement(F[K], Spec.type(), Bytes.data(), I))
            return Fail("bad value '" + F[K] + "' of feature " + Spec.name());
        D.Values.push_back(std::move(Bytes));
      }
      S.Decisions.push_back(std::move(D));
      continue;
    }
    if (F[0] == "end") {
      size_t N = 0;
      if (F.size() != 3 || !parseNumber(F[1], N) || F[2].size() != 32)
        return Fail("expected 'end <decisions> <md5>'");
      if (N != S.Decisions.size())
        return Fail(
            formatv("the end line counts {0} decisions, the file has {1}", N,
                    S.Decisions.size())
                .str());
      std::string Md5 = md5Hex(Text.substr(0, Start));
      if (F[2] != Md5)
        return Fail("the end line's fingerprint " + F[2] +
                    " is not the MD5 of the file's bytes, " + Md5 +
                    " (an edit?)");
      SawEnd = true;
      continue;
    }
    return Fail("expected 'meta', 'feature', 'decision' or 'end', not '" +
                F[0] + "'");
  }
  if (!SawHeader)
    return makeError(Name + ": empty: not an eviction teacher set");
  if (!SawEnd)
    return makeError(Name + ": no end line after " + Twine(S.Decisions.size()) +
                     " decisions: the file was cut short");
  return S;
}

Expected<EvictTeacherSet> EvictTeacherSet::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  return parse((*B)->getBuffer(), Path);
}

} // namespace mlgo
