//===- mlgo/Corpus/CodeSize.h - mlgo's measure of native code ----*- C++
//-*-===//
//
// How mlgo measures native code size, in one place: the trainer's reward,
// `mlgo eval` and `mlgo corpus check` all count the same bytes.
//
// The size of an object is the total size of its executable sections
// (SHF_EXECINSTR on ELF): .text, .text.*, code a source placed in a section
// of its own (lmdb's text_env) and, in a linked binary, .init, .fini and the
// PLT.
//
// Per-object sizes overstate what inlining saves in C++. clang emits every
// inline function, template instance and other linkonce_odr function that
// a module still calls in a section of its own, in a COMDAT section group
// (SHF_GROUP) named after the function, and the linker keeps one copy of
// each group per program. A module that inlines all its calls of such a
// function drops its copy, and its object shrinks by the function's size -
// but the program shrinks only if every other object drops it too. So
// CodeSize also lists an object's grouped code by section name, and
// getCodeOnce() adds up objects the way linking them together does: each
// grouped section once, the first object's copy (a linker keeps the first
// definition it sees).
//
// This header needs no LLVM library; the measuring functions need LLVM's
// Object library (lib/Corpus/CodeSize.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLGO_CORPUS_CODESIZE_H
#define MLGO_CORPUS_CODESIZE_H

#include "mlgo/Support/CodeOnce.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llvm::object {
class ObjectFile;
} // namespace llvm::object

namespace mlgo {

/// The code of one object.
struct CodeSize {
  /// Every executable section (getTextSize).
  uint64_t Total = 0;
  /// The executable sections in a section group: (section name, bytes),
  /// sorted by name, one entry per name (sizes of equal names added).
  std::vector<std::pair<std::string, uint64_t>> Grouped;

  /// The bytes of Grouped.
  uint64_t getGroupedTotal() const;
  /// The bytes outside any group: Total - getGroupedTotal().
  uint64_t getUngroupedTotal() const { return Total - getGroupedTotal(); }
};

/// The code of \p Objects linked together: every object's ungrouped code,
/// plus each grouped section name once, with the size of the first object
/// (in the given order) that has it. getCodeOnce(Objects) over other keys
/// (mlgo/Support/CodeOnce.h) is the same rule.
uint64_t getCodeOnce(llvm::ArrayRef<const CodeSize *> Objects);

/// mlgo's one measure of native code size: the total size of the object's
/// executable sections.
uint64_t getTextSize(const llvm::object::ObjectFile &Obj);
/// The same, for the object file at \p ObjectPath; errors name the file.
llvm::Expected<uint64_t> getTextSize(llvm::StringRef ObjectPath);
/// Same, for an object in memory; errors name its buffer identifier.
llvm::Expected<uint64_t> getTextSize(llvm::MemoryBufferRef Object);

/// getTextSize with the grouped sections listed (ELF; other formats have
/// no groups listed).
CodeSize getCodeSize(const llvm::object::ObjectFile &Obj);
/// Same, for an object in memory; errors name its buffer identifier.
llvm::Expected<CodeSize> getCodeSize(llvm::MemoryBufferRef Object);

/// The size of every function symbol defined in an executable section of
/// \p Object (ELF st_size: the function's own bytes, without the padding
/// before the next one), as (symbol name, bytes), sorted by name. What
/// IR2Native learns to predict (docs/ir2native.md).
llvm::Expected<std::vector<std::pair<std::string, uint64_t>>>
getFunctionSizes(llvm::MemoryBufferRef Object);

} // namespace mlgo

#endif // MLGO_CORPUS_CODESIZE_H
