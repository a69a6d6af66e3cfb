//===- Files.cpp - Reading whole files with located errors ----------------===//

#include "mlgo/Support/Files.h"

#include "mlgo/Support/Error.h"

using namespace llvm;

namespace mlgo {

Expected<std::unique_ptr<MemoryBuffer>> readWholeFile(const Twine &Path) {
  // Binary or text, read as is; nothing mlgo reads needs a NUL after the end.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(),
                             Path + ": " + Buf.getError().message());
  return std::move(*Buf);
}

Expected<json::Value> parseJSON(StringRef Text) {
  // Brackets outside strings, as the parser will see them up to its first
  // error (after which it reads no further).
  size_t Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth <= MaxJSONDepth)
        continue;
      StringRef Before = Text.take_front(I);
      size_t Line = Before.count('\n') + 1;
      size_t LineStart = Before.rfind('\n');
      size_t Column = LineStart == StringRef::npos ? I : I - LineStart - 1;
      return makeError("[" + Twine(Line) + ":" + Twine(Column) +
                       ", byte=" + Twine(I) + "]: nested deeper than " +
                       Twine(MaxJSONDepth) + " levels");
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return json::parse(Text);
}

Expected<json::Value> readJSONFile(const Twine &Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<json::Value> Parsed = parseJSON((*Buf)->getBuffer());
  if (!Parsed)
    return makeError(Path + ": invalid JSON: " + toString(Parsed.takeError()));
  return std::move(*Parsed);
}

} // namespace mlgo
