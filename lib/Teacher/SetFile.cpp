//===- lib/Teacher/SetFile.cpp - The frame of the teacher sets ------------===//
//
// See mlgo/Teacher/SetFile.h.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Teacher/SetFile.h"

#include "mlgo/Support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"

using namespace llvm;

namespace mlgo {

std::string getSetFingerprint(StringRef Body) {
  MD5::MD5Result R = MD5::hash(arrayRefFromStringRef(Body));
  return std::string(R.digest());
}

std::string printSetHead(StringRef Comment, const SetFileFormat &Format,
                         const SetMeta &Meta) {
  std::string Out = Comment.str();
  Out += Format.Header.str() + "\n";
  for (const auto &[K, V] : Meta)
    Out += "meta " + K + " " + V + "\n";
  return Out;
}

std::string finishSetFile(StringRef Body, size_t Rows) {
  return Body.str() + "end " + std::to_string(Rows) + " " +
         getSetFingerprint(Body) + "\n";
}

StringRef getSetMeta(const SetMeta &Meta, StringRef Key) {
  for (const auto &[K, V] : Meta)
    if (K == Key)
      return V;
  return "";
}

namespace {

/// The frame's reader: one line at a time, its number for the errors.
class SetFileReader {
public:
  SetFileReader(StringRef Text, StringRef Name, const SetFileFormat &Format,
                SetMeta &Meta, const SetFileHooks &Hooks)
      : Text(Text), Name(Name), Format(Format), Meta(Meta), Hooks(Hooks) {}

  Error read();

private:
  Error fail(const Twine &Msg) const {
    return makeError(Name + ":" + Twine(LineNo) + ": " + Msg);
  }
  Error readHeader(StringRef Line);
  Error readMeta(StringRef Line, ArrayRef<StringRef> F);
  Error readEnd(ArrayRef<StringRef> F, size_t Start);

  StringRef Text, Name;
  const SetFileFormat &Format;
  SetMeta &Meta;
  const SetFileHooks &Hooks;
  unsigned LineNo = 0;
  bool SawHeader = false, SawEnd = false;
};

} // namespace

Error SetFileReader::readHeader(StringRef Line) {
  if (Line == Format.Header) {
    SawHeader = true;
    return Error::success();
  }
  StringRef Magic = Format.Header.split(' ').first;
  if (!Line.starts_with((Magic + " ").str()))
    return fail("expected '" + Format.Header + "': not " + Format.Article +
                " " + Format.Noun);
  return fail("unsupported " + Format.Noun + " version '" +
              Line.substr(Magic.size() + 1) + "' (this mlgo reads version " +
              Format.Header.split(' ').second + ")");
}

Error SetFileReader::readMeta(StringRef Line, ArrayRef<StringRef> F) {
  if (Hooks.MetaClosed())
    return fail("a meta line after " + Format.MetaBefore);
  if (F.size() < 3)
    return fail("expected 'meta <key> <value>'");
  size_t ValueAt = F[0].size() + 1 + F[1].size() + 1;
  Meta.emplace_back(F[1].str(), Line.substr(ValueAt).str());
  return Error::success();
}

Error SetFileReader::readEnd(ArrayRef<StringRef> F, size_t Start) {
  size_t N = 0;
  if (F.size() != 3 || !parseSetNumber(F[1], N) || F[2].size() != 32)
    return fail("expected 'end <" + Format.Rows + "> <md5>'");
  if (N != Hooks.Rows())
    return fail(formatv("the end line counts {0} {1}, the file has {2}", N,
                        Format.Rows, Hooks.Rows())
                    .str());
  std::string Md5 = getSetFingerprint(Text.substr(0, Start));
  if (F[2] != Md5)
    return fail("the end line's fingerprint " + F[2] +
                " is not the MD5 of the file's bytes, " + Md5 + " (an edit?)");
  SawEnd = true;
  return Error::success();
}

Error SetFileReader::read() {
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t NL = Text.find('\n', Pos);
    size_t LineEnd = NL == StringRef::npos ? Text.size() : NL;
    StringRef Line = Text.slice(Pos, LineEnd);
    size_t Start = Pos;
    Pos = NL == StringRef::npos ? Text.size() : NL + 1;
    ++LineNo;
    if (SawEnd)
      return fail("a line after the end line");
    if (Line.ends_with("\r"))
      return fail("the line ends in \\r\\n (a file converted to DOS line "
                  "ends)");
    if (Line.starts_with("#"))
      continue;
    if (!SawHeader) {
      if (Error E = readHeader(Line))
        return E;
      continue;
    }
    SmallVector<StringRef, 64> F;
    Line.split(F, ' ');
    if (F[0] == "meta") {
      if (Error E = readMeta(Line, F))
        return E;
      continue;
    }
    if (F[0] == "end") {
      if (Error E = readEnd(F, Start))
        return E;
      continue;
    }
    SetLineVerdict V = Hooks.Line(Line, F);
    if (V.TheKind == SetLineVerdict::Kind::Bad)
      return fail(V.Message);
    if (V.TheKind == SetLineVerdict::Kind::Unknown)
      return fail("expected 'meta', " + Format.Kinds + " or 'end', not '" +
                  F[0] + "'");
  }
  if (!SawHeader)
    return makeError(Name + ": empty: not " + Format.Article + " " +
                     Format.Noun);
  if (!SawEnd)
    return makeError(Name + ": no end line after " + Twine(Hooks.Rows()) + " " +
                     Format.Rows + ": the file was cut short");
  return Error::success();
}

Error parseSetFile(StringRef Text, StringRef Name, const SetFileFormat &Format,
                   SetMeta &Meta, const SetFileHooks &Hooks) {
  return SetFileReader(Text, Name, Format, Meta, Hooks).read();
}

} // namespace mlgo
