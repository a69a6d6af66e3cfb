//===- mlgo/Teacher/EvictTeacherSet.h - What a speed tune teaches -*- C++ -*-=//
//
// An eviction teacher set (docs/teacher.md, "Eviction teachers") holds, for
// every eviction decision of the modules a speed tune put on the eviction
// model, compiled with the decisions it found, the decision's name, every
// feature LLVM's advisor sent there, the eviction model's answer and the
// column the tuned compile took. `mlgo teacher build --objective speed`
// writes it (mlgo/Teacher/Teacher.h), `mlgo teacher train` warm-starts an
// eviction model on it. Text, diffable; its last line carries a
// fingerprint of every byte before it.
//
// Format, version 2 (version 1, of 2026-12-05, had no <saved>). Lines end
// with '\n' (a '\r' before it is an error); fields are separated by
// exactly one space; names (module, function) are written as decisions
// files write them (%XX for bytes up to 0x20, 0x7f and above, '%' and '*';
// docs/decisions.md):
//
//   # mlgo eviction teacher set (format: docs/teacher.md)
//   mlgo-evict-teacher 2
//   meta <key> <value>          any number, before the first 'feature';
//                               the value is the rest of the line
//   feature <name> <type> <n>   one per feature, in the order of LLVM's
//                               log (mlgo/RegAllocModel/EvictionFeatures.h);
//                               <type> int64_t or float, <n> its elements
//                               (33: one per column; 1: progress)
//   decision <module> <function> <ordinal> <hash> <model> <tuned> <moved>
//            <saved> <v1> ... <vN>
//                               one per eviction decision, in corpus module
//                               order and, within a module, the order LLVM
//                               asked; <module> the decisions file's module
//                               key; <ordinal> the decision's place among
//                               its function's (from 0); <hash> its
//                               decisions-file hash (16 upper-case hex
//                               digits); <model> the column the eviction
//                               model chooses there, <tuned> the column the
//                               compile took, each 0..32; <moved> 1 where
//                               an entry of the tuned file fixed the
//                               decision to another column than the
//                               model's, else 0; <saved> the profile-
//                               weighted instructions the kept move that
//                               fixed it saved (its -delta in the tune's
//                               moves.tsv; 0 when not moved); then every
//                               feature's elements in feature order: an
//                               int64_t as a decimal integer, a float in
//                               the fewest decimal digits that read back
//                               to its bits (formatModelFloat; "nan",
//                               "inf", "-inf")
//   end <decisions> <md5>       the number of decision lines, and the MD5
//                               (32 lower-case hex digits) of every byte of
//                               the file before this line: the set's
//                               fingerprint
//
// Comment lines (first byte '#') may stand anywhere before 'end'; nothing
// follows it.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TEACHER_EVICTTEACHERSET_H
#define MLGO_TEACHER_EVICTTEACHERSET_H

#include "mlgo/Tensor/TensorSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One eviction decision of the tuned compile.
struct EvictTeacherDecision {
  std::string Module, Function;
  uint32_t Ordinal = 0;
  uint64_t Hash = 0;
  /// The eviction model's column, and the one the tuned compile took.
  uint32_t ModelAnswer = 0, Tuned = 0;
  /// An entry fixed the decision to another column than the model's.
  bool Moved = false;
  /// The profile-weighted instructions the kept move that fixed it saved.
  uint64_t Saved = 0;
  /// Every feature's bytes, as LLVM sent them (EvictTeacherSet::Features'
  /// layout): the buffers a model reads.
  std::vector<std::vector<char>> Values;
};

struct EvictTeacherSet {
  /// (key, value) in file order.
  std::vector<std::pair<std::string, std::string>> Meta;
  /// The features, in log order: name, type and shape ({1, n}).
  std::vector<TensorSpec> Features;
  std::vector<EvictTeacherDecision> Decisions;

  /// The first line that is not a comment.
  static constexpr llvm::StringLiteral Header = "mlgo-evict-teacher 2";

  /// The file's bytes, its end line and fingerprint included.
  std::string print() const;
  /// The MD5 of print()'s bytes before the end line.
  std::string getFingerprint() const;
  /// The value of metadata \p Key, or "".
  llvm::StringRef getMeta(llvm::StringRef Key) const;
  /// The index of feature \p Name, or -1.
  int64_t getFeatureIndex(llvm::StringRef Name) const;

  /// Parses \p Text; errors are "NAME:LINE: what is wrong", a cut file's
  /// "NAME: no end line after N decisions: the file was cut short".
  static llvm::Expected<EvictTeacherSet> parse(llvm::StringRef Text,
                                               llvm::StringRef Name);
  static llvm::Expected<EvictTeacherSet> load(llvm::StringRef Path);
};

} // namespace mlgo

#endif // MLGO_TEACHER_EVICTTEACHERSET_H
