//===- LineFile.cpp - Append-only files of checked lines ------------------===//
//
// The format, the errors and the lock are described in mlgo/Support/LineFile.h.
// Moved here from the compile cache, whose two files were its first users,
// so that every cache of results (the eviction trainer's scores too) keeps
// the same guarantees.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Support/LineFile.h"

#include "mlgo/Support/Error.h"
#include "mlgo/Support/Files.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <cerrno>

#include <sys/file.h>

using namespace llvm;

namespace mlgo {

/// The length of a line's checksum field: '\t' '#' <8 hex digits>.
static constexpr size_t ChecksumField = 10;

Error LineLocation::malformed() const {
  std::string Shown = Content.take_front(80).str();
  if (Content.size() > 80)
    Shown += "...";
  return makeError(File + ": line " + Twine(Number) + " (byte " +
                   Twine(Offset) + "): malformed line '" + Shown + "'");
}

std::string LineFile::withChecksum(StringRef Content) {
  assert(!Content.contains('\n') && "a line of a LineFile has no '\\n'");
  std::string Out;
  raw_string_ostream(Out) << Content << "\t#"
                          << format_hex_no_prefix(
                                 crc32(arrayRefFromStringRef(Content)), 8)
                          << '\n';
  return Out;
}

Expected<uint64_t> LineFile::parse(StringRef Text, StringRef Name,
                                   LineReader Read) {
  uint64_t CompleteBytes = 0; // up to the last '\n'
  for (size_t LineNo = 1; !Text.empty(); ++LineNo) {
    auto [Line, Rest] = Text.split('\n');
    bool Complete = Text.size() > Line.size();
    Text = Rest;
    if (!Complete)
      break;
    LineLocation Where{Name, LineNo, CompleteBytes, Line};
    CompleteBytes += Line.size() + 1;
    if (Line.size() >= ChecksumField &&
        Line.substr(Line.size() - ChecksumField, 2) == "\t#") {
      StringRef Content = Line.drop_back(ChecksumField);
      uint32_t Sum = 0;
      if (Line.take_back(8).getAsInteger(16, Sum) ||
          Sum != crc32(arrayRefFromStringRef(Content)))
        return makeError(Name + ": line " + Twine(LineNo) + " (byte " +
                         Twine(Where.Offset) +
                         "): checksum mismatch: the line changed after it "
                         "was written; remove it to compile it again");
      Where.Content = Content;
    }
    if (Error E = Read(Where.Content, Where))
      return E;
  }
  return CompleteBytes;
}

Error LineFile::open(StringRef Path, LineReader Read) {
  FD.reset();
  this->Path = Path.str();
  int Opened;
  if (std::error_code EC = sys::fs::openFileForWrite(
          Path, Opened, sys::fs::CD_OpenAlways, sys::fs::OF_Append))
    return makeError(Path + ": " + EC.message());
  FD.reset(Opened);
  // The lock goes with the descriptor: kill -9 releases it.
  if (sys::RetryAfterSignal(-1, ::flock, FD.get(), LOCK_EX | LOCK_NB) != 0) {
    std::error_code EC(errno, std::generic_category());
    FD.reset();
    if (EC == std::errc::operation_would_block)
      return makeError(Path + ": in use by another mlgo process (one run "
                              "per work directory at a time)");
    return makeError(Path + ": cannot lock: " + EC.message());
  }
  // A file that cannot be used is left closed, and unlocked.
  auto Fail = [&](Error E) {
    FD.reset();
    return E;
  };
  Expected<std::unique_ptr<MemoryBuffer>> Buf = readWholeFile(Path);
  if (!Buf)
    return Fail(Buf.takeError());
  StringRef Text = (*Buf)->getBuffer();
  bool Torn = !Text.empty() && !Text.ends_with("\n");
  Expected<uint64_t> Complete = parse(Text, Path, Read);
  if (!Complete)
    return Fail(Complete.takeError());
  if (Torn)
    if (std::error_code EC = sys::fs::resize_file(FD.get(), *Complete))
      return Fail(
          makeError(Path + ": cannot cut the torn last line: " + EC.message()));
  Size = *Complete;
  return Error::success();
}

Error LineFile::append(StringRef Content) {
  assert(FD.valid() && "append to a file that is not open");
  std::string Line = withChecksum(Content);
  if (std::error_code EC = writeAll(FD.get(), Line)) {
    // Leave no part of the line behind: a later append after it would make
    // one malformed line of the two.
    if (std::error_code Cut = sys::fs::resize_file(FD.get(), Size))
      return makeError(Path + ": cannot append a result: " + EC.message() +
                       " (and cannot cut the partial line: " + Cut.message() +
                       ")");
    return makeError(Path + ": cannot append a result: " + EC.message());
  }
  Size += Line.size();
  return Error::success();
}

} // namespace mlgo
