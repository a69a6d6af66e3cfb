//===- mlgo/Support/Files.h - Reading whole files with located errors -*- C++
//-*-===//
//
// Every file mlgo reads whole (recipes, compilation databases, extraction
// reports, corpus descriptions, model files, compile logs) fails the same
// two ways: the file cannot be read, or (for JSON) it does not parse. These
// two functions give those failures one wording, always led by the path, so
// that a user sees which file is wrong and why:
//
//   PATH: No such file or directory
//   PATH: invalid JSON: [LINE:COLUMN, byte=OFFSET]: <llvm::json's message>
//
// JSON from outside is parsed with parseJSON, which refuses nesting deeper
// than MaxJSONDepth before llvm::json::parse can overflow the stack on it.
// What the parsed JSON must contain stays with each reader.
//
// Every file mlgo writes whole (models, checkpoints, reports, decisions
// files) goes through writeFileAtomically: a reader, a rerun after kill -9
// or a full disk sees the old file or the new one, never a torn one, and a
// failed write is an error naming the file rather than raw_fd_ostream's
// unnamed "IO failure on output stream" abort.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_SUPPORT_FILES_H
#define MLGO_SUPPORT_FILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace mlgo {

/// The whole file at \p Path; the error is "PATH: <the system's reason>".
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readWholeFile(const llvm::Twine &Path);

/// How deeply JSON read by mlgo may nest (mlgo's formats nest a few levels).
inline constexpr size_t MaxJSONDepth = 1000;

/// llvm::json::parse for text from outside: llvm::json::parse recurses once
/// per nesting level, so a file of a million '[' would overflow the stack;
/// text nested deeper than MaxJSONDepth is an error
/// "[LINE:COLUMN, byte=OFFSET]: nested deeper than 1000 levels" instead.
llvm::Expected<llvm::json::Value> parseJSON(llvm::StringRef Text);

/// The file at \p Path parsed as one JSON value (parseJSON); errors are
/// readWholeFile's or "PATH: invalid JSON: <where and why>".
llvm::Expected<llvm::json::Value> readJSONFile(const llvm::Twine &Path);

/// Writes \p Bytes to \p Path whole or not at all: to PATH.tmp, flushed to
/// disk (fsync), then renamed over \p Path. On failure the temporary file
/// is removed and \p Path is left as it was; the error is "cannot write
/// 'PATH': <the system's reason>" (e.g. "No space left on device"). A
/// process killed during the write leaves at most PATH.tmp, which the next
/// write of PATH replaces.
llvm::Error writeFileAtomically(const llvm::Twine &Path, llvm::StringRef Bytes);

/// Copies the file at \p From to \p To whole or not at all
/// (readWholeFile, then writeFileAtomically; their errors).
llvm::Error copyFileAtomically(const llvm::Twine &From, const llvm::Twine &To);

/// Why a program that wrote \p Paths may have failed without a word (its
/// stderr file, on the same full disk, stayed empty): "DIR: No space left
/// on device" for each distinct directory of \p Paths (a path's own
/// directory, or the path if it is one) whose file system has no block or
/// no inode left for this user, joined by "; "; "" if none is full.
std::string describeFullDisks(llvm::ArrayRef<std::string> Paths);

/// Why programs that wrote under the directory \p Dir may have failed for
/// want of room, where they cannot say it (their log on the same disk) or
/// say it in their own words, or "" if nothing shows it:
/// describeFullDisks() of \p Dir; else, under a file size limit (ulimit
/// -f, which children inherit), "'FILE': File too large (the file size
/// limit, ulimit -f, is N bytes)" for a file under \p Dir that reached the
/// limit (a log or output cut there), or the same naming \p Dir when \p
/// Log says a program met the limit ("File too large") or died of it
/// (SIGXFSZ, "File size limit exceeded"); else "DIR: No space left on
/// device" when \p Log says so.
std::string describeNoRoom(const std::string &Dir, llvm::StringRef Log);

/// The last \p N lines of the text file at \p Path, without its final
/// newlines ("" if it cannot be read): a failed program's log, for the
/// error that names it.
std::string readTail(const llvm::Twine &Path, size_t N);

/// The output file of a compiler or linker command line: the argument
/// after "-o" (or of "-oFILE"), or "".
std::string findOutputArgument(llvm::ArrayRef<std::string> Argv);

} // namespace mlgo

#endif // MLGO_SUPPORT_FILES_H
