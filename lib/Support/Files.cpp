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

Expected<json::Value> readJSONFile(const Twine &Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Buf.takeError();
  Expected<json::Value> Parsed = json::parse((*Buf)->getBuffer());
  if (!Parsed)
    return makeError(Path + ": invalid JSON: " + toString(Parsed.takeError()));
  return std::move(*Parsed);
}

} // namespace mlgo
