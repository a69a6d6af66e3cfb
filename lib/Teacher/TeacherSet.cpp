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
#include "mlgo/Teacher/SetFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace mlgo {

static constexpr StringLiteral Comment =
    "# mlgo teacher set (format: docs/teacher.md)\n";

static const SetFileFormat Format = {
    "mlgo-teacher 1", "teacher set",        "a",
    "sites",          "'features', 'site'", "the features line"};

/// Everything print() writes before the end line.
static std::string printBody(const TeacherSet &S) {
  std::string Out = printSetHead(Comment, Format, S.Meta);
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
  return finishSetFile(printBody(*this), Sites.size());
}

std::string TeacherSet::getFingerprint() const {
  return getSetFingerprint(printBody(*this));
}

StringRef TeacherSet::getMeta(StringRef Key) const {
  return getSetMeta(Meta, Key);
}

static bool parseBit(StringRef Field, bool &Out) {
  if (Field != "0" && Field != "1")
    return false;
  Out = Field == "1";
  return true;
}

/// Reads the set's own lines (features, site) into \p S.
static SetLineVerdict readLine(TeacherSet &S, bool &SawFeatures,
                               ArrayRef<StringRef> F) {
  using V = SetLineVerdict;
  if (F[0] == "features") {
    size_t N = 0;
    if (SawFeatures)
      return V::bad("a second features line");
    if (F.size() < 2 || !parseSetNumber(F[1], N) || F.size() != N + 2)
      return V::bad("expected 'features <count>' and that many names");
    for (size_t I = 2; I < F.size(); ++I) {
      std::string Feature;
      if (!decodeName(F[I], Feature) || Feature.empty())
        return V::bad("bad feature name '" + F[I] + "'");
      S.FeatureNames.push_back(std::move(Feature));
    }
    SawFeatures = true;
    return V::read();
  }
  if (F[0] != "site")
    return V::unknown();
  if (!SawFeatures)
    return V::bad("a site line before the features line");
  const size_t Fixed = 11;
  if (F.size() != Fixed + S.FeatureNames.size())
    return V::bad(formatv("expected 'site <program> <module> <caller> "
                          "<callee> <ordinal> <llvm> <model> <tuned> "
                          "<moved> <saved>' and {0} feature values, got {1} "
                          "fields",
                          S.FeatureNames.size(), F.size())
                      .str());
  TeacherSite T;
  if (F[1] == "*")
    T.Program = "*";
  else if (!decodeName(F[1], T.Program))
    return V::bad("bad program name '" + F[1] + "'");
  if (!decodeName(F[2], T.Module) || !decodeName(F[3], T.Caller) ||
      !decodeName(F[4], T.Callee))
    return V::bad("bad name (a '%' not followed by two hex digits)");
  if (!parseSetNumber(F[5], T.Ordinal))
    return V::bad("bad ordinal '" + F[5] + "'");
  if (!parseBit(F[6], T.Llvm) || !parseBit(F[7], T.ModelAnswer) ||
      !parseBit(F[8], T.Tuned) || !parseBit(F[9], T.Moved))
    return V::bad("<llvm> <model> <tuned> <moved> must each be 0 or 1");
  if (!parseSetNumber(F[10], T.Saved))
    return V::bad("bad saved bytes '" + F[10] + "'");
  T.Features.resize(S.FeatureNames.size());
  for (size_t I = 0; I < S.FeatureNames.size(); ++I)
    if (!parseSetNumber(F[Fixed + I], T.Features[I]))
      return V::bad("bad value '" + F[Fixed + I] + "' of feature " +
                    S.FeatureNames[I]);
  S.Sites.push_back(std::move(T));
  return V::read();
}

Expected<TeacherSet> TeacherSet::parse(StringRef Text, StringRef Name) {
  TeacherSet S;
  bool SawFeatures = false;
  auto Line = [&](StringRef, ArrayRef<StringRef> F) {
    return readLine(S, SawFeatures, F);
  };
  auto MetaClosed = [&] { return SawFeatures; };
  auto Rows = [&] { return S.Sites.size(); };
  if (Error E = parseSetFile(Text, Name, Format, S.Meta,
                             SetFileHooks{Line, MetaClosed, Rows}))
    return E;
  return S;
}

Expected<TeacherSet> TeacherSet::load(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> B = readWholeFile(Path);
  if (!B)
    return B.takeError();
  return parse((*B)->getBuffer(), Path);
}

} // namespace mlgo
