//===- mlgo/Support/LineFile.h - Files of checked lines ---------*- C++ -*-===//
//
// The on-disk layer of mlgo's result caches: <work>/compiles.tsv and
// <work>/sites.tsv (Compile/CompileCache.h) and the eviction trainer's
// <work>/scores.tsv (RegAllocTrain/EvictionScorer.h). A result is appended
// as one line as soon as it is known, so that `kill -9`, a full disk or a
// second run in the same directory costs at most the line being written,
// and a rerun reads the results back instead of computing them again. What
// a line says is the cache's; how it is stored is this file's:
//
//   file     := line*  [torn]
//   line     := content '\t' '#' crc '\n'
//             | content '\n'                  (an earlier version's line)
//   content  := any bytes but '\n' (the cache's fields, usually '\t'-separated)
//   crc      := 8 lowercase hex digits: zlib's CRC-32 of the bytes of
//               content (llvm::crc32)
//   torn     := bytes without a final '\n'    (a write cut short)
//
// Reading (open(), parse()):
//  * a line whose last 10 bytes are '\t' '#' and 8 characters is checked:
//    if the 8 characters are not the hex CRC-32 of the bytes before the
//    '\t', the error is "NAME: line N (byte B): checksum mismatch: the line
//    changed after it was written; remove it to compile it again" (N counts
//    from 1, B is the offset of the line's first byte). A line that changed
//    on disk (a bit flip, an editor) but still parses would otherwise be
//    read as another, well-formed result. The cache's reader gets content
//    only;
//  * a line without the field is given to the reader as it is (lines
//    written before the field existed, 2026-11-24);
//  * a torn last line is ignored, and open() cuts it off the file so the
//    next line starts clean (appended to the torn bytes it would make one
//    malformed line of two);
//  * a line the cache's reader does not accept is an error: the reader
//    returns LineLocation::malformed(), "NAME: line N (byte B): malformed
//    line '<the first 80 bytes>...'". Nothing is skipped silently: a file
//    someone edited by hand is reported, not half used.
//
// Writing (append()): the line and its checksum field go to the end of the
// file with one writeAll (Support/FileDescriptor.h). If they cannot all be
// written (a full disk), the bytes that were are cut off again, so the file
// keeps whole lines only, and the error is "PATH: cannot append a result:
// <reason>".
//
// Locking: open() takes flock(2)'s exclusive lock on the file, without
// waiting; a second process opening it fails with "PATH: in use by another
// mlgo process (one run per work directory at a time)": two runs would
// append each other's results and cut each other's lines. The lock goes
// with the descriptor, so a killed run releases it.
//
// A LineFile is not synchronized: a cache appending from several threads
// holds its own mutex around append().
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_LINEFILE_H
#define MLGO_SUPPORT_LINEFILE_H

#include "mlgo/Support/FileDescriptor.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlgo {

/// Where a line given to a cache's reader is, for its errors.
struct LineLocation {
  /// The file's name as errors show it.
  llvm::StringRef File;
  /// The line, from 1, and the offset of its first byte.
  size_t Number = 0;
  uint64_t Offset = 0;
  /// The line's content (without the checksum field and the '\n').
  llvm::StringRef Content;

  /// "FILE: line N (byte B): malformed line '<content>'", the content cut
  /// to 80 bytes and "..." after a longer one.
  llvm::Error malformed() const;
};

/// A cache's reader: accepts \p Content (one line's, located by \p Where)
/// or returns an error, usually Where.malformed().
using LineReader = llvm::function_ref<llvm::Error(llvm::StringRef Content,
                                                  const LineLocation &Where)>;

/// A file of checked lines, appended one whole line at a time.
class LineFile {
public:
  LineFile() = default;
  LineFile(const LineFile &) = delete;
  LineFile &operator=(const LineFile &) = delete;

  /// Opens \p Path for appending (creating it) and locks it, then gives the
  /// content of each of its complete lines to \p Read, in order, and cuts
  /// a torn last line off. Errors: the file cannot be opened or locked, a
  /// checksum mismatch, or \p Read's first error; the file is then closed
  /// (and unlocked) again.
  llvm::Error open(llvm::StringRef Path, LineReader Read);

  /// Gives the content of each complete line of \p Text (the contents of a
  /// file called \p Name in errors) to \p Read, checking checksums as
  /// open() does, without opening anything (the fuzz targets call it).
  /// Returns the bytes the complete lines take.
  static llvm::Expected<uint64_t> parse(llvm::StringRef Text,
                                        llvm::StringRef Name, LineReader Read);

  /// \p Content as a line on disk: content '\t' '#' crc '\n'.
  static std::string withChecksum(llvm::StringRef Content);

  /// Appends \p Content (no '\n' in it) as a checked line; on failure
  /// "PATH: cannot append a result: <reason>", and the file is as it was.
  llvm::Error append(llvm::StringRef Content);

  const std::string &getPath() const { return Path; }

private:
  std::string Path;
  FileDescriptor FD;
  /// The bytes of the complete lines in the file.
  uint64_t Size = 0;
};

} // namespace mlgo

#endif // MLGO_SUPPORT_LINEFILE_H
