//===- mlgo/Teacher/SetFile.h - The frame of the teacher sets --*- C++ -*-===//
//
// Both teacher sets, the inlining one (TeacherSet.h) and the eviction one
// (EvictTeacherSet.h), are text in one frame (docs/teacher.md):
//
//   '#' lines     comments, anywhere before the end line
//   header        "<magic> <version>", the first line that is not a comment
//   meta lines    "meta <key> <value>" (the value may hold spaces), before
//                 the set's own lines that close them
//   own lines     the set's features and rows, read by the set
//   end line      "end <rows> <md5>": how many rows, and the MD5 of every
//                 byte before the end line (the set's fingerprint)
//
// No line follows the end line, and no line ends in "\r\n". This file
// writes the frame's parts and reads the frame, handing every line of the
// set's own to it; every error is "NAME:LINE: <what>".
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TEACHER_SETFILE_H
#define MLGO_TEACHER_SETFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// A set's meta lines, in order.
using SetMeta = std::vector<std::pair<std::string, std::string>>;

/// What tells one set's frame from the other's, as its errors say it.
struct SetFileFormat {
  /// The header line, e.g. "mlgo-teacher 1".
  llvm::StringRef Header;
  /// "teacher set", and the article before it in "not a teacher set".
  llvm::StringRef Noun;
  llvm::StringRef Article;
  /// What the end line counts ("sites").
  llvm::StringRef Rows;
  /// The set's own line kinds, quoted, for "expected 'meta', <kinds> or
  /// 'end'" ("'features', 'site'").
  llvm::StringRef Kinds;
  /// The line that closes the meta lines, for "a meta line after <it>".
  llvm::StringRef MetaBefore;
};

/// What a set's reader says of one line: read, not one of its kinds, or
/// bad (the message, which the frame prefixes with the file and line).
struct SetLineVerdict {
  enum class Kind { Read, Unknown, Bad } TheKind = Kind::Read;
  std::string Message;

  static SetLineVerdict read() { return {}; }
  static SetLineVerdict unknown() { return {Kind::Unknown, ""}; }
  static SetLineVerdict bad(const llvm::Twine &Message) {
    return {Kind::Bad, Message.str()};
  }
};

/// The set's own lines: the whole line and its ' '-separated fields.
using SetLineFn = llvm::function_ref<SetLineVerdict(
    llvm::StringRef Line, llvm::ArrayRef<llvm::StringRef> Fields)>;

/// The reader's view of the set it fills, for the frame's checks.
struct SetFileHooks {
  /// Reads one of the set's own lines.
  SetLineFn Line;
  /// Whether the line that closes the meta lines was read.
  llvm::function_ref<bool()> MetaClosed;
  /// How many rows were read (the end line's count).
  llvm::function_ref<size_t()> Rows;
};

/// Reads \p Text, the contents of the file called \p Name in errors, in
/// \p Format's frame: the meta lines into \p Meta, every other line of the
/// set's through \p Hooks.
llvm::Error parseSetFile(llvm::StringRef Text, llvm::StringRef Name,
                         const SetFileFormat &Format, SetMeta &Meta,
                         const SetFileHooks &Hooks);

/// The frame's head as the writers write it: \p Comment (whole lines),
/// the header line of \p Format and the meta lines.
std::string printSetHead(llvm::StringRef Comment, const SetFileFormat &Format,
                         const SetMeta &Meta);

/// The fingerprint of a set whose bytes before the end line are \p Body:
/// their MD5, 32 lower-case hexadecimal digits.
std::string getSetFingerprint(llvm::StringRef Body);

/// \p Body followed by its end line for \p Rows rows.
std::string finishSetFile(llvm::StringRef Body, size_t Rows);

/// The value of meta key \p Key in \p Meta, or "".
llvm::StringRef getSetMeta(const SetMeta &Meta, llvm::StringRef Key);

/// Reads a decimal as the writers write it: no sign for unsigned types, no
/// '+', no leading zeros but "0" itself (read, printed again and compared).
template <typename T> bool parseSetNumber(llvm::StringRef Field, T &Out) {
  if (Field.getAsInteger(10, Out))
    return false;
  return Field == std::to_string(Out);
}

} // namespace mlgo

#endif // MLGO_TEACHER_SETFILE_H
