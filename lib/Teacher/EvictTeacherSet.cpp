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
#include "mlgo/Teacher/SetFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <optional>

using namespace llvm;

namespace mlgo {

static constexpr StringLiteral Comment =
    "# mlgo eviction teacher set (format: docs/teacher.md)\n";

static const SetFileFormat Format = {
    EvictTeacherSet::Header, "eviction teacher set", "an", "decisions",
    "'feature', 'decision'", "the feature lines"};

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
  std::string Out = printSetHead(Comment, Format, S.Meta);
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
  return finishSetFile(printBody(*this), Decisions.size());
}

std::string EvictTeacherSet::getFingerprint() const {
  return getSetFingerprint(printBody(*this));
}

StringRef EvictTeacherSet::getMeta(StringRef Key) const {
  return getSetMeta(Meta, Key);
}

int64_t EvictTeacherSet::getFeatureIndex(StringRef Name) const {
  for (size_t I = 0; I < Features.size(); ++I)
    if (Features[I].name() == Name)
      return int64_t(I);
  return -1;
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
  if (!parseSetNumber(Field, V))
    return false;
  std::memcpy(Data + I * sizeof(V), &V, sizeof(V));
  return true;
}

/// Reads a decision line's fields \p F into \p D, for \p S's features.
static SetLineVerdict readDecision(const EvictTeacherSet &S,
                                   ArrayRef<StringRef> F,
                                   EvictTeacherDecision &D) {
  using V = SetLineVerdict;
  if (!decodeName(F[1], D.Module) || !decodeName(F[2], D.Function))
    return V::bad("bad name (a '%' not followed by two hex digits)");
  if (!parseSetNumber(F[3], D.Ordinal))
    return V::bad("bad ordinal '" + F[3] + "'");
  if (F[4].size() != 16 || F[4].getAsInteger(16, D.Hash) ||
      F[4] != utohexstr(D.Hash, /*LowerCase=*/false, 16))
    return V::bad("bad hash '" + F[4] + "' (16 upper-case hexadecimal digits)");
  if (!parseSetNumber(F[5], D.ModelAnswer) || !parseSetNumber(F[6], D.Tuned) ||
      D.ModelAnswer >= EvictionColumns || D.Tuned >= EvictionColumns ||
      (F[7] != "0" && F[7] != "1"))
    return V::bad("<model> and <tuned> must be columns 0 to 32, <moved> 0 "
                  "or 1");
  D.Moved = F[7] == "1";
  if (!parseSetNumber(F[8], D.Saved))
    return V::bad("bad saved instructions '" + F[8] + "'");
  size_t K = 9;
  for (const TensorSpec &Spec : S.Features) {
    std::vector<char> Bytes(Spec.getTotalTensorBufferSize());
    for (size_t I = 0; I < Spec.getElementCount(); ++I, ++K)
      if (!parseElement(F[K], Spec.type(), Bytes.data(), I))
        return V::bad("bad value '" + F[K] + "' of feature " + Spec.name());
    D.Values.push_back(std::move(Bytes));
  }
  return V::read();
}

/// Reads the set's own lines (feature, decision) into \p S; \p Values
/// counts the feature lines' elements.
static SetLineVerdict readLine(EvictTeacherSet &S, size_t &Values,
                               ArrayRef<StringRef> F) {
  using V = SetLineVerdict;
  if (F[0] == "feature") {
    if (!S.Decisions.empty())
      return V::bad("a feature line after the decision lines");
    std::string Feature;
    std::optional<TensorType> T =
        F.size() == 4 ? parseTensorType(F[2]) : std::nullopt;
    int64_t N = 0;
    if (!T || (*T != TensorType::Int64 && *T != TensorType::Float) ||
        !parseSetNumber(F[3], N) || N < 1 || N > EvictionColumns ||
        !decodeName(F[1], Feature) || Feature.empty())
      return V::bad("expected 'feature <name> <int64_t|float> <elements>' "
                    "with 1 to 33 elements");
    S.Features.emplace_back(Feature, 0, *T, std::vector<int64_t>{1, N});
    Values += size_t(N);
    return V::read();
  }
  if (F[0] != "decision")
    return V::unknown();
  if (S.Features.empty())
    return V::bad("a decision line before the feature lines");
  if (F.size() != 9 + Values)
    return V::bad(formatv("expected 'decision <module> <function> "
                          "<ordinal> <hash> <model> <tuned> <moved> "
                          "<saved>' and {0} feature values, got {1} fields",
                          Values, F.size())
                      .str());
  EvictTeacherDecision D;
  SetLineVerdict R = readDecision(S, F, D);
  if (R.TheKind == SetLineVerdict::Kind::Read)
    S.Decisions.push_back(std::move(D));
  return R;
}

Expected<EvictTeacherSet> EvictTeacherSet::parse(StringRef Text,
                                                 StringRef Name) {
  EvictTeacherSet S;
  size_t Values = 0;
  auto Line = [&](StringRef, ArrayRef<StringRef> F) {
    return readLine(S, Values, F);
  };
  auto MetaClosed = [&] { return !S.Features.empty(); };
  auto Rows = [&] { return S.Decisions.size(); };
  if (Error E = parseSetFile(Text, Name, Format, S.Meta,
                             SetFileHooks{Line, MetaClosed, Rows}))
    return E;
  return S;
}

Expected<EvictTeacherSet> EvictTeacherSet::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  return parse((*B)->getBuffer(), Path);
}

} // namespace mlgo
