//===- mlgo/Teacher/TeacherSet.h - What the search teaches ------*- C++ -*-===//
//
// A teacher set (docs/teacher.md) holds, for every policy decision of a
// corpus compiled with the decisions `mlgo tune` found for it, the site's
// name, the features the model saw there, LLVM's, the model's and the
// tuned answer, whether a kept move of the search put the tuned answer
// there against the model's, and the bytes that move saved. `mlgo teacher
// build` writes it (mlgo/Teacher/Teacher.h), `mlgo teacher train` learns from
// it. It is text, meant to be diffed; its last line carries a fingerprint
// of every byte before it.
//
// Format, version 1. Lines end with '\n' (a '\r' before it is an error);
// fields are separated by exactly one space; names (program, module,
// caller, callee) are written as decisions files write them (%XX for bytes
// up to 0x20, 0x7f and above, '%' and '*'; docs/decisions.md):
//
//   # mlgo teacher set (format: docs/teacher.md)
//   mlgo-teacher 1
//   meta <key> <value>          any number, before 'features'; the value
//                               is the rest of the line
//   features <F> <name>...      the F feature names, in log order (LLVM's
//                               inlining features, mlgo's extra ones and
//                               inlining_default; inlining_decision is not
//                               a feature)
//   site <program> <module> <caller> <callee> <ordinal> <llvm> <model>
//        <tuned> <moved> <saved> <v1> ... <vF>
//                               one per policy decision, in corpus module
//                               order and, within a module, decision order;
//                               <program> is the package (tuned with
//                               --per-package) or '*' (the corpus is one
//                               program); <module> the decisions file's
//                               module key; <ordinal>, <saved> and each
//                               <v> decimal integers (<v> int64, <saved>
//                               0 or more); <llvm>, <model>, <tuned>,
//                               <moved> each 0 or 1
//   end <sites> <md5>           the number of site lines, and the MD5 (32
//                               lower-case hex digits) of every byte of the
//                               file before this line: the set's
//                               fingerprint
//
// Comment lines (first byte '#') may stand anywhere before 'end'; nothing
// follows it. The label a student learns (getTarget) is the tuned answer
// where the site was moved, LLVM's elsewhere; its weight 1 + saved.
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_TEACHER_TEACHERSET_H
#define MLGO_TEACHER_TEACHERSET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlgo {

/// One policy decision of the tuned compile.
struct TeacherSite {
  /// The package tuned as its own program, or "*" for the one program.
  std::string Program = "*";
  std::string Module, Caller, Callee;
  uint32_t Ordinal = 0;
  /// LLVM's heuristic's answer (inlining_default), the model's (its logit
  /// above 0), and the answer the tuned compile applied.
  bool Llvm = false, ModelAnswer = false, Tuned = false;
  /// A decisions file entry fixed the site to an answer other than the
  /// model's: the search moved it.
  bool Moved = false;
  /// The bytes of the linked program the kept move that fixed the site
  /// saved (0: not moved, or no kept move names it).
  uint64_t Saved = 0;
  /// The features, one per TeacherSet::FeatureNames.
  std::vector<int64_t> Features;

  /// The answer a student learns: the tuned one where the search moved the
  /// site, LLVM's elsewhere.
  bool getTarget() const { return Moved ? Tuned : Llvm; }
  /// Its weight: 1, and the bytes its move saved.
  double getWeight() const { return 1.0 + double(Saved); }
};

struct TeacherSet {
  /// (key, value) in file order.
  std::vector<std::pair<std::string, std::string>> Meta;
  std::vector<std::string> FeatureNames;
  std::vector<TeacherSite> Sites;

  /// The file's bytes, its end line and fingerprint included.
  std::string print() const;
  /// The MD5 of print()'s bytes before the end line.
  std::string getFingerprint() const;
  /// The value of metadata \p Key, or "".
  llvm::StringRef getMeta(llvm::StringRef Key) const;

  /// Parses \p Text; errors are "NAME:LINE: what is wrong", a cut file's
  /// "NAME: no end line after N sites: the file was cut short", and a
  /// fingerprint that does not match the bytes "NAME:LINE: the end line's
  /// fingerprint X is not the MD5 of the file's bytes, Y (an edit?)".
  static llvm::Expected<TeacherSet> parse(llvm::StringRef Text,
                                          llvm::StringRef Name);
  static llvm::Expected<TeacherSet> load(llvm::StringRef Path);
};

} // namespace mlgo

#endif // MLGO_TEACHER_TEACHERSET_H
