//===- mlgo/Compile/CompileCache.h - Compile results kept on disk -*- C++
//-*-===//
//
// Every compile `mlgo train` pays for is kept in <work>/compiles.tsv, keyed
// by the MD5 of (module bitcode + its cc1 arguments, policy key): a compile
// is a deterministic function of exactly those, so a rerun replays it from
// the file. A result is appended (and flushed) as soon as it is known, so
// `kill -9` loses at most the line being written.
//
// One line per finished compile:
//   <32 hex key> '\t' <text size> '\t' <decisions> '\t' <seconds> '\t'
//   <grouped> '\n'
// where <grouped> lists the object's grouped executable sections
// (CompileResult::Grouped) as <16 hex name hash> ':' <bytes>, separated by
// ',', or is "-" when there are none. Lines of earlier versions end after
// <seconds>: their grouped sections are unknown (Entry::GroupedKnown), so a
// run that measures sizes by package compiles them again. Or, for a failed
// compile,
//   <32 hex key> '\t' "error" '\t' <message, tabs and newlines as spaces> '\n'
// Since 2026-11-24 every line written ends with one more field, '\t' '#'
// and the CRC-32 (zlib's, 8 lowercase hex digits) of the bytes before that
// '\t': a line that changed on disk but still parses (a digit for another)
// is "line N (byte B): checksum mismatch: the line changed after it was
// written; remove it to compile it again", not another result. Lines
// without the field (earlier versions) are read as they are.
// A torn last line (no '\n', from kill -9) is ignored and cut off when the
// file is opened, so that the next line starts clean; any other malformed
// line (a key that is not 32 lowercase hex digits, a field that does not
// parse) is an error naming the file, the line number and the line's byte
// offset. A line that cannot be appended (a full disk) is cut off again and
// insert() fails with "PATH: cannot append a result: No space left on
// device", so the file keeps complete lines only. Transient failures (a
// timeout, a worker killed by the out-of-memory killer) are remembered for this
// run only: a rerun over the same work directory compiles them again.
// The checksum field, torn lines, the lock and full disks are LineFile's
// (Support/LineFile.h), shared with the eviction trainer's score cache.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_COMPILE_COMPILECACHE_H
#define MLGO_COMPILE_COMPILECACHE_H

#include "mlgo/Compile/CompileWorker.h"
#include "mlgo/Support/LineFile.h"
#include "mlgo/TrainCore/CompileOutcome.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace mlgo {

class CompileCache {
public:
  /// One line of the file (mlgo/TrainCore/CompileOutcome.h).
  using Entry = CompileOutcome;

  /// Reads the results in \p Path, if it exists, and opens it for
  /// appending.
  llvm::Error open(llvm::StringRef Path);

  /// Reads the results in \p Text, the contents of a compiles.tsv called
  /// \p Name in errors, without opening anything (open() uses it; so does
  /// the fuzz target fuzz/compile-cache.cpp). Returns the length of the
  /// complete lines: a torn last line is ignored.
  llvm::Expected<uint64_t> read(llvm::StringRef Text, llvm::StringRef Name);

  /// The result for \p Key, or null.
  const Entry *lookup(llvm::StringRef Key) const;

  /// Records \p E under \p Key and, unless it is transient, appends it to
  /// the file (the error: the line could not be written; the result is
  /// still recorded in memory).
  llvm::Error insert(llvm::StringRef Key, const Entry &E);

  size_t size() const { return Map.size(); }

private:
  /// One line's content: the entry it records, or Where.malformed().
  llvm::Error readLine(llvm::StringRef Line, const LineLocation &Where);

  llvm::StringMap<Entry> Map;
  LineFile File;
};

/// The call sites of compiles (CompileResult::Sites) kept on disk, as
/// <work>/sites.tsv, so that a rerun of a search that needs them (tuning)
/// compiles nothing it has compiled before. Keys are CompileCache's. One
/// line per compile:
///   <32 hex key> '\t' <n> ('\t' <site>) * n '\n'
///   <site> := <caller> ' ' <callee> ' ' <ordinal> ' ' <flags> ' ' <logit>
///             [' ' <score>]
/// with names written as in decisions files (docs/decisions.md), flags 1
/// (inlined) + 2 (fixed), the logit as C's "%a" (exact; "nan" for
/// none), the logged size score (DecidedSite::Score) as "%a" when the
/// compile was asked for it (CompileJob::WantSizeScore), and the checksum
/// field of CompileCache's lines. Torn last lines are cut off as in
/// CompileCache.
class SiteCache {
public:
  llvm::Error open(llvm::StringRef Path);
  /// Parses \p Text (the file's contents; \p Name in errors) into the
  /// cache; returns the bytes its complete lines take. Errors name the line
  /// and byte offset.
  llvm::Expected<uint64_t> read(llvm::StringRef Text, llvm::StringRef Name);
  const std::vector<DecidedSite> *lookup(llvm::StringRef Key) const;
  /// Records \p Sites under \p Key and appends them to the file (errors
  /// as CompileCache::insert).
  llvm::Error insert(llvm::StringRef Key, std::vector<DecidedSite> Sites);

private:
  llvm::Error readLine(llvm::StringRef Line, const LineLocation &Where);

  llvm::StringMap<std::vector<DecidedSite>> Map;
  LineFile File;
};

} // namespace mlgo

#endif // MLGO_COMPILE_COMPILECACHE_H
